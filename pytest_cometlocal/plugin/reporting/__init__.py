"""What a plan item tells the people who read its result.

Its failure text and summaries (``report``), the typed failure pytest shows
(``errors``), JUnit properties, Allure's steps and attachments (``allure_report``)
and Playwright's own trace (``pwtrace``). Nothing here decides an outcome: it
reads the run the executor left behind and says it in each reader's format.
"""
