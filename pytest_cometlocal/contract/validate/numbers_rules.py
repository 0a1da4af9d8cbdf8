"""(v1.3) Rule NUMBER: the number keys (contract/model/numbers.py) of a condition, located at the key.

- A kind's own comparison key and a number key are not written together
  (``text`` and ``greater_than`` on one element_text_contains): which would
  decide is not clear.
- A kind that needs a comparison (element_text_contains' ``text``,
  element_value_equals' and element_attr_equals' ``value``) has its own key or a
  number key: rule SCHEMA, as the missing key was before v1.3.
- Each bound is a number, a number's text (``${vars.X}`` is text by then) or a
  whole ``"${saved.X}"`` (read at run time; not a number then fails the
  condition, with that reason); ``one_of`` also takes strings, compared
  exactly. ``between``'s low is not above its high.
- No number key names a secret (rule INTERPOLATION): it is compared with page
  data, which a failure shows.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from pytest_cometlocal.contract.load.interpolation import SECRET_REFERENCE
from pytest_cometlocal.contract.model.numbers import NUMBER_KEYS, NumberChecks, number_keys
from pytest_cometlocal.contract.model.problems import Loc
from pytest_cometlocal.contract.numbers import bound_problem, read_number

Report = Callable[[Loc, str, str], None]


def check_numbers(conditions: Iterable[tuple[Any, str, int, Any]], loc: Loc, add: Report) -> None:
    """NUMBER (and SCHEMA / INTERPOLATION) for each condition whose args take the number keys."""
    for cond, phase, i, _target in conditions:
        args = cond.args
        if not isinstance(args, NumberChecks):
            continue
        aloc = loc + (phase, i, "args")
        own = [k for k in args.COMPARED if k in args.model_fields_set]
        keys = number_keys(args)
        if own and keys:
            add(aloc + (keys[0],), f"{cond.kind} takes {own[0]} or number checks ({', '.join(NUMBER_KEYS)}), "
                "not both", "NUMBER")
        elif args.COMPARISON_REQUIRED and not own and not keys:
            add(aloc, f"{cond.kind} needs {args.COMPARED[0]!r}, or (v1.3) a number check: "
                f"{', '.join(NUMBER_KEYS)}", "SCHEMA")
        for key in keys:
            written = getattr(args, key)
            entries = written if isinstance(written, list) else [written]
            for j, bound in enumerate(entries):
                where = aloc + (key,) + ((j,) if isinstance(written, list) else ())
                if isinstance(bound, str) and SECRET_REFERENCE.search(bound):
                    add(where, f"{cond.kind}'s {key} cannot name a secret: it is compared with page data, "
                        "which a failure shows", "INTERPOLATION")
                elif problem := bound_problem(key, bound):
                    add(where, problem, "NUMBER")
            if key == "between":
                low, high = (read_number(b) for b in written)
                if low is not None and high is not None and low > high:
                    add(aloc + (key,), f"between's low ({written[0]}) is above its high ({written[1]}): "
                        "nothing is between them", "NUMBER")
