"""(v1.2) ``show`` and ``diff`` read a run's browser settings and clock from its manifest (run folders by hand)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_cometlocal.cli import main
from pytest_cometlocal.contract.model.plan import settings_items
from pytest_cometlocal.runs.diff import diff_runs
from pytest_cometlocal.runs.reader import read_run, run_settings
from pytest_cometlocal.runs.show import show_run
from tests.unit.test_run_diff import sig, step, write_run

SETTINGS = {"browser": {"locale": "de-DE", "timezone": "Europe/Madrid", "viewport": {"width": 390, "height": 844}},
            "clock": {"at": "2026-03-01T09:00:00+01:00"}}


def _with(folder: Path, effective: dict[str, Any], sources: dict[str, str] | None = None) -> Path:
    manifest = json.loads((folder / "run_manifest.json").read_text())
    manifest["configuration"] = {"suite_config": None, "effective": {"base_url": "x", **effective},
                                 "sources": {"base_url": "cli", **(sources or {})}}
    (folder / "run_manifest.json").write_text(json.dumps(manifest))
    return folder


def _run(folder: Path) -> Path:
    return write_run(folder, [step("open", sig("/"), sig("/menu"))])


def test_the_reader_gives_the_settings_with_their_sources_and_nothing_for_a_run_without(tmp_path: Path) -> None:
    run = _with(_run(tmp_path / "A"), SETTINGS, {"browser": "plan+suite", "clock": "suite"})
    assert read_run(run).settings == {**SETTINGS, "sources": {"browser": "plan+suite", "clock": "suite"}}
    assert read_run(_run(tmp_path / "B")).settings == {}
    assert run_settings({"configuration": {"effective": {"browser": "not a mapping"}}}) == {}


def test_settings_items_flatten_each_key_once() -> None:
    items = settings_items({"browser": {**SETTINGS["browser"], "permissions": ["geolocation"], "offline": True},
                            "clock": SETTINGS["clock"]})
    assert items == [("browser.locale", "de-DE"), ("browser.timezone", "Europe/Madrid"),
                     ("browser.viewport", "390x844"), ("browser.permissions", '["geolocation"]'),
                     ("browser.offline", "true"), ("clock.at", "2026-03-01T09:00:00+01:00")]


def test_show_prints_the_settings_in_its_header_only_when_set(tmp_path: Path) -> None:
    text = show_run(_with(_run(tmp_path / "A"), SETTINGS, {"browser": "plan", "clock": "suite"}))
    header = text.split("  steps:")[0]
    assert "  browser: locale de-DE, timezone Europe/Madrid, viewport 390x844  (plan)" in header
    assert "  clock: at 2026-03-01T09:00:00+01:00  (suite)" in header
    plain = show_run(_run(tmp_path / "B"))
    assert "browser:" not in plain and "clock:" not in plain


def test_diff_notes_runs_made_under_different_settings(tmp_path: Path, capsys) -> None:
    a = _with(_run(tmp_path / "A"), SETTINGS)
    b = _with(_run(tmp_path / "B"), {"browser": {**SETTINGS["browser"], "locale": "en-US"}})
    diff = diff_runs(a, b)
    assert diff.match and diff.settings_changed == ["browser.locale", "clock.at"]
    note = next(n for n in diff.notes if n.startswith("the runs ran under different browser settings"))
    assert "browser.locale de-DE in A, en-US in B" in note
    assert "clock.at 2026-03-01T09:00:00+01:00 in A, (not set) in B" in note
    assert main(["diff", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "note: the runs ran under different browser settings" in out
    assert "but they ran under different settings (note above)" in out
    assert main(["diff", "--json", str(a), str(b)]) == 0
    assert json.loads(capsys.readouterr().out)["settings_changed"] == ["browser.locale", "clock.at"]


def test_diff_of_runs_under_the_same_settings_notes_nothing(tmp_path: Path) -> None:
    a = _with(_run(tmp_path / "A"), SETTINGS, {"browser": "plan"})
    b = _with(_run(tmp_path / "B"), SETTINGS, {"browser": "suite"})  # where a value came from is not a difference
    diff = diff_runs(a, b)
    assert diff.settings_changed == [] and not any("settings" in n for n in diff.notes)
