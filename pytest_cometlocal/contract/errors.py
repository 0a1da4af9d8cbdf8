"""The root of every exception pytest-cometlocal raises, and the contract layer's own.

Each layer keeps its exceptions in one ``errors`` module whose docstring draws its
part of the tree; all of them derive from :class:`CometLocalError`, so a caller that
embeds the library can catch everything it raises with one ``except``::

    CometLocalError
    └── (each layer's errors module adds its branch; see their docstrings)
"""

from __future__ import annotations

__all__ = ["CometLocalError"]


class CometLocalError(Exception):
    """Anything pytest-cometlocal raises on purpose (never a bare Exception)."""
