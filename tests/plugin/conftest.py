"""Every test here runs inner pytest sessions: lean ones (tests/conftest.py's ``lean_inner_runs``)."""

import pytest


@pytest.fixture(autouse=True)
def _lean_inner_runs(lean_inner_runs: None) -> None:
    return None
