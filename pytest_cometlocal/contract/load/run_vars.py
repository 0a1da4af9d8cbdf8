"""Per-run vars: ``NAME=VALUE`` given for every plan of a run (``--cometlocal-var``, ini
``cometlocal_vars``, ``cometlocal validate --var``).

One plan set can then run against several deployments of one application
(``--cometlocal-var impl=react``) without a CSV row per deployment. A run var is
a default: the plan's own ``vars`` win over it, and a parametrize row wins over
both; it wins over the suite config's ``vars``, the lowest layer. Values are strings, as typed; like any var they are written where they are
used (a password belongs in ``secrets``, read from the environment and masked).
Pure: the caller turns a RunVarError into its own usage error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from pytest_cometlocal.contract.errors import RunVarError
from pytest_cometlocal.contract.model.plan import VAR_NAME, VAR_NAME_PATTERN


@dataclass(frozen=True)
class RunVar:
    value: str
    source: str  # "cli" (the command line) or "ini"


def parse_run_vars(entries: Iterable[str], source: str, where: str) -> dict[str, RunVar]:
    """``NAME=VALUE`` entries as vars (a later one of the same name wins); ``where`` names the option."""
    found: dict[str, RunVar] = {}
    for entry in entries:
        name, sep, value = entry.partition("=")
        name = name.strip()
        if not sep:
            raise RunVarError(f"{where}: {entry!r} is not NAME=VALUE")
        if not VAR_NAME.fullmatch(name):
            raise RunVarError(f"{where}: {name!r} is not a var name ({VAR_NAME_PATTERN})")
        if "${" in value:
            raise RunVarError(f"{where}: {name}: var values cannot contain ${{...}} references")
        found[name] = RunVar(value, source)
    return found


def layered(ini: Mapping[str, RunVar], cli: Mapping[str, RunVar]) -> dict[str, RunVar]:
    """The ini file's vars, then the command line's (which win, name by name)."""
    return {**ini, **cli}
