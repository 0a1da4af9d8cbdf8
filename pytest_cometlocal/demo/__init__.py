"""A small demo web portal (standard library only) that example plans can run against.

``DemoPortal`` is imported lazily so that ``python -m pytest_cometlocal.demo.portal``
does not import the module twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_cometlocal.demo.portal import DemoPortal, main

__all__ = ["DemoPortal", "main"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from pytest_cometlocal.demo import portal

        return getattr(portal, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
