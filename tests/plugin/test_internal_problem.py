"""The last line of defence under pytest (issue 35): a plan whose validation raises fails alone.

An inner session's conftest makes validation raise for the plan named "boom"
(as a bug no one foresaw would), and makes reading one file raise during
collection. The session must not be interrupted, "boom" must fail with
INVALID_ACTIONSPEC [INTERNAL], its neighbour in the same file with its own
problem, the crashing file's item with INTERNAL, and a third file as usual.
No plan here is valid, so no browser starts.
"""

from __future__ import annotations

import pytest

from tests.support import defaults, write

CONFTEST = """
import pytest_cometlocal.contract.validate.validator as validator
import pytest_cometlocal.plugin.collection as collection

real_check, real_outline = validator.check_plan, collection.outline_text

def check_plan(plan, add, uploads_root):
    if plan.name == "boom":
        raise RuntimeError("unforeseen")
    return real_check(plan, add, uploads_root)

def outline_text(data, ctx, file):
    if file.endswith("unreadable.actions.yaml"):
        raise MemoryError("while collecting")
    return real_outline(data, ctx, file)

validator.check_plan = check_plan
collection.outline_text = outline_text
"""

def plan(name: str, url: str) -> str:
    return f"name: {name}\n{defaults()}steps:\n  - {{id: open, kind: navigate, target: {{type: url, url: \"{url}\"}}}}\n"


def test_one_plans_crash_is_its_own_internal_problem(pytester: pytest.Pytester):
    pytester.makeconftest(CONFTEST)
    write(pytester, "two.actions.yaml", plan("boom", "http://127.0.0.1:1/") + "---\n"
          + plan("neighbour", "ftp://127.0.0.1/"))
    write(pytester, "unreadable.actions.yaml", plan("never", "/x"))
    write(pytester, "other.actions.yaml", plan("other", "http://outs]ide.example/"))
    result = pytester.runpytest_subprocess("-rf", "-p", "no:randomly")
    out = result.stdout.str()
    assert "Interrupted" not in out and "Traceback" not in out and "error during collection" not in out
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines([  # in collection order: other, two (boom, neighbour), unreadable
        "*other.actions.yaml:*cannot read URL 'http://outs]ide.example/': Invalid IPv6 URL*[[]URL[]]*",
        "*two.actions.yaml:1:1: internal error while validating this plan (RuntimeError: unforeseen)*[[]INTERNAL[]]*",
        "*two.actions.yaml:*steps[[]0[]].target.url: scheme 'ftp' is not allowed*[[]URL[]]*",
        "*unreadable.actions.yaml:1:1: internal error while reading this file (MemoryError: while collecting)*",
    ])
    boom = out[out.index("plan: boom"):out.index("plan: neighbour")]
    assert "INTERNAL" in boom and "ftp" not in boom  # each plan of the file shows its own problem
