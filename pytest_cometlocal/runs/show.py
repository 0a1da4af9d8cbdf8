"""``cometlocal show``: one run as a readable timeline, and the targets its error suggests.

The run is read by :mod:`pytest_cometlocal.runs.reader`; this module only
words it: a header from the run manifest (with the browser settings and
clock the run was made under, and its routes with the requests they answered, v1.2), two lines per step (status and
duration, then what the step does), the last error with its failed
conditions, details and evidence, and the suggested targets of the error as
YAML to paste, worded by
:mod:`pytest_cometlocal.contract.model.suggestion` like the failure text and
Allure word them. After the runs (timelines or ``--list`` lines alike), the
failed runs whose error has suggested targets, one line each (step, code,
top target and score), and the ``cometlocal fix`` command that turns them into
one patch. A negative plan's run that failed as its ``expect`` asks is shown
as ``expected``, never as a failure to fix. Pure Python: no browser, no pytest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from pytest_cometlocal.contract.failure_lines import condition_line, short
from pytest_cometlocal.contract.model.plan import settings_items
from pytest_cometlocal.contract.model.suggestion import fix_command, flow_yaml, suggestion_lines
from pytest_cometlocal.contract.run_folder import TRACE
from pytest_cometlocal.runs.errors import RunFolderError
from pytest_cometlocal.runs.extensions import extension_lines
from pytest_cometlocal.runs.reader import (Event, ended_as_expected, plan_identity, read_evidence, read_manifest,
                                           read_run, read_trace)
from pytest_cometlocal.runs.audits import detail_lines

__all__ = ["fixes_block", "list_line", "settings_lines", "show_run", "stub_lines", "suggested_fix", "suggested_lines",
           "var_lines"]


# How a failed condition's phase reads: an assert step's conditions are checks, not "assertconditions".
PHASES = {"pre": "precondition", "post": "postcondition", "assert": "assert check"}


LIMIT = 140  # characters of one value on a line


def _short(value: Any, limit: int = LIMIT) -> str:
    return short(value, limit)


def _status(events: Iterable[Event]) -> str:
    """What ``show`` says of a step: ok, running, retrying, REJECTED or FAILED with the code."""
    status = "running"
    for event in events:
        name = event.event_type
        if name in ("postconditions_checked", "assert_checked") and status == "running":
            status = "ok"
        elif name == "evidence_captured" and status == "running" and not event.metadata.get("for_error"):
            status = "ok"
        elif name in ("error_raised", "policy_halt"):
            status = "FAILED " + (event.error or {}).get("error_code", "")
        elif name == "retry_scheduled":
            status = "retrying"
        elif name == "proposal_rejected":
            status = "REJECTED"
    return status


def show_run(run_dir: Path) -> str:
    """A readable timeline of one run: steps, durations, outcomes, the error with its details, and the
    targets it suggests as YAML to paste; the run folder is read once."""
    run = read_run(run_dir)
    manifest = run.manifest
    plan = manifest.get("plan") if isinstance(manifest.get("plan"), dict) else {}
    expected = f" ({manifest.get('error_code')}, as the plan expects)" if run.ended_as_expected else ""
    lines = [
        f"run {manifest.get('run_id')}  plan: {plan.get('name')}  "
        f"mode: {manifest.get('execution_mode')}  status: {manifest.get('status')}{expected}",
        f"  started {manifest.get('started_at')}  finished {manifest.get('finished_at')}",
        f"  allowlist: {', '.join(manifest.get('domain_allowlist') or []) or '(none)'}",
    ]
    lines += var_lines(manifest)
    lines += settings_lines(run.settings)
    lines += stub_lines(run.stubs)
    lines += extension_lines(run)  # (extensions) the kinds it could use, and where each came from
    lines += ["  (unreadable trace line)"] * sum(1 for line in run.trace.lines if line.event is None)
    lines.append("  steps:")
    statuses = [_status(step.events) for step in run.steps]
    # The columns are as wide as this run's longest status and step id (at least 28), so every line aligns.
    width_status = max([28, *map(len, statuses)])
    width_id = max([28, *(len(step.step_id) for step in run.steps)])
    for status, step in zip(statuses, run.steps):
        duration = step.duration_ms
        lines.append(f"    {status:<{width_status}} {step.step_id:<{width_id}} "
                     f"{'-' if duration is None else duration:>6} ms")
        if what := step.http_line or step.what:  # (v1.2) a request: method, URL, status
            lines.append(f"    {'':<{width_status}} {_short(what, 100)}")
    error = run.errors[-1] if run.errors else None
    if error:
        lines.append(f"  error: {error.get('error_code')} {_where(error, run.steps)} ({error.get('stage')}): "
                     f"{error.get('message')}")
        for fc in error.get("failed_conditions") or []:  # why first, then expected, then seen (cut)
            phase = PHASES.get(fc.get("phase"), f"{fc.get('phase')} condition")
            lines.append(f"    failed {phase} {condition_line(str(fc.get('kind')), fc.get('args'), fc.get('observed'), LIMIT)}")
        for key, value in (error.get("details") or {}).items():
            lines += detail_lines(key, value, "    ") or [f"    {key}: {_short(value)}"]
        for ref in error.get("evidence_refs") or []:
            lines.append(f"    evidence: {ref['kind']:<22} {ref['uri']}")
    lines += [f"  {line}" for line in picture_lines(run_dir, run.errors)]
    if run.events and not run.finished:
        lines.append("  (the trace ends without run_finished: the run was cut off)")
    return "\n".join(lines + suggested_lines(run.errors))


def picture_lines(run_dir: Path, errors: Iterable[dict[str, Any]]) -> list[str]:
    """(v1.2) What became of the run's screenshot_matches baselines: failed comparisons, then baselines written."""
    lines = []
    for error in errors:
        for fc in error.get("failed_conditions") or []:
            seen = fc.get("observed") if isinstance(fc.get("observed"), dict) else {}
            if fc.get("kind") != "screenshot_matches":
                continue
            name, baseline = seen.get("snapshot"), seen.get("baseline")
            if baseline == "missing":
                lines.append(f"picture {name}: no baseline ({seen.get('baseline_file')}); the would-be one is in the "
                             "evidence (--cometlocal-update-snapshots missing writes it)")
            elif baseline == "differs":
                lines.append(f"picture {name}: differs from {seen.get('baseline_file')} by {seen.get('diff_pixels')} "
                             f"px ({seen.get('diff_ratio', 0) * 100:.2f}%){' (sizes differ)' if 'size' in seen else ''}")
            elif baseline in ("unreadable", "not written"):
                lines.append(f"picture {name}: baseline {baseline} ({seen.get('baseline_file')}): {seen.get('error')}")
            else:
                lines.append(f"picture {name}: {'never held still' if seen.get('stable') is False else 'not taken'}")
    try:
        entries = read_evidence(run_dir)
    except RunFolderError:
        entries = ()
    for entry in entries:
        meta = entry.data.get("metadata") or {}
        if entry.kind == "screenshot" and meta.get("role") == "baseline_written":
            lines.append(f"picture {meta.get('snapshot')}: baseline written {meta.get('baseline')} ({meta.get('why')})")
    return lines


def _where(error: dict[str, Any], steps: Any) -> str:
    """``at step ID``; an error of no step (a context the browser refused, a plan rejected) happened before the
    first step, or between steps once some ran."""
    if error.get("action_id"):
        return f"at step {error['action_id']}"
    return "between steps" if steps else "before the first step"


def var_lines(manifest: dict[str, Any]) -> list[str]:
    """``  vars: impl (cli), user (row)``: where each var of the run came from, the parametrize row over the
    plan over ``--cometlocal-var`` over ini ``cometlocal_vars`` (names only: the manifest keeps no value);
    none for a plan without vars or an older manifest."""
    conf = manifest.get("configuration")
    sources = conf.get("sources") if isinstance(conf, dict) else None
    found = sources.get("vars") if isinstance(sources, dict) else None
    if not isinstance(found, dict) or not found:
        return []
    return ["  vars: " + ", ".join(f"{name} ({source})" for name, source in found.items())]


def settings_lines(settings: dict[str, Any]) -> list[str]:
    """(v1.2) ``  browser: locale de-DE, timezone Europe/Madrid  (plan)`` and ``  clock: at ...``: the header's
    lines for the settings the run was made under; none for a run whose plan set none."""
    lines = []
    for group in ("browser", "clock"):
        items = [(key.split(".", 1)[1], value) for key, value in settings_items(settings) if key.startswith(group + ".")]
        if items:
            source = (settings.get("sources") or {}).get(group)
            lines.append(f"  {group}: {', '.join(f'{k} {v}' for k, v in items)}{f'  ({source})' if source else ''}")
    return lines


def stub_lines(stubs: dict[str, Any]) -> list[str]:
    """(v1.2) The header's lines for a run with routes: each route with how many requests it answered,
    ``(unused)`` for a stale one, then each stubbed request (step, method, URL, answer); none without routes."""
    if not stubs:
        return []
    counts: dict[Any, int] = {}
    for hit in stubs["stubbed"]:
        counts[hit.get("route")] = counts.get(hit.get("route"), 0) + 1
    unused = {u.get("index") for u in stubs["routes_unused"] if isinstance(u, dict)}
    lines = ["  routes:"]
    for route in stubs["routes"]:
        if not isinstance(route, dict):
            continue
        index = route.get("index")
        answer = "abort" if route.get("abort") else f"{route.get('status')} {route.get('answer')}"
        used = "(unused)" if index in unused else f"{counts.get(index, 0)} request(s)"
        lines.append(f"    [{index}] {route.get('method') or 'any':<6} {_short(route.get('url'), 80)} -> {answer}  {used}")
    for hit in stubs["stubbed"]:
        what = "aborted" if hit.get("answer") == "aborted" else f"answered {hit.get('status')}"
        lines.append(f"    stubbed at {hit.get('step') or '(between steps)'}: {hit.get('method')} "
                     f"{_short(hit.get('url'), 100)} by route {hit.get('route')}, {what}")
    return lines


def list_line(run_dir: Path) -> str:
    """``show --list``: one line per run from its manifest alone: status and error code, the plan, the folder."""
    manifest = read_manifest(run_dir)
    ident = plan_identity(manifest)
    status = "expected" if _expected(run_dir, manifest) else manifest.get("status")
    end = " ".join(str(v) for v in (status, manifest.get("error_code")) if v) or "?"
    row = f"[{ident['row_id']}]" if "row_id" in ident else ""
    return f"{end:<26} {ident.get('file')}::{ident.get('name')}{row}  {run_dir}"


def _expected(run_dir: Path, manifest: dict[str, Any]) -> bool:
    """The run failed as its negative plan expects; the trace is read only for a plan that expects an error."""
    plan = manifest.get("plan")
    if manifest.get("status") != "failed" or not isinstance(plan, dict) or "expect" not in plan:
        return False
    return ended_as_expected(manifest, read_trace(run_dir / TRACE).errors)


def suggested_lines(errors: Iterable[dict[str, Any]], indent: str = "  ") -> list[str]:
    """The "suggested targets:" block of the last error that got suggestion work (none without one)."""
    error = next((e for e in reversed(tuple(errors))
                  if {"suggestions", "page_suggestions"} & set(e.get("details") or {})), None)  # pages: v1.2
    return suggestion_lines((error or {}).get("details"), indent)


def suggested_fix(run_dir: Path) -> str | None:
    """``<run>  step 'send' TARGET_NOT_FOUND: <top target> (score 0.77)`` for a failed run whose error has
    suggested targets, else None. A run whose manifest does not say failed is not read further."""
    manifest = read_manifest(run_dir)
    if manifest.get("status") != "failed":
        return None
    errors = read_trace(run_dir / TRACE).errors
    if ended_as_expected(manifest, errors):  # a negative plan's expected error: nothing to fix
        return None
    error = errors[-1] if errors else {}
    found = (error.get("details") or {}).get("suggestions")
    if not isinstance(found, list) or not found or not isinstance(found[0], dict) or "target" not in found[0]:
        return None
    top = found[0]
    return (f"  {run_dir}  step '{error.get('action_id')}' {error.get('error_code')}: "
            f"{flow_yaml(top['target'])} (score {top.get('score')})")


def fixes_block(fixes: list[str], paths: Iterable[Path]) -> list[str]:
    """The closing block of ``show`` and ``show --list``: the failed runs with suggested targets, then the
    ``cometlocal fix`` command over the paths shown; nothing when no run has any."""
    if not fixes:
        return []
    runs = "run has" if len(fixes) == 1 else "runs have"
    return [f"{len(fixes)} failed {runs} suggested targets:", *fixes,
            f"fix them: {fix_command(*paths)}   (one patch to review; never applied)"]
