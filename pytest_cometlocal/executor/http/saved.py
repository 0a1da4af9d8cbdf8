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

(v1.3) A value keeps the JSON type it was saved with (a pointer's JSON value,
the status as a number, a header or a text as a string). ``${saved.NAME}``
written as a WHOLE string where any JSON value is taken (a field typed
``Any``: a request's ``json`` body and everything inside it, the ``equals``
of ``response_json`` / ``storage_item``; and the number keys, a model's
``TYPED_SAVED`` fields) becomes that value: a saved number is sent and
compared as a number. Inside a longer string, or in a field that takes
text, it is the value's text, as in v1.2.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from pytest_cometlocal.contract.json_values import as_text
from pytest_cometlocal.contract.load.interpolation import SAVED_REFERENCE, SECRET_REFERENCE


class SavedValues:
    """NAME -> text, and NAME -> the JSON value (``typed``), for the rest of the item."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.typed: dict[str, Any] = {}

    def __bool__(self) -> bool:
        return bool(self.values)

    @staticmethod
    def refused(values: dict[str, Any]) -> str | None:
        """The name of a value that holds a secret reference (never saved), or None."""
        return next((name for name, value in values.items() if SECRET_REFERENCE.search(as_text(value))), None)

    def keep(self, values: dict[str, Any]) -> None:
        """``values``: NAME -> the JSON value saved (a string for a text)."""
        self.values.update({name: as_text(value) for name, value in values.items()})
        self.typed.update(values)

    def apply(self, spec: Any) -> Any:
        """``spec`` with the saved values in its strings; the same object when nothing changes."""
        if not self.values:
            return spec
        return self._walk(spec)

    def _text(self, text: str, typed: bool = False) -> Any:
        if "${saved." not in text:
            return text
        if typed and (whole := SAVED_REFERENCE.fullmatch(text)) and whole.group(1) in self.typed:
            return self.typed[whole.group(1)]  # (v1.3) the value itself, with its JSON type
        return SAVED_REFERENCE.sub(lambda m: self.values.get(m.group(1), m.group(0)), text)

    def _walk(self, value: Any, typed: bool = False) -> Any:
        """``typed``: ``value`` sits where any JSON value is taken (see the module's docstring)."""
        if isinstance(value, str):
            return self._text(value, typed)
        if isinstance(value, BaseModel):
            update = {}
            fields = type(value).model_fields
            typed_fields = getattr(type(value), "TYPED_SAVED", frozenset())
            for name, info in fields.items():
                old = getattr(value, name)
                new = self._walk(old, info.annotation is Any or name in typed_fields)
                if new is not old:
                    update[name] = new
            return value.model_copy(update=update) if update else value
        if isinstance(value, list):
            items = [self._walk(v, typed) for v in value]
            return items if any(a is not b for a, b in zip(items, value)) else value
        if isinstance(value, dict):
            mapped = {k: self._walk(v, typed) for k, v in value.items()}
            return mapped if any(mapped[k] is not value[k] for k in value) else value
        return value
