"""(v1.2) What a request step's ``save:`` takes from its response: pure.

Each entry is NAME -> ``status``, ``header:NAME`` or a JSON Pointer into the
body (rule SAVE_POINTER, contract/validate/request_rules.py,
checks the form at load time). A value is saved as
text (a number or an object as compact JSON), as ``${saved.NAME}`` puts it
into a string. One that is not there is the failed condition a check on it
would be: ``response_json`` for a pointer, ``response_header`` for a header.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pytest_cometlocal.contract import json_values
from pytest_cometlocal.contract.validate.request_rules import HEADER_PREFIX



@dataclass(frozen=True)
class Missing:
    """A save source the response does not have: the condition kind and args that fail."""

    name: str
    kind: str
    args: dict[str, Any]
    problem: str


def take(response: Any, save: dict[str, str]) -> tuple[dict[str, str], Missing | None]:
    """The saved values (NAME -> text), or the first source that names nothing."""
    values: dict[str, str] = {}
    for name, source in save.items():
        if source == "status":
            values[name] = str(response.status)
        elif source.startswith(HEADER_PREFIX):
            header = source[len(HEADER_PREFIX):]
            value = response.header(header)
            if value is None:
                return values, Missing(name, "response_header", {"name": header}, "no such header")
            values[name] = value
        else:
            document = response.json()
            value = json_values.MISSING if document is json_values.MISSING else json_values.resolve(document, source)
            if value is json_values.MISSING:
                problem = "the body is not JSON" if document is json_values.MISSING else "the pointer names nothing in the body"
                return values, Missing(name, "response_json", {"pointer": source}, problem)
            values[name] = json_values.as_text(value)
    return values, None
