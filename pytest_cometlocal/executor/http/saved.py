"""(v1.2) Saved values: what steps saved in this item, and ``${saved.NAME}`` put into later steps.

A ``request`` step's ``save:`` and an ``assert`` / ``wait_for``'s
``save_text:`` store values here once the step's postconditions hold
(checkpoints.py). Before a step runs, ``apply`` gives it with every
``${saved.NAME}`` in its string values replaced (its URL, headers, body, a
fill value, a condition's text); a plan that saves nothing pays one truth
test per step. Rule SAVED makes sure at load time that an earlier step saves
each name a plan uses; a name still unknown at run time (a proposal's) stays
as written. A saved value cannot hold a ``${secrets.NAME}`` reference: it is
page or server data, and a secret is resolved only where the plan wrote one.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from pytest_cometlocal.contract.load.interpolation import SAVED_REFERENCE, SECRET_REFERENCE


class SavedValues:
    """NAME -> text, for the rest of the item."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self.values)

    @staticmethod
    def refused(values: dict[str, str]) -> str | None:
        """The name of a value that holds a secret reference (never saved), or None."""
        return next((name for name, value in values.items() if SECRET_REFERENCE.search(value)), None)

    def keep(self, values: dict[str, str]) -> None:
        self.values.update(values)

    def apply(self, spec: Any) -> Any:
        """``spec`` with the saved values in its strings; the same object when nothing changes."""
        if not self.values:
            return spec
        return self._walk(spec)

    def _text(self, text: str) -> str:
        if "${saved." not in text:
            return text
        return SAVED_REFERENCE.sub(lambda m: self.values.get(m.group(1), m.group(0)), text)

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._text(value)
        if isinstance(value, BaseModel):
            update = {}
            for name in type(value).model_fields:
                old = getattr(value, name)
                new = self._walk(old)
                if new is not old:
                    update[name] = new
            return value.model_copy(update=update) if update else value
        if isinstance(value, list):
            items = [self._walk(v) for v in value]
            return items if any(a is not b for a, b in zip(items, value)) else value
        if isinstance(value, dict):
            mapped = {k: self._walk(v) for k, v in value.items()}
            return mapped if any(mapped[k] is not value[k] for k in value) else value
        return value
