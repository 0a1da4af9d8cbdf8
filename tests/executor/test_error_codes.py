"""Every error code, raised by a real Chromium against the demo portal.

Each test asserts the code, the required ExecutorError fields, the per-code
details of the errors contract, the trace sequence and the evidence hashes.
"""

from __future__ import annotations

import hashlib

from pytest_cometlocal.runs.verify import verify_run
from tests.support import Run, plan

REQUIRED = ("schema_version", "error_code", "stage", "severity", "message", "retryable", "run_id", "seq",
            "step_index", "action_id", "action_kind", "criticality", "state_before", "evidence_refs", "created_at")


def assert_typed_error(r: Run, code: str, step: str, stage: str) -> dict:
    """The run failed with ``code`` at ``step``; the error is complete and its evidence verifies."""
    assert r.code == code, (r.code, r.error and r.error.message)
    raised = [e for e in r.events if e["event_type"] == "error_raised"]
    assert len(raised) == 1
    error = raised[0]["error"]
    for key in REQUIRED:
        assert key in error, key
    assert error["action_id"] == step and error["stage"] == stage
    assert error["run_id"] == r.manifest["run_id"]
    assert error["evidence_refs"], "an error always has evidence"
    assert error["state_before"] is not None and error["state_before"]["screenshot_hash"].startswith("sha256:")
    listed = {f["uri"]: f["sha256"] for f in r.evidence["files"]}
    for ref in error["evidence_refs"]:
        data = (r.run_dir / ref["uri"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == ref["sha256"] == listed[ref["uri"]]
    assert [e["seq"] for e in r.events] == list(range(1, len(r.events) + 1))
    assert r.types()[-2:] == ["error_raised", "run_finished"]
    assert r.events[-1]["metadata"]["error_code"] == code
    kinds = {ref["kind"] for ref in error["evidence_refs"]}
    assert "dom_snapshot_partial" in kinds
    # Every failure shows the page: a screenshot from before the step and one at the failure.
    shots = {ref["metadata"].get("which") for ref in error["evidence_refs"] if ref["kind"] == "screenshot"}
    assert shots == {"before", "after"}, (code, error["evidence_refs"])
    verification = verify_run(r.run_dir)
    assert verification.ok, verification.problems
    return error


OPEN = "  - {{id: open, kind: navigate, target: {{type: url, url: {url}}}}}\n"


def test_target_not_found(run):
    r = run(plan(name="tnf", steps=OPEN.format(url="/login") +
                 "  - {id: missing, kind: click, timeout_ms: 400, target: [{type: testid, id: nope}, {type: css, selector: '#nope'}]}\n"))
    error = assert_typed_error(r, "TARGET_NOT_FOUND", "missing", "precondition")
    assert error["retryable"] is False  # not in policy.retry_on
    d = error["details"]
    assert d["count_observed"] == 0
    assert d["target_resolution_order"] == ["testid", "role", "label", "css", "xpath", "text"]
    assert [t["type"] for t in d["target"]] == ["testid", "css"]
    assert [a["compiled"] for a in d["attempts"]] == ["get_by_test_id('nope')", "locator('css=#nope')"]


def test_target_not_unique_with_sample(run):
    r = run(plan(name="tnu", steps=OPEN.format(url="/duplicates") +
                 "  - {id: save, kind: click, timeout_ms: 1500, target: {type: role, role: button, name: Save, exact: true}}\n"))
    error = assert_typed_error(r, "TARGET_NOT_UNIQUE", "save", "precondition")
    assert error["details"]["count_observed"] == 2
    sample = error["details"]["matches_sample"]
    assert len(sample) == 2 and all(s["tag"] == "button" and s["text"] == "Save" for s in sample)


def test_precondition_failed_names_the_condition_and_observation(run):
    r = run(plan(name="pre", steps=OPEN.format(url="/disabled") +
                 "  - {id: locked, kind: click, timeout_ms: 400, target: {type: testid, id: disabled-button},"
                 " preconditions: [{kind: element_enabled}]}\n"))
    error = assert_typed_error(r, "PRECONDITION_FAILED", "locked", "precondition")
    (failed,) = error["failed_conditions"]
    assert failed["kind"] == "element_enabled" and failed["phase"] == "pre"
    assert failed["observed"]["enabled"] is False


def test_action_that_cannot_be_performed_is_precondition_failed_at_execution(run):
    # 1.5 s: the check is named from Playwright's call log, which at 500 ms on a loaded machine sometimes
    # ended before its first "element is not editable" line (element_actionable; twice in three suites).
    r = run(plan(name="readonly", steps=OPEN.format(url="/disabled") +
                 "  - {id: type, kind: fill, timeout_ms: 1500, target: {type: testid, id: readonly-input}, value: x}\n"))
    error = assert_typed_error(r, "PRECONDITION_FAILED", "type", "execution")
    assert error["failed_conditions"][0]["kind"] == "element_editable"


def test_postcondition_failed_has_extended_evidence(run):
    r = run(plan(name="post", steps="  - {id: open, kind: navigate, timeout_ms: 800, target: {type: url, url: /login},"
                 " postconditions: [{kind: title_contains, args: {text: Nowhere}}]}\n"))
    error = assert_typed_error(r, "POSTCONDITION_FAILED", "open", "postcondition")
    (failed,) = error["failed_conditions"]
    assert failed == {"kind": "title_contains", "args": {"text": "Nowhere"}, "phase": "post",
                      "severity": "error", "observed": {"title": "Sign in"}}
    kinds = [ref["kind"] for ref in error["evidence_refs"]]
    assert "html_full" in kinds and kinds.count("screenshot") == 2
    after = error["state_after"]  # the page as the failed postcondition saw it
    assert after["url"].endswith("/login") and after["screenshot_hash"].startswith("sha256:")
    shots = {ref["metadata"]["which"]: ref for ref in error["evidence_refs"] if ref["kind"] == "screenshot"}
    # At the failure: the full-size PNG. Before: the reduced frame the step's hash was taken from.
    assert (r.run_dir / shots["after"]["uri"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (r.run_dir / shots["before"]["uri"]).read_bytes()[:3] == b"\xff\xd8\xff"
    assert shots["before"]["metadata"]["reduced"] == "v2-frame-320" and shots["before"]["uri"].endswith(".jpg")


def test_assert_failure_is_postcondition_failed_with_phase_assert(run):
    r = run(plan(name="asrt", steps=OPEN.format(url="/login") +
                 "  - {id: check, kind: assert, timeout_ms: 300, postconditions: [{kind: element_count_equals,"
                 " args: {target: {type: css, selector: input}, count: 7}}]}\n"))
    error = assert_typed_error(r, "POSTCONDITION_FAILED", "check", "postcondition")
    assert error["failed_conditions"][0]["phase"] == "assert"
    assert error["failed_conditions"][0]["observed"]["count"] == 3  # user, password, hidden csrf


def test_same_state_revisit_halts_and_ignores_csrf_tokens(run, portal):
    # Each failed sign-in reloads the login page with a new hidden CSRF token: the
    # state is the same, so the third click from it exceeds the threshold of 1.
    steps = OPEN.format(url="/login") + "".join(
        f"  - {{id: again{i}, kind: click, target: {{type: testid, id: login-submit}}}}\n" for i in range(4))
    r = run(plan(name="loop", steps=steps, extra="policy: {same_state_revisits: 1}\n"))
    error = assert_typed_error(r, "POLICY_HALT", "again2", "policy")
    d = error["details"]
    assert d["policy_reason"] == "same_state_revisit" and d["count"] == 2 and d["threshold"] == 1
    assert error["message"] == ("policy halt: same_state_revisit — state seen 2 times (policy.same_state_revisits: 1; "
                                "raise it in the plan's policy: or the suite config)")
    assert d["state_key"].count(":") == 3  # key:text:sha256:<hex> and d["policy_thresholds"]["same_state_revisits"] == 1
    halt = [e for e in r.events if e["event_type"] == "policy_halt"]
    assert halt and halt[0]["error"]["error_code"] == "POLICY_HALT"
    assert halt[0]["metadata"]["policy"]["reason"] == "same_state_revisit"
    observed = [e["metadata"]["policy"]["same_state_revisit_count"] for e in r.events if e["event_type"] == "observation_captured"]
    assert observed[-1] == 1  # counted before this attempt


def test_hard_cap_steps_halts_with_max_steps(run):
    steps = OPEN.format(url="/login") + "  - {id: a, kind: assert, postconditions: [{kind: title_contains, args: {text: Sign}}]}\n" \
        "  - {id: b, kind: assert, postconditions: [{kind: title_contains, args: {text: Sign}}]}\n"
    r = run(plan(name="cap", steps=steps, extra="policy: {hard_cap_steps: 2}\n"))
    error = assert_typed_error(r, "POLICY_HALT", "b", "policy")
    assert error["details"]["policy_reason"] == "max_steps" and error["details"]["steps_taken"] == 2
    assert error["message"] == ("policy halt: max_steps — 2 steps taken (policy.hard_cap_steps: 2; "
                                "raise it in the plan's policy: or the suite config)")


def test_stop_without_permission_is_policy_halt(run):
    r = run(plan(name="stop", steps=OPEN.format(url="/login") + "  - {id: end, kind: stop}\n"))
    error = assert_typed_error(r, "POLICY_HALT", "end", "policy")
    assert error["details"]["policy_reason"] == "stop_not_allowed"
    assert error["message"] == ("policy halt: stop_not_allowed — a stop step would end the run (policy.allow_stop: "
                                "false; set it to true in the plan's policy: or the suite config)")


def test_stop_allowed_ends_the_run_as_a_pass(run):
    r = run(plan(name="stop-ok", steps=OPEN.format(url="/login") + "  - {id: end, kind: stop}\n"
                 "  - {id: never, kind: click, target: {type: testid, id: nope}}\n", extra="policy: {allow_stop: true}\n"))
    assert r.error is None and r.result.status == "stopped"
    assert "never" not in {e["step_id"] for e in r.events}


def test_domain_blocked_before_the_request_leaves(run, outside):
    before = len(outside.hits)
    r = run(plan(name="out", steps="  - {id: escape, kind: navigate, target: {type: url, url: '{outside}/x'},"
                 " preconditions: [{kind: network_idle}]}\n"))
    error = assert_typed_error(r, "DOMAIN_BLOCKED", "escape", "execution")
    assert error["details"]["host"] == "localhost" and error["details"]["allowlist"] == ["127.0.0.1"]
    assert len(outside.hits) == before


def test_host_in_allowlist_precondition_is_domain_blocked(run, outside):
    r = run(plan(name="pre-out", steps="  - {id: escape, kind: navigate, target: {type: url, url: '{outside}/y'},"
                 " preconditions: [{kind: host_in_allowlist}]}\n"))
    error = assert_typed_error(r, "DOMAIN_BLOCKED", "escape", "precondition")
    assert error["details"]["host"] == "localhost"
    assert not any(h.startswith("GET /y") for h in outside.hits)


def test_critical_navigation_outside_is_action_critical_blocked(run, outside):
    r = run(plan(name="crit-out", steps="  - {id: escape, kind: navigate, criticality: critical, target: {type: url, url: '{outside}/z'},"
                 " preconditions: [{kind: network_idle}], postconditions: [{kind: url_matches, args: {pattern: z}}]}\n"))
    error = assert_typed_error(r, "ACTION_CRITICAL_BLOCKED", "escape", "execution")
    assert error["details"]["critical_reason"] == "unsafe_domain_escape"
    assert not any("/z" in h for h in outside.hits)


def test_dry_run_blocks_critical_step_without_performing_it(run, portal):
    steps = OPEN.format(url="/login") + """\
  - {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: alice}
  - id: submit
    kind: click
    criticality: critical
    target: {type: testid, id: login-submit}
    preconditions: [{kind: element_enabled}]
    postconditions: [{kind: url_matches, args: {pattern: /dashboard}}]
"""
    posts_before = sum(1 for m, p in portal.hits if m == "POST")
    r = run(plan(name="dry", steps=steps), dry_run=True)
    error = assert_typed_error(r, "ACTION_CRITICAL_BLOCKED", "submit", "precondition")
    assert error["details"]["critical_reason"] == "dry_run"
    assert r.manifest["execution_mode"] == "dry_run"
    assert sum(1 for m, p in portal.hits if m == "POST") == posts_before
    assert "action_started" not in r.types("submit")
    assert "preconditions_checked" in r.types("submit")


def test_navigation_timeout(run):
    r = run(plan(name="slow", steps="  - {id: open, kind: navigate, timeout_ms: 400, target: {type: url, url: '/slow?ms=3000'}}\n",
                 extra="policy: {retry_on: []}\n"))
    error = assert_typed_error(r, "NAVIGATION_TIMEOUT", "open", "execution")
    assert error["details"]["timeout_ms"] == 400 and error["details"]["wait_condition"] == "load"


def test_wait_for_that_never_holds_is_navigation_timeout(run):
    r = run(plan(name="wait", steps=OPEN.format(url="/dynamic") +
                 "  - {id: wait, kind: wait_for, timeout_ms: 300, target: {type: testid, id: counter},"
                 " postconditions: [{kind: element_text_contains, args: {text: '99'}}]}\n", extra="policy: {retry_on: []}\n"))
    error = assert_typed_error(r, "NAVIGATION_TIMEOUT", "wait", "postcondition")
    assert error["details"]["timeout_ms"] == 300
    assert error["details"]["wait_condition"][0]["kind"] == "element_text_contains"


def test_retries_are_traced_and_exhausted_with_attempts(run):
    r = run(plan(name="retry", steps="  - {id: open, kind: navigate, timeout_ms: 300, target: {type: url, url: '/slow?ms=2000'}}\n",
                 extra="policy: {retries_per_action: 2, backoff_ms: [10, 20]}\n"))
    error = assert_typed_error(r, "NAVIGATION_TIMEOUT", "open", "execution")
    assert error["details"]["attempts"] == 3
    assert r.types("open").count("retry_scheduled") == 2 and r.types("open").count("backoff_applied") == 2
    delays = [e["metadata"]["delay_ms"] for e in r.events if e["event_type"] == "backoff_applied"]
    assert delays == [10, 20]


def test_critical_steps_are_never_retried(run):
    r = run(plan(name="no-retry", steps="  - {id: open, kind: navigate, criticality: critical, timeout_ms: 300,"
                 " target: {type: url, url: '/slow?ms=2000'}, postconditions: [{kind: url_matches, args: {pattern: slow}}]}\n",
                 extra="policy: {retries_per_action: 2, backoff_ms: [10]}\n"))
    assert_typed_error(r, "NAVIGATION_TIMEOUT", "open", "execution")
    assert "retry_scheduled" not in r.types()


def test_upload_failed_for_a_missing_file(run, tmp_path):
    r = run(plan(name="up-missing", steps=OPEN.format(url="/form") +
                 "  - {id: attach, kind: upload, target: {type: label, text: Attachment, exact: true}, file_ref: nothere.pdf}\n"))
    error = assert_typed_error(r, "UPLOAD_FAILED", "attach", "execution")
    assert error["details"]["file_ref"] == "nothere.pdf" and error["details"]["upload_signal"] == "inspection"
    finished = [e for e in r.events if e["event_type"] == "inspection_finished"]
    assert finished[0]["metadata"]["status"] == "failed" and finished[0]["metadata"]["file_ref"] == "nothere.pdf"


def test_upload_completed_that_never_holds_is_upload_failed(run, tmp_path):
    (tmp_path / "plans" / "a.txt").parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "plans" / "a.txt").write_text("hello")
    r = run(plan(name="up-signal", steps=OPEN.format(url="/form") +
                 "  - {id: attach, kind: upload, timeout_ms: 1500, target: {type: label, text: Attachment, exact: true},"
                 " file_ref: a.txt, postconditions: [{kind: upload_completed, args: {text: Never shown}}]}\n"))
    error = assert_typed_error(r, "UPLOAD_FAILED", "attach", "postcondition")
    assert error["details"]["file_ref"] == ["a.txt"] and error["details"]["upload_signal"] == {"text": "Never shown"}


def test_download_failed_when_nothing_downloads(run):
    r = run(plan(name="no-dl", steps=OPEN.format(url="/duplicates") +
                 "  - {id: click, kind: click, timeout_ms: 2000, target: {type: nth, index: 0, base: {type: role, role: button, name: Save}},"
                 " metadata: {target_rationale: first of two identical buttons}, postconditions: [{kind: download_started}]}\n"))
    error = assert_typed_error(r, "DOWNLOAD_FAILED", "click", "postcondition")
    assert error["details"]["expected_download"] is True


def test_overlay_blocking_names_the_overlay(run):
    r = run(plan(name="overlay", steps=OPEN.format(url="/cookies") +
                 "  - {id: go, kind: click, timeout_ms: 1500, target: {type: testid, id: continue}}\n",
                 extra="policy: {retry_on: []}\n"))
    error = assert_typed_error(r, "OVERLAY_BLOCKING", "go", "execution")
    assert "cookie-wall" in (error["details"]["overlay_selector"] or "") or "cookies" in (error["details"]["overlay_text"] or "")


def test_no_blocking_overlay_condition_is_overlay_blocking(run):
    r = run(plan(name="overlay-cond", steps=OPEN.format(url="/cookies") +
                 "  - {id: go, kind: click, timeout_ms: 500, target: {type: testid, id: continue},"
                 " preconditions: [{kind: no_blocking_overlay}]}\n",
                 extra="overlay_selectors: ['#cookie-wall']\npolicy: {retry_on: []}\n"))
    error = assert_typed_error(r, "OVERLAY_BLOCKING", "go", "precondition")
    assert error["details"]["overlay_selector"] == "#cookie-wall"


def test_recovery_clears_the_overlay_and_the_step_is_retried(run):
    extra = """\
recovery:
  on_error: [OVERLAY_BLOCKING]
  steps:
    - {id: accept, kind: click, target: {type: role, role: button, name: Accept cookies, exact: true}}
"""
    r = run(plan(name="recover", steps=OPEN.format(url="/cookies") +
                 "  - {id: go, kind: click, timeout_ms: 800, target: {type: testid, id: continue},"
                 " postconditions: [{kind: element_text_contains, args: {target: {type: testid, id: result}, text: Continued}}]}\n",
                 extra=extra))
    assert r.error is None, r.error
    types = r.types()
    assert types.index("recovery_started") < types.index("recovery_finished")
    assert "accept" in {e["step_id"] for e in r.events}


def test_auth_failed_wins_over_the_postcondition_it_causes(run):
    steps = OPEN.format(url="/login") + """\
  - {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: alice}
  - {id: pw, kind: fill, target: {type: label, text: Password, exact: true}, value: wrong}
  - id: submit
    kind: click
    target: {type: testid, id: login-submit}
    postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]
"""
    r = run(plan(name="auth", steps=steps, extra="auth_signals: {texts: [Invalid credentials]}\n"))
    error = assert_typed_error(r, "AUTH_FAILED", "submit", "postcondition")
    assert error["details"]["auth_signal"]["type"] == "text"
    assert error["details"]["auth_signal"]["text"] == "Invalid credentials"
    assert error["message"] == "authentication failed: the page shows the text 'Invalid credentials'"


def test_auth_failed_on_http_401(run):
    r = run(plan(name="auth401", steps="  - {id: open, kind: navigate, target: {type: url, url: /protected}}\n",
                 extra="auth_signals: {status: [401]}\n"))
    error = assert_typed_error(r, "AUTH_FAILED", "open", "postcondition")
    assert error["details"]["auth_signal"]["status"] == 401
    assert error["message"] == f"authentication failed: status 401 for {error['details']['auth_signal']['url']}"


def test_navigation_failed_on_refused_connection(run):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = run(plan(name="refused", steps=f"  - {{id: open, kind: navigate, target: {{type: url, url: 'http://127.0.0.1:{port}/'}}}}\n"))
    error = assert_typed_error(r, "NAVIGATION_FAILED", "open", "execution")
    assert error["details"]["net_error"] == "ERR_CONNECTION_REFUSED"


def test_upload_to_something_that_is_not_a_file_input_is_precondition_failed(run, tmp_path):
    (tmp_path / "plans").mkdir(parents=True, exist_ok=True)
    (tmp_path / "plans" / "a.txt").write_text("x")
    r = run(plan(name="up-button", steps=OPEN.format(url="/form") +
                 "  - {id: attach, kind: upload, timeout_ms: 800, target: {type: role, role: button, name: Send request}, file_ref: a.txt}\n"))
    error = assert_typed_error(r, "PRECONDITION_FAILED", "attach", "execution")
    assert error["failed_conditions"][0]["kind"] == "element_is_file_input"


def test_element_count_equals_on_a_step_with_alternatives(run):
    r = run(plan(name="count-alt", steps=OPEN.format(url="/duplicates") +
                 "  - {id: check, kind: wait_for, timeout_ms: 800, target: [{type: css, selector: li}, {type: testid, id: nothing}],"
                 " postconditions: [{kind: element_count_equals, args: {count: 3}}]}\n"))
    assert r.error is None, r.error
