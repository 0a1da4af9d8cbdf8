"""The rules that need more than a model's types: U1-U5 and the plan format's context rules.

They run on validated models (stage 5 of the pipeline, and on every step an
agent proposes) and report through ``add(loc, message, rule)``; ``loc`` is
the key path the problem points at. One function per rule family; each
docstring names its rule ids, which docs/validation-rules.md lists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from pytest_cometlocal.contract.model import conditions as C
from pytest_cometlocal.contract.model import targets as T
from pytest_cometlocal.contract.model.actionspec import (
    NO_TARGET_KINDS, SINGLE_TARGET_KINDS, TARGETLESS_KINDS, ActionSpec, StepDefaults, format_version,
)
from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.load.interpolation import SECRET_REFERENCE
from pytest_cometlocal.contract.load.paths import confine
from pytest_cometlocal.contract.errors import ConfinementError
from pytest_cometlocal.contract.model.plan import RESERVED_TAGS, Plan
from pytest_cometlocal.contract.model.problems import Loc
from pytest_cometlocal.contract.validate.checks import (
    check_numbers, check_role_filters, check_scroll_to, check_v12_conditions)
from pytest_cometlocal.contract.validate.keys import snapshot_problem
from pytest_cometlocal.contract.patterns import may_hold_regex, regex_problems
from pytest_cometlocal.contract.allowlist import is_absolute_http, split_url
from pytest_cometlocal.contract.validate.settings_rules import check_settings
from pytest_cometlocal.contract.browsers.rules import check_browser_features
from pytest_cometlocal.contract.validate.checks import check_state_conditions, check_state_step
from pytest_cometlocal.contract.http.rules import check_request
from pytest_cometlocal.contract.actions.rules import check_v13_actions
from pytest_cometlocal.contract.http.seen_rules import check_seen
from pytest_cometlocal.contract.validate.validated import UNSAFE_NAME
from pytest_cometlocal.contract.validate.collector import describe
from pytest_cometlocal.contract.extensions.rules import check_extension_step, is_strong_extension, needs_strong
from pytest_cometlocal.contract.model.checks.extension import is_extension_kind
from pytest_cometlocal.contract.validate.step.index import StepIndex
from pytest_cometlocal.contract.validate.step.inputs import check_extension_inputs
from pytest_cometlocal.contract.model.conditions import RESPONSE_KINDS
from pytest_cometlocal.contract.http.rules import REQUEST_KEYS
from pytest_cometlocal.contract.validate.checks import STATE_CONDITION_KINDS, V12_CONDITION_KINDS

Report = Callable[[Loc, str, str], None]
PHASES = ("preconditions", "postconditions")
# Codes that a retry or a recovery can never change.
NOT_RECOVERABLE = frozenset({ErrorCode.INVALID_ACTIONSPEC, ErrorCode.POLICY_HALT, ErrorCode.ACTION_CRITICAL_BLOCKED})


def field(model: Any, name: str) -> Any:
    """``model.name`` if the model has that field, else None (getattr on a missing pydantic
    attribute goes through its slow ``__getattr__`` and an exception)."""
    cls = type(model)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(cls.model_fields)
    return getattr(model, name) if name in names else None


_FIELD_NAMES: dict[type, frozenset[str]] = {}


def iter_targets(target: Any, loc: Loc) -> tuple[tuple[Any, Loc, int], ...]:
    """Every target inside ``target`` (alternatives, frames, nth bases) with its loc and frame depth.

    Here and in the rules below, a target is told by its ``type`` (one model
    per type), not by isinstance, which costs several times more against a
    pydantic model class; these checks run for every target of every step.
    """
    if target is None:
        return ()
    if not isinstance(target, list) and target.type not in _WRAPPERS:
        return ((target, loc, 0),)
    found: list[tuple[Any, Loc, int]] = []
    stack = [(t, loc + (i,), 0) for i, t in enumerate(target)] if isinstance(target, list) else [(target, loc, 0)]
    while stack:
        t, tloc, depth = stack.pop()
        if t.type == "frame":
            depth += 1
            found.append((t, tloc, depth))
            stack.append((t.inner, tloc + ("inner",), depth))
        elif t.type == "nth":
            found.append((t, tloc, depth))
            stack.append((t.base, tloc + ("base",), depth))
        else:
            found.append((t, tloc, depth))
    return tuple(found)


_WRAPPERS = frozenset({"frame", "nth"})


def _conditions(step: ActionSpec) -> list[tuple[Any, str, int, Any]]:
    """(condition, phase, index, its args' target or None) for every condition of the step, in order."""
    return [(cond, phase, i, field(cond.args, "target"))
            for phase in PHASES for i, cond in enumerate(getattr(step, phase))]


# A target spec (one target or a list of alternatives), its loc, and every
# target inside it with its loc and frame depth (``iter_targets``).
_Spec = tuple[Any, Loc, tuple[tuple[Any, Loc, int], ...]]


def _spec(target: Any, loc: Loc) -> _Spec:
    return target, loc, iter_targets(target, loc)


def check_step(step: ActionSpec, loc: Loc, add: Report, *, uploads_root: Path | None, in_recovery: bool = False,
               allowlist: list[str] | None = None) -> None:
    """Every context rule for one ActionSpec.

    The step's conditions and the targets inside each target spec are read
    once here and handed to the rule families, as several of them look at
    each; the rules report in the same order as they are called. A family of
    ``_GATED`` runs only for a step that has what it looks at (step/index.py).
    """
    conditions = _conditions(step)
    seen = StepIndex(step, [cond.kind for cond, *_rest in conditions])
    own = None if step.target is None else _spec(step.target, loc + ("target",))
    in_conditions = [_spec(target, loc + (phase, i, "args", "target"))
                     for _cond, phase, i, target in conditions if target is not None]
    if "screenshot_matches" in seen.condition_kinds:  # (v1.2) its masks, the one condition that has them
        in_conditions += [_spec(mask, loc + (phase, i, "args", "mask", j))
                          for cond, phase, i, _t in conditions for j, mask in enumerate(field(cond.args, "mask") or ())]
    # drag's `to` is one more element target, held to the same rules as the step's own ((v1.3) not scroll's place).
    if step.drop_target is not None:
        in_conditions.insert(0, _spec(step.drop_target, loc + ("to",)))
    check_targets_by_kind(step, loc, add, own, in_conditions)
    check_inputs(step, loc, add, uploads_root)
    check_extension_inputs(step, loc, add, seen.written)
    if seen.extension:
        check_extension_step(step, loc, add, describe)  # (extensions) rule EXTENSION, and `args`
    if seen.wants(*_ANY_GATED):  # most steps: none of the families below has anything to look at
        for rule, keys, kinds, wanted_conditions in _GATED:
            if seen.wants(keys, kinds, wanted_conditions):
                rule(step, loc, add, allowlist)
    if in_recovery and step.kind == "stop":
        add(loc + ("kind",), "recovery steps cannot stop the run", "RECOVERY")
    specs = in_conditions if own is None else [own, *in_conditions]
    check_target_specs(step, add, specs)
    check_role_filters((t for spec in specs for t in spec[2]), add)
    check_conditions(step, loc, add, conditions)
    if not seen.condition_kinds.isdisjoint(V12_CONDITION_KINDS):
        check_v12_conditions(conditions, loc, add)
    if not seen.condition_kinds.isdisjoint(STATE_CONDITION_KINDS):
        check_state_conditions(conditions, loc, add)  # (v1.3)
    check_numbers(conditions, loc, add)  # (v1.3) rule NUMBER
    check_strong_postcondition(step, loc, add)
    if step.metadata:
        try:
            json.dumps(step.metadata, allow_nan=False)
        except ValueError:
            add(loc + ("metadata",), "metadata must be JSON-serialisable (no NaN or infinity)", "SCHEMA")


_NONE: frozenset[str] = frozenset()
# The step rule families that look only at some keys, step kinds or condition kinds, in the order they
# report: (rule, keys, kinds, condition kinds). A step with none of them gives the family nothing to report.
_GATED: tuple[tuple[Callable[..., None], frozenset[str], frozenset[str], frozenset[str]], ...] = (
    # (v1.3) a place `to` is scroll's, a target `to` drag's
    (lambda step, loc, add, _allowlist: check_scroll_to(step, loc, add), frozenset({"to"}), _NONE, _NONE),
    # (v1.2) request keys, save_text, response_* conditions
    (lambda step, loc, add, _allowlist: check_request(step, loc, add),
     REQUEST_KEYS, frozenset({"request"}), RESPONSE_KINDS),
    # (v1.3) FORCE, EVENT, select's list, fill's delay
    (lambda step, loc, add, _allowlist: check_v13_actions(step, loc, add),
     frozenset({"force", "value", "delay_ms", "detail"}), _NONE, _NONE),
    # (v1.3) cookie and storage steps (checks.py)
    (lambda step, loc, add, allowlist: check_state_step(step, loc, add, allowlist),
     frozenset({"cookie", "key_matches"}), _NONE, _NONE),
    # (v1.3) request_seen's url glob and pointers
    (lambda step, loc, add, _allowlist: check_seen(step, loc, add), _NONE, _NONE, frozenset({"request_seen"})),
)

# What any of them looks at: a step with none of it skips the table at once.
_ANY_GATED = tuple(frozenset().union(*(row[i] for row in _GATED)) for i in (1, 2, 3))


def check_targets_by_kind(step: ActionSpec, loc: Loc, add: Report, own: _Spec | None, in_conditions: list[_Spec]) -> None:
    """TARGET_REQUIRED, URL_TARGET, URL: which kinds need a target, and where url targets may be."""
    kind = step.kind
    if own is None and is_extension_kind(kind):
        return  # (extensions) its registration says whether it needs one (rule EXTENSION)
    if kind in NO_TARGET_KINDS:
        if own is not None:
            add(loc + ("target",), f"'{kind}' takes no target", "INPUTS")
    elif own is None:
        if kind not in TARGETLESS_KINDS:
            # A v1 step keeps v1's message, word for word; v1.1 added two kinds that may omit it.
            may_omit = "assert and stop" if format_version(step) == "v1" else "assert, stop, press and scroll"
            add(loc + ("target",), f"'{kind}' needs a target (only {may_omit} may omit it)", "TARGET_REQUIRED")
    elif kind == "navigate":
        target = own[0]
        if isinstance(target, list) or target.type != "url":
            add(loc + ("target",), "navigate takes a single {type: url} target", "URL_TARGET")
        else:
            # The scheme and host are checked with any secret replaced by a
            # placeholder: a secret may sit in the path, never decide the scheme.
            url = SECRET_REFERENCE.sub("SECRET", target.url)
            parts = split_url(url)
            if isinstance(parts, str):
                add(loc + ("target", "url"), parts, "URL")
            elif parts.scheme and parts.scheme not in ("http", "https"):
                add(loc + ("target", "url"), f"scheme '{parts.scheme}' is not allowed; use http or https", "URL")
            elif not parts.scheme and parts.netloc:
                add(loc + ("target", "url"), "scheme-relative URLs ('//host') are not allowed", "URL")
            # A relative URL without a known base URL is not an error here: the
            # base URL may come at run time from a `base_url` fixture.
    else:
        for t, tloc, _d in own[2]:
            if t.type == "url":
                add(tloc, "url targets are only for navigate", "URL_TARGET")
    for _target, cloc, inside in in_conditions:
        for t, sub, _d in inside:
            if t.type == "url":
                if cloc[-1] == "to":
                    add(sub, "drag's `to` cannot be a url", "URL_TARGET")
                else:
                    add(sub, "a condition's target cannot be a url (use url_is or url_matches)", "URL_TARGET")


def check_inputs(step: ActionSpec, loc: Loc, add: Report, uploads_root: Path | None) -> None:
    """INPUTS, PATH_CONFINEMENT: value for fill/select only, file_ref for upload only, inside uploads_root."""
    kind = step.kind
    if kind in ("fill", "select", "set_storage_item"):
        if step.value is None:
            add(loc + ("value",), f"'{kind}' needs a value", "INPUTS")
    elif step.value is not None:
        also = ", set_storage_item" if format_version(step) == "v1.3" else ""  # (v1.3) older messages kept
        add(loc + ("value",), f"'value' is not used by '{kind}' (only fill{also} and select)", "INPUTS")
    if kind == "upload":
        if not step.file_refs:
            add(loc + ("file_ref",), "'upload' needs a file_ref", "INPUTS")
        elif uploads_root is not None:
            for i, ref in enumerate(step.file_refs):
                ref_loc = loc + ("file_ref",) + ((i,) if isinstance(step.file_ref, list) else ())
                try:
                    confine(ref, uploads_root)
                except ConfinementError as exc:
                    add(ref_loc, f"{exc} (uploads_root)", "PATH_CONFINEMENT")
    elif step.file_ref is not None:
        add(loc + ("file_ref",), f"'file_ref' is not used by '{kind}' (only upload)", "INPUTS")


def check_target_specs(step: ActionSpec, add: Report, specs: list[_Spec]) -> None:
    """U2 (text/label targets say how they match), U3 (nth needs a rationale and a stable base),
    FRAME_DEPTH, URL_TARGET inside frames, U4 (no repeated alternative); the step's target and its
    conditions' alike."""
    rationale = step.metadata.get("target_rationale")
    for spec, sloc, inside in specs:
        # Only alternatives of one type can repeat each other.
        if isinstance(spec, list) and len({alt.type for alt in spec}) < len(spec):
            seen: dict[str, int] = {}
            for i, alt in enumerate(spec):
                key = alt.model_dump_json()
                if key in seen:
                    add(sloc + (i,), f"alternative {i} repeats alternative {seen[key]}", "U4")
                seen.setdefault(key, i)
        for t, tloc, depth in inside:
            ttype = t.type
            if ttype == "text" or ttype == "label":
                if not (t.exact or t.normalize_ws):
                    add(tloc, f"a {ttype} target needs exact: true or normalize_ws: true", "U2")
            elif ttype == "frame":
                if depth > 1:
                    add(tloc, "frames nest one level only", "FRAME_DEPTH")
                if t.inner.type == "url":
                    add(tloc + ("inner",), "a frame's inner target cannot be a url", "URL_TARGET")
            elif ttype == "nth":
                if not isinstance(rationale, str) or not rationale.strip():
                    add(tloc, "an nth target needs metadata.target_rationale on its step", "U3")
                if t.base.type in ("nth", "url"):
                    add(tloc + ("base",), f"an nth target's base must be a stable element target, not {t.base.type}", "U3")


def check_conditions(step: ActionSpec, loc: Loc, add: Report, conditions: list[tuple[Any, str, int, Any]]) -> None:
    """CONDITION_TARGET (an element condition needs a target), URL (url_is), REGEX, ARIA_SNAPSHOT, U1 (a single-target kind
    cannot expect a count other than one)."""
    kind = step.kind
    step_has_element_target = step.target is not None and kind != "navigate"
    for cond, phase, i, ctarget in conditions:
        ckind = cond.kind
        if ckind in C.ELEMENT_KINDS and ctarget is None and not step_has_element_target:
            add(loc + (phase, i), f"{ckind} needs args.target: this {kind} step has no element target", "CONDITION_TARGET")
        if ckind == "url_is":
            parts = split_url(SECRET_REFERENCE.sub("SECRET", cond.args.url))
            if isinstance(parts, str):
                add(loc + (phase, i, "args", "url"), parts, "URL")
        if may_hold_regex(cond.args):  # most args cannot hold a regex field: neither walked nor located
            for where, problem in regex_problems(cond.args, loc + (phase, i, "args")):
                add(where, problem, "REGEX")
        if ckind == "aria_snapshot_matches":
            problem = snapshot_problem(cond.args.snapshot)
            if problem:
                add(loc + (phase, i, "args", "snapshot"), problem, "ARIA_SNAPSHOT")
        # press and scroll may leave out their target: then there is no element for U1 to count
        # (CONDITION_TARGET says what is missing).
        if (ckind == "element_count_equals" and ctarget is None and kind in SINGLE_TARGET_KINDS
                and cond.args.count is not None and cond.args.count != 1
                and not (step.target is None and kind in TARGETLESS_KINDS)):
            add(loc + (phase, i, "args", "count"),
                f"'{kind}' needs exactly one element (U1); count {cond.args.count} contradicts it", "U1")


def check_strong_postcondition(step: ActionSpec, loc: Loc, add: Report) -> None:
    """U5: a critical step needs a strong postcondition."""
    if step.criticality == "critical" and needs_strong(step) \
            and not any(C.is_strong(c) or is_strong_extension(c) for c in step.postconditions):
        # A v1 step keeps v1's message, word for word.
        checks = "toast_contains/element_text_contains" + ("" if format_version(step) == "v1" else "/aria_snapshot_matches")
        response = "response_status, response_json, response_header, " if step.kind == "request" else ""  # (v1.2)
        add(
            loc + ("postconditions",),
            f"a critical step needs a strong postcondition ({response}url_is, url_matches, download_started, "
            f"upload_completed, or {checks} with severity critical)",
            "U5",
        )


def check_plan(plan: Plan, add: Report, uploads_root: Path | None) -> None:
    """The plan-level rules, then every step's: NAME, TAG_NAME, URL (base_url), UNIQUE_ID,
    RECOVERY and POLICY (codes that no retry or recovery can change), REGEX (auth url_pattern),
    EXPECT (expect.step names a step). (v1.2) SAVED is the validator's, which knows whether any string uses
    ``${saved.``. (v1.4) BROWSER_FEATURE: a Chromium-only feature in a plan whose browser.name has no Chromium."""
    if UNSAFE_NAME.search(plan.name) or plan.name != plan.name.strip():
        add(("name",), "a plan name cannot contain '::', brackets, control characters or surrounding spaces", "NAME")
    for i, tag in enumerate(plan.tags):
        if tag in RESERVED_TAGS:
            add(("tags", i), f"'{tag}' is one of pytest's own markers and cannot be a plan tag", "TAG_NAME")
        elif tag == "xdist_group_":  # xdist_group_NAME puts the plan in xdist group NAME (plugin/xdist_groups.py)
            add(("tags", i), "'xdist_group_' names no group: write xdist_group_NAME (or xdist_group for the "
                "default group)", "TAG_NAME")
    if plan.base_url is not None:
        parts = split_url(plan.base_url)
        if isinstance(parts, str):
            add(("base_url",), parts, "URL")
        elif not is_absolute_http(plan.base_url):
            add(("base_url",), "base_url must be an absolute http(s) URL", "URL")
    ids: dict[str, Loc] = {}
    steps = [(s, ("steps", i), False) for i, s in enumerate(plan.steps)]
    if plan.recovery:
        steps += [(s, ("recovery", "steps", i), True) for i, s in enumerate(plan.recovery.steps)]
        for i, code in enumerate(plan.recovery.on_error):
            if code in NOT_RECOVERABLE:
                add(("recovery", "on_error", i), f"{code} cannot be recovered from", "RECOVERY")
    for step, loc, in_recovery in steps:
        if step.id in ids:
            add(loc + ("id",), f"step id '{step.id}' is already used", "UNIQUE_ID")
        ids.setdefault(step.id, loc)
        check_step(step, loc, add, uploads_root=uploads_root, in_recovery=in_recovery, allowlist=plan.allowlist)
    for i, code in enumerate(plan.policy.retry_on):
        if code in NOT_RECOVERABLE:
            add(("policy", "retry_on", i), f"{code} cannot be retried", "POLICY")
    # Steps (defaults merged into them) are check_step's.
    for where, problem in regex_problems(plan, (), skip=(ActionSpec, StepDefaults)):
        add(where, problem, "REGEX")
    if plan.expect and plan.expect.step is not None and plan.expect.step not in ids:
        add(("expect", "step"), f"no step has id '{plan.expect.step}'", "EXPECT")
    check_settings(plan, add)  # (v1.2) browser: and clock:
    check_browser_features(plan, add)  # (v1.4) BROWSER_FEATURE: browser.name without Chromium


def in_u4_order(step: ActionSpec) -> ActionSpec:
    """U4 applied: the step with every list of alternatives (its own, its conditions') in U4 order
    (stable for equal types), so the executor just iterates. Sorting is stable: an alternative that
    moves passes only others of another rank, which it cannot equal, so "moved" is told by identity."""
    update: dict[str, Any] = {}
    target = step.target
    if isinstance(target, list):
        ordered = sorted(target, key=T.u4_rank)
        if any(new is not old for new, old in zip(ordered, target)):
            update["target"] = ordered
    for phase in PHASES:
        conditions = getattr(step, phase)
        changed: list[Any] | None = None
        for i, cond in enumerate(conditions):
            target = field(cond.args, "target")
            if isinstance(target, list):
                ordered = sorted(target, key=T.u4_rank)
                if any(new is not old for new, old in zip(ordered, target)):
                    if changed is None:
                        changed = list(conditions)
                    changed[i] = cond.model_copy(update={"args": cond.args.model_copy(update={"target": ordered})})
        if changed is not None:
            update[phase] = changed
    return step.model_copy(update=update) if update else step


def plan_in_u4_order(plan: Plan) -> Plan:
    """``in_u4_order`` for every step, recovery steps included (the same plan when nothing moves)."""
    steps = [in_u4_order(s) for s in plan.steps]
    update: dict[str, Any] = {}
    if any(new is not old for new, old in zip(steps, plan.steps)):
        update["steps"] = steps
    if plan.recovery:
        recovery = [in_u4_order(s) for s in plan.recovery.steps]
        if any(new is not old for new, old in zip(recovery, plan.recovery.steps)):
            update["recovery"] = plan.recovery.model_copy(update={"steps": recovery})
    return plan.model_copy(update=update) if update else plan
