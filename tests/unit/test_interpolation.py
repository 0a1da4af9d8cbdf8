"""``${vars.X}`` and ``${secrets.X}``: the functions and the plan rules around them."""

from __future__ import annotations

import re

import pytest

from pytest_cometlocal.contract.errors import InterpolationError
from pytest_cometlocal.contract.load.interpolation import SECRET_REFERENCE, interpolate, resolve_secrets
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidPlan
from tests.support import line_of, only_problems, only_valid, plan

SECRET_VALUE = "hunter2"


def fill_plan(value_yaml: str, head: str = "") -> str:
    """A plan whose only step fills ``value_yaml`` into a field; ``head``: more top-level lines."""
    return plan("- id: f\n  kind: fill\n  target: {type: testid, id: user}\n  value: " + value_yaml + "\n",
                "interp", extra=head)


def reported(result: InvalidPlan) -> list[tuple[str, str, int, str]]:
    """(rule, key path, line, message) of every problem."""
    return [(p.rule, p.key_path, p.mark.line, p.message) for p in result.problems]


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
        assert str(info.value) == "unknown var 'NOPE' (vars: A)"  # the names, never the values

    @pytest.mark.parametrize("text", [
        "${foo}", "${env.HOME}", "${vars.}", "${vars.1X}", "${vars.X.Y}", "${vars.X | upper}",
        "${secrets}", "${}", "${ }", "${VARS.X}", "${vars.X:-default}",
    ])
    def test_malformed_references(self, text):
        with pytest.raises(InterpolationError) as info:
            interpolate(text, {"X": "1"}, no_secrets)
        assert str(info.value) == f"cannot interpolate '{text}': use ${{vars.NAME}} or ${{secrets.NAME}}"

    def test_all_errors_are_reported_together(self):
        with pytest.raises(InterpolationError) as info:
            interpolate("${vars.A} ${foo} ${vars.B}", {}, no_secrets)
        assert str(info.value) == (
            "unknown var 'A' (vars: none declared); "
            "cannot interpolate '${foo}': use ${vars.NAME} or ${secrets.NAME}; "
            "unknown var 'B' (vars: none declared)")

    def test_secrets_are_checked_but_kept_as_references(self):
        seen = []
        out = interpolate("pw=${secrets.P} u=${vars.U}", {"U": "al"}, seen.append)
        assert out == "pw=${secrets.P} u=al"
        assert seen == ["P"]

    def test_secret_check_failure_is_reported(self):
        with pytest.raises(InterpolationError) as info:
            interpolate("${secrets.Q}", {}, no_secrets)
        assert str(info.value) == "unknown secret 'Q'"  # the check's own error, passed on

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
        assert set(SECRET_REFERENCE.findall(out)) <= set(checked), out


class TestResolveSecrets:
    def test_replaces_each_reference(self):
        assert resolve_secrets("u ${secrets.A}:${secrets.B}", {"A": "x", "B": "y"}) == "u x:y"

    def test_leaves_vars_and_plain_text_alone(self):
        assert resolve_secrets("${vars.A} $A {secrets.A}", {"A": "x"}) == "${vars.A} $A {secrets.A}"

    def test_value_is_not_reinterpreted(self):
        assert resolve_secrets("${secrets.A}", {"A": "${secrets.B}", "B": "no"}) == "${secrets.B}"

    def test_only_a_named_secret_is_a_secret_reference(self):
        text = "x ${secrets.P} y ${vars.Q} secrets.R ${secrets.} ${secrets.S-1} ${secrets._T}"
        assert SECRET_REFERENCE.findall(text) == ["P", "_T"]


# ---------------------------------------------------------------------------
# Through validation


class TestVarsInPlans:
    def test_vars_are_substituted_in_values_urls_and_condition_args(self, validate):
        text = plan(name="interp", extra="vars: {USER: alice, PATH: /login, PAT: dash, TID: user-field}\n", steps=(
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
        ))
        checked = only_valid(validate(text)).plan
        assert checked.steps[0].target.url == "/login?u=alice"
        step = checked.steps[1]
        assert step.target.id == "user-field"
        assert step.value == "Hello alice"
        assert step.postconditions[0].args.pattern == "/dash$"
        assert step.postconditions[1].args.value == "alice"
        assert step.metadata == {"note": "for alice"}
        assert "${vars." not in checked.model_dump_json()

    def test_numbers_as_var_values_become_text(self, validate):
        text = plan(name="interp", extra="vars: {N: 42, F: 1.5}\n", steps=(
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
        ))
        checked = only_valid(validate(text)).plan
        assert checked.steps[0].target.url == "/item/42"
        assert checked.steps[1].value == "42" and isinstance(checked.steps[1].value, str)
        assert checked.steps[2].value == "1.5"

    def test_unknown_var_is_interpolation_with_the_line_of_the_value(self, validate):
        text = fill_plan("'x ${vars.NOPE}'", head="vars: {A: a}\n")
        result = only_problems(validate(text))
        assert reported(result) == [("INTERPOLATION", "steps[0].value", line_of(text, "${vars.NOPE}"), "unknown var 'NOPE' (vars: A)")]
        assert result.problems[0].mark.col == 12

    def test_unknown_var_in_a_deep_condition_arg(self, validate):
        text = plan(name="interp", steps=(
            "  - id: c\n"
            "    kind: click\n"
            "    target: {type: testid, id: go}\n"
            "    postconditions:\n"
            "      - kind: url_matches\n"
            "        args:\n"
            "          pattern: ${vars.MISSING}\n"
        ))
        assert reported(only_problems(validate(text))) == [("INTERPOLATION", "steps[0].postconditions[0].args.pattern",
                                                              line_of(text, "MISSING"), "unknown var 'MISSING' (vars: none declared)")]

    @pytest.mark.parametrize("ref", ["${foo}", "${env.HOME}", "${vars}", "${vars.A.B}"])
    def test_malformed_reference_is_interpolation(self, validate, ref):
        text = fill_plan(f"'{ref}'", head="vars: {A: a}\n")
        assert reported(only_problems(validate(text))) == [("INTERPOLATION", "steps[0].value", line_of(text, ref),
                                                              f"cannot interpolate '{ref}': use ${{vars.NAME}} or ${{secrets.NAME}}")]

    @pytest.mark.parametrize("value", ["'${vars.B}'", "'a ${foo} b'", "'${secrets.P}'", "'${'"])
    def test_var_values_cannot_contain_references(self, validate, value):
        text = fill_plan("x", head=f"vars: {{A: {value}, B: b}}\n")
        assert reported(only_problems(validate(text))) == [
            ("INTERPOLATION", "vars.A", line_of(text, "vars:"), "var values cannot contain ${...} references")]

    def test_var_values_must_be_strings_or_numbers(self, validate):
        text = fill_plan("x", head="vars: {B: true}\n")
        assert reported(only_problems(validate(text))) == [(
            "SCHEMA", "vars.B", line_of(text, "vars:"),
            "input should be a valid string; or input should be a valid integer; or input should be a valid number")]

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
        text = plan(name="interp", extra=self.SECRETS, steps=(
            "  - id: open\n"
            "    kind: navigate\n"
            "    target:\n"
            "      type: url\n"
            "      url: /login?token=${secrets.P}\n"
        ))
        result = only_valid(validate(text, env={"MY_PW": SECRET_VALUE}))
        assert result.plan.steps[0].target.url == "/login?token=${secrets.P}"
        assert SECRET_VALUE not in result.plan.model_dump_json()

    def test_secret_with_unset_env_var_is_secret_env(self, validate):
        text = fill_plan("'${secrets.P}'", head=self.SECRETS)
        assert reported(only_problems(validate(text, env={"OTHER": "x"}))) == [
            ("SECRET_ENV", "secrets.P", line_of(text, "secrets:"), "secret 'P' needs environment variable MY_PW, which is not set")]

    def test_unknown_secret_is_interpolation(self, validate):
        text = fill_plan("'${secrets.Q}'", head=self.SECRETS)
        result = only_problems(validate(text, env={"MY_PW": SECRET_VALUE}))
        assert reported(result) == [("INTERPOLATION", "steps[0].value", line_of(text, "${secrets.Q}"), "unknown secret 'Q' (secrets: P)")]
        assert SECRET_VALUE not in all_problem_text([result])

    def test_secret_used_without_any_secrets_block(self, validate):
        text = fill_plan("'${secrets.P}'")
        assert reported(only_problems(validate(text, env={"MY_PW": SECRET_VALUE}))) == [
            ("INTERPOLATION", "steps[0].value", line_of(text, "${secrets.P}"), "unknown secret 'P' (secrets: none declared)")]

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

    @pytest.mark.parametrize("url, message", [
        ("ftp://h/${secrets.P}", "scheme 'ftp' is not allowed; use http or https"),
        ("file:///etc/${secrets.P}", "scheme 'file' is not allowed; use http or https"),
        ("javascript:alert('${secrets.P}')", "scheme 'javascript' is not allowed; use http or https"),
        ("//evil.example/${secrets.P}", "scheme-relative URLs ('//host') are not allowed"),
    ], ids=["ftp", "file", "javascript", "scheme-relative"])
    def test_a_secret_in_a_url_does_not_exempt_it_from_the_url_rules(self, validate, url, message):
        # The scheme is written in the plan, so it can be checked without the secret's value.
        text = plan(name="interp", extra=self.SECRETS, steps=(
            "  - id: open\n"
            "    kind: navigate\n"
            "    target:\n"
            "      type: url\n"
            f"      url: \"{url}\"\n"
        ))
        results = validate(text, env={"MY_PW": SECRET_VALUE})
        assert reported(only_problems(results)) == [("URL", "steps[0].target.url", line_of(text, "url: "), message)]
        assert SECRET_VALUE not in all_problem_text(results)

    def test_url_rules_still_apply_without_secrets(self, validate):
        text = plan(name="interp", steps=(
            "  - id: open\n"
            "    kind: navigate\n"
            "    target:\n"
            "      type: url\n"
            "      url: ftp://h/x\n"
        ))
        assert reported(only_problems(validate(text))) == [
            ("URL", "steps[0].target.url", line_of(text, "url: ftp"), "scheme 'ftp' is not allowed; use http or https")]
