"""``cometlocal diff``: two run folders of one plan compared step by step (run folders built by hand)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.runs.diff import DiffError, diff_runs, render_json, run_diff_command

BASE = "http://127.0.0.1:8000"


def sig(path: str = "/menu", title: str = "t", keys: str = "k", text: str = "x", shot: str = "s",
        base: str = BASE, algorithm: str = "v2-frame-320") -> dict[str, Any]:
    return {"schema_version": "v1", "algorithm_version": algorithm, "url": base + path,
            "url_hash": "u" + path, "title_hash": title, "key_elements_hash": keys,
            "visible_text_hash": text, "screenshot_hash": "sha256:" + shot, "created_at": "", "metadata": {}}


def step(step_id: str, before: dict | None = None, after: dict | None = None, *,
         attempts: list[str | None] = (None,), kind: str = "click", recovery: bool = False) -> dict[str, Any]:
    """One step: each entry of ``attempts`` is an attempt, None when it passed, else its error code."""
    return {"id": step_id, "before": before or sig(), "after": after or sig(), "attempts": list(attempts),
            "kind": kind, "recovery": recovery}


def write_run(folder: Path, steps: list[dict[str, Any]], *, name: str = "menu opens", file: str = "plans/m.actions.yaml",
              base: str = BASE, spacing_ms: int = 10, row_id: str | None = None) -> Path:
    """A run folder with a run_manifest.json and a trace.jsonl shaped like the executor's."""
    folder.mkdir(parents=True)
    run_id = folder.name
    events: list[dict[str, Any]] = []

    def add(event_type: str, step_id: str | None, before=None, after=None, metadata=None, **extra: Any) -> None:
        ms = len(events) * spacing_ms
        events.append({"run_id": run_id, "seq": len(events) + 1,
                       "ts_utc": f"2026-11-24T08:00:{ms // 1000:02d}.{ms % 1000:03d}000+00:00",
                       "event_type": event_type, "step_id": step_id, "state_signature_before": before,
                       "state_signature_after": after, "metadata": metadata or {}, **extra})

    add("run_started", None)
    status, failed = "passed", None
    for s in steps:
        for number, code in enumerate(s["attempts"], 1):
            add("observation_captured", s["id"], s["before"], None, {"attempt": number, "recovery": s["recovery"]})
            add("proposal_received", s["id"], s["before"], action_spec={"id": s["id"], "kind": s["kind"]})
            if code is None:
                add("postconditions_checked", s["id"], s["before"], s["after"], {"ok": True})
                add("evidence_captured", s["id"], s["before"], s["after"], {"manifest_uri": "evidence_manifest.json"})
                continue
            add("evidence_captured", s["id"], s["before"], s["after"], {"for_error": code})
            if number < len(s["attempts"]):
                add("retry_scheduled", s["id"], metadata={"error_code": code})
            else:
                add("error_raised", s["id"], error={"error_code": code, "action_id": s["id"]})
                status, failed = "failed", (s["id"], code)
        if failed:
            break
    add("run_finished", None, metadata={"status": status})
    plan = {"file": file, "name": name, "line": 1, "doc_index": 0}
    if row_id is not None:
        plan["row_id"] = row_id
    manifest = {"schema_version": "v1", "run_id": run_id, "status": status, "plan": plan,
                "execution_profile": {"name": "pytest", "base_url": base, "browser": "chromium"},
                "error_code": failed[1] if failed else None, "failed_step": failed[0] if failed else None}
    (folder / "run_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (folder / "trace.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return folder


def open_menu_runs(tmp_path: Path, after_b: dict[str, Any]) -> tuple[Path, Path]:
    a = write_run(tmp_path / "A", [step("open", sig("/"), sig("/menu")), step("open_menu", sig("/menu"), sig("/menu", text="open"))])
    b = write_run(tmp_path / "B", [step("open", sig("/"), sig("/menu")), step("open_menu", sig("/menu"), after_b)],
                  spacing_ms=37)
    return a, b


def test_identical_runs_match_although_durations_differ(tmp_path: Path, capsys) -> None:
    a, b = open_menu_runs(tmp_path, sig("/menu", text="open"))
    diff = diff_runs(a, b)
    assert diff.match and diff.first_divergence is None
    durations = [(s.a.duration_ms, s.b.duration_ms) for s in diff.steps]
    assert all(x != y for x, y in durations), durations  # shown, different, and not a divergence
    assert main(["diff", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "the runs match: 2 steps" in out
    assert "first divergence" not in out


def test_first_divergence_names_the_step_and_the_changed_parts(tmp_path: Path, capsys) -> None:
    a, b = open_menu_runs(tmp_path, sig("/menu", text="closed", shot="other"))
    text, code = run_diff_command(a, b)
    assert code == 1
    assert text.splitlines()[-1] == ("first divergence: step 'open_menu': before: same; "
                                     "after: visible_text, screenshot differ  (1 of 2 steps differ)")
    rows = {line[5:].split()[0]: line for line in text.splitlines() if line.startswith("  ") and len(line) > 5}
    assert rows["open"].startswith("     open ") and rows["open"].split()[-2:] == ["same", "same"]
    assert rows["open_menu"].startswith("  *  open_menu")
    assert rows["open_menu"].rstrip().endswith("same    visible_text, screenshot")
    assert main(["diff", str(a), str(b)]) == 1
    capsys.readouterr()


def test_text_columns_are_aligned(tmp_path: Path) -> None:
    a, b = open_menu_runs(tmp_path, sig("/menu", text="closed"))
    text, _ = run_diff_command(a, b)
    table = [line for line in text.splitlines() if line.startswith("  ") and not line.startswith("  A:")
             and not line.startswith("  B:")]
    assert len(table) == 3  # header and one line per step
    column = table[0].index("before")  # every row's "before" cell starts under its header
    for line in table[1:]:
        assert line[column - 2:column] == "  " and line[column] != " ", line


def test_attempts_and_outcome_diverge_and_a_step_only_in_one_run(tmp_path: Path) -> None:
    a = write_run(tmp_path / "A", [step("open"), step("go"), step("check", kind="assert")])
    b = write_run(tmp_path / "B", [step("open"), step("go", attempts=["NAVIGATION_TIMEOUT", None]),
                                   step("check", attempts=["POSTCONDITION_FAILED"], kind="assert")])
    c = write_run(tmp_path / "C", [step("open"), step("go", attempts=["TARGET_NOT_FOUND"])])
    data = render_json(diff_runs(a, b))
    go, check = data["steps"][1], data["steps"][2]
    assert go["reasons"] == ["attempts"] and go["a"]["attempts"] == 1 and go["b"]["attempts"] == 2
    assert go["b"]["outcome"] == "passed" and go["b"]["errors"] == ["NAVIGATION_TIMEOUT"] and go["b"]["retries"] == 1
    assert check["reasons"] == ["outcome"] and check["b"]["outcome"] == "failed"
    assert check["b"]["error_code"] == "POSTCONDITION_FAILED"
    assert data["first_divergence"]["text"] == "step 'go': attempts: 1 vs 2; before: same; after: same"
    data = render_json(diff_runs(a, c))
    assert [s["reasons"] for s in data["steps"]] == [[], ["outcome"], ["only_in_a"]]
    assert data["steps"][2]["b"] is None
    assert diff_runs(a, c).steps[2].describe() == "step 'check': only in run A"
    assert data["first_divergence"]["text"] == "step 'go': outcome: passed vs failed TARGET_NOT_FOUND; before: same; after: same"


def test_recovery_steps_are_included_and_labelled(tmp_path: Path) -> None:
    a = write_run(tmp_path / "A", [step("open"), step("continue")])
    b = write_run(tmp_path / "B", [step("open"), step("reload", kind="navigate", recovery=True), step("continue")])
    diff = diff_runs(a, b)
    assert [(s.step_id, s.recovery, s.reasons) for s in diff.steps] == [
        ("open", False, []), ("continue", False, []), ("reload", True, ["only_in_b"])]
    text, code = run_diff_command(a, b)
    assert code == 1
    assert "reload (recovery)" in text
    assert text.splitlines()[-1].startswith("first divergence: recovery step 'reload': only in run B")


def test_urls_compare_relative_to_each_runs_base_url(tmp_path: Path) -> None:
    other = "http://127.0.0.1:9999"
    a = write_run(tmp_path / "A", [step("open", sig("/"), sig("/menu"))])
    b = write_run(tmp_path / "B", [step("open", sig("/", base=other), sig("/menu", base=other))], base=other)
    diff = diff_runs(a, b)
    assert diff.match
    assert any("different base URLs" in note for note in diff.notes)
    c = write_run(tmp_path / "C", [step("open", sig("/"), sig("/menu?x=1"))])
    assert diff_runs(a, c).steps[0].after == ["url"]


def test_json_structure(tmp_path: Path, capsys) -> None:
    a, b = open_menu_runs(tmp_path, sig("/menu", keys="k2", text="open"))
    assert main(["diff", "--json", str(a), str(b)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"schema_version", "match", "plan", "plan_changed", "settings_changed", "extensions_changed",
                         "runs", "steps", "first_divergence", "notes"}
    assert data["settings_changed"] == []  # (v1.2) neither run set browser settings or a clock
    assert data["schema_version"] == "v1" and data["match"] is False
    assert data["plan"] == {"file": "plans/m.actions.yaml", "name": "menu opens"}
    assert set(data["runs"]["a"]) == {"path", "run_id", "status", "error_code", "failed_step", "started_at",
                                      "base_url", "events", "truncated", "finished"}
    first = data["steps"][1]
    assert set(first) == {"step_id", "recovery", "a", "b", "before", "after", "diverges", "reasons"}
    assert set(first["a"]) == {"outcome", "error_code", "errors", "attempts", "retries", "recoveries",
                               "duration_ms", "kind"}
    assert first["before"] == {"same": True, "differs": []}
    assert first["after"] == {"same": False, "differs": ["key_elements"]}
    assert data["first_divergence"] == {"step_id": "open_menu", "recovery": False, "reasons": ["after"],
                                        "before": [], "after": ["key_elements"],
                                        "text": "step 'open_menu': before: same; after: key_elements differ"}


def test_a_truncated_trace_still_diffs_with_a_note(tmp_path: Path, capsys) -> None:
    a, b = open_menu_runs(tmp_path, sig("/menu", text="open"))
    trace = b / "trace.jsonl"
    lines = trace.read_bytes().splitlines(keepends=True)
    trace.write_bytes(b"".join(lines[:-3]) + lines[-3][:25])  # a crash inside the last step's evidence line
    assert main(["diff", str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "note: run B: the trace's last line is cut off (a crash)" in out
    assert "first divergence: step 'open_menu': outcome: passed vs incomplete" in out


def test_different_screenshot_algorithms_are_noted(tmp_path: Path) -> None:
    a = write_run(tmp_path / "A", [step("open")])
    b = write_run(tmp_path / "B", [step("open", sig(algorithm="v1"), sig(algorithm="v1"))])
    assert any("hashed screenshots differently" in note for note in diff_runs(a, b).notes)


def test_runs_that_ended_differently_outside_any_step_diverge(tmp_path: Path, capsys) -> None:
    a = write_run(tmp_path / "A", [])
    b = write_run(tmp_path / "B", [])
    assert main(["diff", str(a), str(b)]) == 0
    manifest = json.loads((b / "run_manifest.json").read_text())
    manifest.update(status="internal_error", error_code="INTERNAL_ERROR")
    (b / "run_manifest.json").write_text(json.dumps(manifest))
    assert main(["diff", str(a), str(b)]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        "first divergence: the run's status: passed vs internal_error INTERNAL_ERROR (no step differs)")
    data = render_json(diff_runs(a, b))
    assert data["match"] is False and data["first_divergence"]["reasons"] == ["status"]
    assert data["first_divergence"]["step_id"] is None


def _refusal(capsys, *argv: str) -> str:
    assert main(["diff", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "Traceback" not in captured.err and captured.err.count("\n") == 1, captured.err
    return captured.err


def test_refuses_two_runs_of_different_plans(tmp_path: Path, capsys) -> None:
    a = write_run(tmp_path / "A", [step("open")])
    b = write_run(tmp_path / "B", [step("open")], name="another plan")
    c = write_run(tmp_path / "C", [step("open")], file="plans/other.actions.yaml")
    assert _refusal(capsys, str(a), str(b)) == (
        "cometlocal: error: the runs are of different plans: 'menu opens' (plans/m.actions.yaml) "
        "vs 'another plan' (plans/m.actions.yaml)\n")
    assert "different plans" in _refusal(capsys, str(a), str(c))
    row1 = write_run(tmp_path / "R1", [step("open")], row_id="alice")
    row2 = write_run(tmp_path / "R2", [step("open")], row_id="bob")
    assert "row 'alice'" in _refusal(capsys, str(row1), str(row2))
    with pytest.raises(DiffError):
        diff_runs(a, b)


def test_refuses_what_is_not_a_run_folder(tmp_path: Path, capsys) -> None:
    a = write_run(tmp_path / "A", [step("open")])
    assert _refusal(capsys, str(a), str(tmp_path / "nope")) == (
        f"cometlocal: error: no such run folder or output folder: {tmp_path / 'nope'}\n")
    (tmp_path / "empty").mkdir()  # an output folder that holds no run
    assert _refusal(capsys, str(tmp_path / "empty"), str(a)) == f"cometlocal: error: no run folders under {tmp_path / 'empty'}\n"
    no_trace = write_run(tmp_path / "T", [step("open")])
    (no_trace / "trace.jsonl").unlink()
    assert "not a run folder (no trace.jsonl)" in _refusal(capsys, str(a), str(no_trace))
    broken = write_run(tmp_path / "M", [step("open")])
    (broken / "run_manifest.json").write_text("{not json", encoding="utf-8")
    assert "run_manifest.json is not valid JSON" in _refusal(capsys, str(a), str(broken))
    (tmp_path / "file.txt").write_text("x")
    assert "not a folder" in _refusal(capsys, str(a), str(tmp_path / "file.txt"))


def test_usage_errors_exit_2(capsys) -> None:
    assert main(["diff", "only-one"]) == 2
    assert "RUN_B" in capsys.readouterr().err


def test_the_demo_flaky_page_alternates_by_load() -> None:
    """The flaky demo plan depends on it: odd loads ready at once, even loads only after the step timeout."""
    import urllib.request

    from pytest_cometlocal.demo.portal import FLAKY_DELAY_MS, DemoPortal

    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with DemoPortal() as portal:
        pages = [opener.open(portal.url + "/flaky" + query, timeout=10).read().decode() for query in ("", "?x", "", "")]
        other = opener.open(portal.url + "/reports", timeout=10).read().decode()
    assert other
    ready = [">Ready</p>" in page and "if (0 === 0)" in page for page in pages]
    waiting = [">Still loading</p>" in page and f"if ({FLAKY_DELAY_MS} === 0)" in page for page in pages]
    assert ready == [True, False, True, False] and waiting == [False, True, False, True]
    assert FLAKY_DELAY_MS > 2000  # the example plan's timeout_ms
    assert pages[0] == pages[2]  # nothing in the page tells two odd loads apart
