"""Context rules of the validator: U1-U5, defaults, ids, inputs, URLs, frames,
condition targets, regexes, names, tags, expect, recovery, policy, allowlist.

Most tests are two tables. ``PROBLEMS``: a plan and the one problem it must
have, checked exactly: rule id, key path, line and column, message. The place
is written as the piece of the plan's own text the problem points at (``at``,
with ``^`` where the column is not its start: ``support.mark_at``), so a case
reads top to bottom next to its plan. ``VALID``: plans that must have no
problem. Tests that check more than that follow the tables.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import pytest

from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidPlan, validate_action_spec
from tests.support import VALID_PLAN, line_of, mark_at, only, only_problems, only_valid, plan, triples


def recovery(steps: str, on_error: str = "[OVERLAY_BLOCKING]") -> str:
    """A top-level ``recovery:`` block with these steps, to append to a plan."""
    return f"recovery:\n  on_error: {on_error}\n  steps:\n" + textwrap.indent(textwrap.dedent(steps), "    ")


GO = '- {id: go, kind: click, target: {type: css, selector: "#go"}}\n'

# One plan per document: name, then this (the tests of plan names and tags).
BODY = """\
base_url: http://127.0.0.1:8000
defaults: {criticality: normal, timeout_ms: 5000, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
steps:
  - {id: go, kind: click, target: {type: css, selector: "#go"}}
"""


@dataclass(frozen=True)
class Problem:
    """The one problem ``text`` must have; ``at`` (its ``occurrence``-th hit) is where it points."""

    text: str
    rule: str
    key_path: str
    at: str
    message: str
    occurrence: int = 1


def case(id: str, text: str, rule: str, key_path: str, at: str, message: str, occurrence: int = 1):
    return pytest.param(Problem(text, rule, key_path, at, message, occurrence), id=id)


U2_MESSAGE = "a {} target needs exact: true or normalize_ws: true"
U3_MESSAGE = "an nth target needs metadata.target_rationale on its step"
U5_MESSAGE = ("a critical step needs a strong postcondition (url_is, url_matches, download_started, "
              "upload_completed, or toast_contains/element_text_contains with severity critical)")
CRITICAL_PAY = """\
- id: pay
  kind: click
  criticality: critical
  target: {type: css, selector: "#pay"}
"""
ELEMENT_CONDITIONS = {  # kind: a condition of that kind without a target
    "element_exists": "{kind: element_exists}",
    "element_visible": "{kind: element_visible}",
    "element_enabled": "{kind: element_enabled}",
    "element_clickable": "{kind: element_clickable}",
    "element_count_equals": "{kind: element_count_equals, args: {count: 1}}",
    "element_text_contains": "{kind: element_text_contains, args: {text: x}}",
    "element_attr_equals": "{kind: element_attr_equals, args: {attr: id, value: x}}",
    "element_value_equals": "{kind: element_value_equals, args: {value: x}}",
}
ACTING = [("click", ""), ("fill", "value: x"), ("select", "value: x"), ("upload", "file_ref: a.pdf")]


# ---------------------------------------------------------------------------
# Plans with exactly one problem

U1 = [
    case(f"{phase}-count-{count}-{kind}", plan(f"""\
        - id: act
          kind: {kind}
          target: {{type: css, selector: "#x"}}
          {extra}
          {phase}: [{{kind: element_count_equals, args: {{count: {count}}}}}]
    """), "U1", f"steps[0].{phase}[0].args.count", f"count: ^{count}}}",
         f"'{kind}' needs exactly one element (U1); count {count} contradicts it")
    for phase in ("preconditions", "postconditions") for count in (0, 2) for kind, extra in ACTING
]

U2 = [
    *(case(f"step-target-{ttype}", plan(f"""\
        - id: go
          kind: click
          target: {{type: {ttype}, text: Reports}}
    """), "U2", "steps[0].target", f"{{type: {ttype}, text: Reports", U2_MESSAGE.format(ttype)) for ttype in ("text", "label")),
    *(case(f"false-flags-do-not-count-{ttype}", plan(f"""\
        - id: go
          kind: click
          target: {{type: {ttype}, text: Reports, exact: false, normalize_ws: false}}
    """), "U2", "steps[0].target", f"{{type: {ttype}, text: Reports", U2_MESSAGE.format(ttype)) for ttype in ("text", "label")),
    case("in-alternatives", plan("""\
        - id: go
          kind: click
          target:
            - {type: css, selector: "#r"}
            - {type: text, text: Reports}
    """), "U2", "steps[0].target[1]", "{type: text, text: Reports}", U2_MESSAGE.format("text")),
    case("in-frame-inner", plan("""\
        - id: go
          kind: click
          target:
            type: frame
            selector: "#app"
            inner: {type: label, text: Email}
    """), "U2", "steps[0].target.inner", "{type: label, text: Email}", U2_MESSAGE.format("label")),
    case("in-nth-base", plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "the second of two identical links"}
          target:
            type: nth
            index: 1
            base: {type: text, text: More}
    """), "U2", "steps[0].target.base", "{type: text, text: More}", U2_MESSAGE.format("text")),
    case("in-condition-target", plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: element_visible
              args: {target: {type: label, text: Done}}
    """), "U2", "steps[0].postconditions[0].args.target", "{type: label, text: Done}", U2_MESSAGE.format("label")),
    case("in-condition-target-alternative-of-a-step-without-target", plan("""\
        - id: check
          kind: assert
          postconditions:
            - kind: element_text_contains
              args:
                text: ok
                target:
                  - {type: testid, id: msg}
                  - {type: text, text: ok}
    """), "U2", "steps[0].postconditions[0].args.target[1]", "{type: text, text: ok}", U2_MESSAGE.format("text")),
    case("in-recovery-step", plan(GO) + recovery("""\
        - {id: close, kind: click, target: {type: text, text: Close}}
    """), "U2", "recovery.steps[0].target", "{type: text, text: Close}", U2_MESSAGE.format("text")),
]

U3 = [
    case("nth-needs-rationale", plan("""\
        - id: go
          kind: click
          target: {type: nth, index: 2, base: {type: css, selector: li}}
    """), "U3", "steps[0].target", "{type: nth", U3_MESSAGE),
    *(case(f"rationale-does-not-count-{label}", plan(f"""\
        - id: go
          kind: click
          metadata: {metadata}
          target: {{type: nth, index: 2, base: {{type: css, selector: li}}}}
    """), "U3", "steps[0].target", "{type: nth", U3_MESSAGE) for label, metadata in [
        ("empty", '{target_rationale: ""}'), ("blank", '{target_rationale: "   "}'),
        ("number", "{target_rationale: 3}"), ("missing", "{other: x}")]),
    case("nth-in-condition-target", plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - {kind: element_visible, args: {target: {type: nth, index: 0, base: {type: css, selector: li}}}}
    """), "U3", "steps[0].postconditions[0].args.target", "{type: nth", U3_MESSAGE),
    case("nth-base-cannot-be-nth", plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "third row, second cell"}
          target:
            type: nth
            index: 1
            base: {type: nth, index: 2, base: {type: css, selector: td}}
    """), "U3", "steps[0].target.base", "{type: nth, index: 2",
         "an nth target's base must be a stable element target, not nth"),
]

U4 = [
    case("repeated-alternative", plan("""\
        - id: go
          kind: click
          target:
            - {type: css, selector: "#go"}
            - {type: testid, id: go}
            - {type: css, selector: "#go"}
    """), "U4", "steps[0].target[2]", '{type: css, selector: "#go"}', "alternative 2 repeats alternative 0", occurrence=2),
    case("repeated-alternative-in-condition-target", plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: element_visible
              args:
                target:
                  - {type: testid, id: done}
                  - {type: testid, id: done}
    """), "U4", "steps[0].postconditions[0].args.target[1]", "{type: testid, id: done}",
         "alternative 1 repeats alternative 0", occurrence=2),
]

U5 = [
    case("no-strong-postcondition", plan(CRITICAL_PAY + "  postconditions: [{kind: toast_contains, args: {text: Paid}}]\n"),
         "U5", "steps[0].postconditions", "[{kind: toast_contains", U5_MESSAGE),
    # host_in_allowlist from defaults is not strong: the problem points at the defaults line.
    case("only-default-postconditions", plan(CRITICAL_PAY),
         "U5", "steps[0].postconditions", "  postconditions: ^[{kind: host", U5_MESSAGE),
    *(case(f"weak-{label}", plan(CRITICAL_PAY + f"  postconditions: [{cond}]\n"),
           "U5", "steps[0].postconditions", f"postconditions: ^[{cond}]", U5_MESSAGE) for label, cond in [
        ("toast", "{kind: toast_contains, args: {text: Paid}}"),
        ("toast-error", "{kind: toast_contains, args: {text: Paid}, severity: error}"),
        ("text", "{kind: element_text_contains, args: {text: Paid}}"),
        ("text-warning", "{kind: element_text_contains, args: {text: Paid}, severity: warning}"),
        ("url_is-warning", "{kind: url_is, args: {url: /done}, severity: warning}"),
        ("url_matches-warning", "{kind: url_matches, args: {pattern: done}, severity: warning}"),
        ("download-warning", "{kind: download_started, severity: warning}"),
        ("upload-warning", "{kind: upload_completed, severity: warning}"),
        ("visible-critical", "{kind: element_visible, severity: critical}"),
        ("title-critical", "{kind: title_contains, args: {text: Paid}, severity: critical}"),
    ]),
    case("strong-precondition-does-not-count", plan(CRITICAL_PAY + "  preconditions: [{kind: url_is, args: {url: /cart}}]\n"),
         "U5", "steps[0].postconditions", "  postconditions: ^[{kind: host", U5_MESSAGE),
    case("criticality-from-defaults-in-recovery", plan("""\
        - id: open
          kind: navigate
          target: {type: url, url: /login}
          postconditions: [{kind: url_is, args: {url: /login}}]
    """, criticality="critical") + recovery("- {id: close, kind: click, target: {type: css, selector: .x}}\n"),
         "U5", "recovery.steps[0].postconditions", "  postconditions: ^[{kind: host", U5_MESSAGE),
]

DEFAULTS = [
    *(case(f"empty-{key}-in-step-win-over-defaults", plan(f"""\
        - id: go
          kind: click
          target: {{type: css, selector: "#go"}}
          {key}: []
    """), "CONDITIONS_REQUIRED", f"steps[0].{key}", f"{key}: ^[]", f"'{key}' must not be empty (after defaults)")
      for key in ("preconditions", "postconditions")),
    case("empty-conditions-in-recovery-step-win-over-defaults", plan(GO) + recovery("""\
        - id: close
          kind: click
          target: {type: css, selector: .x}
          preconditions: []
    """), "CONDITIONS_REQUIRED", "recovery.steps[0].preconditions", "preconditions: ^[]",
         "'preconditions' must not be empty (after defaults)"),
    case("missing-conditions-without-defaults", """\
        name: t
        steps:
          - id: go
            kind: click
            criticality: normal
            timeout_ms: 1000
            target: {type: css, selector: "#go"}
            preconditions: [{kind: element_visible}]
    """, "CONDITIONS_REQUIRED", "steps[0].postconditions", "id: go",
         "'postconditions' is required (on the step or in the plan's `defaults`)"),
    *(case(f"missing-{key}-without-defaults-is-schema", f"""\
        name: t
        steps:
          - id: go
            kind: click
            {other}
            target: {{type: css, selector: "#go"}}
            preconditions: [{{kind: element_visible}}]
            postconditions: [{{kind: element_visible}}]
    """, "SCHEMA", f"steps[0].{key}", "id: go", f"'{key}' is required (on the step or in the plan's `defaults`)")
      for key, other in [("criticality", "timeout_ms: 1000"), ("timeout_ms", "criticality: normal")]),
    # element_visible from defaults lands on a navigate step, which has no element target:
    # reported at the condition in the defaults block (the only place the text has it).
    case("merged-default-points-at-defaults", plan("""\
        - id: open
          kind: navigate
          target: {type: url, url: /login}
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
    """, postconditions="[{kind: element_visible}]"), "CONDITION_TARGET", "steps[0].postconditions[0]",
         "{kind: element_visible}", "element_visible needs args.target: this navigate step has no element target"),
    case("schema-error-in-merged-default-is-reported-in-defaults", plan(GO, timeout_ms=-1),
         "SCHEMA", "defaults.timeout_ms", "timeout_ms: ^-1", "input should be greater than 0"),
]

TIMEOUTS_AND_IDS = [
    *(case(f"timeout_ms-{value}", plan(f"""\
        - id: go
          kind: click
          target: {{type: css, selector: "#go"}}
          timeout_ms: {value}
    """), "SCHEMA", "steps[0].timeout_ms", f"timeout_ms: ^{value}", "input should be greater than 0") for value in ("0", "-5")),
    case("duplicate-step-id", plan("""\
        - {id: a, kind: click, target: {type: css, selector: "#a"}}
        - {id: b, kind: click, target: {type: css, selector: "#b"}}
        - {id: a, kind: click, target: {type: css, selector: "#c"}}
    """), "UNIQUE_ID", "steps[2].id", 'a, kind: click, target: {type: css, selector: "#c"}', "step id 'a' is already used"),
    case("duplicate-step-id-across-recovery", plan(GO) + recovery("""\
        - {id: go, kind: click, target: {type: css, selector: .x}}
    """), "UNIQUE_ID", "recovery.steps[0].id", "go, kind: click, target: {type: css, selector: .x}", "step id 'go' is already used"),
    case("duplicate-step-id-within-recovery", plan(GO) + recovery("""\
        - {id: r, kind: click, target: {type: css, selector: .x}}
        - {id: r, kind: click, target: {type: css, selector: .y}}
    """), "UNIQUE_ID", "recovery.steps[1].id", "r, kind: click, target: {type: css, selector: .y}", "step id 'r' is already used"),
]

TARGETS_AND_URLS = [
    *(case(f"target-required-{kind}", plan(f"""\
        - id: act
          kind: {kind}
          {extra}
    """), "TARGET_REQUIRED", "steps[0].target", "id: act", f"'{kind}' needs a target (only assert and stop may omit it)")
      for kind, extra in [("navigate", ""), *ACTING, ("wait_for", "")]),
    *(case(f"url-target-only-for-navigate-{kind}", plan(f"""\
        - id: act
          kind: {kind}
          target: {{type: url, url: /x}}
    """), "URL_TARGET", "steps[0].target", "{type: url", "url targets are only for navigate") for kind in ("click", "assert", "wait_for")),
    case("url-target-as-alternative", plan("""\
        - id: act
          kind: click
          target:
            - {type: css, selector: "#a"}
            - {type: url, url: /x}
    """), "URL_TARGET", "steps[0].target[1]", "{type: url", "url targets are only for navigate"),
    *(case(f"navigate-needs-one-url-target-{label}", plan(f"""\
        - id: open
          kind: navigate
          target: {target}
    """), "URL_TARGET", "steps[0].target", "target: ^", "navigate takes a single {type: url} target") for label, target in [
        ("css", '{type: css, selector: "#a"}'), ("two-urls", "[{type: url, url: /a}, {type: url, url: /b}]"),
        ("list-of-one", "[{type: url, url: /a}]")]),
    *(case(f"navigate-url-scheme-{label}", plan(f"""\
        - id: open
          kind: navigate
          target: {{type: url, url: "{url}"}}
    """), "URL", "steps[0].target.url", f'"{url}"', message) for label, url, message in [
        ("javascript", "javascript:alert(1)", "scheme 'javascript' is not allowed; use http or https"),
        ("file", "file:///etc/passwd", "scheme 'file' is not allowed; use http or https"),
        ("data", "data:text/html,x", "scheme 'data' is not allowed; use http or https"),
        ("scheme-relative", "//evil.example/x", "scheme-relative URLs ('//host') are not allowed")]),
    *(case(f"base_url-not-absolute-http-{base}", VALID_PLAN.replace("base_url: http://127.0.0.1:8000", f"base_url: {base}"),
           "URL", "base_url", f"base_url: ^{base}", "base_url must be an absolute http(s) URL")
      for base in ("/relative", "ftp://example.com", "example.com")),
]

FRAMES_AND_CONDITION_TARGETS = [
    case("frame-depth-two", plan("""\
        - id: go
          kind: click
          target:
            type: frame
            selector: "#outer"
            inner:
              type: frame
              selector: "#inner"
              inner: {type: css, selector: button}
    """), "FRAME_DEPTH", "steps[0].target.inner", "type: frame", "frames nest one level only", occurrence=2),
    case("frame-depth-through-nth", plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "second frame widget"}
          target:
            type: frame
            selector: "#outer"
            inner:
              type: nth
              index: 1
              base: {type: frame, selector: "#inner", inner: {type: css, selector: button}}
    """), "FRAME_DEPTH", "steps[0].target.inner.base", '{type: frame, selector: "#inner"', "frames nest one level only"),
    case("frame-depth-in-condition-target", plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: element_visible
              args:
                target: {type: frame, selector: a, inner: {type: frame, selector: b, inner: {type: testid, id: x}}}
    """), "FRAME_DEPTH", "steps[0].postconditions[0].args.target.inner", "{type: frame, selector: b", "frames nest one level only"),
    *(case(f"{kind}-on-navigate-needs-a-target", plan(f"""\
        - id: open
          kind: navigate
          target: {{type: url, url: /login}}
          postconditions: [{cond}]
    """), "CONDITION_TARGET", "steps[0].postconditions[0]", cond,
         f"{kind} needs args.target: this navigate step has no element target")
      for kind, cond in ELEMENT_CONDITIONS.items()),
    *(case(f"element-condition-on-{kind}-needs-target", plan(f"""\
        - id: end
          kind: {kind}
          preconditions: [{{kind: element_exists}}]
    """), "CONDITION_TARGET", "steps[0].preconditions[0]", "{kind: element_exists}",
         f"element_exists needs args.target: this {kind} step has no element target") for kind in ("assert", "stop")),
    case("condition-target-cannot-be-a-url", plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions: [{kind: element_visible, args: {target: [{type: url, url: /x}]}}]
    """), "URL_TARGET", "steps[0].postconditions[0].args.target[0]", "{type: url",
         "a condition's target cannot be a url (use url_is or url_matches)"),
]

REGEXES = [
    case("url_matches", plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: url_matches
              args: {pattern: "/dash(board"}
    """), "REGEX", "steps[0].postconditions[0].args.pattern", '"/dash(board"',
         "invalid regular expression: missing ), unterminated subpattern at position 5"),
    case("download-filename", plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: download_started
              args: {filename: "[a-"}
    """), "REGEX", "steps[0].postconditions[0].args.filename", '"[a-"',
         "invalid regular expression: unterminated character set at position 0"),
    case("auth-signals", VALID_PLAN + 'auth_signals: {url_pattern: "(login", status: [401]}\n',
         "REGEX", "auth_signals.url_pattern", '"(login"', "invalid regular expression: missing ), unterminated subpattern at position 0"),
    # (issue 46) re compiles these; the bounded matcher could not run them in bounded time.
    case("repeats-too-heavy", plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: url_matches
              args: {pattern: "/id/\\\\w{4294967294}"}
    """), "REGEX", "steps[0].postconditions[0].args.pattern", '"/id/',
         "invalid regular expression: its counted repeats, multiplied through their groups, come to "
         "4,294,967,298; at most 100,000"),
    case("scoped-verbose", VALID_PLAN + 'auth_signals: {url_pattern: "(?x: /login )", status: [401]}\n',
         "REGEX", "auth_signals.url_pattern", '"(?x',
         "invalid regular expression: (?x:...) scoped to a group cannot be matched in bounded time; "
         "put (?x) at the start"),
]

INPUTS = [
    *(case(f"{kind}-needs-value", plan(f"""\
        - id: act
          kind: {kind}
          target: {{type: css, selector: "#a"}}
    """), "INPUTS", "steps[0].value", "id: act", f"'{kind}' needs a value") for kind in ("fill", "select")),
    *(case(f"{kind}-rejects-value", plan(f"""\
        - id: act
          kind: {kind}
          target: {target}
          {"file_ref: a.pdf" if kind == "upload" else ""}
          value: hello
    """), "INPUTS", "steps[0].value", "value: ^hello", f"'value' is not used by '{kind}' (only fill and select)")
      for kind, target in [("navigate", "{type: url, url: /x}"), ("click", '{type: css, selector: "#a"}'),
                           ("upload", '{type: css, selector: "#a"}'), ("wait_for", '{type: css, selector: "#a"}'),
                           ("assert", '{type: css, selector: "#a"}')]),
    case("stop-rejects-value", plan("""\
        - id: end
          kind: stop
          value: hello
    """), "INPUTS", "steps[0].value", "value: ^hello", "'value' is not used by 'stop' (only fill and select)"),
    case("upload-needs-file_ref", plan("""\
        - id: up
          kind: upload
          target: {type: css, selector: "input[type=file]"}
    """), "INPUTS", "steps[0].file_ref", "id: up", "'upload' needs a file_ref"),
    case("click-rejects-file_ref", plan("""\
        - id: act
          kind: click
          target: {type: css, selector: "#a"}
          file_ref: a.pdf
    """), "INPUTS", "steps[0].file_ref", "file_ref: ^a.pdf", "'file_ref' is not used by 'click' (only upload)"),
    *(case(f"file_ref-confined-{label}", plan(f"""\
        - id: up
          kind: upload
          target: {{type: css, selector: "input[type=file]"}}
          file_ref: {ref}
    """), "PATH_CONFINEMENT", key_path, at, message) for label, ref, key_path, at, message in [
        ("absolute", "/etc/passwd", "steps[0].file_ref", "/etc/passwd",
         "absolute path '/etc/passwd' is not allowed; give a path relative to the root (uploads_root)"),
        ("dotdot", "../x.pdf", "steps[0].file_ref", "../x.pdf", "'..' in '../x.pdf' is not allowed (uploads_root)"),
        ("dotdot-in-list", "[ok.pdf, ../x.pdf]", "steps[0].file_ref[1]", "../x.pdf", "'..' in '../x.pdf' is not allowed (uploads_root)")]),
]

NAMES_AND_TAGS = [
    *(case(f"plan-name-with-{label}", f"name: {name}\n" + BODY, "NAME", "name", name,
           "a plan name cannot contain '::', brackets, control characters or surrounding spaces")
      for label, name in [("colons", '"a::b"'), ("brackets", '"a[1]"'), ("spaces", '" padded "'), ("tab", '"tab\\there"')]),
    *(case(f"reserved-tag-{tag}", "name: t\ntags: [smoke, " + tag + "]\n" + BODY, "TAG_NAME", "tags[1]", tag + "]",
           f"'{tag}' is one of pytest's own markers and cannot be a plan tag")
      for tag in ("skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings")),
    case("xdist-group-tag-without-name", "name: t\ntags: [smoke, xdist_group_]\n" + BODY, "TAG_NAME", "tags[1]",
         "xdist_group_]", "'xdist_group_' names no group: write xdist_group_NAME (or xdist_group for the default group)"),
    *(case(f"bad-tag-format-{label}", "name: t\ntags:\n  - smoke\n  - " + tag + "\n" + BODY, "SCHEMA", "tags[1]", f"- ^{tag}",
           f"'{tag.strip(chr(34))}' does not match the pattern ^[a-z][a-z0-9_]*$")
      for label, tag in [("capital", "Smoke"), ("digit-first", "1st"), ("dash", "with-dash"), ("underscore-first", "_x"),
                         ("empty", '""')]),
]

EXPECT_RECOVERY_POLICY = [
    case("expect-step-must-exist", VALID_PLAN + "expect: {error_code: TARGET_NOT_FOUND, step: zz}\n",
         "EXPECT", "expect.step", "zz}", "no step has id 'zz'"),
    *(case(f"recovery-on-{code}", VALID_PLAN + textwrap.dedent(f"""\
        recovery:
          on_error:
            - OVERLAY_BLOCKING
            - {code}
          steps:
            - {{id: close, kind: click, target: {{type: css, selector: .x}}}}
    """), "RECOVERY", "recovery.on_error[1]", f"- ^{code}", f"{code} cannot be recovered from")
      for code in ("POLICY_HALT", "INVALID_ACTIONSPEC", "ACTION_CRITICAL_BLOCKED")),
    case("recovery-step-cannot-stop", VALID_PLAN + recovery("- id: end\n  kind: stop\n"),
         "RECOVERY", "recovery.steps[0].kind", "kind: ^stop", "recovery steps cannot stop the run"),
    *(case(f"retry-on-{code}", VALID_PLAN + f"policy:\n  retry_on: [NAVIGATION_TIMEOUT, {code}]\n",
           "POLICY", "policy.retry_on[1]", f"{code}]", f"{code} cannot be retried")
      for code in ("INVALID_ACTIONSPEC", "POLICY_HALT", "ACTION_CRITICAL_BLOCKED")),
]

ALLOWLIST = [
    case(f"entry-{host}", VALID_PLAN + f'allowlist:\n  - "{host}"\n', "SCHEMA", "allowlist[0]", f'"{host}"',
         f"'{host}' does not match the pattern "
         r"^(?:\*\.)?(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?$"
         r"|^\[[0-9A-Fa-f:.]+\]$")
    for host in ("http://example.com", "example.com:80", "example.com/path", "*example.com")
]


def prefixed(prefix: str, cases: list) -> list:
    return [pytest.param(*c.values, id=f"{prefix}-{c.id}") for c in cases]


PROBLEMS = [
    *prefixed("U1", U1), *prefixed("U2", U2), *prefixed("U3", U3), *prefixed("U4", U4), *prefixed("U5", U5),
    *prefixed("defaults", DEFAULTS), *prefixed("ids", TIMEOUTS_AND_IDS), *prefixed("targets", TARGETS_AND_URLS),
    *prefixed("frames", FRAMES_AND_CONDITION_TARGETS), *prefixed("regex", REGEXES), *prefixed("inputs", INPUTS),
    *prefixed("names", NAMES_AND_TAGS), *prefixed("plan", EXPECT_RECOVERY_POLICY), *prefixed("allowlist", ALLOWLIST),
]


@pytest.mark.parametrize("expected", PROBLEMS)
def test_the_plan_has_exactly_this_problem(validate, expected: Problem):
    line, col = mark_at(expected.text, expected.at, expected.occurrence)
    only(only_problems(validate(expected.text)), expected.rule, expected.key_path, line, col, expected.message)


# ---------------------------------------------------------------------------
# Plans with no problem

VALID = [
    *(pytest.param(plan(f"""\
        - id: act
          kind: {kind}
          target: {{type: css, selector: "#x"}}
          {extra}
          postconditions: [{{kind: element_count_equals, args: {{count: 1}}}}]
    """), id=f"U1-count-of-one-{kind}") for kind, extra in ACTING),
    pytest.param(plan("""\
        - id: act
          kind: click
          target: {type: css, selector: "#x"}
          postconditions: [{kind: element_count_equals, args: {count: 3, target: {type: css, selector: li}}}]
    """), id="U1-a-count-about-another-element"),
    *(pytest.param(plan(f"""\
        - id: check
          kind: {kind}
          target: {{type: css, selector: li}}
          postconditions: [{{kind: element_count_equals, args: {{count: 3}}}}]
    """), id=f"U1-not-for-{kind}") for kind in ("assert", "wait_for")),
    *(pytest.param(plan(f"""\
        - id: go
          kind: click
          target: {{type: {ttype}, text: Reports, {flag}}}
    """), id=f"U2-{ttype}-{flag.replace(': true', '').replace(', ', '-')}")
      for ttype in ("text", "label") for flag in ("exact: true", "normalize_ws: true", "exact: true, normalize_ws: true")),
    pytest.param(plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "two identical links; the second is the footer one"}
          target:
            - {type: frame, selector: "#app", inner: {type: label, text: Email, exact: true}}
            - {type: nth, index: 1, base: {type: text, text: More, normalize_ws: true}}
            - {type: text, text: Go, exact: true}
          postconditions:
            - {kind: element_visible, args: {target: {type: label, text: Done, normalize_ws: true}}}
    """), id="U2-everywhere"),
    pytest.param(plan("""\
        - id: go
          kind: click
          target:
            - {type: role, role: button, name: Go}
            - {type: role, role: button, name: Go, exact: true}
    """), id="U4-same-type-other-fields-is-no-repeat"),
    *(pytest.param(plan(CRITICAL_PAY + f"  postconditions: [{{kind: host_in_allowlist}}, {cond}]\n"), id=f"U5-strong-{label}")
      for label, cond in [
          ("url_is", "{kind: url_is, args: {url: /done}}"),
          ("url_matches", "{kind: url_matches, args: {pattern: /done$}}"),
          ("download", "{kind: download_started}"),
          ("download-filename", "{kind: download_started, args: {filename: '\\.pdf$'}}"),
          ("upload", "{kind: upload_completed}"),
          ("url_is-critical", "{kind: url_is, args: {url: /done}, severity: critical}"),
          ("url_is-error", "{kind: url_is, args: {url: /done}, severity: error}"),
          ("toast-critical", "{kind: toast_contains, args: {text: Paid}, severity: critical}"),
          ("text-critical", "{kind: element_text_contains, args: {text: Paid}, severity: critical}"),
      ]),
    pytest.param(VALID_PLAN, id="U5-normal-step-needs-no-strong-postcondition"),
    pytest.param(plan("""\
        - id: open
          kind: navigate
          target: {type: url, url: /login}
          postconditions: [{kind: element_visible, args: {target: {type: testid, id: form}}}]
        - id: check
          kind: assert
          postconditions: [{kind: element_text_contains, args: {text: Hi, target: {type: testid, id: hello}}}]
    """), id="condition-with-own-target-on-navigate-and-assert"),
    *(pytest.param(plan(f"""\
        - id: check
          kind: assert
          postconditions: [{cond}]
    """), id=f"page-level-condition-{cond[7:-1]}") for cond in ("{kind: no_blocking_overlay}", "{kind: upload_completed}", "{kind: network_idle}")),
]


@pytest.mark.parametrize("text", VALID)
def test_the_plan_is_valid(validate, text: str):
    only_valid(validate(text))


# ---------------------------------------------------------------------------
# U3, U4: what a valid plan holds


def test_u3_with_rationale_passes(validate):
    text = plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "the list has two identical Delete buttons; the first is the draft"}
          target: {type: nth, index: 0, base: {type: role, role: button, name: Delete, exact: true}}
    """)
    valid = only_valid(validate(text))
    target = valid.plan.steps[0].target
    assert isinstance(target, T.NthTarget) and target.index == 0
    assert isinstance(target.base, T.RoleTarget)


def test_u4_alternatives_are_sorted_stably(validate):
    text = plan("""\
        - id: go
          kind: click
          target:
            - {type: text, text: Go, exact: true}
            - {type: xpath, selector: "//button[1]"}
            - {type: css, selector: "#one"}
            - {type: label, text: Go, normalize_ws: true}
            - {type: css, selector: "#two"}
            - {type: role, role: button, name: Go}
            - {type: testid, id: go}
            - {type: css, selector: "#three"}
    """)
    target = only_valid(validate(text)).plan.steps[0].target
    assert [t.type for t in target] == ["testid", "role", "label", "css", "css", "css", "xpath", "text"]
    assert [t.selector for t in target if t.type == "css"] == ["#one", "#two", "#three"]


def test_u4_composite_targets_rank_by_what_they_wrap(validate):
    text = plan("""\
        - id: go
          kind: click
          metadata: {target_rationale: "second matching row"}
          target:
            - {type: css, selector: "#c"}
            - {type: frame, selector: "#f", inner: {type: testid, id: go}}
            - {type: nth, index: 1, base: {type: text, text: Go, exact: true}}
            - {type: role, role: button}
    """)
    target = only_valid(validate(text)).plan.steps[0].target
    assert [t.type for t in target] == ["frame", "role", "css", "nth"]
    assert [T.u4_rank(t) for t in target] == [0, 1, 3, 5]


def test_u4_recovery_alternatives_are_sorted(validate):
    text = plan(GO) + recovery("""\
        - id: close
          kind: click
          target: [{type: css, selector: ".x"}, {type: testid, id: close}]
    """)
    valid = only_valid(validate(text))
    assert [t.type for t in valid.plan.recovery.steps[0].target] == ["testid", "css"]


def test_u4_condition_target_alternatives_are_sorted(validate):
    # Alternatives are tried in U4 order wherever a target list is allowed;
    # the validated plan is what the executor iterates.
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - kind: element_visible
              args:
                target: [{type: css, selector: ".done"}, {type: testid, id: done}]
    """)
    cond = only_valid(validate(text)).plan.steps[0].postconditions[0]
    assert [t.type for t in cond.args.target] == ["testid", "css"]


# ---------------------------------------------------------------------------
# Defaults, timeouts, ids


def test_defaults_are_merged_into_steps_and_recovery_steps(validate):
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
        - id: own
          kind: click
          target: {type: css, selector: "#own"}
          criticality: critical
          timeout_ms: 700
          preconditions: [{kind: element_visible}]
          postconditions: [{kind: url_is, args: {url: /x}}]
    """) + recovery("- {id: close, kind: click, target: {type: css, selector: .x}}\n")
    p = only_valid(validate(text)).plan
    go, own = p.steps
    close = p.recovery.steps[0]
    for step in (go, close):
        assert step.criticality == "normal"
        assert step.timeout_ms == 3000
        assert [c.kind for c in step.preconditions] == ["host_in_allowlist"]
        assert [c.kind for c in step.postconditions] == ["host_in_allowlist"]
    assert own.criticality == "critical"
    assert own.timeout_ms == 700
    assert [c.kind for c in own.preconditions] == ["element_visible"]
    assert [c.kind for c in own.postconditions] == ["url_is"]


def test_merged_default_regex_error_points_at_defaults(validate):
    text = plan(GO + '- {id: go2, kind: click, target: {type: css, selector: "#go2"}}\n',
                postconditions='[{kind: url_matches, args: {pattern: "(x"}}]')
    inv = only_problems(validate(text))
    line, col = mark_at(text, '"(x"')
    message = "invalid regular expression: missing ), unterminated subpattern at position 0"
    assert [(p.rule, p.key_path, p.mark.line, p.mark.col, p.message) for p in inv.problems] == [
        ("REGEX", "steps[0].postconditions[0].args.pattern", line, col, message),
        ("REGEX", "steps[1].postconditions[0].args.pattern", line, col, message),
    ]


def test_timeout_ms_of_one_is_valid(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          timeout_ms: 1
    """)
    assert only_valid(validate(text)).plan.steps[0].timeout_ms == 1


def test_step_marks_cover_steps_and_recovery_steps(validate):
    text = plan("""\
        - {id: go, kind: click, target: {type: css, selector: "#go"}}
        - id: two
          kind: click
          target: {type: css, selector: "#two"}
    """) + recovery("- {id: r, kind: click, target: {type: css, selector: .x}}\n")
    marks = only_valid(validate(text)).source.step_marks
    assert marks["go"].line == line_of(text, "id: go")
    assert marks["two"].line == line_of(text, "id: two")
    assert marks["r"].line == line_of(text, "id: r,")


# ---------------------------------------------------------------------------
# Targets and URLs


def test_assert_and_stop_need_no_target(validate):
    text = plan("""\
        - {id: check, kind: assert, postconditions: [{kind: title_contains, args: {text: Home}}]}
        - {id: end, kind: stop}
    """)
    p = only_valid(validate(text)).plan
    assert p.steps[0].target is None and p.steps[1].target is None


def test_url_target_as_frame_inner_is_rejected_twice(validate):
    # Reported as a url target outside navigate, and as a frame's inner: both at the inner target.
    text = plan("""\
        - id: act
          kind: click
          target:
            type: frame
            selector: "#f"
            inner: {type: url, url: /x}
    """)
    inv = only_problems(validate(text))
    line, col = mark_at(text, "{type: url")
    assert [(p.rule, p.key_path, p.mark.line, p.mark.col, p.message) for p in inv.problems] == [
        ("URL_TARGET", "steps[0].target.inner", line, col, "url targets are only for navigate"),
        ("URL_TARGET", "steps[0].target.inner", line, col, "a frame's inner target cannot be a url"),
    ]


def test_absolute_navigate_url_needs_no_base_url(validate):
    text = """\
        name: t
        allowlist: [example.com]
        defaults: {criticality: normal, timeout_ms: 5000, preconditions: [{kind: host_in_allowlist}], postconditions: [{kind: host_in_allowlist}]}
        steps:
          - {id: open, kind: navigate, target: {type: url, url: "https://example.com/login"}}
    """
    valid = only_valid(validate(text))
    assert valid.plan.base_url is None and valid.plan.steps[0].target.url == "https://example.com/login"


def test_one_frame_level_is_fine(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: frame, selector: "#app", inner: {type: role, role: button, name: Go}}
    """)
    target = only_valid(validate(text)).plan.steps[0].target
    assert isinstance(target, T.FrameTarget) and isinstance(target.inner, T.RoleTarget)


# ---------------------------------------------------------------------------
# Regular expressions, inputs


def test_valid_regexes_pass(validate):
    text = plan("""\
        - id: go
          kind: click
          target: {type: css, selector: "#go"}
          postconditions:
            - {kind: url_matches, args: {pattern: "/dash(board)?$"}}
            - {kind: download_started, args: {filename: "^invoice-\\\\d+\\\\.pdf$"}}
    """) + 'auth_signals: {url_pattern: "/login\\\\?expired"}\n'
    valid = only_valid(validate(text))
    assert valid.plan.steps[0].postconditions[1].args.filename == "^invoice-\\d+\\.pdf$"
    assert valid.plan.auth_signals.url_pattern == "/login\\?expired"


@pytest.mark.parametrize("kind", ["fill", "select"])
def test_fill_and_select_accept_empty_string_value(validate, kind):
    text = plan(f"""\
        - id: act
          kind: {kind}
          target: {{type: css, selector: "#a"}}
          value: ""
    """)
    assert only_valid(validate(text)).plan.steps[0].value == ""


@pytest.mark.parametrize("ref, refs", [("docs/invoice.pdf", ["docs/invoice.pdf"]), ("[a.pdf, b.pdf]", ["a.pdf", "b.pdf"])])
def test_upload_with_file_ref(validate, ref, refs):
    text = plan(f"""\
        - id: up
          kind: upload
          target: {{type: css, selector: "input[type=file]"}}
          file_ref: {ref}
    """)
    assert only_valid(validate(text)).plan.steps[0].file_refs == refs


# ---------------------------------------------------------------------------
# Plan names, tags


def test_duplicate_plan_names_in_one_file(validate):
    text = "name: dup\n" + BODY + "---\nname: dup\n" + BODY + "---\nname: other\n" + BODY
    results = validate(text)
    assert [r.name for r in results] == ["dup", "dup@doc2", "other"]
    assert isinstance(results[0], ValidPlan)
    assert isinstance(results[2], ValidPlan)
    second = results[1]
    assert isinstance(second, InvalidPlan)
    assert triples(second) == [("UNIQUE_NAME", "name", line_of(text, "name: dup", 2))]
    assert second.problems[0].message == "plan name 'dup' is already used by document 1 of this file"


def test_duplicate_plan_name_points_at_the_name(validate):
    # The problem's key path is `name`; its line is the name's, not the document's first line.
    text = "name: dup\n" + BODY + "---\ndescription: the second one\nname: dup\n" + BODY
    results = validate(text)
    assert len(results) == 2
    assert isinstance(results[0], ValidPlan)
    second = results[1]
    assert isinstance(second, InvalidPlan)
    assert triples(second) == [("UNIQUE_NAME", "name", line_of(text, "name: dup", 2))]


def test_duplicate_plan_name_keeps_other_problems(validate):
    text = "name: dup\n" + BODY + "---\nname: dup\n" + BODY.replace("kind: click", "kind: fill")
    results = validate(text)
    assert isinstance(results[0], ValidPlan)
    assert triples(results[1]) == [
        ("UNIQUE_NAME", "name", line_of(text, "name: dup", 2)),
        ("INPUTS", "steps[0].value", line_of(text, "kind: fill")),
    ]


def test_distinct_plan_names_in_one_file(validate):
    text = "name: one\n" + BODY + "---\nname: two\n" + BODY
    results = validate(text)
    assert [r.name for r in results] == ["one", "two"]
    assert all(isinstance(r, ValidPlan) for r in results)


@pytest.mark.parametrize("name", ['"a::b"', '"a[1]"', '" padded "', '"tab\\there"'], ids=["colons", "brackets", "spaces", "tab"])
def test_a_plan_whose_name_is_refused_is_named_after_its_file(validate, name):
    assert only_problems(validate(f"name: {name}\n" + BODY)).name == "p"  # the file's stem


@pytest.mark.parametrize("tag", ["skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings"])
def test_a_reserved_tag_is_left_out_and_the_others_kept(validate, tag):
    assert only_problems(validate("name: t\ntags: [smoke, " + tag + "]\n" + BODY)).tags == ("smoke",)


def test_good_tags(validate):
    text = "name: t\ntags: [smoke, auth_2, a]\n" + BODY
    assert only_valid(validate(text)).plan.tags == ["smoke", "auth_2", "a"]


# ---------------------------------------------------------------------------
# expect, recovery, policy


def test_expect_step_may_name_a_recovery_step(validate):
    text = VALID_PLAN + recovery("- {id: close, kind: click, target: {type: css, selector: .x}}\n") + \
        "expect: {error_code: TARGET_NOT_FOUND, step: close}\n"
    valid = only_valid(validate(text))
    assert valid.plan.expect.step == "close"


def test_expect_step_existing(validate):
    text = VALID_PLAN + "expect: {error_code: TARGET_NOT_FOUND, step: go}\n"
    expect = only_valid(validate(text)).plan.expect
    assert (expect.error_code, expect.step) == ("TARGET_NOT_FOUND", "go")


def test_policy_overrides_and_defaults(validate):
    text = VALID_PLAN + "policy: {retries_per_action: 0, retry_on: [TARGET_NOT_FOUND]}\n"
    policy = only_valid(validate(text)).plan.policy
    assert policy.retries_per_action == 0
    assert policy.retry_on == ["TARGET_NOT_FOUND"]
    assert policy.recovery_max == 3
    assert policy.same_state_revisits == 2
    assert policy.hard_cap_steps == 60
    assert policy.backoff_ms == [300, 1000, 2000]
    assert policy.allow_stop is False


def test_policy_defaults_when_absent(validate):
    policy = only_valid(validate(VALID_PLAN)).plan.policy
    assert policy.retry_on == ["NAVIGATION_TIMEOUT", "OVERLAY_BLOCKING"]
    assert policy.retries_per_action == 2


# ---------------------------------------------------------------------------
# validate_action_spec uses the same rules


def test_validate_action_spec_applies_context_rules():
    raw = {
        "id": "go",
        "kind": "click",
        "criticality": "critical",
        "target": {"type": "text", "text": "Go"},
        "preconditions": [{"kind": "element_visible"}],
        "postconditions": [{"kind": "element_visible"}],
        "timeout_ms": 1000,
    }
    problems = validate_action_spec(raw)
    assert isinstance(problems, list)
    assert sorted((p.rule, p.key_path, p.message) for p in problems) == [
        ("U2", "target", U2_MESSAGE.format("text")), ("U5", "postconditions", U5_MESSAGE)]


def test_validate_action_spec_sorts_alternatives():
    raw = {
        "id": "go",
        "kind": "click",
        "criticality": "normal",
        "target": [{"type": "css", "selector": "#go"}, {"type": "testid", "id": "go"}],
        "preconditions": [{"kind": "element_visible"}],
        "postconditions": [{"kind": "element_visible"}],
        "timeout_ms": 1000,
    }
    step = validate_action_spec(raw)
    assert [t.type for t in step.target] == ["testid", "css"]


def test_policy_hashes_by_value_so_plans_share_the_default(validate) -> None:
    """A plan that writes no policy gets the one default ``Policy()`` (hashable, so pydantic shares it rather than
    deep-copying it per plan); a written policy is its own, and equal policies hash alike."""
    from pytest_cometlocal.contract.model.plan import Policy

    one, two = (only_valid(validate(VALID_PLAN)).plan for _ in range(2))
    written = only_valid(validate(VALID_PLAN + "policy: {retries_per_action: 0}\n")).plan.policy
    assert one.policy is two.policy and one.policy == Policy() and written is not one.policy
    assert hash(Policy(backoff_ms=[5])) == hash(Policy(backoff_ms=[5])) and Policy(backoff_ms=[5]) != Policy()
