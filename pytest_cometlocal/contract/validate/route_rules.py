"""(v1.2) Rules of ``routes:`` that need more than one key or the disk: ROUTE and PATH_CONFINEMENT.

A route answers (``respond``) or aborts (``abort: true``), never both and never
neither, and its answer has at most one body kind (rule ROUTE). A ``file`` is
confined like ``file_ref``: relative to the folder of the file that declares
the route (the plan's, or the suite config's for a suite route), no absolute
path, no ``..``, no symlink out (rule PATH_CONFINEMENT, ``confine``'s own
messages). It is read here, once, and held to MAX_ROUTE_FILE_BYTES, so a run
never meets a missing or huge stub file; the bytes travel with the ValidPlan.
The regex of ``{pattern: REGEX}`` is contract/patterns.py's (rule REGEX).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from pytest_cometlocal.contract.errors import ConfinementError
from pytest_cometlocal.contract.load.paths import confine
from pytest_cometlocal.contract.model.problems import Loc
from pytest_cometlocal.contract.model.routes import MAX_ROUTE_FILE_BYTES, Route

Report = Callable[[Loc, str, str], None]


def check_routes(routes: list[Route] | None, add: Report, folder_of: Callable[[int], tuple[Path, str]]) -> dict[int, bytes]:
    """Report each bad route at its key; return the bytes of every route ``file`` that could be read.

    ``folder_of(i)``: the folder route ``i``'s file is relative to, and how a message names it.
    """
    files: dict[int, bytes] = {}
    for i, route in enumerate(routes or ()):
        loc: Loc = ("routes", i)
        if route.respond is not None and route.abort:
            add(loc + ("abort",), "a route either responds or aborts, not both (remove respond or abort)", "ROUTE")
        elif route.respond is None and not route.abort:
            add(loc, "a route needs respond: {status, json | body | file, headers} or abort: true", "ROUTE")
        if route.respond is None:
            continue
        given = route.respond.given()
        if len(given) > 1:
            add(loc + ("respond", given[1]), f"a route's answer has at most one of json, body, file "
                f"(got {', '.join(given)})", "ROUTE")
        if route.respond.file is not None:
            folder, named = folder_of(i)
            read = _read(route.respond.file, folder, named, loc + ("respond", "file"), add)
            if read is not None:
                files[i] = read
    return files


def _read(relative: str, folder: Path, named: str, loc: Loc, add: Report) -> bytes | None:
    try:
        path = confine(relative, folder)
    except ConfinementError as exc:
        add(loc, f"{exc} ({named})", "PATH_CONFINEMENT")
        return None
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise OSError(21, "not a file")
        if size > MAX_ROUTE_FILE_BYTES:
            add(loc, f"'{relative}' is {size} bytes; a route's file holds at most {MAX_ROUTE_FILE_BYTES}", "ROUTE")
            return None
        data = path.read_bytes()
    except OSError as exc:
        add(loc, f"'{relative}' cannot be read ({named}): {exc.strerror or type(exc).__name__}", "ROUTE")
        return None
    if len(data) > MAX_ROUTE_FILE_BYTES:  # it grew between stat and read
        add(loc, f"'{relative}' holds more than {MAX_ROUTE_FILE_BYTES} bytes", "ROUTE")
        return None
    return data
