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
Plain data and files: the step that saves one (``executor.step.save_point``)
is the one that talks to the page.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.executor.browser.context_failure import STATE_FILE
from pytest_cometlocal.executor.errors import ContextRefused, Refusal, first_line
from pytest_cometlocal.executor.runfolder.redactor import Redactor

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


def describe(name: str, data: bytes, state: dict[str, Any], made_under: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What the trace and manifest say about a state: never its values; (v1.2) the browser
    settings it was made under, when it was made under any."""
    return {
        "name": name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "cookies": len(state.get("cookies", []) or []),
        "origins": len(state.get("origins", []) or []),
        **({"made_under": dict(made_under)} if made_under else {}),
    }


def state_key(name: str, made_under: Mapping[str, str] | None = None) -> str:
    """(v1.2) Which file holds state ``name`` made under these settings (``STATE_SETTINGS``).

    The state does not hold the settings, so one made under other ones is
    another file: ``NAME`` made under none, ``NAME@<hash>`` under some.
    """
    if not made_under:
        return name
    text = json.dumps(dict(made_under), sort_keys=True)
    return f"{name}@{hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"


class StorageStates:
    """The storage-state files of one process: ``<output>/.storage-state/<worker>/<NAME>.json``."""

    def __init__(self, output: Path, worker: str = "main", clear: bool = True):
        self.dir = output / STORAGE_DIR / worker
        if clear and self.dir.exists():
            shutil.rmtree(self.dir, ignore_errors=True)
        self.saved: dict[str, dict[str, Any]] = {}  # key -> description, for what this process saved

    def path(self, key: str) -> Path:
        """The file of a state, by its ``state_key`` (its name, when made under no settings)."""
        return self.dir / f"{key}.json"

    def exists(self, key: str) -> bool:
        return self.path(key).is_file()

    def save(self, name: str, state: dict[str, Any], made_under: Mapping[str, str] | None = None) -> dict[str, Any]:
        """Write the state (owner-only, atomically) and return its description."""
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o700)
        data = json.dumps(state, ensure_ascii=False, sort_keys=True).encode("utf-8")
        key = state_key(name, made_under)
        target = self.path(key)
        tmp = target.with_suffix(".json.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
        info = describe(name, data, state, made_under)
        self.saved[key] = info
        return info

    def in_use(self, name: str, made_under: Mapping[str, str] | None = None) -> StateInUse:
        """The saved state ``name`` made under ``made_under``, for a context to start from."""
        path, info, values = self.load(name, made_under)
        return StateInUse(str(path), info, values)

    def load(self, name: str, made_under: Mapping[str, str] | None = None) -> tuple[Path, dict[str, Any], list[str]]:
        """(file, description, values to mask) of a saved state."""
        path = self.path(state_key(name, made_under))
        try:
            data = path.read_bytes()
            state = json.loads(data)
            if not isinstance(state, dict):
                raise ValueError(f"a storage state is a JSON object, not {type(state).__name__}")
            values, info = state_values(state), describe(name, data, state, made_under)
        except (OSError, ValueError, AttributeError, TypeError) as exc:  # gone, unreadable, not JSON: typed, never a traceback
            raise ContextRefused(Refusal(ErrorCode.INVALID_ACTIONSPEC, STATE_FILE,
                                         f"storage state '{name}' cannot be loaded from {path}: {first_line(exc)}",
                                         "storage_state", "STORAGE_STATE")) from None
        return path, info, values


@dataclass(frozen=True)
class StateInUse:
    """A saved state a context starts from: its file, its description and the values to mask."""

    path: str
    info: dict[str, Any]
    values: list[str]


def mask_values(redactor: Redactor, values: Iterable[str]) -> None:
    """Add storage-state values to a run's redactor (masked from then on)."""
    values = [v for v in values if v]
    if values:
        redactor.add(values)
