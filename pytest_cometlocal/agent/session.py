"""One agent session: a guarded browser context, an executor and a run folder, like a pytest item's.

The agent proposes one step at a time (``propose``); the executor validates
it with the plan rules, runs it, and records it in the same trace and
evidence as under pytest. The steps that passed are kept, as proposed, for
``save_plan``. Everything here is synchronous Playwright: the server calls it
from one thread of its own (``server.py``).

Secret values come from the server's environment, by name; the agent gives
``${secrets.NAME}`` and never receives a value: observations, errors and the
run folder are masked with the run's redactor.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..contract.codes import ErrorCode
from ..contract.policy import Policy
from ..executor.browser import BrowserManager
from ..executor.engine import Executor, ExecutorSettings
from ..executor.errors import ExecutorFailure
from ..executor.guard import NetworkGuard
from ..executor.redaction import Redactor
from ..executor.runfolder import RunFolder
from ..executor.session import DEFAULT_CONTEXT_ARGS
from ..executor.watchdog import close_context
from .observation import observe_page
from .plan_writer import DEFAULTS, PlanRefused, write_plan


class AgentError(Exception):
    """A tool call that cannot be taken (no session, bad arguments): a typed answer, not a traceback."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message

    def as_dict(self) -> dict[str, Any]:
        return {"ok": False, "error_code": self.code, "message": self.message}


@dataclass
class _Open:
    executor: Executor
    context: Any
    guard: NetworkGuard
    base_url: str
    allowlist: list[str]
    secrets: dict[str, str]  # name -> environment variable
    name: str
    redactor: Redactor
    accepted: list[dict[str, Any]] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)


class AgentSession:
    """At most one open session; ``start`` / ``observe`` / ``propose`` / ``save_plan`` / ``end``."""

    def __init__(self, workdir: Path, *, headed: bool = False, env: dict[str, str] | None = None):
        self.workdir = workdir.resolve()
        self.env = os.environ if env is None else env
        self.browsers = BrowserManager({"headless": not headed}, None)
        self.open: _Open | None = None

    def _need(self) -> _Open:
        if self.open is None:
            raise AgentError("NO_SESSION", "no session: call start_session first")
        return self.open

    def start(self, base_url: str, allowlist: list[str] | None = None, name: str | None = None,
              secrets: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
        if self.open is not None:
            raise AgentError("SESSION_OPEN", "a session is already open: call end_session first")
        parts = urlsplit(base_url or "")
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise AgentError("INVALID_ARGUMENT", f"base_url must be an absolute http(s) URL, not {base_url!r}")
        hosts = [h.lower() for h in (allowlist or [parts.hostname])]
        values: dict[str, str] = {}
        for secret, ref in (secrets or {}).items():
            var = ref.get("env") if isinstance(ref, dict) else None
            if not isinstance(var, str) or not var:
                raise AgentError("INVALID_ARGUMENT", f"secret {secret!r}: expected {{env: VARIABLE}}")
            if not self.env.get(var):
                raise AgentError("SECRET_ENV", f"secret {secret!r}: environment variable {var} is not set for the server")
            values[secret] = self.env[var]
        run_name = name or "agent session"
        redactor = Redactor(values.values())
        guard = NetworkGuard(hosts).start()
        context = None
        try:
            context = self.browsers.browser().new_context(**DEFAULT_CONTEXT_ARGS, proxy=guard.proxy_settings())
            run = RunFolder.create(self.workdir / "cometlocal-runs", run_name, mode="live", policy=Policy(),
                                   allowlist=hosts, plan_info={"planner": "mcp", "name": run_name},
                                   redactor=redactor, profile={"name": "mcp", "base_url": base_url, "browser": "chromium"})
            settings = ExecutorSettings(base_url=base_url.rstrip("/"), allowlist=tuple(hosts), secrets=dict(values),
                                        uploads_root=self.workdir)
            executor = Executor(context.new_page(), run, settings, guard=guard)
            executor.start({"planner": "mcp", "plan": run_name})
        except BaseException:
            if context is not None:
                close_context(context)
            guard.stop()
            raise
        self.open = _Open(executor, context, guard, base_url.rstrip("/"), hosts,
                          {n: r["env"] for n, r in (secrets or {}).items()}, run_name, redactor)
        return {"ok": True, "run_dir": str(run.path), "base_url": base_url.rstrip("/"), "allowlist": hosts,
                "defaults": DEFAULTS}

    def observe(self) -> dict[str, Any]:
        session = self._need()
        return observe_page(session.executor.page, session.redactor)

    def propose(self, step: dict[str, Any]) -> dict[str, Any]:
        session = self._need()
        if not isinstance(step, dict):
            raise AgentError("INVALID_ARGUMENT", "step must be a JSON object with the plan file's step keys")
        if step.get("id") in session.ids:
            # The saved plan needs unique ids (rule UNIQUE_ID); a failed proposal's id may be used again.
            raise AgentError("DUPLICATE_STEP_ID", f"step id {step.get('id')!r} was already accepted: give this step another id")
        filled = {**DEFAULTS, **step}
        try:
            result = session.executor.propose(filled)
        except ExecutorFailure as failure:
            error = failure.error.model_dump(mode="json")
            answer = {"ok": False, **error}
        else:
            answer = {"ok": True, "step_id": result.step_id, "attempts": result.attempts,
                      "duration_ms": result.duration_ms}
            session.accepted.append(step)
            session.ids.add(step.get("id"))
        try:
            answer["observation"] = observe_page(session.executor.page, session.redactor)
        except Exception as exc:  # a page that crashed or closed: the answer still comes
            answer["observation"] = {"unavailable": str(exc).splitlines()[0][:200]}
        return _masked(answer, session.redactor)

    def save_plan(self, path: str, name: str) -> dict[str, Any]:
        session = self._need()
        try:
            written = write_plan(self.workdir, path, name=name, base_url=session.base_url,
                                 allowlist=session.allowlist, secrets=session.secrets, steps=session.accepted,
                                 env=self.env)
        except PlanRefused as exc:
            raise AgentError(exc.code, str(exc)) from None
        return {"ok": True, "path": str(written), "steps": len(session.accepted)}

    def end(self) -> dict[str, Any]:
        session = self._need()
        self.open = None
        status, error = "passed", None
        failed = [r for r in session.executor.results if not r.ok]
        if failed and failed[-1] is session.executor.results[-1]:
            status, error = "failed", failed[-1].typed_error
        try:
            session.executor.finish(status, error)
        finally:
            try:
                close_context(session.context)
            finally:
                session.guard.stop()
        return {"ok": True, "run_dir": str(session.executor.run.path), "status": status}

    def close(self) -> None:
        """Server shutdown: the open session ends (its trace closes), the browser goes."""
        try:
            if self.open is not None:
                self.end()
        finally:
            self.browsers.close()


def _masked(value: Any, redactor: Redactor) -> Any:
    if isinstance(value, dict):
        return {k: _masked(v, redactor) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v, redactor) for v in value]
    if isinstance(value, str) and redactor:
        return redactor.text(value)
    return value


__all__ = ["AgentSession", "AgentError", "ErrorCode"]
