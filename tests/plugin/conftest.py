"""Inner pytest runs skip plugins they do not need, which makes them several times faster."""

import pytest


@pytest.fixture(autouse=True)
def _lean_inner_runs(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # Requested after pytester, which clears PYTEST_ADDOPTS when it is created.
    # pytest-playwright is off too: loaded again inside an in-process run, its
    # autouse soft-assertion fixture refuses to nest. test_coexistence.py turns it on.
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest -p no:cacheprovider --assert=plain -p no:playwright")
