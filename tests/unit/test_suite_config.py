"""Suite config (cometlocal.yaml) merging, storage-state files and late redaction, without a browser."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from pytest_cometlocal.cli import main
from pytest_cometlocal.contract.load.suite_config import SuiteConfigFinder
from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_path
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.executor.browser.storage_states import StorageStates, state_values
from tests.support import only_problems, only_valid

CONFIG = """\
base_url: http://127.0.0.1:9000
policy: {hard_cap_steps: 10, retries_per_action: 0}
defaults: {criticality: normal, timeout_ms: 700, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
overlay_selectors: ["#wall"]
"""

PLAN = """\
name: p
steps:
  - {id: open, kind: navigate, target: {type: url, url: /x}}
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def check(root: Path, plan: Path, explicit: Path | None = None):
    finder = SuiteConfigFinder(root, explicit)
    ctx = ValidationContext(root=root, plan_path=plan, env={}, suite_config=finder.for_plan(plan))
    return validate_path(plan, ctx, shown=plan.relative_to(root).as_posix())


def test_config_values_fill_a_plan_and_are_reported_with_their_source(tmp_path: Path) -> None:
    write(tmp_path / "cometlocal.yaml", CONFIG)
    plan = write(tmp_path / "plans" / "deep" / "p.actions.yaml", PLAN.replace("name: p\n", "name: p\npolicy: {retries_per_action: 2}\n"))
    valid = only_valid(check(tmp_path, plan))
    eff = effective_settings(valid, env={})
    assert eff.base_url == "http://127.0.0.1:9000" and eff.allowlist == ("127.0.0.1",)
    assert valid.plan.policy.hard_cap_steps == 10 and valid.plan.policy.retries_per_action == 2
    assert valid.plan.steps[0].timeout_ms == 700 and valid.plan.overlay_selectors == ["#wall"]
    assert valid.suite_config == "cometlocal.yaml"
    assert dict(valid.config_sources) == {"base_url": "suite", "policy": "plan+suite", "defaults": "suite",
                                          "overlay_selectors": "suite"}
    eff = effective_settings(valid, cli_base_url=None, default_base_url="http://127.0.0.1:1")
    conf = eff.configuration()
    assert conf["sources"]["base_url"] == "suite" and conf["sources"]["allowlist"] == "base_url host"
    assert effective_settings(valid, cli_base_url="http://127.0.0.1:2").base_url_source == "cli"


def test_a_plan_key_wins_and_the_nearest_config_applies(tmp_path: Path) -> None:
    write(tmp_path / "cometlocal.yaml", CONFIG)
    write(tmp_path / "plans" / "cometlocal.yml", "defaults: {criticality: critical, timeout_ms: 5, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: url_matches, args: {pattern: x}}]}\n")
    plan = write(tmp_path / "plans" / "p.actions.yaml", PLAN.replace("name: p\n", "name: p\nbase_url: http://127.0.0.1:7000\n"))
    valid = only_valid(check(tmp_path, plan))
    assert effective_settings(valid, env={}).base_url == "http://127.0.0.1:7000" and valid.plan.steps[0].timeout_ms == 5
    assert valid.plan.policy.hard_cap_steps == 60  # the outer config is not merged with the nearer one
    # An explicit config replaces the search.
    valid = only_valid(check(tmp_path, plan, explicit=tmp_path / "cometlocal.yaml"))
    assert valid.plan.steps[0].timeout_ms == 700


def test_problems_in_config_values_name_the_config_file(tmp_path: Path) -> None:
    write(tmp_path / "cometlocal.yaml", CONFIG.replace("timeout_ms: 700", "timeout_ms: '700'"))
    plan = write(tmp_path / "p.actions.yaml", PLAN)
    inv = only_problems(check(tmp_path, plan))
    assert [(p.file, p.mark.line, p.rule) for p in inv.problems] == [("cometlocal.yaml", 3, "SCHEMA")]
    write(tmp_path / "cometlocal.yaml", "steps: []\n")
    inv = only_problems(check(tmp_path, plan))
    assert inv.problems[0].rule == "SUITE_CONFIG" and inv.problems[0].file == "cometlocal.yaml"
    write(tmp_path / "cometlocal.yaml", "policy: [\n")
    inv = only_problems(check(tmp_path, plan))
    assert inv.problems[0].rule == "YAML" and inv.problems[0].file == "cometlocal.yaml"


def test_the_profile_is_a_setting_of_the_runs_command_line_then_suite_then_ini(tmp_path: Path) -> None:
    write(tmp_path / "cometlocal.yaml", CONFIG + "profile: fast\n")
    plan = write(tmp_path / "p.actions.yaml", PLAN)
    valid = only_valid(check(tmp_path, plan))
    assert "profile" not in valid.plan.model_fields_set and valid.suite_profile == "fast"  # not merged into the plan
    assert "profile" not in valid.config_sources
    eff = effective_settings(valid, env={}, default_profile="forensic")
    assert eff.profile == "fast" and eff.sources["profile"] == "suite"
    assert eff.configuration()["effective"]["profile"] == "fast"
    eff = effective_settings(valid, env={}, cli_profile="forensic", default_profile="balanced")
    assert (eff.profile, eff.sources["profile"]) == ("forensic", "cli")
    write(tmp_path / "cometlocal.yaml", CONFIG)
    valid = only_valid(check(tmp_path, plan))
    eff = effective_settings(valid, env={}, default_profile="forensic")
    assert (eff.profile, eff.sources["profile"]) == ("forensic", "ini")
    eff = effective_settings(valid, env={})
    assert (eff.profile, eff.sources["profile"]) == ("balanced", "default")


def test_an_unknown_profile_in_the_suite_config_is_a_located_problem(tmp_path: Path) -> None:
    write(tmp_path / "cometlocal.yaml", CONFIG + "profile: quick\n")
    plan = write(tmp_path / "p.actions.yaml", PLAN)
    inv = only_problems(check(tmp_path, plan))
    assert [(p.file, p.mark.line, p.key_path, p.rule) for p in inv.problems] == [
        ("cometlocal.yaml", 5, "profile", "SUITE_CONFIG")]
    assert "balanced, fast, forensic" in inv.problems[0].message and "'quick'" in inv.problems[0].message
    # A plan cannot set it: it is not a plan key.
    write(tmp_path / "cometlocal.yaml", CONFIG)
    write(tmp_path / "p.actions.yaml", PLAN.replace("name: p\n", "name: p\nprofile: fast\n"))
    inv = only_problems(check(tmp_path, plan))
    assert inv.problems[0].key_path == "profile"


def test_cli_validate_uses_the_suite_config(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", "")
    write(tmp_path / "plans" / "p.actions.yaml", PLAN)
    assert main(["validate", "plans"]) == 1  # no defaults: criticality, timeout and conditions missing
    write(tmp_path / "plans" / "cometlocal.yaml", CONFIG)
    assert main(["validate", "plans"]) == 0
    write(tmp_path / "other.yaml", "policy: {hard_cap_steps: 0}\n")
    capsys.readouterr()
    assert main(["validate", "plans", "--config", "other.yaml", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["plans"][0]["problems"][0]["file"] == "other.yaml"


def test_storage_state_files_are_private_and_cleared_per_session(tmp_path: Path) -> None:
    states = StorageStates(tmp_path, "gw0")
    state = {"cookies": [{"name": "session", "value": "tok-1234567890"}, {"name": "lang", "value": "en"}],
             "origins": [{"origin": "http://x", "localStorage": [{"name": "jwt", "value": "eyJabcdefgh"}]}]}
    info = states.save("admin", state)
    assert info["name"] == "admin" and info["cookies"] == 2 and info["origins"] == 1 and len(info["sha256"]) == 64
    path = states.path("admin")
    assert path == tmp_path / ".storage-state" / "gw0" / "admin.json"
    assert path.stat().st_mode & 0o077 == 0 and path.parent.stat().st_mode & 0o077 == 0
    _, loaded, values = states.load("admin")
    assert loaded["sha256"] == info["sha256"] and values == ["tok-1234567890", "eyJabcdefgh"]
    assert state_values({"cookies": [{"value": "short"}]}) == []
    assert not StorageStates(tmp_path, "gw0").exists("admin")  # a new session starts empty


def test_redactor_masks_values_added_later() -> None:
    redactor = Redactor(["first-secret"])
    assert redactor.text("a first-secret b tok-1234567890") == "a *** b tok-1234567890"
    redactor.add(["tok-1234567890"])
    assert redactor.text("a first-secret b tok-1234567890 tok-1234567890") == "a *** b *** ***"
    assert redactor.count == 2 and redactor.describe()["secret_count"] == 2


def test_validation_rules_doc_lists_every_suite_config_key(tmp_path: Path) -> None:
    """docs/validation-rules.md's list of suite-config keys, and its example message, are the validator's
    (issue 46: the doc listed 7 of 11)."""
    import re

    from pytest_cometlocal.contract.load.suite_config import load_suite_config
    from pytest_cometlocal.contract.model.plan import SUITE_KEYS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "validation-rules.md").read_text(encoding="utf-8")
    listed = doc.split("<!-- suite-config-keys -->", 1)[1].split("<!-- /suite-config-keys -->", 1)[0]
    keys = re.findall(r"`([a-z_]+)`", listed)
    assert keys == list(SUITE_KEYS)
    assert f"these {len(SUITE_KEYS)}," in doc
    # The validator takes each of them, and names them all when it refuses another.
    path = tmp_path / "cometlocal.yaml"
    path.write_text("".join(f"{key}: null\n" for key in keys) + "polcy: {}\n", encoding="utf-8")
    (problem,) = load_suite_config(path, "cometlocal.yaml").problems
    assert f"{problem.key_path}: {problem.message}  [{problem.rule}]" in doc
