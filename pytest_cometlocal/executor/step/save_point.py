"""A save point passed: the context's storage state is kept under its name.

Here, not beside the files (``executor.browser.storage_states``), because
saving asks the page for its state under the watchdog and the journal records the
save in the run's trace: it is part of the step, the files are plain data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from pytest_cometlocal.executor.browser.storage_states import StorageStates, mask_values, state_values
from pytest_cometlocal.executor.page.watchdog import bound
from pytest_cometlocal.executor.runfolder.folder import RunFolder

if TYPE_CHECKING:
    from playwright.sync_api import Page

SAVE_MS = 15_000  # asking the context for its cookies and local storage


def save_state(page: Page, run: RunFolder, storage: StorageStates, name: str,
               made_under: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Keep the context's cookies and local storage under ``name``; returns what the trace records.

    The values are masked in this run's artifacts from now on; the trace
    records the name, the file's hash and counts, never the values. A failure
    is recorded; a plan that starts from this state then says it is missing.
    """
    try:
        with bound("storage_state", SAVE_MS, isolated=True):
            state = page.context.storage_state()
        mask_values(run.redactor, state_values(state))
        info = storage.save(name, state, made_under)  # (v1.2) under the run's browser settings
    except Exception as exc:
        info = {"name": name, "error": (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]}
    return info
