import json

from tests.support import DEFAULTS, LOGIN


def test_login_flow_passes(run):
    r = run(
        "name: login\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}, postconditions: [{kind: title_contains, args: {text: Sign in}}]}
  - {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: alice}
  - {id: pw, kind: fill, target: {type: label, text: Password, exact: true}, value: demo}
  - id: submit
    kind: click
    criticality: critical
    target: {type: role, role: button, name: Sign in, exact: true}
    postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]
  - id: greet
    kind: assert
    postconditions: [{kind: element_text_contains, args: {target: {type: testid, id: greeting}, text: "Welcome, alice"}}]
"""
    )
    assert r.error is None, r.error
    assert r.types()[0] == "run_started" and r.types()[-1] == "run_finished"
    assert [e["seq"] for e in r.events] == list(range(1, len(r.events) + 1))


def test_the_before_snapshot_describes_the_target_as_it_was_before_the_action(run):
    # Described when the target is resolved: the sign-in button, gone after the click
    # that navigated away, is still in the "before" snapshot of that click.
    r = run(LOGIN)
    assert r.error is None, r.error
    submit = json.loads((r.run_dir / "evidence" / "dom" / "step_003_before.json").read_text())
    assert submit["target"]["target"]["tag"] == "button" and submit["target"]["target"]["text"] == "Sign in"
    assert submit["target"]["ancestors"]
    user = json.loads((r.run_dir / "evidence" / "dom" / "step_001_before.json").read_text())
    assert user["target"]["target"]["tag"] == "input" and user["target"]["ancestors"]
    opened = json.loads((r.run_dir / "evidence" / "dom" / "step_000_before.json").read_text())
    assert "target" not in opened  # a navigate has no element target


def test_transient_screenshot_error_is_retried(run, monkeypatch):
    # Chromium sometimes cannot capture the first screenshot of a fresh page under load
    # (seen with pytest -n 2); it is not reproducible on demand, so the first capture fails here.
    from pytest_cometlocal.executor.page import observation as observe_module

    real = observe_module.grab_frame
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise Exception("Protocol error (Page.captureScreenshot): Unable to capture screenshot")
        return real(*args, **kwargs)

    monkeypatch.setattr(observe_module, "grab_frame", flaky)
    # The first look (about:blank) takes a frame of its own: run_plan's run keeps the frames of empty
    # pages in its own context (BlankFrames), none an earlier test of this process kept.
    r = run(LOGIN)
    assert r.error is None and r.result.status == "passed", r.error
    assert len(calls) > 1
    first = next(e for e in r.events if e["event_type"] == "observation_captured")
    assert first["state_signature_before"]["screenshot_hash"].startswith("sha256:")
    assert "screenshot_error" not in first["state_signature_before"]["metadata"]
