"""Issue 35, section 1: each class of input the contract layer once crashed on is a located problem.

One test per class and its neighbours: regexes Python refuses without
``re.error``, aria templates PyYAML cannot build, URLs urllib refuses, CSV
files over the csv module's limits, combination counts built before they were
checked, messages over two lines, control characters located at 1:1, and the
last line of defence (INTERNAL) when validation raises anyway.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from pytest_cometlocal.cli import main
from pytest_cometlocal.contract.model.problems import Mark, Problem, one_line
from pytest_cometlocal.contract.validate import rules
from pytest_cometlocal.contract.validate.parametrize import MAX_CSV_BYTES
from pytest_cometlocal.contract.patterns import (
    MAX_GROUP_NESTING, MAX_PATTERN_LENGTH, PatternError, compiled, pattern_problem,
)
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidPlan
from tests.support import mark_at, only, only_problems, only_valid, opened, plan

OPEN = "- {id: open, kind: navigate, target: {type: url, url: \"http://127.0.0.1:1/\"}}\n"


def with_post(condition: str) -> str:
    return plan(OPEN.replace("}}\n", f"}}, postconditions: [{condition}]}}\n"))


# -- regexes ------------------------------------------------------------------------------------

NESTED = "(" * 300 + "a" + ")" * 300
BAD_PATTERNS = [
    ("a{4294967296}", "the repetition number is too large (OverflowError)"),
    (NESTED, f"groups nest more than {MAX_GROUP_NESTING} levels deep"),
    ("a" * (MAX_PATTERN_LENGTH + 1), f"at most {MAX_PATTERN_LENGTH}"),
    ("(x", "missing ), unterminated subpattern"),
]


@pytest.mark.parametrize("pattern, says", BAD_PATTERNS, ids=["overflow", "nesting", "length", "re.error"])
@pytest.mark.parametrize("where", ["url_matches", "download_started", "auth_signals"])
def test_a_regex_python_refuses_is_a_located_regex_problem(validate, pattern: str, says: str, where: str):
    if where == "auth_signals":
        text = plan(OPEN, extra=f'auth_signals: {{url_pattern: "{pattern}"}}\n')
        key = "auth_signals.url_pattern"
    else:
        arg = "pattern" if where == "url_matches" else "filename"
        text = with_post(f'{{kind: {where}, args: {{{arg}: "{pattern}"}}}}')
        key = f"steps[0].postconditions[0].args.{arg}"
    inv = only_problems(validate(text))
    only(inv, "REGEX", key, *mark_at(text, f'"{pattern}"'))
    assert says in inv.problems[0].message


def test_patterns_are_compiled_once_and_the_executor_gets_the_same_object():
    assert compiled("/dash(board)?$") is compiled("/dash(board)?$")
    with pytest.raises(PatternError, match="OverflowError"):
        compiled("a{4294967296}")
    # Escaped and in-class parentheses are no groups.
    assert pattern_problem("\\(" * 100 + "[(]" * 100) is None


# -- aria snapshot templates ----------------------------------------------------------------------

@pytest.mark.parametrize("snapshot", ["- 2024-02-30", "- " + "9" * 5000, "- heading 1e999999"])
def test_an_aria_template_is_read_as_text_not_built(validate, snapshot: str):
    only_valid(validate(with_post(f'{{kind: aria_snapshot_matches, args: {{snapshot: "{snapshot}"}}}}')))


@pytest.mark.parametrize("snapshot", ["[" * 2000 + "]" * 2000, "- " * 100 + "x"])
def test_a_deep_aria_template_is_a_located_problem(validate, snapshot: str):
    text = with_post(f'{{kind: aria_snapshot_matches, args: {{snapshot: "{snapshot}"}}}}')
    inv = only_problems(validate(text))
    assert [p.rule for p in inv.problems] == ["ARIA_SNAPSHOT"]
    assert inv.problems[0].key_path == "steps[0].postconditions[0].args.snapshot"


# -- URLs -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["http://outs]ide.example/", "http://[::1/", "http://127.0.0.1:99999/",
                                 "http://127.0.0.1:port/"])
def test_a_url_urllib_refuses_is_a_located_url_problem(validate, url: str):
    for text, key in [(opened(url, ""), "steps[0].target.url"),
                      (plan(OPEN, extra=f'base_url: "{url}"\n'), "base_url"),
                      (with_post(f'{{kind: url_is, args: {{url: "{url}"}}}}'), "steps[0].postconditions[0].args.url")]:
        inv = only_problems(validate(text))
        only(inv, "URL", key, *mark_at(text, f'"{url}"'))
        assert inv.problems[0].message.startswith("cannot read URL")


# -- CSV ------------------------------------------------------------------------------------------

CSV_PLAN = plan(OPEN.replace("1/", "1/${vars.page}"), extra="parametrize: rows.csv\n")


@pytest.mark.parametrize("data, says", [
    (b"page\n" + b"x" * 131_073 + b"\n", "rows.csv, line 2: field larger than field limit (131072)"),
    (b"page\na\x00b\n", "rows.csv, line 2: a NUL character"),
    (b"page\n\xff\xfe\n", "it is not UTF-8"),
    (b"page,lang\na\nb,c,d\n", "every row needs a value in every column"),
    (b"page\n" + b"a\n" * 1001, "has more than 1000 rows"),
    (b'page\n"unclosed\n', None),
], ids=["field-limit", "nul", "encoding", "ragged", "rows", "quote"])
def test_a_csv_the_csv_module_refuses_is_a_problem_of_that_plan(validate, plan_dir: Path, data: bytes, says):
    (plan_dir / "plans" / "rows.csv").write_bytes(data)
    results = validate(CSV_PLAN)
    if says is None:  # an unclosed quote is one long field to the csv module: a valid row
        assert all(isinstance(r, (ValidPlan, InvalidPlan)) for r in results)
        return
    inv = only_problems(results)
    only(inv, "PARAMETRIZE", "parametrize", *mark_at(CSV_PLAN, "rows.csv"))
    assert says in inv.problems[0].message


def test_a_csv_file_over_the_size_limit_is_not_read(validate, plan_dir: Path):
    (plan_dir / "plans" / "rows.csv").write_bytes(b"page\n" + b"a\n" * (MAX_CSV_BYTES // 2 + 1))
    assert f"at most {MAX_CSV_BYTES}" in only_problems(validate(CSV_PLAN)).problems[0].message


# -- combination counts ---------------------------------------------------------------------------

def test_the_row_count_is_checked_before_a_row_is_built(validate):
    lists = "".join(f"  v{i}: [{', '.join(map(str, range(100)))}]\n" for i in range(4))
    text = plan(OPEN, extra="parametrize:\n" + lists)
    tracemalloc.start()
    try:
        inv = only_problems(validate(text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    only(inv, "PARAMETRIZE", "parametrize", *mark_at(text, "v0:"))
    assert inv.problems[0].message == "100000000 rows (100 x 100 x 100 x 100 combinations); at most 1000"
    assert peak < 50 * 1024 * 1024  # 10^8 rows would be gigabytes


def test_group_expansion_is_counted_before_it_is_built(validate, plan_dir: Path):
    groups = plan_dir / "plans" / "groups"
    groups.mkdir()
    for level in range(4):  # 100^4 steps if expanded
        item = ("- {{id: s{i}, kind: click, target: {{type: css, selector: '#a'}}}}\n" if level == 3
                else f"- {{{{use: g{level + 1}.steps.yaml, id: u{{i}}}}}}\n")
        (groups / f"g{level}.steps.yaml").write_text("steps:\n" + "".join("  " + item.format(i=i) for i in range(100)))
    tracemalloc.start()
    try:
        inv = only_problems(validate(plan(OPEN + "- {use: groups/g0.steps.yaml}\n")))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [p.rule for p in inv.problems] == ["GROUP"]
    assert "expand to more than 10000 steps" in inv.problems[0].message
    assert peak < 200 * 1024 * 1024


# -- messages and control characters --------------------------------------------------------------

def test_a_message_is_one_line_whatever_it_quotes(validate):
    inv = only_problems(validate(with_post('{kind: "url_is\\nfoo\\u2028bar\\x00"}')))
    line = inv.problems[0].format()
    assert "\n" not in line and "\u2028" not in line and "\x00" not in line
    assert "'url_is\\nfoo\\u2028bar\\x00'" in line
    assert one_line("a\tb\x7f") == "a\\tb\\x7f"
    assert "\n" not in Problem("a\nb.yaml", Mark(1, 1), "k\n", "m").format()


def test_a_control_character_is_located_where_it_is(validate):
    text = plan(OPEN)
    lines = text.splitlines(keepends=True)
    lines[4] = lines[4][:6] + "\x00" + lines[4][6:]
    inv = only_problems(validate("".join(lines)))
    assert [(p.rule, p.mark.line, p.mark.col) for p in inv.problems] == [("YAML", 5, 7)]


# -- every problem in one pass (item 2.7) ---------------------------------------------------------

def test_schema_problems_do_not_hide_the_rules_of_the_other_steps(validate):
    text = plan(OPEN + (
        "- {id: pick, kind: select, target: {type: dropdown, name: Country}, value: ES}\n"
        "- {id: see, kind: assert, postconditions: [{kind: element_text_contain, args: {text: x}}]}\n"
        "- {id: go, kind: click, target: {type: label, text: Go}}\n"
        "- {id: find, kind: click, target: {dropdown: Country}}\n"))
    inv = only_problems(validate(text))
    got = {(p.rule, p.key_path): p.message for p in inv.problems}
    assert "did you mean role (role: combobox)?" in got[("SCHEMA", "steps[1].target")]
    assert "did you mean 'element_text_contains'?" in got[("SCHEMA", "steps[2].postconditions[0]")]
    assert got[("U2", "steps[3].target")] == "a label target needs exact: true or normalize_ws: true"
    assert "'dropdown' is not a target type: did you mean role (role: combobox)?" in got[("SCHEMA", "steps[4].target")]


def test_a_missing_secret_env_does_not_hide_schema_problems(validate):
    text = plan(OPEN + "- {id: go, kind: clik, target: {type: css, selector: '#a'}}\n",
                extra="secrets: {pw: {env: NOT_SET_HERE}}\n")
    assert {p.rule for p in only_problems(validate(text)).problems} == {"SECRET_ENV", "SCHEMA"}


# -- the last line of defence ---------------------------------------------------------------------

@pytest.fixture
def crash_on_boom(monkeypatch: pytest.MonkeyPatch):
    """check_plan raises for the plan named 'boom', as a bug no one foresaw would."""
    real = rules.check_plan

    def check(plan_, add, uploads_root):
        if plan_.name == "boom":
            raise RuntimeError("unforeseen\nbug")
        return real(plan_, add, uploads_root)

    monkeypatch.setattr("pytest_cometlocal.contract.validate.validator.check_plan", check)


def test_an_exception_in_one_plan_is_that_plans_internal_problem(validate, crash_on_boom):
    text = plan(OPEN, name="boom") + "---\n" + plan(OPEN.replace("http:", "ftp:"), name="other")
    boom, other = validate(text)
    assert isinstance(boom, InvalidPlan) and isinstance(other, InvalidPlan)
    assert [(p.rule, p.mark.line) for p in boom.problems] == [("INTERNAL", 1)]
    assert "RuntimeError: unforeseen\\nbug" in boom.problems[0].message
    assert boom.expect is None  # never an expected INVALID_ACTIONSPEC
    assert [p.rule for p in other.problems] == ["URL"]


def test_validate_reports_every_file_and_its_summary_after_an_internal_problem(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], crash_on_boom):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "a.actions.yaml").write_text(plan(OPEN, name="boom"))
    (tmp_path / "b.actions.yaml").write_text(plan(OPEN.replace("http:", "ftp:"), name="other"))
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "."]) == 1
    out = capsys.readouterr()
    assert "a.actions.yaml:1:1: internal error while validating this plan (RuntimeError" in out.out
    assert "b.actions.yaml:" in out.out and "[URL]" in out.out
    assert out.out.rstrip().endswith("2 plans in 2 files: 0 valid, 2 invalid")
    assert "Traceback" not in out.out + out.err


def test_validate_help_documents_its_exit_codes(capsys: pytest.CaptureFixture[str]):
    assert main(["validate", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "exit codes: 0 every plan is valid" in text and "1 some plan is invalid" in text and "2 usage error" in text
