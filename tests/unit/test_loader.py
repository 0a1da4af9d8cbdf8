"""The safe YAML loader: YAML 1.2 core scalars, marks, refusal of unsafe input, budgets."""

from __future__ import annotations

import math
import time
import tracemalloc
from pathlib import Path

import pytest

from pytest_cometlocal.contract.load import safe_yaml as loader
from pytest_cometlocal.contract.errors import YamlError
from pytest_cometlocal.contract.load.safe_yaml import MAX_DEPTH, MAX_FILE_BYTES, YDict, YList, load_documents, load_file
from pytest_cometlocal.contract.model.problems import Mark


def load_one(text):
    docs = load_documents(text, "plan.yaml")
    assert len(docs) == 1, docs
    return docs[0].value


def yaml_error(text, path="plan.yaml") -> YamlError:
    with pytest.raises(YamlError) as info:
        load_documents(text, path)
    problem = info.value.problem
    assert problem.rule == "YAML"
    assert problem.file == path
    assert str(info.value) == problem.message
    return info.value


def all_marks(node, path=()):
    """Every mark in a loaded tree, keyed by where it is."""
    out = {}
    if isinstance(node, YDict):
        out[path] = node.mark
        for key in node:
            out[path + (key, "key")] = node.key_marks[key]
            out[path + (key, "value")] = node.value_marks[key]
            out.update(all_marks(node[key], path + (key,)))
    elif isinstance(node, YList):
        out[path] = node.mark
        for i, item in enumerate(node):
            out[path + (i, "item")] = node.item_marks[i]
            out.update(all_marks(item, path + (i,)))
    return out


# ---------------------------------------------------------------------------
# YAML 1.2 core scalars


class TestCoreScalars:
    @pytest.mark.parametrize("text, expected", [
        ("true", True), ("false", False), ("True", True), ("False", False),
        ("TRUE", True), ("FALSE", False),
    ])
    def test_only_true_false_are_booleans(self, text, expected):
        value = load_one(f"v: {text}\n")["v"]
        assert value is expected

    @pytest.mark.parametrize("text", ["yes", "no", "on", "off", "Yes", "NO", "On", "OFF", "y", "n", "tRUE"])
    def test_yaml11_booleans_stay_strings(self, text):
        value = load_one(f"v: {text}\n")["v"]
        assert value == text and isinstance(value, str)

    @pytest.mark.parametrize("text", ["0123", "11:30", "1:20:30", "1_000", "0b101", "0O17", "+0x1f", "2001-12-14", "1.2.3"])
    def test_sexagesimal_octal_like_and_dates_stay_strings(self, text):
        value = load_one(f"v: {text}\n")["v"]
        assert value == text and isinstance(value, str)

    @pytest.mark.parametrize("text, expected", [
        ("0o17", 15), ("0x1f", 31), ("0x1F", 31), ("12", 12), ("-3", -3), ("+7", 7), ("0", 0),
    ])
    def test_integers(self, text, expected):
        value = load_one(f"v: {text}\n")["v"]
        assert value == expected and type(value) is int

    @pytest.mark.parametrize("text, expected", [
        ("1.5", 1.5), ("-2.25", -2.25), (".5", 0.5), ("1e3", 1000.0), ("1.5E-1", 0.15),
        (".inf", math.inf), ("-.inf", -math.inf), ("+.Inf", math.inf), (".INF", math.inf),
    ])
    def test_floats(self, text, expected):
        value = load_one(f"v: {text}\n")["v"]
        assert type(value) is float and value == expected

    @pytest.mark.parametrize("text", [".nan", ".NaN", ".NAN"])
    def test_nan(self, text):
        value = load_one(f"v: {text}\n")["v"]
        assert type(value) is float and math.isnan(value)

    @pytest.mark.parametrize("text", ["null", "Null", "NULL", "~", ""])
    def test_nulls(self, text):
        doc = load_one(f"v: {text}\n")
        assert "v" in doc and doc["v"] is None

    @pytest.mark.parametrize("text", ['"true"', "'true'", '"12"', "'null'", '"~"', '""', '".inf"'])
    def test_quoted_scalars_are_strings(self, text):
        value = load_one(f"v: {text}\n")["v"]
        assert isinstance(value, str) and value == text[1:-1]

    def test_block_scalars_are_strings(self):
        doc = load_one("a: |\n  12\nb: >\n  true\n")
        assert doc == {"a": "12\n", "b": "true\n"}

    def test_explicit_core_tags(self):
        doc = load_one("a: !!str 12\nb: !!float 1\nc: !!int 0x10\nd: !!bool true\ne: !!null ''\n")
        assert doc == {"a": "12", "b": 1.0, "c": 16, "d": True, "e": None}
        assert type(doc["b"]) is float

    def test_non_specific_tag_makes_a_string(self):
        # YAML 1.2 (3.3.2): a scalar with the "!" non-specific tag resolves to !!str.
        doc = load_one("a: ! 12\nb: ! true\n")
        assert doc == {"a": "12", "b": "true"}

    @pytest.mark.parametrize("text", ["!!bool yes", "!!int 0123", "!!int 1.5", "!!float abc", "!!null x"])
    def test_explicit_core_tag_with_a_wrong_value_is_an_error(self, text):
        err = yaml_error(f"a: 1\nb: {text}\n")
        assert err.problem.mark.line == 2

    def test_keys_are_strings_as_written(self):
        doc = load_one("1: a\ntrue: b\nnull: c\n0x10: d\n1.5: e\n~: f\n")
        assert list(doc) == ["1", "true", "null", "0x10", "1.5", "~"]
        assert all(type(k) is str for k in doc)
        assert doc["1"] == "a" and 1 not in doc

    def test_merge_keys_are_not_applied(self):
        doc = load_one("base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n")
        assert doc["m"] == {"<<": {"x": 1}, "y": 2}
        assert "x" not in doc["m"]

    def test_containers_are_ydict_and_ylist(self):
        doc = load_one("a: [1, {b: 2}]\n")
        assert isinstance(doc, YDict) and isinstance(doc["a"], YList) and isinstance(doc["a"][1], YDict)
        assert doc == {"a": [1, {"b": 2}]}


# ---------------------------------------------------------------------------
# Marks


class TestMarks:
    def test_block_style_marks(self):
        text = "name: x\nsteps:\n  - id: a\n    kind: click\n  - id: b\n"
        doc = load_one(text)
        assert doc.mark == Mark(1, 1)
        assert doc.key_marks["name"] == Mark(1, 1)
        assert doc.value_marks["name"] == Mark(1, 7)
        assert doc.key_marks["steps"] == Mark(2, 1)
        steps = doc["steps"]
        assert doc.value_marks["steps"] == steps.mark == Mark(3, 3)
        assert steps.item_marks == [Mark(3, 5), Mark(5, 5)]
        first = steps[0]
        assert first.mark == Mark(3, 5)
        assert first.key_marks == {"id": Mark(3, 5), "kind": Mark(4, 5)}
        assert first.value_marks == {"id": Mark(3, 9), "kind": Mark(4, 11)}

    def test_flow_style_marks(self):
        doc = load_one("a: {b: 1, c: [x, y]}\nd: [p, {q: 1}]\n")
        assert doc.value_marks["a"] == doc["a"].mark == Mark(1, 4)
        assert doc["a"].key_marks == {"b": Mark(1, 5), "c": Mark(1, 11)}
        assert doc["a"].value_marks == {"b": Mark(1, 8), "c": Mark(1, 14)}
        assert doc["a"]["c"].item_marks == [Mark(1, 15), Mark(1, 18)]
        assert doc["d"].item_marks == [Mark(2, 5), Mark(2, 8)]
        assert doc["d"][1].key_marks == {"q": Mark(2, 9)}
        assert doc["d"][1].value_marks == {"q": Mark(2, 12)}

    def test_multiple_documents_have_index_and_start_mark(self):
        text = "# comment\nname: a\n---\nname: b\n--- \n# x\nname: c\n"
        docs = load_documents(text, "plan.yaml")
        assert [d.index for d in docs] == [0, 1, 2]
        assert [d.value for d in docs] == [{"name": "a"}, {"name": "b"}, {"name": "c"}]
        assert docs[0].mark == Mark(2, 1)
        assert docs[1].mark == Mark(3, 1)
        assert docs[2].mark == Mark(5, 1)
        assert docs[2].value.key_marks["name"] == Mark(7, 1)

    def test_anchors_do_not_leak_between_documents(self):
        with pytest.raises(YamlError) as info:
            load_documents("a: &x 1\n---\nb: *x\n", "plan.yaml")
        problem = info.value.problem
        assert (problem.rule, problem.mark, problem.message) == ("YAML", Mark(3, 4), "alias *x has no anchor before it")


# ---------------------------------------------------------------------------
# Unsafe input is refused, never constructed


class TestUnsafeInput:
    @pytest.mark.parametrize("tagged", [
        '!!python/object/apply:os.system ["echo hi"]',
        "!!python/name:os.system",
        "!!python/object:os.PathLike {x: 1}",
        "!!python/object/new:builtins.dict {}",
        "!foo x",
        "!foo {x: 1}",
        "!!binary aGVsbG8=",
        "!!set {a, b}",
        "!!timestamp 2001-12-14",
        "!!omap [a: 1]",
        "!<tag:example.com,2000:app/foo> x",
    ])
    def test_non_core_tags_are_errors_naming_the_line(self, tagged):
        err = yaml_error(f"name: x\nsteps:\n  evil: {tagged}\n")
        assert err.problem.mark.line == 3
        assert "tag" in err.problem.message and "not allowed" in err.problem.message

    def test_tag_on_a_mapping_at_top_is_refused(self):
        err = yaml_error("a: 1\n--- !!python/object:os.PathLike\nx: 1\n")
        assert err.problem.mark.line == 2

    @pytest.mark.parametrize("template", [
        'a: 1\nb: !!python/object/apply:builtins.open ["{path}", "w"]\n',
        'a: 1\nb: !!python/object/apply:os.system ["touch {path}"]\n',
        'a: 1\nb: !!python/object/new:pathlib.Path.touch [!!python/object/apply:pathlib.Path ["{path}"]]\n',
    ])
    def test_nothing_is_executed(self, tmp_path, template):
        target = tmp_path / "pwned"
        err = yaml_error(template.replace("{path}", str(target)))
        assert err.problem.mark.line == 2
        assert not target.exists()

    @pytest.mark.parametrize("text", ["a: !!str {x: 1}\n", "a: !!map [1]\n", "a: !!seq {x: 1}\n", "!!int 1: a\n"])
    def test_core_tag_on_the_wrong_kind_is_an_error(self, text):
        yaml_error(text)


class TestBillionLaughs:
    @staticmethod
    def lol_text() -> str:
        text = "a: &a [" + ",".join(['"lol"'] * 9) + "]\n"
        prev = "a"
        for name in "bcdefghi":
            text += f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]\n"
            prev = name
        return text

    def test_fails_fast_with_bounded_memory_and_short_message(self):
        text = self.lol_text()
        tracemalloc.start()
        try:
            start = time.perf_counter()
            with pytest.raises(YamlError) as info:
                load_documents(text, "lol.yaml")
            elapsed = time.perf_counter() - start
            _current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert elapsed < 1.0
        assert peak < 50 * 1024 * 1024
        message = info.value.problem.message
        assert "alias" in message and "limit" in message
        assert len(message) < 500 and message.count("lol") <= 1
        assert len(info.value.problem.format()) < 600
        assert 1 < info.value.problem.mark.line <= 9

    def test_a_small_alias_works_and_shares_the_value(self):
        doc = load_one("a: &x [1, {b: 2}]\nc: *x\ns: &s hello\nt: *s\n")
        assert doc["c"] == [1, {"b": 2}]
        assert doc["c"] is doc["a"]
        assert doc["t"] == "hello"

    def test_alias_to_an_undefined_anchor_is_an_error(self):
        err = yaml_error("a: 1\nb: *nowhere\n")
        assert err.problem.mark.line == 2
        assert "nowhere" in err.problem.message

    def test_alias_to_an_anchored_key(self):
        # "&k a: 1" anchors the key scalar "a"; "*k" later is valid YAML and means "a".
        doc = load_one("&k a: 1\nb: *k\n")
        assert doc == {"a": 1, "b": "a"}


# ---------------------------------------------------------------------------
# Size, syntax, duplicates, depth, keys


class TestLimits:
    def test_huge_bytes_are_refused(self):
        data = b"#" * (MAX_FILE_BYTES + 1)
        err = yaml_error(data)
        assert err.problem.message == f"file is {MAX_FILE_BYTES + 1} bytes; the limit is {MAX_FILE_BYTES}"
        assert err.problem.mark == Mark(1, 1)

    def test_huge_text_is_refused(self):
        err = yaml_error("#" * (MAX_FILE_BYTES + 1))
        assert err.problem.message == f"file is {MAX_FILE_BYTES + 1} characters; the limit is {MAX_FILE_BYTES}"

    def test_just_under_the_limit_loads(self):
        data = b"a: 1\n" + b"#" * (MAX_FILE_BYTES - 6) + b"\n"
        assert len(data) == MAX_FILE_BYTES
        assert [d.value for d in load_documents(data, "p")] == [{"a": 1}]

    def test_load_file_refuses_a_huge_file_without_reading_it(self, tmp_path, monkeypatch):
        path = tmp_path / "big.actions.yaml"
        with open(path, "wb") as fh:
            fh.truncate(MAX_FILE_BYTES + 1)  # sparse: cheap to create

        def no_read(*_a, **_k):
            raise AssertionError("the file was read")

        monkeypatch.setattr(Path, "read_bytes", no_read)
        monkeypatch.setattr(Path, "read_text", no_read)
        monkeypatch.setattr(Path, "open", no_read)
        with pytest.raises(YamlError) as info:
            load_file(path)
        assert str(MAX_FILE_BYTES) in info.value.problem.message
        assert "limit" in info.value.problem.message
        assert info.value.problem.rule == "YAML"

    def test_load_file_reads_a_normal_file(self, tmp_path):
        path = tmp_path / "p.actions.yaml"
        path.write_bytes(b"name: a\n---\nname: b\n")
        docs = load_file(path)
        assert [d.value for d in docs] == [{"name": "a"}, {"name": "b"}]

    def test_load_file_missing_file_is_a_yaml_error(self, tmp_path):
        with pytest.raises(YamlError) as info:
            load_file(tmp_path / "nope.yaml")
        problem = info.value.problem
        assert (problem.rule, problem.file, problem.mark, problem.message) == (
            "YAML", str(tmp_path / "nope.yaml"), Mark(1, 1), "cannot read file: No such file or directory")

    def test_nesting_at_the_limit_loads(self):
        value = load_one("[" * MAX_DEPTH + "]" * MAX_DEPTH)
        depth = 0
        while isinstance(value, list):
            depth += 1
            value = value[0] if value else None
        assert depth == MAX_DEPTH

    @pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 100_000])
    def test_nesting_deeper_than_the_limit_is_an_error_not_a_recursion_error(self, depth):
        err = yaml_error("a: " + "[" * depth + "]" * depth + "\n")
        assert str(MAX_DEPTH) in err.problem.message

    def test_deep_block_nesting_is_an_error(self):
        text = "a:\n" + "".join("  " * i + "k:\n" for i in range(1, MAX_DEPTH + 10))
        err = yaml_error(text)
        assert "nesting" in err.problem.message


class TestSyntaxErrors:
    def test_unclosed_flow_sequence(self):
        err = yaml_error("name: x\nsteps: [1, 2\nother: 3\n")
        assert err.problem.mark.line == 3
        assert "flow sequence" in err.problem.message

    def test_bad_indentation(self):
        err = yaml_error("a:\n  b: 1\n c: 2\n")
        assert err.problem.mark.line == 3

    def test_tab_indentation(self):
        err = yaml_error("a: 1\nb:\n\tc: 2\n")
        assert err.problem.mark.line == 3

    def test_duplicate_key_names_the_key_and_the_second_line(self):
        err = yaml_error("name: x\nsteps: []\nname: y\n")
        assert err.problem.mark == Mark(3, 1)
        assert "'name'" in err.problem.message and "duplicate" in err.problem.message

    def test_duplicate_key_nested_and_in_flow(self):
        err = yaml_error("a:\n  b: 1\n  c: {d: 1, d: 2}\n")
        assert err.problem.mark == Mark(3, 13)
        assert "'d'" in err.problem.message

    def test_quoted_and_plain_keys_are_the_same_key(self):
        err = yaml_error("a: 1\n'a': 2\n")
        assert err.problem.mark.line == 2

    @pytest.mark.parametrize("text, line", [
        ("x: 1\n? [a, b]\n: 1\n", 2),
        ("x: 1\n? {a: 1}\n: 1\n", 2),
        ("x: 1\ny: {[a]: 1}\n", 2),
        ("x: &a 1\n*a : 2\n", 2),
    ])
    def test_non_scalar_keys_are_errors(self, text, line):
        err = yaml_error(text)
        assert err.problem.mark.line == line


# ---------------------------------------------------------------------------
# Encoding and empty input


class TestEncoding:
    TEXT = "name: x\nsteps:\n  - id: a\n    target: {type: css, selector: '#b'}\n  - [1, 2]\n"

    def test_utf8_bom_is_accepted(self):
        plain = load_documents(self.TEXT.encode(), "p")
        with_bom = load_documents(b"\xef\xbb\xbf" + self.TEXT.encode(), "p")
        assert [d.value for d in with_bom] == [d.value for d in plain]
        assert all_marks(with_bom[0].value) == all_marks(plain[0].value)
        assert with_bom[0].value.key_marks["name"] == Mark(1, 1)

    def test_bom_in_str_is_accepted(self):
        doc = load_one("\ufeff" + self.TEXT)
        assert doc.key_marks["name"] == Mark(1, 1)

    def test_crlf_gives_the_same_values_and_marks(self):
        lf = load_documents(self.TEXT, "p")
        crlf = load_documents(self.TEXT.replace("\n", "\r\n").encode(), "p")
        assert [d.value for d in crlf] == [d.value for d in lf]
        assert all_marks(crlf[0].value) == all_marks(lf[0].value)
        assert len(all_marks(lf[0].value)) > 10

    def test_crlf_error_line_is_the_same(self):
        text = "a: 1\nb: 2\na: 3\n"
        assert yaml_error(text.replace("\n", "\r\n")).problem.mark.line == 3

    def test_invalid_utf8_names_the_line(self):
        data = "name: é\nsteps:\n  - x\n".encode() + b"  - \xff\xfe\n"
        err = yaml_error(data)
        assert err.problem.mark.line == 4
        assert "UTF-8" in err.problem.message

    def test_non_ascii_text_loads(self):
        assert load_one("name: Zürich ✓\n".encode()) == {"name": "Zürich ✓"}

    def test_empty_text_has_no_documents(self):
        assert load_documents("", "p") == []
        assert load_documents(b"", "p") == []
        assert load_documents("# only a comment\n", "p") == []

    def test_document_marker_alone_is_one_null_document(self):
        docs = load_documents("---\n", "p")
        assert len(docs) == 1
        assert docs[0].value is None and docs[0].index == 0
        assert docs[0].mark == Mark(1, 1)

    def test_the_limits_are_the_documented_ones(self):
        # docs/plan-format.md: 2 MiB (2,097,152 bytes) per file, 64 levels of nesting.
        assert (loader.MAX_FILE_BYTES, loader.MAX_DEPTH) == (2 * 1024 * 1024, 64)


# --- the quick load: no positions for nested keys, same values -------------------------

NESTED = """\
name: nested
steps:
  - id: go
    kind: click
    target: {type: role, role: button, name: Save, exact: true}
    postconditions:
      - kind: url_matches
        args: {pattern: "/done$"}
"""


def test_quick_load_gives_the_same_values_and_falls_back_to_the_mapping_position():
    full = load_documents(NESTED, "plan.yaml")[0].value
    quick = load_documents(NESTED, "plan.yaml", positions=False)[0].value
    assert quick == full
    # Top-level keys and sequence items keep their positions: item names and step lines need them.
    assert quick.key_marks["steps"] == full.key_marks["steps"] == Mark(2, 1)
    assert quick["steps"].item_marks == full["steps"].item_marks
    step_full, step_quick = full["steps"][0], quick["steps"][0]
    assert step_full.key_marks["target"] == Mark(5, 5)
    assert "target" not in step_quick.key_marks
    # A lookup without a position answers the mapping's own position instead of failing.
    assert step_quick.key_marks["target"] == step_quick.mark == step_full.mark == Mark(3, 5)


@pytest.mark.parametrize("text", [
    "a: 1\na: 2\n",                     # duplicate key, nested below
    "s:\n  - {x: 1, x: 2}\n",
    "s:\n  k: !!python/object:os.system x\n",
    "s:\n  k: !!int abc\n",
])
def test_quick_load_errors_are_errors_of_the_full_load(text):
    quick, full = yaml_error(text), yaml_error(text)
    with pytest.raises(YamlError) as info:
        load_documents(text, "plan.yaml", positions=False)
    assert info.value.problem.message == full.problem.message
    assert quick.problem == full.problem


def test_every_example_plan_validates_the_same_with_and_without_positions():
    from pytest_cometlocal.contract.validate.validated import ValidationContext
    from pytest_cometlocal.contract.load.suite_config import SuiteConfigFinder
    from pytest_cometlocal.contract.validate.validated import InvalidPlan
    from pytest_cometlocal.contract.validate.validator import validate_documents, validate_path

    root = Path(__file__).resolve().parents[2] / "example_plans"
    files = sorted(root.rglob("*.actions.yaml"))
    assert len(files) >= 10
    finder = SuiteConfigFinder(root)
    seen_invalid = 0
    for path in files:
        ctx = ValidationContext(root=root, plan_path=path, suite_config=finder.for_plan(path))
        data = path.read_bytes()
        full = validate_documents(load_documents(data, str(path)), ctx, str(path))
        quick = validate_documents(load_documents(data, str(path), positions=False), ctx, str(path))
        invalid = [isinstance(r, InvalidPlan) for r in full]
        # A valid file gives the very same results; an invalid one is invalid in the quick pass
        # too, which is what sends it through the full load.
        assert [isinstance(r, InvalidPlan) for r in quick] == invalid, path
        if not any(invalid):
            assert quick == full, path
        assert validate_path(path, ctx) == full, path
        seen_invalid += any(invalid)
    assert seen_invalid >= 1
