"""Path confinement: ``confine`` itself and the plan rules for file_ref and uploads_root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_cometlocal.contract.load.paths import confine

from pytest_cometlocal.contract.errors import ConfinementError
from pytest_cometlocal.contract.validate.validator import ValidPlan
from tests.support import VALID_PLAN, line_of, only_problems, only_valid


def upload_plan(file_ref_yaml: str, head: str = "") -> str:
    """VALID_PLAN plus an upload step (steps[2]); ``file_ref_yaml`` follows ``file_ref:``."""
    return head + VALID_PLAN + (
        "  - id: up\n"
        "    kind: upload\n"
        "    target: {type: testid, id: f}\n"
        "    file_ref: " + file_ref_yaml + "\n"
    )


def confinement_problems(result):
    return [p for p in result.problems if p.rule == "PATH_CONFINEMENT"]


# ---------------------------------------------------------------------------
# confine()


class TestConfine:
    def test_relative_path_inside_the_root(self, tmp_path):
        assert confine("docs/a.pdf", tmp_path) == tmp_path.resolve() / "docs" / "a.pdf"
        assert confine("a.pdf", tmp_path) == tmp_path.resolve() / "a.pdf"
        assert confine("./docs/./a.pdf", tmp_path) == tmp_path.resolve() / "docs" / "a.pdf"

    @pytest.mark.parametrize("bad", [
        "/etc/passwd",
        "/",
        "C:\\Windows\\win.ini",
        "C:/x",
        "\\\\server\\share\\x",
        "\\x",
        "~/x",
        "~root/x",
    ])
    def test_absolute_paths_are_refused(self, tmp_path, bad):
        with pytest.raises(ConfinementError) as info:
            confine(bad, tmp_path)
        assert str(info.value) == f"absolute path '{bad}' is not allowed; give a path relative to the root"

    @pytest.mark.parametrize("bad", [
        "..",
        "../x",
        "a/../../x",
        "a/../b",  # any '..' component, even one that would stay inside
        "a/..",
        "a\\..\\..\\x",
        "docs/../../etc/passwd",
    ])
    def test_dotdot_components_are_refused(self, tmp_path, bad):
        with pytest.raises(ConfinementError) as info:
            confine(bad, tmp_path)
        assert str(info.value) == f"'..' in '{bad}' is not allowed"

    def test_dots_inside_names_are_fine(self, tmp_path):
        assert confine("a..b/..c", tmp_path) == tmp_path.resolve() / "a..b" / "..c"

    @pytest.mark.parametrize("bad, message", [
        ("", "path must be a non-empty relative path without surrounding spaces"),
        (" a.pdf", "path must be a non-empty relative path without surrounding spaces"),
        ("a.pdf ", "path must be a non-empty relative path without surrounding spaces"),
        ("a\x00.pdf", "path contains a NUL byte"),
    ], ids=["empty", "leading-space", "trailing-space", "nul"])
    def test_empty_padded_or_nul_paths_are_refused(self, tmp_path, bad, message):
        with pytest.raises(ConfinementError) as info:
            confine(bad, tmp_path)
        assert str(info.value) == message

    def test_symlink_pointing_outside_is_refused(self, tmp_path, tmp_path_factory):
        outside = tmp_path_factory.mktemp("outside")
        (outside / "secret.txt").write_text("x")
        root = tmp_path / "root"
        root.mkdir()
        (root / "docs").symlink_to(outside, target_is_directory=True)
        (root / "file.pdf").symlink_to(outside / "secret.txt")
        # A dangling link that would land outside is refused too.
        (root / "dangling").symlink_to(outside / "not-yet")
        for path in ("docs/secret.txt", "file.pdf", "dangling"):
            with pytest.raises(ConfinementError) as info:
                confine(path, root)
            assert str(info.value) == f"'{path}' resolves outside its root (through a symlink)"

    def test_symlink_pointing_inside_is_fine(self, tmp_path):
        root = tmp_path / "root"
        (root / "real").mkdir(parents=True)
        (root / "real" / "a.pdf").write_bytes(b"%PDF")
        (root / "alias").symlink_to(root / "real", target_is_directory=True)
        assert confine("alias/a.pdf", root) == (root / "real" / "a.pdf").resolve()

    def test_root_reached_through_a_symlink(self, tmp_path):
        real = tmp_path / "real"
        real.mkdir()
        link = tmp_path / "link"
        link.symlink_to(real, target_is_directory=True)
        assert confine("a.pdf", link) == real.resolve() / "a.pdf"

    def test_confinement_error_is_a_value_error(self):
        assert issubclass(ConfinementError, ValueError)


# ---------------------------------------------------------------------------
# file_ref on upload steps, through validation


class TestFileRef:
    def test_relative_file_ref_is_valid_even_if_missing(self, validate, plan_dir):
        result = only_valid(validate(upload_plan("docs/a.pdf")))
        step = result.plan.steps[2]
        assert step.kind == "upload" and step.file_refs == ["docs/a.pdf"]
        assert result.uploads_root == (plan_dir / "plans").resolve()

    @pytest.mark.parametrize("ref", ["/etc/passwd", "../x", "a/../../x", "docs/../a.pdf", "'~/x'"])
    def test_bad_file_ref_is_path_confinement(self, validate, ref):
        text = upload_plan(ref)
        result = only_problems(validate(text))
        problems = confinement_problems(result)
        assert len(problems) == 1, result.problems
        problem = problems[0]
        assert problem.key_path == "steps[2].file_ref"
        assert problem.mark.line == line_of(text, "file_ref:")
        assert problem.file == "plans/p.actions.yaml"
        assert "PATH_CONFINEMENT" in result.violated_rules

    def test_symlink_inside_the_root_pointing_outside(self, validate, plan_dir, tmp_path_factory):
        outside = tmp_path_factory.mktemp("outside")
        (outside / "a.pdf").write_bytes(b"%PDF")
        (plan_dir / "plans" / "docs").symlink_to(outside, target_is_directory=True)
        text = upload_plan("docs/a.pdf")
        problem, = confinement_problems(only_problems(validate(text)))
        assert problem.key_path == "steps[2].file_ref"
        assert problem.mark.line == line_of(text, "file_ref:")

    def test_symlinked_file_pointing_outside(self, validate, plan_dir, tmp_path_factory):
        outside = tmp_path_factory.mktemp("outside")
        (outside / "secret").write_text("x")
        (plan_dir / "plans" / "a.pdf").symlink_to(outside / "secret")
        problem, = confinement_problems(only_problems(validate(upload_plan("a.pdf"))))
        assert problem.key_path == "steps[2].file_ref"

    def test_symlink_inside_pointing_inside_is_fine(self, validate, plan_dir):
        real = plan_dir / "plans" / "real"
        real.mkdir()
        (real / "a.pdf").write_bytes(b"%PDF")
        (plan_dir / "plans" / "docs").symlink_to(real, target_is_directory=True)
        result = only_valid(validate(upload_plan("docs/a.pdf")))
        assert result.plan.steps[2].file_refs == ["docs/a.pdf"]

    def test_list_with_one_bad_entry(self, validate):
        text = upload_plan("\n      - docs/a.pdf\n      - docs/b.pdf\n      - ../../etc/passwd\n      - docs/c.pdf")
        result = only_problems(validate(text))
        problems = confinement_problems(result)
        assert len(problems) == 1, result.problems
        assert problems[0].key_path == "steps[2].file_ref[2]"
        assert problems[0].mark.line == line_of(text, "../../etc/passwd")
        assert problems[0].mark.col == 9

    def test_flow_list_with_one_bad_entry(self, validate):
        text = upload_plan("[ok.pdf, /abs.pdf]")
        problem, = confinement_problems(only_problems(validate(text)))
        assert problem.key_path == "steps[2].file_ref[1]"
        assert problem.mark.line == line_of(text, "/abs.pdf")
        assert problem.mark.col == text.splitlines()[problem.mark.line - 1].index("/abs.pdf") + 1

    def test_valid_list_of_file_refs(self, validate):
        result = only_valid(validate(upload_plan("[a.pdf, docs/b.pdf]")))
        assert result.plan.steps[2].file_refs == ["a.pdf", "docs/b.pdf"]

    def test_bad_file_ref_in_a_recovery_step(self, validate):
        text = VALID_PLAN + (
            "recovery:\n"
            "  on_error: [TARGET_NOT_FOUND]\n"
            "  steps:\n"
            "    - id: reup\n"
            "      kind: upload\n"
            "      target: {type: testid, id: f}\n"
            "      file_ref: ../x.pdf\n"
        )
        problem, = confinement_problems(only_problems(validate(text)))
        assert problem.key_path == "recovery.steps[0].file_ref"
        assert problem.mark.line == line_of(text, "../x.pdf")


# ---------------------------------------------------------------------------
# uploads_root


class TestUploadsRoot:
    def test_absolute_uploads_root_is_refused(self, validate, plan_dir):
        absolute = str(plan_dir / "plans")  # inside the root, but absolute
        text = upload_plan("a.pdf", head=f"uploads_root: '{absolute}'\n")
        problem, = confinement_problems(only_problems(validate(text)))
        assert problem.key_path == "uploads_root"
        assert problem.mark.line == 1

    def test_home_relative_uploads_root_is_refused(self, validate):
        problem, = confinement_problems(only_problems(validate(upload_plan("a.pdf", head="uploads_root: '~/up'\n"))))
        assert problem.key_path == "uploads_root"

    def test_parent_folder_inside_the_suite_root_is_allowed(self, validate, plan_dir):
        (plan_dir / "fixtures").mkdir()
        result = only_valid(validate(upload_plan("docs/a.pdf", head="uploads_root: ../fixtures\n")))
        assert result.uploads_root == (plan_dir / "fixtures").resolve()

    def test_suite_root_itself_is_allowed(self, validate, plan_dir):
        result = only_valid(validate(upload_plan("a.pdf", head="uploads_root: ..\n")))
        assert result.uploads_root == plan_dir.resolve()

    @pytest.mark.parametrize("value", ["../..", "../../elsewhere", "../fixtures/../../x"])
    def test_escaping_the_suite_root_is_refused(self, validate, value):
        text = upload_plan("a.pdf", head=f"uploads_root: {value}\n")
        problem, = confinement_problems(only_problems(validate(text)))
        assert problem.key_path == "uploads_root"
        assert problem.mark == (1, 15)

    def test_symlinked_uploads_folder_pointing_outside_is_refused(self, validate, plan_dir, tmp_path_factory):
        outside = tmp_path_factory.mktemp("outside")
        (plan_dir / "plans" / "up").symlink_to(outside, target_is_directory=True)
        problem, = confinement_problems(only_problems(validate(upload_plan("a.pdf", head="uploads_root: up\n"))))
        assert problem.key_path == "uploads_root"

    def test_symlinked_uploads_folder_pointing_inside_is_fine(self, validate, plan_dir):
        (plan_dir / "fixtures").mkdir()
        (plan_dir / "plans" / "up").symlink_to(plan_dir / "fixtures", target_is_directory=True)
        result = only_valid(validate(upload_plan("a.pdf", head="uploads_root: up\n")))
        assert result.uploads_root == (plan_dir / "fixtures").resolve()

    def test_file_refs_are_confined_to_uploads_root_not_the_suite_root(self, validate, plan_dir):
        (plan_dir / "fixtures").mkdir()
        (plan_dir / "fixtures" / "back").symlink_to(plan_dir / "plans", target_is_directory=True)
        text = upload_plan("back/p.actions.yaml", head="uploads_root: ../fixtures\n")
        problem, = confinement_problems(only_problems(validate(text)))
        assert problem.key_path == "steps[2].file_ref"

    def test_default_uploads_root_is_the_plan_folder(self, validate, plan_dir):
        result = only_valid(validate(VALID_PLAN))
        assert isinstance(result, ValidPlan)
        assert result.uploads_root == (plan_dir / "plans").resolve()
        assert os.path.isdir(result.uploads_root)
        assert isinstance(result.uploads_root, Path)


def test_a_path_is_shown_relative_to_the_working_folder_only_when_inside_it(tmp_path):
    from pytest_cometlocal.contract.load.paths import shown_path

    inside = tmp_path / "runs" / "one"
    assert shown_path(inside, tmp_path) == "runs/one"
    assert shown_path(tmp_path / "runs" / ".." / "runs", tmp_path) == "runs"  # resolved first
    elsewhere = tmp_path.parent / "other"
    assert shown_path(elsewhere, tmp_path) == str(elsewhere)
