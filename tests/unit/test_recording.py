"""Run artifacts without a browser: trace, evidence, run folder, redaction, invalid-plan records."""

from __future__ import annotations

import hashlib
import html
import json
from datetime import datetime
from pathlib import Path
from urllib.parse import quote, quote_plus, urlencode

import pydantic
import pytest

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError, TraceEvent
from pytest_cometlocal.contract.run_folder import EVIDENCE_MANIFEST as MANIFEST
from pytest_cometlocal.executor.runfolder.evidence_store import EvidenceStore
from pytest_cometlocal.executor.runfolder.redactor import MASK, Redactor
from pytest_cometlocal.executor.session import record_invalid_plan
from pytest_cometlocal.contract.run_folder import RUN_MANIFEST, TRACE
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from pytest_cometlocal.executor.runfolder.trace_writer import TraceWriter
from tests.support import VALID_PLAN, only_problems


def lines_of(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return text[:-1].split("\n")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------------------
# TraceWriter


class TestTraceWriter:
    def test_seq_starts_at_one_without_gaps_and_ts_strictly_increases(self, tmp_path):
        writer = TraceWriter(tmp_path / "trace.jsonl", "run-1")
        try:
            for i in range(200):
                writer.emit("observation_captured", f"s{i}")
        finally:
            writer.close()
        events = [json.loads(line) for line in lines_of(tmp_path / "trace.jsonl")]
        assert [e["seq"] for e in events] == list(range(1, 201))
        assert all(e["run_id"] == "run-1" for e in events)
        stamps = [datetime.fromisoformat(e["ts_utc"]) for e in events]
        assert all(s.utcoffset().total_seconds() == 0 for s in stamps)
        assert all(a < b for a, b in zip(stamps, stamps[1:]))

    def test_emit_returns_the_event_and_next_seq(self, tmp_path):
        writer = TraceWriter(tmp_path / "t.jsonl", "r")
        assert writer.next_seq == 1
        event = writer.emit("run_started", metadata={"x": 1})
        assert isinstance(event, TraceEvent) and event.seq == 1 and event.event_type == "run_started"
        assert writer.next_seq == 2
        writer.close()

    def test_every_line_is_one_json_object(self, tmp_path):
        writer = TraceWriter(tmp_path / "t.jsonl", "r")
        writer.emit("run_started", metadata={"text": "multi\nline\r\nvalue \u2028 sep", "n": 1})
        writer.emit("action_started", "step-1", action_spec={"id": "a", "kind": "click"})
        writer.emit("run_finished", metadata={})
        writer.close()
        lines = lines_of(tmp_path / "t.jsonl")
        assert len(lines) == 3
        objects = [json.loads(line) for line in lines]
        assert all(isinstance(o, dict) for o in objects)
        assert objects[0]["metadata"]["text"] == "multi\nline\r\nvalue \u2028 sep"
        assert objects[1]["step_id"] == "step-1" and objects[1]["action_spec"] == {"id": "a", "kind": "click"}
        for obj in objects:
            TraceEvent.model_validate(obj)

    def test_lines_are_flushed_as_written(self, tmp_path):
        path = tmp_path / "t.jsonl"
        writer = TraceWriter(path, "r")
        try:
            for i in range(1, 4):
                writer.emit("observation_captured", f"s{i}")
                # Read through a separate handle, before close.
                events = [json.loads(line) for line in lines_of(path)]
                assert [e["seq"] for e in events] == list(range(1, i + 1))
        finally:
            writer.close()

    def test_emit_after_close_raises_and_writes_nothing(self, tmp_path):
        path = tmp_path / "t.jsonl"
        writer = TraceWriter(path, "r")
        writer.emit("run_started")
        writer.close()
        writer.close()  # idempotent
        with pytest.raises(RuntimeError, match="^trace is closed$"):
            writer.emit("run_finished")
        assert len(lines_of(path)) == 1

    def test_unknown_event_type_is_refused_and_seq_not_consumed(self, tmp_path):
        writer = TraceWriter(tmp_path / "t.jsonl", "r")
        with pytest.raises(pydantic.ValidationError) as refused:
            writer.emit("not_an_event")
        assert [(e["loc"], e["type"], e["input"]) for e in refused.value.errors()] == [
            (("event_type",), "literal_error", "not_an_event")]
        writer.emit("run_started")
        writer.close()
        assert [json.loads(line)["seq"] for line in lines_of(tmp_path / "t.jsonl")] == [1]

    def test_trace_line_is_redacted(self, tmp_path):
        secret = 's3cr"et<&>'
        writer = TraceWriter(tmp_path / "t.jsonl", "r", Redactor([secret]))
        writer.emit("run_started", metadata={"typed": secret, "url": "https://h/?p=" + quote_plus(secret),
                                            "html": "<b>" + html.escape(secret) + "</b>"})
        writer.close()
        text = (tmp_path / "t.jsonl").read_text(encoding="utf-8")
        event = json.loads(text)
        assert event["metadata"] == {"typed": MASK, "url": "https://h/?p=" + MASK, "html": "<b>" + MASK + "</b>"}
        assert secret not in text and "s3cr" not in text

    def test_trace_line_is_redacted_for_a_non_ascii_secret(self, tmp_path):
        # The trace is written as UTF-8 JSON (ensure_ascii=False): the secret appears
        # there with its quote escaped but its non-ASCII letters raw.
        secret = 'pä"ss'
        writer = TraceWriter(tmp_path / "t.jsonl", "r", Redactor([secret]))
        writer.emit("run_started", metadata={"typed": secret})
        writer.close()
        text = (tmp_path / "t.jsonl").read_text(encoding="utf-8")
        event = json.loads(text)
        assert event["metadata"]["typed"] == MASK
        assert "pä" not in text


# ---------------------------------------------------------------------------
# Redactor


SECRET = 'pä"s s&<x>/\'+%'


def encodings(value: str) -> dict[str, str]:
    return {
        "raw": value,
        "json_ascii": json.dumps(value)[1:-1],
        "json_utf8": json.dumps(value, ensure_ascii=False)[1:-1],
        "html_quote": html.escape(value, quote=True),
        "html_noquote": html.escape(value, quote=False),
        "url_quote": quote(value, safe=""),
        "url_quote_plus": quote_plus(value),
        "urlencode_query": urlencode({"p": value})[2:],
    }


class TestRedactor:
    @pytest.mark.parametrize("secret", ["hunter2", 'p"w<d&', SECRET])
    @pytest.mark.parametrize("form", list(encodings("x")))
    def test_masks_each_encoding_in_text_and_bytes(self, secret, form):
        encoded = encodings(secret)[form]
        redactor = Redactor([secret])
        text = f"before {encoded} after"
        out = redactor.text(text)
        assert out == f"before {MASK} after", (form, encoded, out)
        data = redactor.data(text.encode("utf-8"))
        assert data == f"before {MASK} after".encode("utf-8")

    def test_masks_every_occurrence_and_every_secret(self):
        redactor = Redactor(["alpha", "beta"])
        assert redactor.text("alpha-beta-alpha") == f"{MASK}-{MASK}-{MASK}"

    def test_longer_secret_containing_a_shorter_one_is_masked_whole(self):
        redactor = Redactor(["abc", "abcdef"])
        assert redactor.text("xabcdefx abc") == f"x{MASK}x {MASK}"

    def test_no_secrets_changes_nothing(self):
        for redactor in (Redactor(), Redactor(["", ""])):
            assert not redactor
            assert redactor.text("hunter2 ***") == "hunter2 ***"
            assert redactor.data(b"\x00\xffhunter2") == b"\x00\xffhunter2"

    def test_tree_masks_strings_at_any_depth_and_leaves_the_rest(self):
        redactor = Redactor(["hunter2"])
        value = {"a": ["x hunter2", {"b": "hunter2"}, 3, None, True], "hunter2": 1.5}
        assert redactor.tree(value) == {"a": [f"x {MASK}", {"b": MASK}, 3, None, True], "hunter2": 1.5}
        assert value["a"][0] == "x hunter2"  # a copy: the input is not changed
        untouched = {"a": ["hunter2"]}
        assert Redactor().tree(untouched) is untouched

    def test_bytes_that_are_not_utf8_are_still_masked(self):
        assert Redactor(["hunter2"]).data(b"\xff\xfehunter2\x00") == b"\xff\xfe" + MASK.encode() + b"\x00"

    def test_describe_never_contains_values(self):
        described = Redactor(["hunter2", "hunter2", "other"]).describe()
        text = json.dumps(described)
        assert "hunter2" not in text and "other" not in text
        assert described["secret_count"] == 2 and described["mask"] == MASK and described["enabled"] is True


# ---------------------------------------------------------------------------
# EvidenceStore


class TestEvidenceStore:
    def test_files_and_manifest_hashes(self, tmp_path):
        store = EvidenceStore(tmp_path, "run-9")
        manifest = json.loads((tmp_path / MANIFEST).read_text())
        assert manifest["files"] == [] and manifest["run_id"] == "run-9"

        png = bytes(range(256)) * 10
        ref1 = store.add_bytes("screenshot", "shots/step_1.png", png, step_id="s1", redact=False)
        ref2 = store.add_json("validation_report", "validation_report.json", {"a": [1, 2], "é": "ü"})
        ref3 = store.add_bytes("html_full", "html/page.html", b"<html>x</html>", step_id="s2")

        for ref in (ref1, ref2, ref3):
            assert isinstance(ref, EvidenceRef)
            assert ref.uri.startswith("evidence/")
            path = tmp_path / ref.uri
            assert path.is_file()
            assert path.resolve().is_relative_to((tmp_path / "evidence").resolve())
            assert ref.sha256 == sha256_of(path)
            assert ref.size_bytes == path.stat().st_size
        assert (tmp_path / "evidence" / "shots" / "step_1.png").read_bytes() == png
        assert json.loads((tmp_path / ref2.uri).read_text(encoding="utf-8")) == {"a": [1, 2], "é": "ü"}

        manifest = json.loads((tmp_path / MANIFEST).read_text())
        assert manifest["run_id"] == "run-9"
        files = manifest["files"]
        assert [f["uri"] for f in files] == [ref1.uri, ref2.uri, ref3.uri]
        assert [f["kind"] for f in files] == ["screenshot", "validation_report", "html_full"]
        assert [f["step_id"] for f in files] == ["s1", None, "s2"]
        for entry in files:
            assert entry["sha256"] == sha256_of(tmp_path / entry["uri"])
            assert entry["size_bytes"] == (tmp_path / entry["uri"]).stat().st_size
        assert not list(tmp_path.glob("*.tmp"))

    @pytest.mark.parametrize("bad", ["../x.json", "a/../../x.json", "a/../b.json", "/abs.json", "..", "dom/../../../x"])
    def test_refuses_paths_leaving_the_evidence_folder(self, tmp_path, bad):
        run = tmp_path / "run"
        run.mkdir()
        store = EvidenceStore(run, "r")
        with pytest.raises(ValueError) as refused:
            store.add_bytes("console_log", bad, b"data")
        assert str(refused.value) == f"evidence path '{bad}' must stay inside the run folder"
        assert store.refs == []
        assert json.loads((run / MANIFEST).read_text())["files"] == []
        written = [p for p in tmp_path.rglob("*") if p.is_file()]
        assert written == [run / MANIFEST]

    def test_text_evidence_is_redacted_and_hashed_after_redaction(self, tmp_path):
        store = EvidenceStore(tmp_path, "r", Redactor(["hunter2"]))
        ref = store.add_bytes("dom_snapshot_partial", "dom/a.json", b'{"value": "hunter2"}')
        content = (tmp_path / ref.uri).read_bytes()
        assert b"hunter2" not in content and MASK.encode() in content
        assert ref.sha256 == hashlib.sha256(content).hexdigest()
        ref2 = store.add_json("inspection_report", "r.json", {"v": "hunter2"})
        assert b"hunter2" not in (tmp_path / ref2.uri).read_bytes()

    def test_json_evidence_is_redacted_for_a_non_ascii_secret(self, tmp_path):
        # add_json writes UTF-8 JSON, where the quote is escaped and "ä" stays raw.
        store = EvidenceStore(tmp_path, "r", Redactor([SECRET]))
        ref = store.add_json("inspection_report", "r.json", {"typed": SECRET})
        content = (tmp_path / ref.uri).read_text(encoding="utf-8")
        assert json.loads(content) == {"typed": MASK}
        assert "pä" not in content


# ---------------------------------------------------------------------------
# RunFolder


def create_run(output: Path, name: str = "My Plan", **kw) -> RunFolder:
    args = dict(mode="live", policy=Policy(retries_per_action=1), allowlist=("127.0.0.1", "*.example.com"),
                plan_info={"file": "plans/p.actions.yaml", "name": name})
    args.update(kw)
    return RunFolder.create(output, name, **args)


class TestRunFolder:
    def test_the_listeners_given_at_creation_hear_every_event_once_it_is_written(self, tmp_path):
        heard: list[tuple[int, str, int]] = []

        def listener(event: TraceEvent) -> None:  # what it hears is on disk already
            heard.append((event.seq, event.event_type, len(lines_of(run.path / TRACE))))

        run = create_run(tmp_path, redactor=Redactor(["hunter2"]), listeners=[listener])
        try:
            run.trace.emit("run_started", metadata={"note": "hunter2"})
            run.trace.emit("run_finished", metadata={})
        finally:
            run.finish("passed")
        assert heard == [(1, "run_started", 1), (2, "run_finished", 2)]
        assert run.trace.listeners == (listener,)

    def test_twenty_runs_with_the_same_name_get_distinct_folders(self, tmp_path):
        runs = [create_run(tmp_path / "out", "same name") for _ in range(20)]
        try:
            paths = {r.path for r in runs}
            ids = {r.run_id for r in runs}
            assert len(paths) == 20 and len(ids) == 20
            assert all(p.is_dir() and p.parent == tmp_path / "out" for p in paths)
            assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(ids)
            for run in runs:
                assert json.loads((run.path / RUN_MANIFEST).read_text())["run_id"] == run.run_id
        finally:
            for run in runs:
                run.finish("passed")

    def test_run_manifest_fields(self, tmp_path):
        redactor = Redactor(["hunter2"])
        run = create_run(tmp_path, mode="dry_run", redactor=redactor, profile={"name": "balanced"})
        try:
            manifest = json.loads((run.path / RUN_MANIFEST).read_text())
            for key in ("run_id", "started_at", "execution_profile", "execution_mode", "policy_defaults",
                        "app_version", "platform", "domain_allowlist", "redaction_policy"):
                assert key in manifest, key
            assert manifest["run_id"] == run.run_id == run.path.name
            assert datetime.fromisoformat(manifest["started_at"]).utcoffset().total_seconds() == 0
            assert manifest["execution_mode"] == "dry_run"
            assert manifest["execution_profile"] == {"name": "balanced"}
            assert manifest["policy_defaults"] == Policy().model_dump(mode="json")
            assert manifest["policy_defaults"]["retries_per_action"] == 2
            assert manifest["policy"]["retries_per_action"] == 1
            assert manifest["domain_allowlist"] == ["127.0.0.1", "*.example.com"]
            assert manifest["redaction_policy"]["secret_count"] == 1
            assert manifest["app_version"] and manifest["platform"]
            assert "hunter2" not in (run.path / RUN_MANIFEST).read_text()
            assert (run.path / TRACE).exists() and (run.path / MANIFEST).exists()
        finally:
            run.finish("passed")
        finished = json.loads((run.path / RUN_MANIFEST).read_text())
        assert finished["status"] == "passed" and finished["finished_at"]
        assert finished["started_at"] == manifest["started_at"]
        with pytest.raises(RuntimeError, match="^trace is closed$"):
            run.trace.emit("run_finished")

    def test_default_profile(self, tmp_path):
        run = create_run(tmp_path)
        run.finish("passed")
        assert json.loads((run.path / RUN_MANIFEST).read_text())["execution_profile"] == {"name": "default"}


# ---------------------------------------------------------------------------
# record_invalid_plan


BROKEN_PLAN = VALID_PLAN.replace("    target: {type: testid, id: go}\n",
                                 "    target: {type: testid, id: go}\n    bogus: 1\n")


class TestRecordInvalidPlan:
    @pytest.fixture
    def recorded(self, validate, tmp_path):
        assert BROKEN_PLAN != VALID_PLAN
        invalid = only_problems(validate(BROKEN_PLAN))
        run, error = record_invalid_plan(invalid, tmp_path / "out")
        return invalid, run, error

    def test_trace_events_and_seq(self, recorded):
        _invalid, run, _error = recorded
        lines = lines_of(run.path / TRACE)
        events = [json.loads(line) for line in lines]
        assert [e["event_type"] for e in events] == [
            "run_started", "proposal_rejected", "evidence_captured", "error_raised", "run_finished"]
        assert [e["seq"] for e in events] == [1, 2, 3, 4, 5]
        assert all(e["run_id"] == run.run_id for e in events)
        stamps = [datetime.fromisoformat(e["ts_utc"]) for e in events]
        assert all(a < b for a, b in zip(stamps, stamps[1:]))
        for event in events:
            TraceEvent.model_validate(event)

    def test_error_fields(self, recorded):
        invalid, run, error = recorded
        events = [json.loads(line) for line in lines_of(run.path / TRACE)]
        raised = next(e for e in events if e["event_type"] == "error_raised")
        err = raised["error"]
        assert err["error_code"] == "INVALID_ACTIONSPEC"
        assert err["stage"] == "proposal_validation"
        assert "state_before" in err and err["state_before"] is None
        for key in ("step_index", "action_id", "action_kind", "criticality"):
            assert key in err and err[key] is None
        assert err["retryable"] is False
        assert err["run_id"] == run.run_id
        assert err["details"]["violated_rules"] == invalid.violated_rules == ["SCHEMA"]
        assert err["details"]["validation_errors"] == [p.as_dict() for p in invalid.problems]
        assert any(v["key_path"] == "steps[1].bogus" for v in err["details"]["validation_errors"])
        assert isinstance(error, ExecutorError) and error.error_code is ErrorCode.INVALID_ACTIONSPEC
        assert ExecutorError.model_validate(err) == error
        rejected = next(e for e in events if e["event_type"] == "proposal_rejected")
        assert rejected["error"] == err
        assert err["seq"] == rejected["seq"]

    def test_evidence_is_the_validation_report(self, recorded):
        invalid, run, error = recorded
        ref, = error.evidence_refs
        assert ref.kind == "validation_report"
        report_path = run.path / ref.uri
        assert report_path.is_file() and ref.uri.startswith("evidence/")
        assert ref.sha256 == sha256_of(report_path)
        report = json.loads(report_path.read_text(encoding="utf-8"))
        assert report["violated_rules"] == ["SCHEMA"]
        assert [p["key_path"] for p in report["problems"]] == [p.key_path for p in invalid.problems]
        manifest = json.loads((run.path / MANIFEST).read_text())
        assert [(f["uri"], f["sha256"]) for f in manifest["files"]] == [(ref.uri, sha256_of(report_path))]
        events = [json.loads(line) for line in lines_of(run.path / TRACE)]
        captured = next(e for e in events if e["event_type"] == "evidence_captured")
        assert captured["evidence_refs"][0]["sha256"] == sha256_of(report_path)

    def test_run_manifest_is_finished_as_failed(self, recorded):
        invalid, run, _error = recorded
        manifest = json.loads((run.path / RUN_MANIFEST).read_text())
        assert manifest["status"] == "failed"
        assert manifest["error_code"] == "INVALID_ACTIONSPEC"
        assert manifest["finished_at"]
        assert manifest["plan"]["file"] == "plans/p.actions.yaml"
        assert manifest["plan"]["name"] == invalid.name == "minimal"
        assert manifest["domain_allowlist"] == []

    def test_a_file_that_does_not_parse_is_recorded_too(self, validate, tmp_path):
        invalid = only_problems(validate("name: x\nsteps: [\n"))
        run, error = record_invalid_plan(invalid, tmp_path / "out", mode="dry_run")
        events = [json.loads(line) for line in lines_of(run.path / TRACE)]
        assert [e["seq"] for e in events] == [1, 2, 3, 4, 5]
        assert error.details["violated_rules"] == ["YAML"]
        assert json.loads((run.path / RUN_MANIFEST).read_text())["execution_mode"] == "dry_run"
        for event in events:
            TraceEvent.model_validate(event)
