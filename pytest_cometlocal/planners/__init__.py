"""Planners that write plans: a recording imported from Playwright's codegen.

A planner only proposes; what it writes is a plan file that the validator and
the executor judge like any other. Pure Python, like the contract layer: no
browser, no pytest.
"""
