"""``cometlocal fix``: run folders in, one patch out; the CLI's thin entry calls :func:`run_fix`.

Exit codes: 0 when every failed run read got a fix, 1 when some got none
(listed in the patch header and on standard error, one line each), 2 for a
usage error (a path that names no run folder). The patch goes to standard
output or ``-o``; nothing in the suite is ever written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence, TextIO

from pytest_cometlocal.fixing.locate import SourceFiles
from pytest_cometlocal.fixing.proposals import gather, patch_text, top_fixes
from pytest_cometlocal.fixing.verify import VerifyOptions, verify_fixes

__all__ = ["FixRequest", "run_fix"]


@dataclass(frozen=True)
class FixRequest:
    runs: Sequence[Path]              # the run folders (already found from the paths given)
    root: Path
    output: Path | None = None        # the patch file; None: standard output
    verify: VerifyOptions | None = None


def run_fix(request: FixRequest, err: TextIO | None = None) -> int:
    def log(line: str) -> None:
        print(f"cometlocal fix: {line}", file=err or sys.stderr, flush=True)

    files = SourceFiles(request.root)
    gathered = gather(request.runs, files)
    unfixed = list(gathered.unfixed)
    if request.verify is not None and gathered.located:
        fixes, more = verify_fixes(gathered.located, files, request.verify, log)
        unfixed += more
    else:
        fixes = top_fixes(gathered.located)
    text = patch_text(fixes, unfixed, files, request.verify is not None)
    if request.output is not None:
        request.output.write_text(text, encoding="utf-8", newline="")
    else:
        sys.stdout.write(text)
    for u in unfixed:
        log(f"no {'verified ' if request.verify else ''}fix: {u.label}: {u.reason}")
    where = f" -> {request.output}" if request.output else ""
    expected = f", {gathered.expected} failed as their plan expects" if gathered.expected else ""
    log(f"{len(request.runs)} runs ({gathered.passed} did not fail{expected}): {len(fixes)} fixes, "
        f"{len(unfixed)} without{where}")
    return 1 if unfixed else 0
