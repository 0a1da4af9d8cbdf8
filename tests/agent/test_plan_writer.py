"""``save_plan``'s file, without a browser: where it may go, what it holds, and that it validates."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_cometlocal.agent.plan_writer import PlanRefused, check_session, save_path, write_plan
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.validate.validated import ValidationContext, ValidPlan
from pytest_cometlocal.contract.validate.validator import validate_path

OPEN = {"id": "open", "kind": "navigate", "target": {"type": "url", "url": "/login"}}
BASE = "http://127.0.0.1:8000"


def save(workdir: Path, path: str, steps=(OPEN,), *, replaceable: set[Path] | None = None, **kw) -> Path:
    args = {"name": "explored", "base_url": BASE, "allowlist": ["127.0.0.1"], "secrets": {}, "policy": Policy(),
            "env": {}, **kw}
    return write_plan(workdir, path, steps=list(steps), replaceable=set() if replaceable is None else replaceable, **args)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    return (tmp_path / "work").resolve()


@pytest.mark.parametrize("path", ["../out.actions.yaml", "plans/../../out.actions.yaml", "/tmp/out.actions.yaml",
                                  "~/out.actions.yaml", "plans/login.yaml", "login.actions.json", "", "plans/"])
def test_a_path_outside_the_working_folder_or_not_a_plan_file_is_refused(workdir, path):
    with pytest.raises(PlanRefused) as refused:
        save(workdir, path)
    assert refused.value.code == "PATH_REFUSED"
    assert not list(workdir.parent.rglob("*.actions.*"))


def test_a_symlink_out_of_the_working_folder_is_refused(workdir):
    (workdir.parent / "elsewhere").mkdir()
    (workdir / "plans").symlink_to(workdir.parent / "elsewhere")
    with pytest.raises(PlanRefused, match="outside its root") as refused:
        save(workdir, "plans/login.actions.yaml")
    assert refused.value.code == "PATH_REFUSED" and not list((workdir.parent / "elsewhere").iterdir())


def test_an_absolute_path_inside_the_working_folder_is_written_there(workdir):
    """An agent often passes the absolute path it knows: accepted when it lands inside the working folder."""
    path = save(workdir, str(workdir / "plans" / "login.actions.yaml"))
    assert path == workdir / "plans" / "login.actions.yaml" and "name: explored" in path.read_text()
    # The working folder reached through a symlink to it is the same folder.
    (workdir.parent / "alias").symlink_to(workdir)
    again = save(workdir, str(workdir.parent / "alias" / "second.actions.yaml"))
    assert again == workdir / "second.actions.yaml" and again.is_file()


@pytest.mark.parametrize("where", ["outside", "climbs", "symlink"])
def test_an_absolute_path_that_leaves_the_working_folder_is_refused(workdir, where):
    (workdir.parent / "elsewhere").mkdir()
    (workdir / "plans").symlink_to(workdir.parent / "elsewhere")
    path = {"outside": workdir.parent / "elsewhere" / "out.actions.yaml",
            "climbs": workdir / ".." / "elsewhere" / "out.actions.yaml",
            "symlink": workdir / "plans" / "out.actions.yaml"}[where]
    with pytest.raises(PlanRefused) as refused:
        save(workdir, str(path))
    reason = {"outside": "is outside the working folder", "climbs": "'..' in",
              "symlink": "resolves outside its root"}[where]
    assert refused.value.code == "PATH_REFUSED" and reason in str(refused.value), refused.value
    assert str(workdir) in str(refused.value)  # the answer names the folder a path must stay in
    assert not list((workdir.parent / "elsewhere").iterdir())


def test_only_files_this_server_wrote_are_replaced(workdir):
    theirs = workdir / "theirs.actions.yaml"
    theirs.write_text("hand-written\n")
    with pytest.raises(PlanRefused) as refused:
        save(workdir, "theirs.actions.yaml")
    assert refused.value.code == "PATH_EXISTS" and theirs.read_text() == "hand-written\n"
    mine: set[Path] = set()
    first = save(workdir, "mine.actions.yml", replaceable=mine)
    again = save(workdir, "mine.actions.yml", [OPEN, {**OPEN, "id": "again"}], replaceable=mine)
    assert first == again == workdir / "mine.actions.yml" and "id: again" in again.read_text()


def test_nothing_to_save_and_a_bad_name_are_refused(workdir):
    with pytest.raises(PlanRefused) as refused:
        save(workdir, "p.actions.yaml", steps=())
    assert refused.value.code == "NO_STEPS"
    with pytest.raises(PlanRefused) as refused:
        save(workdir, "p.actions.yaml", name=" ")
    assert refused.value.code == "INVALID_ARGUMENT"
    with pytest.raises(PlanRefused, match="::") as refused:  # the project's validator: a name pytest cannot use
        save(workdir, "p.actions.yaml", name="a::b")
    assert refused.value.code == "INVALID_ACTIONSPEC" and not (workdir / "p.actions.yaml").exists()


def test_the_plan_holds_the_sessions_settings_and_validates(workdir):
    """Secrets as declarations, a stricter policy, and an upload's file found from the plan's own folder."""
    (workdir / "docs").mkdir()
    (workdir / "docs" / "invoice.pdf").write_bytes(b"%PDF-1.4\n")
    upload = {"id": "attach", "kind": "upload", "file_ref": "docs/invoice.pdf",
              "target": {"type": "label", "text": "Attachment", "exact": True}}
    fill = {"id": "pw", "kind": "fill", "value": "${secrets.pw}", "target": {"type": "label", "text": "Password", "exact": True}}
    path = save(workdir, "plans/deep/explored.actions.yaml", [OPEN, fill, upload], secrets={"pw": "APP_PW"},
                policy=Policy(hard_cap_steps=5), env={"APP_PW": "Hush-4471"})
    text = path.read_text()
    assert "secrets: {pw: {env: APP_PW}}" in text and "Hush-4471" not in text
    assert "policy:\n  hard_cap_steps: 5\n" in text and "uploads_root: ../..\n" in text
    ctx = ValidationContext(root=workdir, plan_path=path, env={"APP_PW": "x"})
    (result,) = validate_path(path, ctx)
    assert isinstance(result, ValidPlan), result
    assert [s.id for s in result.plan.steps] == ["open", "pw", "attach"]
    assert result.uploads_root == workdir and result.plan.policy.hard_cap_steps == 5


def test_a_sessions_settings_are_checked_by_the_plan_validator(workdir):
    good = {"name": "explore", "base_url": BASE, "allowlist": ["127.0.0.1", "*.example.com"], "secrets": {"pw": "APP_PW"},
            "policy": Policy(), "env": {"APP_PW": "x"}}
    assert check_session(workdir, **good) == []
    (problem,) = check_session(workdir, **{**good, "allowlist": ["127.0.0.1", "not a host"]})
    assert problem.key_path == "allowlist[1]"
    (problem,) = check_session(workdir, **{**good, "env": {}})
    assert problem.rule == "SECRET_ENV" and "APP_PW" in problem.message
    assert not list(workdir.iterdir())  # checking writes nothing


def test_save_path_resolves_inside_the_working_folder(workdir):
    assert save_path(workdir, "plans/a.actions.yaml") == workdir / "plans" / "a.actions.yaml"
    assert os.path.commonpath([save_path(workdir, "./a.actions.yaml"), workdir]) == str(workdir)
