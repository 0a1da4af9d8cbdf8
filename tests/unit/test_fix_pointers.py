"""Where failures with suggested targets point at ``cometlocal fix`` (issue 28, part 4), without a browser:
the terminal summary's count and ``cometlocal show``'s closing block, from run folders written by the test."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from pytest_cometlocal.plugin.reporting.report import suggested_fix_summary
from pytest_cometlocal.runs.show import fixes_block, suggested_fix

TOP = {"target": {"type": "role", "role": "button", "name": "Sign in", "exact": True}, "matched": 'button "Sign in"',
       "score": 0.64, "why": "clickable as click needs"}


def report(**props) -> SimpleNamespace:
    return SimpleNamespace(user_properties=list(props.items()))


def test_the_summary_counts_the_failures_with_suggestions_and_names_the_output_folder(tmp_path):
    out = tmp_path / "cometlocal-runs"
    reports = [report(**{"cometlocal.suggestions": 2}), report(**{"cometlocal.error_code": "AUTH_FAILED"}),
               report(**{"cometlocal.suggestions": 1})]
    assert suggested_fix_summary(reports, out, tmp_path) == \
        "2 failures have suggested targets: cometlocal fix cometlocal-runs --verify"
    assert suggested_fix_summary(reports[:1], out, tmp_path / "elsewhere") == \
        f"1 failure has suggested targets: cometlocal fix {out} --verify"
    assert suggested_fix_summary(reports[1:2], out, tmp_path) is None


def run_folder(root: Path, name: str, status: str, error: dict | None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "run_manifest.json").write_text(json.dumps({"status": status, "plan": {"name": name}}))
    events = [{"event_type": "run_started"}] + ([{"event_type": "error_raised", "error": error}] if error else [])
    (folder / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events + [{"event_type": "run_finished"}]))
    return folder


def test_show_lists_the_failed_runs_with_suggestions_then_the_fix_command(tmp_path):
    with_one = run_folder(tmp_path, "a", "failed", {"error_code": "TARGET_NOT_FOUND", "action_id": "sign_in",
                                                      "details": {"suggestions": [TOP]}})
    removed = run_folder(tmp_path, "b", "failed", {"error_code": "TARGET_NOT_FOUND", "action_id": "export",
                                                   "details": {"suggestions": [], "suggestions_note": "floor"}})
    passed = run_folder(tmp_path, "c", "passed", None)
    line = suggested_fix(with_one)
    assert line == (f"  {with_one}  step 'sign_in' TARGET_NOT_FOUND: "
                    "{type: role, role: button, name: Sign in, exact: true} (score 0.64)")
    assert suggested_fix(removed) is None and suggested_fix(passed) is None
    assert fixes_block([line], [tmp_path]) == [
        "1 failed run has suggested targets:", line,
        f"fix them: cometlocal fix {tmp_path} --verify   (one patch to review; never applied)"]
    assert fixes_block([], [tmp_path]) == []
