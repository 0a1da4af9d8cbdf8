"""A real admin application for tests: Django's admin, served on 127.0.0.1 in a subprocess.

``tests/django_admin_site.py`` is the server (settings in code, sqlite in a
temporary folder, a superuser ``admin``, migrated, and a ``library`` app with a
``Document(title, file)`` model for uploads). ``django_admin`` starts
it and gives its base URL; the server also ends itself after its own hard
limit, so a test that dies cannot leave it running.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Iterator

SITE = Path(__file__).with_name("django_admin_site.py")
START_LIMIT_S = 60  # migrate and start
PASSWORD = "a-test-password-for-127.0.0.1"


@contextlib.contextmanager
def django_admin(folder: Path, password: str = PASSWORD, hard_limit_s: float | None = None) -> Iterator[str]:
    """The admin's base URL; ``hard_limit_s``: when the server ends itself (default: the site's 300 s)."""
    limit = [] if hard_limit_s is None else [str(hard_limit_s)]
    proc = subprocess.Popen([sys.executable, str(SITE), str(folder), password, *limit], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        ready, _, _ = select.select([proc.stdout], [], [], START_LIMIT_S)
        line = proc.stdout.readline().strip() if ready else ""
        if not line.isdigit():
            proc.kill()
            raise AssertionError(f"the Django admin did not start within {START_LIMIT_S} s: {proc.stderr.read()[-2000:]}")
        yield f"http://127.0.0.1:{line}"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
