"""(v1.2) ``clock.at`` stands still, as docs/plan-format.md promises, in a real Chromium.

The portal's /v12/clock reads ``Date.now()`` and ``performance.now()`` when its button
is clicked, asks the server (real time passes: /slow answers after 300 ms), and marks a
``setTimeout`` of one second when it fires. With ``clock.at`` the readings are the pinned
time after several steps and a real wait, and the timer fires on the millisecond
``advance_clock`` reaches it, not before. A clock that flowed with real time (Playwright's
``install`` alone) reads the pinned time plus the run's elapsed time.

The executor's own looks at the page (the frame fence before each picture, a scroll step's settle
probe) use the browser's frame callbacks and timers, not the paused ones: every look has its
picture, and a scroll step settles.
"""

from __future__ import annotations

import json

from tests.support import opened

AT = 1489449600000  # 2017-03-14T00:00:00Z


def reads(date: int, perf: int) -> str:
    """The postconditions of a step that reads the clock: exactly ``date`` and ``perf``."""
    return (f"[{{kind: element_text_matches, args: {{target: {{type: testid, id: date}}, pattern: '^{date}$'}}}}, "
            f"{{kind: element_text_matches, args: {{target: {{type: testid, id: perf}}, pattern: '^{perf}$'}}}}]")


FIRED = "{type: testid, id: fired}"
READ = "{type: css, selector: '#read'}"


def test_the_pinned_clock_stands_still_until_advance_clock_moves_it(run):
    r = run(opened("/v12/clock", f"""\
        - {{id: first, kind: click, target: {READ}, postconditions: {reads(AT, 0)}}}
        - id: server
          kind: click
          target: {{type: css, selector: "#wait"}}
          postconditions: [{{kind: element_text_matches, args: {{target: {{type: testid, id: answer}}, pattern: ^answered$}}}}]
        - id: again
          kind: click
          target: {READ}
          postconditions: {reads(AT, 0)[:-1]}, {{kind: element_hidden, args: {{target: {FIRED}}}}}]
        - id: almost
          kind: advance_clock
          ms: 999
          postconditions: [{{kind: element_hidden, args: {{target: {FIRED}}}}}]
        - id: due
          kind: advance_clock
          ms: 1
          postconditions: [{{kind: element_visible, args: {{target: {FIRED}}}}}]
        - {{id: later, kind: click, target: {READ}, postconditions: {reads(AT + 1000, 1000)}}}
        - id: down
          kind: scroll
          postconditions: [{{kind: element_visible, args: {{target: {{type: testid, id: more}}}}}}]
        """, extra='clock: {at: "2017-03-14T00:00:00Z"}\npolicy: {same_state_revisits: 10}\n', timeout_ms=2000))
    assert r.error is None, r.error and json.dumps(r.error.model_dump(mode="json"))
    advanced = [e["metadata"]["ms"] for e in r.events if e["event_type"] == "action_executed"
                and e["step_id"] in ("almost", "due")]
    assert advanced == [999, 1]
    trace = (r.run_dir / "trace.jsonl").read_text()
    assert "screenshot_error" not in trace and '"screenshot_hash": null' not in trace.replace('":null', '": null')
