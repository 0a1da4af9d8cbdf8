"""``cometlocal import``: a Playwright codegen recording becomes a plan file that validates.

The recording proposes; this writes the proposal in the plan format and the
validator decides, as for any plan: a plan that would not validate is never
written. The script is read (``codegen.parse``), never run. Secrets named with
``--secret NAME=ENVVAR`` replace the literals equal to that variable's value by
``${secrets.NAME}``; no secret value is written to the file or printed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from pytest_cometlocal.contract.allowlist import url_host
from pytest_cometlocal.contract.validate.validated import InvalidPlan, ValidationContext
from pytest_cometlocal.contract.validate.validator import validate_text
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.planners.codegen.map import Mapped, map_calls, risky, strings
from pytest_cometlocal.planners.codegen.parse import Unmapped, read_script
from pytest_cometlocal.planners.errors import ImportFailed, NotAScript
from pytest_cometlocal.planners.plan_yaml import DEFAULTS, dump_plan

_SECRET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A step's keys after its target, in the order people write them (the v1.1 keys as the mapping sets them).
_INPUT_KEYS = ("cookie", "area", "key", "key_matches", "to", "button", "click_count", "modifiers", "value", "file_ref",
               "opens", "page", "ms", "method", "url", "headers", "json", "form", "body",  # v1.2: opens, page, ms; a request's
               "viewport", "event", "detail", "position", "delay_ms", "force")  # v1.3 (and cookie, area, key_matches)
_MIN_SUBSTRING = 4  # shorter secret values are only matched whole (a one-letter value is in every word)


@dataclass
class Imported:
    text: str
    unmapped: list[Unmapped] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    steps: int = 0


def parse_secrets(pairs: list[str], env: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """``NAME=ENVVAR`` pairs -> {NAME: (ENVVAR, value)}; ImportFailed when malformed or unset."""
    secrets: dict[str, tuple[str, str]] = {}
    for pair in pairs:
        name, sep, var = pair.partition("=")
        if not sep or not _SECRET_NAME.match(name) or not var:
            raise ImportFailed(f"--secret {pair!r}: expected NAME=ENVVAR (NAME a letter or _, then letters, digits, _)")
        value = env.get(var)
        if not value:
            raise ImportFailed(f"--secret {name}={var}: environment variable {var} is not set (or empty)")
        secrets[name] = (var, value)
    return secrets


def _id_prefix(step: dict[str, Any]) -> str:
    """What the step does, as the first words of its id: ``open``, ``double_click``, ``press_enter``."""
    kind = step["kind"]
    if kind == "click":
        count = {2: "double", 3: "triple"}.get(step.get("click_count", 1))
        words = [*step.get("modifiers", []), step.get("button") if step.get("button") != "left" else None, count]
        return "_".join(w.lower() for w in [*words, "click"] if w)
    if kind == "press":
        key_words = re.sub(r"[^a-z0-9]+", "_", step["key"].lower()).strip("_")
        return f"press_{key_words}" if key_words else "press"
    if kind == "request":  # (v1.2) post_api_docs
        return step["method"].lower()
    return {"navigate": "open", "assert": "check"}.get(kind, kind)


def _step_id(step: dict[str, Any], seen: set[str]) -> str:
    words = ""
    target = step.get("target") or ({"type": "url", "url": step["url"]} if step["kind"] == "request" else None)
    if target is None and step.get("_checks"):  # an assert step: named after what it checks first
        args = step["_checks"][0].get("args", {})
        target = args.get("target") or {"text": args.get("text") or args.get("url") or args.get("pattern") or ""}
    while isinstance(target, dict) and target.get("type") in ("nth", "frame"):
        target = target.get("base") or target.get("inner")
    if isinstance(target, dict):
        words = (target.get("name") or target.get("text") or target.get("id") or target.get("selector")
                 or target.get("url") or target.get("role") or "")
        if target.get("type") == "url":
            words = urlsplit(words).path
        elif target.get("type") == "css":
            words = re.sub(r"\s+[is]\]", "]", words)  # a case flag ([placeholder*="Name" i]) is not a word
    prefix = _id_prefix(step)
    slug = re.sub(r"[^a-z0-9]+", "_", str(words).lower()).strip("_")[:40].rstrip("_")
    base = f"{prefix}_{slug}" if slug else prefix
    candidate, n = base, 2
    while candidate in seen:
        candidate, n = f"{base}_{n}", n + 1
    seen.add(candidate)
    return candidate


def _with_secrets(value: Any, secrets: dict[str, tuple[str, str]]) -> Any:
    if isinstance(value, dict):
        return {k: _with_secrets(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_secrets(v, secrets) for v in value]
    if isinstance(value, str):
        for name, (_var, secret) in secrets.items():
            if value == secret:
                return "${secrets." + name + "}"
    return value


def mask(text: str, secrets: dict[str, tuple[str, str]]) -> str:
    """What is printed never holds a secret value (masked as in run artifacts: every encoding, longest first)."""
    return Redactor(secret for _var, secret in secrets.values()).text(text)


def _leaks(plan: dict[str, Any], secrets: dict[str, tuple[str, str]]) -> list[str]:
    """Names of the secrets whose value is still in the plan, inside a longer text (a URL, a selector)."""
    texts = list(strings(plan))
    return [name for name, (_v, secret) in secrets.items()
            if any(secret == t or (len(secret) >= _MIN_SUBSTRING and secret in t) for t in texts)]


def build_plan(mapped: Mapped, name: str, secrets: dict[str, tuple[str, str]], script: str) -> tuple[dict[str, Any], list[str]]:
    """The plan as a mapping of plan keys, and the notices for the author."""
    notices: list[str] = [f"{script}: {notice}" for notice in mapped.notices]
    seen: set[str] = set()
    steps: list[dict[str, Any]] = []
    for step, line in zip(mapped.steps, mapped.lines):
        # The id from the step with its references: a secret typed into a locator is not spelled in an id.
        out: dict[str, Any] = {"id": _step_id(_with_secrets(step, secrets), seen), "kind": step["kind"]}
        if "timeout_ms" in step:  # (v1.2) a request's timeout=; after kind, as people write it
            out["timeout_ms"] = step.pop("timeout_ms")
        if "target" in step:
            out["target"] = step["target"]
        for key in _INPUT_KEYS:
            if key in step:
                out[key] = step[key]
        if key_checks := step.get("_checks"):
            out["postconditions"] = key_checks
        if "metadata" in step:
            out["metadata"] = step["metadata"]
        refs = out.get("file_ref")
        if refs is not None:  # codegen records where the file was; the plan finds it beside itself
            names = refs if isinstance(refs, list) else [refs]
            dropped = any(os.path.isabs(r) for r in names)
            if dropped:
                names = [Path(r).name for r in names]
                out["file_ref"] = names[0] if len(names) == 1 else names
            notices.append(f"{script}:{line}: step '{out['id']}' uploads {', '.join(names)}: put the file(s) in the "
                           "plan's folder (or under its uploads_root)"
                           + ("; the recorded absolute path was dropped" if dropped else ""))
        if risky(out):
            notices.append(f"{script}:{line}: step '{out['id']}' looks like a delete or a payment; it is imported "
                           "as normal: make it critical (with a strong postcondition, rule U5) if it is")
        steps.append(_with_secrets(out, secrets))
    plan: dict[str, Any] = {"name": name, "description": f"Imported from {script} (Playwright codegen)."}
    if mapped.origin:
        plan["base_url"] = mapped.origin
    if mapped.hosts:
        own = url_host(mapped.origin) or None
        plan["allowlist"] = ([own] if own else []) + [h for h in mapped.hosts if h != own]
        notices.append(f"{script}: the recording leaves {own or 'its origin'} "
                       f"for {', '.join(mapped.hosts)}: added to the allowlist; check that the plan may go there")
    plan.update(mapped.settings)  # (v1.2) browser: and clock:, when the recording sets them
    if secrets:
        plan["secrets"] = {n: {"env": var} for n, (var, _value) in secrets.items()}
    plan["defaults"] = DEFAULTS
    plan["steps"] = steps
    return plan, notices


def import_script(script: Path, out: Path | None, *, name: str | None = None, base_url: str | None = None,
                  secret_pairs: list[str] = (), env: Mapping[str, str] | None = None) -> Imported:
    """The plan text for the recording (validated), what was left out and the notices; ImportFailed otherwise."""
    env = os.environ if env is None else env
    secrets = parse_secrets(list(secret_pairs), env)
    shown = str(script)
    try:
        text = script.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFailed(f"{shown}: cannot read the script: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        calls = read_script(text, shown)
    except NotAScript as exc:
        raise ImportFailed(mask(str(exc), secrets)) from None
    mapped = map_calls(calls, base_url)
    if not mapped.steps:
        raise ImportFailed(f"{shown}: no statement could be imported as a step")
    plan_name = name or re.sub(r"^test_", "", script.stem).replace("_", " ").strip() or script.stem
    plan, notices = build_plan(mapped, plan_name, secrets, shown)
    leaked = _leaks(plan, secrets)
    if leaked:
        raise ImportFailed(f"{shown}: the value of secret(s) {', '.join(leaked)} is part of a URL, selector or text "
                           "that cannot be a reference; nothing written (edit the recording or leave --secret out)")
    plan_text = dump_plan(plan)
    where = (out or script.with_name("imported.actions.yaml")).resolve()
    ctx = ValidationContext(root=where.parent, plan_path=where, env=env)
    problems = [p for r in validate_text(plan_text, ctx, file=str(where.name)) if isinstance(r, InvalidPlan)
                for p in r.problems]
    if problems:
        raise ImportFailed(f"{shown}: the imported plan does not validate, nothing written:\n"
                           + "\n".join(f"  {mask(p.format(), secrets)}  [{p.rule}]" for p in problems))
    return Imported(plan_text, mapped.unmapped, notices, len(plan["steps"]))


def run_import(script: Path, output: str | None, *, name: str | None, base_url: str | None, secret_pairs: list[str],
               partial: bool, force: bool, out=None, err=None) -> int:
    """The command: 0 written, 1 statements left out without --partial (nothing written), 2 cannot import."""
    import sys

    out, err = out or sys.stdout, err or sys.stderr
    to_stdout = output == "-"
    target = None if to_stdout else Path(output) if output else script.with_name(
        re.sub(r"^test_", "", script.stem) + ".actions.yaml")
    if target is not None and not target.name.endswith((".actions.yaml", ".actions.yml")):
        raise ImportFailed(f"{target}: a plan file's name ends in .actions.yaml (pytest collects those)")
    if target is not None and target.exists() and not force:
        raise ImportFailed(f"{target} exists: choose another -o, or --force to replace it")
    if target is not None and not target.parent.is_dir():
        raise ImportFailed(f"{target}: the folder {target.parent} does not exist")
    imported = import_script(script, target, name=name, base_url=base_url, secret_pairs=secret_pairs)
    secrets = parse_secrets(secret_pairs, os.environ)
    for item in sorted(imported.unmapped, key=lambda u: u.line):
        print(mask(f"{script}:{item.line}: not imported: {item.why}", secrets), file=err)
        if item.source:
            print(mask(f"    {item.source.splitlines()[0]}", secrets), file=err)
    for notice in imported.notices:
        print(mask(notice, secrets), file=err)
    if imported.unmapped and not partial:
        print(f"{len(imported.unmapped)} statement(s) could not be imported; nothing written "
              "(--partial writes the plan without them)", file=err)
        return 1
    if to_stdout:
        out.write(imported.text)
    else:
        try:  # "x": an existing file is replaced only with --force, even if it appeared meanwhile
            with target.open("w" if force else "x", encoding="utf-8") as file:
                file.write(imported.text)
        except OSError as exc:
            raise ImportFailed(f"{target}: cannot write the plan: {exc.strerror or exc}") from None
        left = f", {len(imported.unmapped)} statement(s) left out" if imported.unmapped else ""
        print(f"{target}: {imported.steps} steps imported from {script}{left}", file=out)
    return 0
