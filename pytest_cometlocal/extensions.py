"""What an extension imports (docs/extensions.md): the public names, and nothing of the executor.

A conftest.py, or an installed package's module named by the entry-point group
``cometlocal.extensions``, implements ``pytest_cometlocal_register_kinds(registry)`` and registers
action and condition kinds on the ``KindRegistry``; their callables get an ``ExtensionContext`` and
fail their step with ``StepFailed`` (any other exception is EXTENSION_FAILED).
"""

from __future__ import annotations

from pytest_cometlocal.contract.extensions.failures import EXTENSION_CODES, StepFailed
from pytest_cometlocal.contract.extensions.registry import KindRegistry, Origin
from pytest_cometlocal.executor.extensions.context import ExtensionContext

__all__ = ["EXTENSION_CODES", "ExtensionContext", "KindRegistry", "Origin", "StepFailed"]
