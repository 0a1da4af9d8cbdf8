"""Evidence written in batches: one manifest rewrite per batch, no fsync until the run ends,
and a manifest that verifies whatever happens in the middle of a batch.

"Verifies" is the project's own check (``verify_run``), less what a bare
evidence folder cannot have (a trace, a run manifest).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from pytest_cometlocal.runs.verify import verify_run
from pytest_cometlocal.contract.run_folder import EVIDENCE_MANIFEST as MANIFEST
from pytest_cometlocal.executor.errors import OutputWriteFailed
from pytest_cometlocal.executor.runfolder.evidence_store import STAGING, EvidenceStore


def evidence_problems(run_dir: Path) -> list[str]:
    return [p for p in verify_run(run_dir).problems if not p.startswith(("trace.jsonl", "run_manifest.json"))]


def manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))


def on_disk(run_dir: Path) -> list[str]:
    return sorted(p.relative_to(run_dir).as_posix() for p in (run_dir / "evidence").rglob("*") if p.is_file())


class Calls:
    """Counts the calls of an ``os`` function (then calls it), optionally failing the nth one."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
        self.real = getattr(os, name)
        self.args: list[tuple] = []
        self.fail_at: int | None = None
        self.fail_with: BaseException | None = None
        self.fail_after_call = False
        monkeypatch.setattr(os, name, self)

    def __call__(self, *args):
        self.args.append(args)
        if self.fail_at == len(self.args) and not self.fail_after_call:
            raise self.fail_with
        result = self.real(*args)
        if self.fail_at == len(self.args):
            raise self.fail_with
        return result


def replaces_of_manifest(calls: Calls, run_dir: Path) -> int:
    return sum(1 for args in calls.args if Path(args[1]) == run_dir / MANIFEST)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_a_batch_of_n_files_is_one_manifest_rewrite_without_fsync(tmp_path: Path, monkeypatch, n: int) -> None:
    store = EvidenceStore(tmp_path, "run-1")
    replaces, fsyncs = Calls(monkeypatch, "replace"), Calls(monkeypatch, "fsync")
    payloads = [os.urandom(100 + 997 * i) for i in range(n)]
    with store.batch():
        refs = [store.add_bytes("screenshot", f"shots/s_{i}.png", data, step_id=f"s{i}", redact=False)
                for i, data in enumerate(payloads)]
        assert on_disk(tmp_path) == []  # nothing in evidence/ before the manifest can list it
        assert manifest(tmp_path)["files"] == []
    assert replaces_of_manifest(replaces, tmp_path) == 1
    assert fsyncs.args == []
    files = manifest(tmp_path)["files"]
    assert [f["uri"] for f in files] == [f"evidence/shots/s_{i}.png" for i in range(n)]
    for entry, ref, data in zip(files, refs, payloads):
        assert entry["sha256"] == ref.sha256 == hashlib.sha256(data).hexdigest()
        assert entry["size_bytes"] == len(data)
        assert (tmp_path / entry["uri"]).read_bytes() == data
    assert evidence_problems(tmp_path) == []


def test_nested_batches_write_once_at_the_outermost_end(tmp_path: Path, monkeypatch) -> None:
    store = EvidenceStore(tmp_path, "r")
    replaces = Calls(monkeypatch, "replace")
    with store.batch():
        store.add_json("dom_snapshot_partial", "dom/a.json", {"a": 1})
        with store.batch():
            store.add_json("dom_snapshot_partial", "dom/b.json", {"b": 2})
        assert replaces_of_manifest(replaces, tmp_path) == 0
    assert replaces_of_manifest(replaces, tmp_path) == 1
    assert len(manifest(tmp_path)["files"]) == 2 and evidence_problems(tmp_path) == []


def test_outside_a_batch_each_file_is_listed_at_once(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, "r")
    ref = store.add_bytes("html_full", "html/a.html", b"<p>")
    assert [f["uri"] for f in manifest(tmp_path)["files"]] == [ref.uri] and store.listed(ref)
    assert evidence_problems(tmp_path) == []


def test_the_manifest_reads_as_json_dumps_writes_it(tmp_path: Path) -> None:
    """Entries are encoded once and reused; the text is still the indent=2 dump of the whole."""
    store = EvidenceStore(tmp_path, "run-é")
    with store.batch():
        store.add_json("dom_snapshot_partial", "dom/a.json", {"x": "é\n"}, step_id="s1")
        store.add_bytes("screenshot", "shots/b.png", b"\x89PNG", redact=False,
                        metadata={"which": "before", "nested": [1, {"z": None}], "empty": {}})
    (tmp_path / "evidence" / "shots" / "c.png").mkdir(parents=True)  # the next batch fails and is rolled back
    with pytest.raises(OutputWriteFailed) as raised:
        store.add_bytes("screenshot", "shots/c.png", b"x", redact=False)
    assert raised.value.path == tmp_path / "evidence" / "shots" / "c.png"
    store.add_bytes("html_full", "html/d.html", b"<p>", step_id=None)
    data = {"schema_version": "v1", "run_id": "run-é", "files": [
        {"kind": r.kind, "step_id": r.step_id, "uri": r.uri, "sha256": r.sha256, "size_bytes": r.size_bytes,
         "metadata": r.metadata} for r in store.refs]}
    expected = json.dumps(data, ensure_ascii=False, indent=2, sort_keys=False, allow_nan=False) + "\n"
    assert (tmp_path / MANIFEST).read_text(encoding="utf-8") == expected
    assert [f["uri"] for f in data["files"]] == ["evidence/dom/a.json", "evidence/shots/b.png", "evidence/html/d.html"]


def test_a_file_that_cannot_be_written_midway_keeps_the_files_before_it(tmp_path: Path) -> None:
    """The 2nd file's folder is a file: its write fails; the 1st is listed when the batch ends."""
    store = EvidenceStore(tmp_path, "r")
    store.add_bytes("download", "blocked", b"a listed file where the 2nd file wants a folder")
    with pytest.raises(OutputWriteFailed) as raised:
        with store.batch():
            first = store.add_json("dom_snapshot_partial", "dom/a.json", {"a": 1})
            store.add_json("dom_snapshot_partial", "blocked/b.json", {"b": 2})
    assert raised.value.path == tmp_path / "evidence" / "blocked" / "b.json"
    assert store.listed(first)
    assert on_disk(tmp_path) == ["evidence/blocked", "evidence/dom/a.json"]
    assert [f["uri"] for f in manifest(tmp_path)["files"]] == ["evidence/blocked", "evidence/dom/a.json"]
    assert evidence_problems(tmp_path) == []


def test_a_batch_whose_end_fails_midway_leaves_the_old_manifest_and_no_unlisted_file(tmp_path: Path) -> None:
    """The 2nd file's place is a directory: moving it in fails after the 1st was moved; all is undone."""
    store = EvidenceStore(tmp_path, "r")
    kept = store.add_json("inspection_report", "r.json", {"kept": True})
    before = (tmp_path / MANIFEST).read_bytes()
    (tmp_path / "evidence" / "dom" / "b.json").mkdir(parents=True)
    refs = []
    with pytest.raises(OutputWriteFailed) as raised:
        with store.batch():
            refs.append(store.add_json("dom_snapshot_partial", "dom/a.json", {"a": 1}))
            refs.append(store.add_json("dom_snapshot_partial", "dom/b.json", {"b": 2}))
            refs.append(store.add_json("dom_snapshot_partial", "dom/c.json", {"c": 3}))
    assert raised.value.path == tmp_path / "evidence" / "dom" / "b.json"
    assert (tmp_path / MANIFEST).read_bytes() == before
    assert store.refs == [kept] and not any(store.listed(r) for r in refs)
    assert on_disk(tmp_path) == ["evidence/r.json"]
    assert list((tmp_path / STAGING).iterdir()) == []
    assert not (tmp_path / (MANIFEST + ".tmp")).exists()
    assert evidence_problems(tmp_path) == []
    # The store goes on.
    (tmp_path / "evidence" / "dom" / "b.json").rmdir()
    with store.batch():
        store.add_json("dom_snapshot_partial", "dom/b.json", {"b": 2})
    assert len(manifest(tmp_path)["files"]) == 2 and evidence_problems(tmp_path) == []


def test_a_manifest_that_cannot_be_written_lists_nothing_of_the_batch(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, "r")
    before = (tmp_path / MANIFEST).read_bytes()
    (tmp_path / (MANIFEST + ".tmp")).mkdir()  # the new manifest has nowhere to go
    with pytest.raises(OutputWriteFailed) as raised:
        with store.batch():
            store.add_json("dom_snapshot_partial", "dom/a.json", {"a": 1})
            store.add_json("dom_snapshot_partial", "dom/b.json", {"b": 2})
    assert raised.value.path == tmp_path / MANIFEST
    assert (tmp_path / MANIFEST).read_bytes() == before and store.refs == []
    assert on_disk(tmp_path) == [] and evidence_problems(tmp_path) == []


@pytest.mark.parametrize("when", ["before the manifest replaced", "after the manifest replaced"])
def test_an_interrupt_inside_the_end_of_a_batch_is_finished_by_close(tmp_path: Path, monkeypatch, when: str) -> None:
    """SIGTERM and Ctrl-C arrive as KeyboardInterrupt, possibly between the moves and the manifest."""
    store = EvidenceStore(tmp_path, "r")
    replaces = Calls(monkeypatch, "replace")
    replaces.fail_at, replaces.fail_with = 1, KeyboardInterrupt()
    replaces.fail_after_call = when.startswith("after")
    with pytest.raises(KeyboardInterrupt):
        with store.batch():
            store.add_json("dom_snapshot_partial", "dom/a.json", {"a": 1})
            store.add_json("dom_snapshot_partial", "dom/b.json", {"b": 2})
    monkeypatch.undo()
    store.close()  # as RunFolder.finish does on the way out of an interrupted run
    assert [f["uri"] for f in manifest(tmp_path)["files"]] == ["evidence/dom/a.json", "evidence/dom/b.json"]
    assert evidence_problems(tmp_path) == [] and not (tmp_path / STAGING).exists()


def test_close_lists_what_is_staged_fsyncs_the_manifest_once_and_drops_the_staging_folder(tmp_path: Path,
                                                                                             monkeypatch) -> None:
    store = EvidenceStore(tmp_path, "r")
    store.add_json("dom_snapshot_partial", "dom/a.json", {"a": 1})
    fsyncs = Calls(monkeypatch, "fsync")
    cm = store.batch()
    cm.__enter__()
    store.add_json("dom_snapshot_partial", "dom/b.json", {"b": 2})  # a batch that never ended
    store.close()
    assert len(fsyncs.args) == 1
    assert len(manifest(tmp_path)["files"]) == 2 and evidence_problems(tmp_path) == []
    assert not (tmp_path / STAGING).exists()



def test_an_interrupt_in_a_batch_stays_the_interrupt_when_its_end_fails_too(tmp_path: Path) -> None:
    store = EvidenceStore(tmp_path, "r")
    (tmp_path / (MANIFEST + ".tmp")).mkdir()  # the end of the batch fails
    with pytest.raises(KeyboardInterrupt):
        with store.batch():
            store.add_json("dom_snapshot_partial", "dom/a.json", {"a": 1})
            raise KeyboardInterrupt
    assert store.refs == [] and on_disk(tmp_path) == [] and evidence_problems(tmp_path) == []


def killed_between_moves_and_manifest(tmp_path: Path, monkeypatch) -> Path:
    """The state a SIGKILL leaves in the one window of a batch: files moved in, manifest not yet replaced.

    The replacement of the manifest is made to fail and nothing runs after it,
    as after a kill (no ``close``).
    """
    store = EvidenceStore(tmp_path, "r")
    store.add_json("dom_snapshot_partial", "dom/first.json", {"first": 1})
    replaces = Calls(monkeypatch, "replace")
    replaces.fail_at, replaces.fail_with = 1, KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt):
        with store.batch():
            store.add_json("dom_snapshot_partial", "dom/a.json", {"a": 1})
            store.add_bytes("screenshot", "shots/a.png", b"\x89PNG not really", redact=False)
    monkeypatch.undo()
    assert on_disk(tmp_path) == ["evidence/dom/a.json", "evidence/dom/first.json", "evidence/shots/a.png"]
    assert [f["uri"] for f in manifest(tmp_path)["files"]] == ["evidence/dom/first.json"]
    return tmp_path


def test_a_batch_cut_by_a_kill_between_its_moves_and_its_manifest_verifies_with_a_note(tmp_path: Path,
                                                                                      monkeypatch, capsys) -> None:
    run_dir = killed_between_moves_and_manifest(tmp_path, monkeypatch)
    result = verify_run(run_dir)
    assert evidence_problems(run_dir) == []
    assert result.files == 3
    assert result.notes == [f"2 evidence file(s) of a batch cut short by a kill: listed, with matching sha256, "
                            f"by the complete {MANIFEST}.tmp"]


@pytest.mark.parametrize("tamper, problem", [
    (lambda d: (d / "evidence/shots/a.png").write_bytes(b"other bytes"), "evidence/shots/a.png: in evidence/ but not"),
    (lambda d: (d / f"{MANIFEST}.tmp").write_text('{"files": [', encoding="utf-8"), "evidence/dom/a.json: in evidence/"),
    (lambda d: (d / f"{MANIFEST}.tmp").unlink(), "evidence/dom/a.json: in evidence/ but not in the manifest"),
    (lambda d: (d / "evidence/dom/planted.json").write_text("{}"), "evidence/dom/planted.json: in evidence/ but not"),
    (lambda d: (d / MANIFEST).write_text(json.dumps({"schema_version": "v1", "run_id": "r", "files": [
        {"uri": "evidence/dom/other.json", "sha256": "0" * 64}]})),
     "evidence/dom/a.json: in evidence/ but not"),  # the .tmp does not extend the manifest in place
])
def test_anything_else_unlisted_is_still_a_problem(tmp_path: Path, monkeypatch, tamper, problem: str) -> None:
    run_dir = killed_between_moves_and_manifest(tmp_path, monkeypatch)
    tamper(run_dir)
    assert any(p.startswith(problem) for p in evidence_problems(run_dir)), evidence_problems(run_dir)
