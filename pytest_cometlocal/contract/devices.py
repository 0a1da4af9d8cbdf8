"""(v1.2) Playwright's device registry (``playwright.devices``), read once per process.

``browser.device`` names an entry of it. The registry ships with the
installed Playwright (its driver sends it when Playwright starts), so it is
read offline, through the public API, in a child Python: validation runs
where no Playwright is started (collection, ``cometlocal validate``), and a
Playwright cannot be started inside a running one. It takes under a second
and only happens when a plan names a device.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import lru_cache
from typing import Any

from pytest_cometlocal.contract.errors import CometLocalError

_READ = (
    "import json, sys\n"
    "from playwright.sync_api import sync_playwright\n"
    "with sync_playwright() as p:\n"
    "    json.dump(p.devices, sys.stdout)\n"
)
READ_TIMEOUT_S = 60


class DeviceRegistryUnavailable(CometLocalError):
    """The installed Playwright could not tell its devices (a broken install)."""


@lru_cache(maxsize=1)
def device_registry() -> dict[str, dict[str, Any]]:
    """name -> descriptor (new_context's keyword arguments: user_agent, viewport, is_mobile, ...).

    A child that fails is asked once more: on a loaded machine Playwright's driver can lose its
    connection while it starts, and a plan should not be called invalid for that."""
    last = "no output"
    for _ in range(2):
        try:
            done = subprocess.run([sys.executable, "-c", _READ], capture_output=True, text=True,
                                  timeout=READ_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise DeviceRegistryUnavailable(f"Playwright's device registry could not be read: {exc}") from None
        if done.returncode == 0:
            return json.loads(done.stdout)
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
    raise DeviceRegistryUnavailable(f"Playwright's device registry could not be read: {last}")
