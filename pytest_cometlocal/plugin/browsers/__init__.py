"""(v1.4) Plans on more than one browser: the matrix and its item names (``matrix``), one manager per
browser on one Playwright (``managers``), and the summary of the plans a browser did not run
(``summary``). The plugin's modules use them; the executor knows nothing of the matrix (a run is on
the browser it is given).
"""
