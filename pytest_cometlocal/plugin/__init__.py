"""The pytest layer (entry point ``pytest11: cometlocal``): thin by design.

It reads options, turns plan files into items, provides the fixtures a plan
item uses and turns executor outcomes into pytest outcomes, markers and
report properties. Contract rules live in ``contract/``; running lives in
``executor/``.
"""

from .collection import PlanFile, PlanItem, pytest_collect_file
from .fixtures import cometlocal_runner
from .options import pytest_addoption, pytest_configure

__all__ = [
    "PlanFile",
    "PlanItem",
    "cometlocal_runner",
    "pytest_addoption",
    "pytest_collect_file",
    "pytest_configure",
]
