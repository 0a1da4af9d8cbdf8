"""``${vars.X}`` and ``${secrets.X}``: the functions and the plan rules around them."""

from __future__ import annotations

import re

import pytest

from pytest_cometlocal.contract.interpolation import (
    InterpolationError,
    has_secret,
    interpolate,
    resolve_secrets,
)
from pytest_cometlocal.contract.validator import InvalidPlan, ValidPlan
from tests.conftest import only_problems, only_valid

HEAD = """\
name: interp
base_url: http://127.0.0.1:8000
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
"""

SECRET_VALUE = "hunter2"


from tests.plan_text import line_of  # noqa: E402



def fill_plan(value_yaml: str, head: str = "") -> str:
    """A plan whose only step fills ``value_yaml`` into a field."""
    return HEAD + head + (
        "steps:\n"
        "  - id: f\n"
        "    kind: fill\n"
        "    target: {type: testid, id: user}\n"
        "    value: " + value_yaml + "\n"
    )


def rules(result: InvalidPlan) -> list[str]:
    return [p.rule for p in result.problems]


def all_problem_text(results) -> str:
    out = []
    for result in results:
        out.append(repr(result))
        if isinstance(result, InvalidPlan):
            out.extend(p.format() for p in result.problems)
            out.extend(repr(p.as_dict()) for p in result.problems)
    return "\n".join(out)


def no_secrets(_name: str) -> None:
    raise InterpolationError(f"unknown secret '{_name}'")


# ---------------------------------------------------------------------------
# The functions


class TestInterpolate:
    def test_substitutes_vars(self):
        assert interpolate("a ${vars.X} b ${vars.Y}", {"X": "1", "Y": "two"}, no_secrets) == "a 1 b two"

    def test_whitespace_inside_the_braces_is_allowed(self):
        assert interpolate("${ vars.X }", {"X": "v"}, no_secrets) == "v"

    def test_numbers_become_text(self):
        assert interpolate("n=${vars.N} f=${vars.F}", {"N": 42, "F": 1.5}, no_secrets) == "n=42 f=1.5"

    def test_text_without_references_is_untouched(self):
        calls = []
        assert interpolate("$ {vars.X} $vars.X", {}, calls.append) == "$ {vars.X} $vars.X"
        assert calls == []

    def test_substitution_is_not_recursive(self):
        # The value is text, not a new reference to resolve.
        assert interpolate("${vars.X}", {"X": "$", "Y": "no"}, no_secrets) == "$"

    def test_unknown_var(self):
        with pytest.raises(InterpolationError) as info:
            interpolate("${vars.NOPE}", {"A": "secret-ish"}, no_secrets)
        assert "NOPE" in str(info.value)
        assert "secret-ish" not in str(info.value)

    @pytest.mark.parametrize("text", [
        "${foo}", "${env.HOME}", "${vars.}", "${vars.1X}", "${vars.X.Y}", "${vars.X | upper}",
        "${secrets}", "${}", "${ }", "${VARS.X}", "${vars.X:-default}",
    ])
    def test_malformed_references(self, text):
        with pytest.raises(InterpolationError) as info:
            interpolate(text, {"X": "1"}, no_secrets)
        assert "vars.NAME" in str(info.value)

    def test_all_errors_are_reported_together(self):
        with pytest.raises(InterpolationError) as info:
            interpolate("${vars.A} ${foo} ${vars.B}", {}, no_secrets)
        message = str(info.value)
        assert "'A'" in message and "${foo}" in message and "'B'" in message

    def test_secrets_are_checked_but_kept_as_references(self):
        seen = []
        out = interpolate("pw=${secrets.P} u=${vars.U}", {"U": "al"}, seen.append)
        assert out == "pw=${secrets.P} u=al"
        assert seen == ["P"]

    def test_secret_check_failure_is_reported(self):
        with pytest.raises(InterpolationError) as info:
            interpolate("${secrets.Q}", {}, no_secrets)
        assert "Q" in str(info.value)

    def test_a_nested_reference_cannot_build_an_unchecked_secret_reference(self):
        # "${secrets.${vars.X}}" must not turn into a secret reference that was never checked.
        checked = []

        def check(name):
            checked.append(name)
            raise InterpolationError(f"unknown secret '{name}'")

        try:
            out = interpolate("${secrets.${vars.X}}", {"X": "P"}, check)
        except InterpolationError:
            return
        assert not has_secret(out) or set(re.findall(r"\$\{secrets\.(\w+)\}", out)) <= set(checked), out


class TestResolveSecrets:
    def test_replaces_each_reference(self):
        assert resolve_secrets("u ${secrets.A}:${secrets.B}", {"A": "x", "B": "y"}) == "u x:y"

    def test_leaves_vars_and_plain_text_alone(self):
        assert resolve_secrets("${vars.A} $A {secrets.A}", {"A": "x"}) == "${vars.A} $A {secrets.A}"

    def test_value_is_not_reinterpreted(self):
        assert resolve_secrets("${secrets.A}", {"A": "${secrets.B}", "B": "no"}) == "${secrets.B}"

    def test_has_secret(self):
        assert has_secret("x ${secrets.P} y")
        assert not has_secret("${vars.P}")
        assert not has_secret("secrets.P")
        assert not has_secret("${secrets.}")


# ---------------------------------------------------------------------------
# Through validation


class TestVarsInPlans:
    def test_vars_are_substituted_in_values_urls_and_condition_args(self, validate):
        text = HEAD + (
            "vars: {USER: alice, PATH: /login, PAT: dash, TID: user-field}\n"
            "steps:\n"
            "  - id: open\n"
            "    kind: navigate\n"
            "    target:\n"
            "      type: url\n"
            "      url: ${vars.PATH}?u=${vars.USER}\n"
            "  - id: name\n"
            "    kind: fill\n"
            "    target: {type: testid, id: '${vars.TID}'}\n"
            "    value: Hello ${vars.USER}\n"
            "    postconditions:\n"
            "      - kind: url_matches\n"
            "        args: {pattern: '/${vars.PAT}$'}\n"
            "      - kind: element_value_equals\n"
            "        args: {value: '${vars.USER}'}\n"
            "    metadata: {note: 'for ${vars.USER}'}\n"
        )
        plan = only_valid(validate(text)).plan
        assert plan.steps[0].target.url == "/login?u=alice"
        step = plan.steps[1]
        assert step.target.id == "user-field"
        assert step.value == "Hello alice"
        assert step.postconditions[0].args.pattern == "/dash$"
        assert step.postconditions[1].args.value == "alice"
        assert step.metadata == {"note": "for alice"}
        assert "${vars." not in plan.model_dump_json()

    def test_numbers_as_var_values_become_text(self, validate):
        text = HEAD + (
            "vars: {N: 42, F: 1.5}\n"
            "steps:\n"
            "  - id: open\n"
            "    kind: navigate\n"
            "    target:\n"
            "      type: url\n"
            "      url: /item/${vars.N}\n"
            "  - id: f\n"
            "    kind: fill\n"
            "    target: {type: testid, id: n}\n"
            "    value: ${vars.N}\n"
            "  - id: g\n"
            "    kind: fill\n"
            "    target: {type: testid, id: n}\n"
            "    value: ${vars.F}\n"
        )
        plan = only_valid(validate(text)).plan
        assert plan.steps[0].target.url == "/item/42"
        assert plan.steps[1].value == "42" and isinstance(plan.steps[1].value, str)
        assert plan.steps[2].value == "1.5"

    def test_unknown_var_is_interpolation_with_the_line_of_the_value(self, validate):
        text = fill_plan("'x ${vars.NOPE}'", head="vars: {A: a}\n")
        result = only_problems(validate(text))
        assert rules(result) == ["INTERPOLATION"]
        problem = result.problems[0]
        assert problem.key_path == "steps[0].value"
        assert problem.mark.line == line_of(text, "${vars.NOPE}")
        assert problem.mark.col == 12
        assert "NOPE" in problem.message

    def test_unknown_var_in_a_deep_condition_arg(self, validate):
        text = HEAD + (
            "steps:\n"
            "  - id: c\n"
            "    kind: click\n"
            "    target: {type: testid, id: go}\n"
            "    postconditions:\n"
            "      - kind: url_matches\n"
            "        args:\n"
            "          pattern: ${vars.MISSING}\n"
        )
        result = only_problems(validate(text))
        problem, = result.problems
        assert problem.rule == "INTERPOLATION"
        assert problem.key_path == "steps[0].postconditions[0].args.pattern"
        assert problem.mark.line == line_of(text, "MISSING")

    @pytest.mark.parametrize("ref", ["${foo}", "${env.HOME}", "${vars}", "${vars.A.B}"])
    def test_malformed_reference_is_interpolation(self, validate, ref):
        text = fill_plan(f"'{ref}'", head="vars: {A: a}\n")
        result = only_problems(validate(text))
        assert rules(result) == ["INTERPOLATION"]
        assert result.problems[0].key_path == "steps[0].value"
        assert result.problems[0].mark.line == line_of(text, ref)

    @pytest.mark.parametrize("value", ["'${vars.B}'", "'a ${foo} b'", "'${secrets.P}'", "'${'"])
    def test_var_values_cannot_contain_references(self, validate, value):
        text = fill_plan("x", head=f"vars: {{A: {value}, B: b}}\n")
        result = only_problems(validate(text))
        assert "INTERPOLATION" in rules(result)
        problem = next(p for p in result.problems if p.rule == "INTERPOLATION")
        assert problem.key_path == "vars.A"
        assert problem.mark.line == line_of(text, "vars:")

    def test_var_values_must_be_strings_or_numbers(self, validate):
        result = only_problems(validate(fill_plan("x", head="vars: {B: true}\n")))
        assert result.problems[0].key_path == "vars.B"

    @pytest.mark.parametrize("head, value", [
        ("vars: {X: P}\n", "'${secrets.${vars.X}}'"),
        ("vars: {D: $}\n", "'${vars.D}{secrets.P}'"),
    ])
    def test_a_var_cannot_build_an_unchecked_secret_reference(self, validate, head, value):
        # Substituted text must not form a ${secrets.NAME} that was never declared and checked.
        results = validate(fill_plan(value, head=head), env={"MY_PW": SECRET_VALUE})
        assert len(results) == 1
        result = results[0]
        if isinstance(result, ValidPlan):
            refs = set(re.findall(r"\$\{secrets\.(\w+)\}", result.plan.model_dump_json()))
            assert refs <= set(result.plan.secrets), (
                f"{value} validated into a reference to undeclared secret(s) {refs - set(result.plan.secrets)}"
            )
        else:
            assert "INTERPOLATION" in result.violated_rules


class TestSecretsInPlans:
    SECRETS = "secrets: {P: {env: MY_PW}}\n"

    def test_secret_stays_a_reference_in_the_validated_plan(self, validate):
        text = fill_plan("'${secrets.P}'", head=self.SECRETS)
        result = only_valid(validate(text, env={"MY_PW": SECRET_VALUE}))
        assert result.plan.steps[0].value == "${secrets.P}"
        assert SECRET_VALUE not in repr(result.plan)
        assert SECRET_VALUE not in result.plan.model_dump_json()
        assert SECRET_VALUE not in repr(result)
        assert result.plan.secrets["P"].env == "MY_PW"

    def test_secret_in_a_url_stays_a_reference(self, validate):
        text = HEAD + self.SECRETS + (
            "steps:\n"
            "  - id: open\n"
            "    kind: navigate\n"
            "    target:\n"
            "      type: url\n"
            "      url: /login?token=${secrets.P}\n"
        )
        result = only_valid(validate(text, env={"MY_PW": SECRET_VALUE}))
        assert result.plan.steps[0].target.url == "/login?token=${secrets.P}"
        assert SECRET_VALUE not in result.plan.model_dump_json()

    def test_secret_with_unset_env_var_is_secret_env(self, validate):
        text = fill_plan("'${secrets.P}'", head=self.SECRETS)
        result = only_problems(validate(text, env={"OTHER": "x"}))
        assert rules(result) == ["SECRET_ENV"]
        problem = result.problems[0]
        assert "MY_PW" in problem.message
        assert problem.key_path == "secrets.P"
        assert problem.mark.line == line_of(text, "secrets:")

    def test_unknown_secret_is_interpolation(self, validate):
        text = fill_plan("'${secrets.Q}'", head=self.SECRETS)
        result = only_problems(validate(text, env={"MY_PW": SECRET_VALUE}))
        assert rules(result) == ["INTERPOLATION"]
        assert "Q" in result.problems[0].message
        assert result.problems[0].key_path == "steps[0].value"
        assert SECRET_VALUE not in all_problem_text([result])

    def test_secret_used_without_any_secrets_block(self, validate):
        result = only_problems(validate(fill_plan("'${secrets.P}'"), env={"MY_PW": SECRET_VALUE}))
        assert rules(result) == ["INTERPOLATION"]

    @pytest.mark.parametrize("broken", [
        # the secret where a pattern-checked field echoes its input
        ("  - {id: '${secrets.P}', kind: fill, target: {type: testid, id: a}, value: '${secrets.P}'}\n"),
        ("  - {id: k, kind: '${secrets.P}', target: {type: testid, id: a}}\n"),
        # a value where none is allowed
        ("  - {id: c, kind: click, target: {type: testid, id: a}, value: '${secrets.P}'}\n"),
        # an unknown key next to a secret
        ("  - {id: f2, kind: fill, target: {type: testid, id: a}, value: '${secrets.P}', bogus: 1}\n"),
        # an unknown var in the same string as the secret
        ("  - {id: f3, kind: fill, target: {type: testid, id: a}, value: '${secrets.P}${vars.NOPE}'}\n"),
        # a bad regex built around the secret
        ("  - id: r\n    kind: click\n    target: {type: testid, id: a}\n"
         "    postconditions: [{kind: url_matches, args: {pattern: '(${secrets.P}'}}]\n"),
    ])
    def test_secret_value_appears_in_no_problem_message(self, validate, broken):
        text = fill_plan("'${secrets.P}'", head=self.SECRETS) + broken
        results = validate(text, env={"MY_PW": SECRET_VALUE})
        result = only_problems(results)
        assert result.problems
        assert SECRET_VALUE not in all_problem_text(results)

    @pytest.mark.parametrize("url, needle", [
        ("ftp://h/${secrets.P}", "ftp"),
        ("file:///etc/${secrets.P}", "file"),
        ("javascript:alert('${secrets.P}')", "javascript"),
        ("//evil.example/${secrets.P}", "//"),
    ])
    def test_a_secret_in_a_url_does_not_exempt_it_from_the_url_rules(self, validate, url, needle):
        # The scheme is written in the plan, so it can be checked without the secret's value.
        text = HEAD + self.SECRETS + (
            "steps:\n"
            "  - id: open\n"
            "    kind: navigate\n"
            "    target:\n"
            "      type: url\n"
            f"      url: \"{url}\"\n"
        )
        results = validate(text, env={"MY_PW": SECRET_VALUE})
        result = only_problems(results)
        assert rules(result) == ["URL"]
        assert result.problems[0].key_path == "steps[0].target.url"
        assert needle in result.problems[0].message
        assert SECRET_VALUE not in all_problem_text(results)

    def test_url_rules_still_apply_without_secrets(self, validate):
        text = HEAD + (
            "steps:\n"
            "  - id: open\n"
            "    kind: navigate\n"
            "    target:\n"
            "      type: url\n"
            "      url: ftp://h/x\n"
        )
        result = only_problems(validate(text))
        assert rules(result) == ["URL"] and "ftp" in result.problems[0].message
