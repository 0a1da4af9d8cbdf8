"""``--cometlocal-var NAME=VALUE`` and ini ``cometlocal_vars``: vars for every plan of the run.

Registered from ``options.pytest_addoption`` and read once into ``Settings.run_vars``;
the contract layer (contract/load/run_vars.py) parses them and validation layers them
under the plan's vars and its parametrize row. A malformed entry stops the session
with one usage line naming the option, before collection.
"""

from __future__ import annotations

import pytest

from pytest_cometlocal.contract.errors import RunVarError
from pytest_cometlocal.contract.load.run_vars import RunVar, layered, parse_run_vars

OPTION = "--cometlocal-var"
INI = "cometlocal_vars"


def add_var_options(group: pytest.OptionGroup, parser: pytest.Parser) -> None:
    group.addoption(
        OPTION, dest="cometlocal_vars", action="append", default=[], metavar="NAME=VALUE",
        help="set ${vars.NAME} for every plan (repeatable); a plan's own vars and its parametrize row win over it, "
        "and it wins over ini cometlocal_vars",
    )
    parser.addini(INI, "NAME=VALUE vars for every plan, one per line (--cometlocal-var wins)", type="linelist",
                  default=[])


def run_vars(config: pytest.Config) -> dict[str, RunVar]:
    """The ini file's vars, then the command line's, by name; a bad entry is a usage error naming its option."""
    try:
        ini = parse_run_vars([e for e in config.getini(INI) if e.strip()], "ini", f"ini {INI}")
        cli = parse_run_vars(config.getoption("cometlocal_vars", None) or [], "cli", OPTION)
    except RunVarError as exc:
        raise pytest.UsageError(f"cometlocal: {exc}") from None
    return layered(ini, cli)
