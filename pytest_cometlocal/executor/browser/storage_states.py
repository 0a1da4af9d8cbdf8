"""Saved browser storage states: a suite logs in once per worker.

A plan or step group with ``save_storage_state: NAME`` has its context's
storage state (cookies, local storage) saved after the save point passes;
plans with ``storage_state: NAME`` start their context from it. The files
live under the output folder, one folder per process (xdist worker), readable
by the owner only, and are cleared when a session starts, so a state is never
carried over from an earlier session. They hold session tokens, so they are
never evidence, never attached to a report, and their values of 8 characters
or more are masked (as secrets are) in every artifact of the runs that save
or use them; the run manifest records only the name and the file's sha256.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterable

STORAGE_DIR = ".storage-state"
MIN_MASKED_LENGTH = 8


def state_values(state: dict[str, Any]) -> list[str]:
    """The values in a storage state that are worth masking (cookie and local-storage values)."""
    values: list[str] = []
    for cookie in state.get("cookies", []) or []:
        value = str(cookie.get("value", ""))
        if len(value) >= MIN_MASKED_LENGTH:
            values.append(value)
    for origin in state.get("origins", []) or []:
        for entry in origin.get("localStorage", []) or []:
            value = str(entry.get("value", ""))
            if len(value) >= MIN_MASKED_LENGTH:
                values.append(value)
    return values


def describe(name: str, data: bytes, state: dict[str, Any]) -> dict[str, Any]:
    """What the trace and manifest say about a state: never its values."""
    return {
        "name": name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "cookies": len(state.get("cookies", []) or []),
        "origins": len(state.get("origins", []) or []),
    }


class StorageStates:
    """The storage-state files of one process: ``<output>/.storage-state/<worker>/<NAME>.json``."""

    def __init__(self, output: Path, worker: str = "main", clear: bool = True):
        self.dir = output / STORAGE_DIR / worker
        if clear and self.dir.exists():
            shutil.rmtree(self.dir, ignore_errors=True)
        self.saved: dict[str, dict[str, Any]] = {}  # name -> description, for what this process saved

    def path(self, name: str) -> Path:
        return self.dir / f"{name}.json"

    def exists(self, name: str) -> bool:
        return self.path(name).is_file()

    def save(self, name: str, state: dict[str, Any]) -> dict[str, Any]:
        """Write the state (owner-only, atomically) and return its description."""
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o700)
        data = json.dumps(state, ensure_ascii=False, sort_keys=True).encode("utf-8")
        target = self.path(name)
        tmp = target.with_suffix(".json.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        info = describe(name, data, state)
        self.saved[name] = info
        return info

    def load(self, name: str) -> tuple[Path, dict[str, Any], list[str]]:
        """(file, description, values to mask) of a saved state."""
        path = self.path(name)
        data = path.read_bytes()
        state = json.loads(data)
        return path, describe(name, data, state), state_values(state)


def mask_values(redactor: Any, values: Iterable[str]) -> None:
    """Add storage-state values to a run's redactor (masked from then on)."""
    values = [v for v in values if v]
    if values:
        redactor.add(values)


def save_state(page: Any, run: Any, storage: "StorageStates", name: str) -> dict[str, Any]:
    """A save point passed: keep the context's cookies and local storage under ``name``.

    The values are masked in this run's artifacts from now on. Returns what
    the trace records: the name, the file's hash and counts, never the values;
    or the error (a plan that starts from this state then says it is missing).
    """
    from pytest_cometlocal.executor.page.watchdog import bound

    try:
        with bound("storage_state", 15_000, isolated=True):
            state = page.context.storage_state()
        mask_values(run.redactor, state_values(state))
        info = storage.save(name, state)
    except Exception as exc:
        info = {"name": name, "error": (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]}
    return info
