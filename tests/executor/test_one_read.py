"""One read between two steps (issue 38, item 1; docs/executor.md, "One step").

When step N+1 follows step N with nothing in between, N's "after" look, the
first poll of N's postconditions and N+1's "before" look with its target
matched are one script call. Counted on the Playwright client's protocol
(``Connection.send_message_to_server``) in a real Chromium against a page
served here: the calls of a plan of 6 plain steps less those of a plan of 2,
divided by 4, so the first and the last step's own costs cancel out.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
try:  # the module's name: `connection` in Playwright 1.65, `_connection` before
    from playwright._impl import connection
except ImportError:
    from playwright._impl import _connection as connection

from pytest_cometlocal.executor.step import observer
from pytest_cometlocal.runs.verify import verify_run
from tests.support import Run, opened, read_trace, served_pages

pytestmark = pytest.mark.browser

PAGE = "<title>Steps</title><p id=out>0</p>" + "".join(
    f"<button onclick=\"document.getElementById('out').textContent = '{i}'\">Step {i}</button>" for i in range(1, 8))

# The calls that are not a read of the page: the action itself, and the picture's (its DevTools
# commands and the fence's pauses, which vary with timing).
NOT_READS = {"Frame.click", "Frame.waitForTimeout", "CDPSession.send", "Frame.goto"}


def clicks(n: int) -> str:
    """``n`` plain steps: a click that changes the page, whose postconditions the page's look answers."""
    return "".join(
        f"- {{id: c{i}, kind: click, target: {{type: role, role: button, name: Step {i}, exact: true}},\n"
        "   postconditions: [{kind: title_contains, args: {text: Steps}}, {kind: url_matches, args: {pattern: /steps$}}]}\n"
        for i in range(1, n + 1))


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with served_pages({"/steps": PAGE}) as url:
        yield url


def counted_run(chromium: Any, root: Path, text: str, base_url: str, profile: str) -> tuple[Run, collections.Counter]:
    """Run the plan ``text`` in a fresh context; what it did, and the protocol calls it made, by method."""
    from pytest_cometlocal.contract.settings import effective_settings
    from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_text
    from pytest_cometlocal.executor.session import run_plan

    path = root / "plans" / f"p{profile}{len(text)}.actions.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    (valid,) = validate_text(path.read_bytes(), ValidationContext(root=root, plan_path=path, env={}),
                             file=f"plans/{path.name}")
    eff = effective_settings(valid, default_base_url=base_url, env={}, cli_profile=profile)
    calls: collections.Counter = collections.Counter()
    # Playwright 1.65 names it send_message_to_server, 1.64 _send_message_to_server
    name = "send_message_to_server" if hasattr(connection.Connection, "send_message_to_server") else "_send_message_to_server"
    send = getattr(connection.Connection, name)

    def counting(self: Any, obj: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        if method != "__waitInfo__":
            calls[f"{type(obj).__name__}.{method}"] += 1
        return send(self, obj, method, *args, **kwargs)

    setattr(connection.Connection, name, counting)
    try:
        result = run_plan(chromium.browser(), valid, root / "runs", eff)
    finally:
        setattr(connection.Connection, name, send)
    run = Run(result, result.run_dir, read_trace(result.run_dir / "trace.jsonl"),
              json.loads((result.run_dir / "run_manifest.json").read_text(encoding="utf-8")),
              json.loads((result.run_dir / "evidence_manifest.json").read_text(encoding="utf-8")))
    return run, calls


def reads(calls: collections.Counter) -> int:
    """The calls that read the page (the browser's and the context's own set-up are not)."""
    return sum(n for method, n in calls.items()
               if method not in NOT_READS and method.split(".")[0] in ("Frame", "Page", "ElementHandle", "JSHandle"))


@pytest.mark.parametrize("profile", ["balanced", "fast"])
def test_a_plain_step_reads_the_page_once(chromium, site, tmp_path, profile):
    short, short_calls = counted_run(chromium, tmp_path, opened(f"{site}/steps", clicks(2)), site, profile)
    long, long_calls = counted_run(chromium, tmp_path, opened(f"{site}/steps", clicks(6)), site, profile)
    assert short.code is None and long.code is None, (short.error, long.error)
    # Each of the 4 more steps: its click, and one script call (its "after", its postconditions' first
    # poll and the next step's "before" with its target).
    assert (long_calls["Frame.click"] - short_calls["Frame.click"]) == 4
    assert (reads(long_calls) - reads(short_calls)) / 4 == 1, str(sorted(long_calls.items())) + str(sorted(short_calls.items()))
    # The trace keeps both observations, in the journal's order, and verifies.
    assert verify_run(long.run_dir).ok, verify_run(long.run_dir).problems
    after = {e["step_id"]: e["state_signature_after"] for e in long.events if e["event_type"] == "postconditions_checked"}
    before = {e["step_id"]: e["state_signature_before"] for e in long.events if e["event_type"] == "observation_captured"}
    for n in range(2, 7):
        types = long.types(f"c{n}")
        assert types.index("observation_captured") < types.index("preconditions_checked") < types.index("action_started")
        # The step's "before" is the read that was the previous step's "after": the same state.
        previous, this = after[f"c{n - 1}"], before[f"c{n}"]
        assert (previous["key_elements_hash"], previous["visible_text_hash"]) == (this["key_elements_hash"],
                                                                                  this["visible_text_hash"])
        if profile == "balanced":  # a fresh picture of every state: the after's, carried over
            assert this["screenshot_hash"] and this["screenshot_hash"] == previous["screenshot_hash"]
        resolution = next(e for e in long.events if e["step_id"] == f"c{n}"
                          and e["event_type"] == "preconditions_checked")["metadata"]["target_resolution"]
        assert resolution["with_observation"] and resolution["resolved"].startswith("get_by_role")


def test_a_postcondition_that_does_not_hold_at_the_read_is_polled_and_the_page_looked_at_again(chromium, site,
                                                                                               tmp_path):
    """The click's text comes 300 ms late: the read cannot stand as its "after", which is taken anew, and
    the next step's "before" is a look of its own at the page as it is then."""
    late = PAGE.replace("<title>Steps</title>", "<title>Steps</title><script>document.addEventListener('click', "
                        "() => setTimeout(() => { document.title = 'Steps done'; }, 300));</script>")
    with served_pages({"/late": late}) as url:
        steps = ("- {id: c1, kind: click, target: {type: role, role: button, name: Step 1, exact: true},\n"
                 "   postconditions: [{kind: title_contains, args: {text: done}}]}\n"
                 "- {id: c2, kind: click, target: {type: role, role: button, name: Step 2, exact: true}}\n")
        r, _calls = counted_run(chromium, tmp_path, opened(f"{url}/late", steps), url, "balanced")
    assert r.code is None, r.error
    after = next(e for e in r.events if e["event_type"] == "postconditions_checked" and e["step_id"] == "c1")
    before = next(e for e in r.events if e["event_type"] == "observation_captured" and e["step_id"] == "c2")
    assert after["state_signature_after"]["title_hash"] == before["state_signature_before"]["title_hash"]
    assert after["state_signature_after"]["title_hash"] != next(
        e for e in r.events if e["event_type"] == "observation_captured" and e["step_id"] == "c1"
    )["state_signature_before"]["title_hash"]
    assert verify_run(r.run_dir).ok


# Reading #trap's text (element_text.js asks each element for its ownerDocument; the look never does)
# freezes the page for good once Arm was pressed.
TRAP = ("<title>Trap</title><button onclick=\"armed = true\">Arm</button><p id=trap>Ready</p><script>"
        "let armed = false; const real = Object.getOwnPropertyDescriptor(Node.prototype, 'ownerDocument');"
        "Object.defineProperty(document.getElementById('trap'), 'ownerDocument', {get() {"
        " if (armed) { while (true) {} } return real.get.call(this); }});</script>")


def trapped(chromium: Any, tmp_path: Path, steps: str) -> tuple[Run, dict[str, Any]]:
    """The plan ``steps`` on the trap page, in balanced: it ends PAGE_UNRESPONSIVE; the run and its error."""
    with served_pages({"/trap": TRAP}) as url:
        r, _calls = counted_run(chromium, tmp_path, opened(f"{url}/trap", steps), url, "balanced")
    assert r.code == "PAGE_UNRESPONSIVE", r.error
    return r, [e for e in r.events if e["event_type"] == "error_raised"][-1]["error"]


def test_a_read_whose_next_step_froze_the_page_is_not_that_steps_before(chromium, tmp_path, monkeypatch):
    """balanced: while "arm"'s picture is drawn, the one read's next step has its precondition looked at,
    and that look freezes the page. The read is then the page as it was, not as it is: it is not passed
    on as "check"'s "before" (``Ahead.stale``); "check" looks for itself and finds the page unresponsive,
    before any observation of its own (not at its precondition, with the read as its "before").

    The carry-over's age limit (``CARRY_MAX_AGE_S``, 1 s) alone would also refuse that read, which is
    older than the look-ahead's 3 s bound once the freeze is noticed: it is lifted here, so that only
    ``stale`` keeps the read out."""
    monkeypatch.setattr(observer, "CARRY_MAX_AGE_S", 600.0)
    steps = ("- {id: arm, kind: click, target: {type: role, role: button, name: Arm, exact: true}}\n"
             "- {id: check, kind: assert, timeout_ms: 1000, preconditions: [{kind: element_text_contains,\n"
             "    args: {target: {type: css, selector: '#trap'}, text: Ready}}],\n"
             "   postconditions: [{kind: title_contains, args: {text: Trap}}]}\n")
    r, error = trapped(chromium, tmp_path, steps)
    assert (error["action_id"], error["details"]["during"]) == ("check", "observation before the step"), error
    assert error["state_before"] is None and "observation_captured" not in r.types("check")
    # "arm" passed: its "after" is the read, kept without the picture the frozen page could not give.
    after = next(e for e in r.events if e["event_type"] == "postconditions_checked" and e["step_id"] == "arm")
    assert after["state_signature_after"]["screenshot_hash"] is None
    assert "stopped answering while the next step was looked at" in \
        after["state_signature_after"]["metadata"]["screenshot_error"]
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems


def test_a_postcondition_whose_first_look_freezes_the_page_is_the_steps_own_failure(chromium, tmp_path):
    """balanced: "arm"'s postcondition reads the trap while its picture is drawn (``draw_after``), and
    that look freezes the page. The step does not pass on that read: its own poll of the postcondition
    finds the page unresponsive, typed at "arm" during its postconditions, and the run verifies."""
    steps = ("- {id: arm, kind: click, timeout_ms: 1000, target: {type: role, role: button, name: Arm, exact: true},\n"
             "   postconditions: [{kind: element_text_contains, args: {target: {type: css, selector: '#trap'},"
             " text: Ready}}]}\n"
             "- {id: after, kind: click, target: {type: role, role: button, name: Arm, exact: true}}\n")
    r, error = trapped(chromium, tmp_path, steps)
    assert (error["action_id"], error["details"]["during"]) == ("arm", "postconditions"), error
    assert "postconditions_checked" not in r.types("arm") and not r.types("after")
    assert verify_run(r.run_dir).ok, verify_run(r.run_dir).problems


def test_a_select_step_tells_its_dropdown_in_one_call(chromium, tmp_path):
    """A select step asks what kind of dropdown its target is in one call (``evaluate_all``), not three
    (``locator.evaluate``: wait for the element, the script on its handle, let it go)."""
    page = ("<title>Pick</title><select id=s aria-label=Size><option>S</option><option>M</option></select>"
            "<div role=combobox aria-label=Colour tabindex=0 onclick=\"document.getElementById('l').hidden = false\">"
            "Colour</div><div id=l role=listbox hidden><div role=option onclick=\"document.title = 'Red'\">Red</div></div>")
    steps = ("- {id: size, kind: select, value: M, target: {type: role, role: combobox, name: Size},\n"
             "   postconditions: [{kind: element_value_equals, args: {target: {type: css, selector: '#s'}, value: M}}]}\n"
             "- {id: colour, kind: select, value: Red, target: {type: role, role: combobox, name: Colour},\n"
             "   postconditions: [{kind: title_contains, args: {text: Red}}]}\n")
    with served_pages({"/pick": page}) as url:
        r, calls = counted_run(chromium, tmp_path, opened(f"{url}/pick", steps), url, "fast")
    assert r.code is None, r.error
    assert [e["metadata"].get("dropdown") for e in r.events if e["event_type"] == "action_executed"][-2:] == [
        None, "combobox"]
    # The one wait for an element left is the custom dropdown's frame (its element's owner frame, to look for
    # its options there); each step's own kind check waited once more before.
    assert (calls["Frame.waitForSelector"], calls["ElementHandle.dispose"]) == (1, 1), \
        sorted((m, n) for m, n in calls.items() if m.split(".")[0] in ("Frame", "ElementHandle", "JSHandle"))
