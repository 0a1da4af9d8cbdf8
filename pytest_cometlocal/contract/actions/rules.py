"""(v1.3) The rules of the v1.3 actions that need more than the model's types (docs/validation-rules.md).

Which kinds take each new key is rule INPUTS' table (contract/validate/step/inputs.py ``_KEY_KINDS``); here:

- FORCE (the U5 family): ``force: true`` skips Playwright's actionability checks (visible, enabled,
  stable, receives the pointer), which are what keeps a step from acting on an element the user could
  not act on. A critical step is the one whose side effect matters most: it is never forced.
- EVENT: ``detail`` takes only the init keys of its event's family (a key event has no ``clientX``, a
  plain ``submit`` no ``key``): Playwright builds the event from the event's name and the DOM drops
  an init key its constructor does not know without a word, so a plan that writes one would check
  something that never happened. A ``key``/``code`` holds no ``${...}`` reference (text goes through fill).
- INPUTS: a list of values is select's alone; fill's ``delay_ms`` times the value's length must fit in
  half the step's ``timeout_ms`` (the other half is for the field to become actionable). A value that
  holds a ``${secrets...}`` or ``${saved...}`` is of unknown length here: the executor checks it.
"""

from __future__ import annotations

from typing import Callable

from pytest_cometlocal.contract.model.actionspec import ActionSpec
from pytest_cometlocal.contract.model.input_events import EVENT_FAMILIES, EVENT_FAMILY
from pytest_cometlocal.contract.model.problems import Loc

Report = Callable[[Loc, str, str], None]


def typing_ms(characters: int, delay_ms: int) -> int:
    """How long fill with ``delay_ms`` types ``characters`` characters."""
    return characters * delay_ms


def typing_problem(characters: int, delay_ms: int, timeout_ms: int) -> str | None:
    """Why typing that many characters at ``delay_ms`` a key does not fit the step's timeout, or None."""
    needed = typing_ms(characters, delay_ms)
    if needed * 2 <= timeout_ms:
        return None
    return (f"typing {characters} characters at {delay_ms} ms a key takes {needed} ms, more than half of "
            f"timeout_ms ({timeout_ms}): raise timeout_ms or lower delay_ms")


def check_v13_actions(step: ActionSpec, loc: Loc, add: Report) -> None:
    """FORCE, EVENT, and INPUTS for select's list and fill's delay (see the module docstring)."""
    if step.force and step.criticality == "critical":
        add(loc + ("force",), "force skips the actionability checks: a critical step cannot be forced "
            "(make the element actionable, or the step normal)", "FORCE")
    if isinstance(step.value, list) and step.kind != "select":
        add(loc + ("value",), f"a list of values is select's only (a multiple select); '{step.kind}' takes one", "INPUTS")
    if step.kind == "fill" and step.delay_ms is not None and isinstance(step.value, str) and "${" not in step.value:
        problem = typing_problem(len(step.value), step.delay_ms, step.timeout_ms)
        if problem:
            add(loc + ("delay_ms",), problem, "INPUTS")
    if step.kind == "dispatch_event" and step.event is not None and step.detail is not None:
        family = EVENT_FAMILY[step.event]
        takes = EVENT_FAMILIES[family][1]
        for key in sorted(step.detail.model_fields_set):
            if key not in takes:
                add(loc + ("detail", key), f"{step.event!r} is a {family} event: its detail takes "
                    f"{', '.join(takes)}, not {key!r}", "EVENT")
        for key in ("key", "code"):
            text = getattr(step.detail, key)
            if text is not None and "${" in text:
                add(loc + ("detail", key), f"a {key} holds no ${{...}} reference: text is typed with fill", "EVENT")
