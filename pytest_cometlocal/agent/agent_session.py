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

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlsplit

from pytest_cometlocal.contract.model.policy import Policy
from pytest_cometlocal.contract.allowlist import host_allowed
from pytest_cometlocal.executor.browser.manager import BrowserManager
from pytest_cometlocal.executor.browser.channels import guard_channels, guards_in_force
from pytest_cometlocal.executor.engine import Executor, ExecutorSettings
from pytest_cometlocal.executor.errors import ExecutorFailure
from pytest_cometlocal.executor.browser.network_guard import NetworkGuard
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.runfolder.folder import RunFolder
from pytest_cometlocal.executor.session import DEFAULT_CONTEXT_ARGS
from pytest_cometlocal.executor.page.watchdog import close_context
from pytest_cometlocal.agent.page_view import observe_page
from pytest_cometlocal.agent.plan_writer import DEFAULTS, PlanRefused, check_session, write_plan
from pytest_cometlocal.agent.errors import AgentError


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

    def __init__(self, workdir: Path, *, headed: bool = False, env: Mapping[str, str] | None = None,
                 policy: Policy | None = None, browsers: BrowserManager | None = None):
        """``policy``: the v1 defaults unless given (a saved plan then carries it); ``browsers``: a
        BrowserManager to share (the caller closes it), else one of this session's own."""
        self.workdir = workdir.resolve()
        self.env = os.environ if env is None else env
        self.policy = policy or Policy()
        self.own_browsers = browsers is None
        self.browsers = BrowserManager({"headless": not headed}, None) if browsers is None else browsers
        self.open: _Open | None = None
        self.redactor = Redactor()  # the latest session's: it masks answers even after that session ended
        self.written: set[Path] = set()  # plan files this server wrote: the only ones save_plan may replace

    def _need(self) -> _Open:
        if self.open is None:
            raise AgentError("NO_SESSION", "no session: call start_session first")
        return self.open

    def start(self, base_url: str, allowlist: list[str] | None = None, name: str | None = None,
              secrets: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
        if self.open is not None:
            raise AgentError("SESSION_OPEN", "a session is already open: call end_session first")
        base_url, hosts, refs, run_name = self._settings(base_url, allowlist, name, secrets)
        values = {secret: self.env[var] for secret, var in refs.items()}
        redactor = Redactor(values.values())
        self.redactor = redactor
        guard = NetworkGuard(hosts).start()
        context = None
        try:
            browser = self.browsers.browser()
            context = browser.new_context(**DEFAULT_CONTEXT_ARGS, proxy=guard.proxy_settings())
            guard_channels(context, guard)
            context.set_default_timeout(30_000)  # as a pytest item's context (plugin/fixtures.py)
            run = RunFolder.create(self.workdir / "cometlocal-runs", run_name, mode="live", policy=self.policy,
                                   allowlist=hosts, plan_info={"planner": "mcp", "name": run_name},
                                   redactor=redactor, profile={"name": "mcp", "base_url": base_url, "browser": "chromium"},
                                   extra={"guards": guards_in_force(context, self.browsers.remote and self.browsers.remote.connection)})
            settings = ExecutorSettings(base_url=base_url, allowlist=tuple(hosts), policy=self.policy,
                                        secrets=dict(values), uploads_root=self.workdir)
            executor = Executor(context.new_page(), run, settings, guard=guard)
            executor.start({"planner": "mcp", "plan": run_name})
        except BaseException:
            if context is not None:
                close_context(context)
            guard.stop()
            raise
        self.open = _Open(executor, context, guard, base_url, hosts, refs, run_name, redactor)
        return {"ok": True, "run_dir": str(run.path), "base_url": base_url, "allowlist": hosts, "defaults": DEFAULTS}

    def _settings(self, base_url: Any, allowlist: Any, name: Any,
                  secrets: Any) -> tuple[str, list[str], dict[str, str], str]:
        """The session's base URL, allowlist, secrets (name -> variable) and name, checked as a plan's would be."""
        parts = urlsplit(base_url) if isinstance(base_url, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise AgentError("INVALID_ARGUMENT", f"base_url must be an absolute http(s) URL, not {base_url!r}")
        base_url = base_url.rstrip("/")
        host = parts.hostname.lower()
        if allowlist is None:
            hosts = [f"[{host}]" if ":" in host else host]  # the plan's default: the base URL's host
        elif isinstance(allowlist, list) and allowlist and all(isinstance(h, str) for h in allowlist):
            hosts = [h.lower() for h in allowlist]
        else:
            raise AgentError("INVALID_ARGUMENT", "allowlist must be a non-empty list of hosts (default: the base URL's host)")
        if not host_allowed(host, hosts):
            raise AgentError("INVALID_ARGUMENT", f"the base URL's host {host} is not in the allowlist {hosts}")
        refs: dict[str, str] = {}
        for secret, ref in (secrets or {}).items():
            var = ref.get("env") if isinstance(ref, dict) else None
            if not isinstance(var, str) or not var or set(ref) != {"env"}:
                raise AgentError("INVALID_ARGUMENT", f"secret {secret!r}: expected {{env: VARIABLE}}")
            refs[secret] = var
        run_name = name if name is not None else "agent session"
        if not isinstance(run_name, str):
            raise AgentError("INVALID_ARGUMENT", "name must be a string")
        problems = check_session(self.workdir, name=run_name, base_url=base_url, allowlist=hosts, secrets=refs,
                                 policy=self.policy, env=self.env)
        if problems:
            code = "SECRET_ENV" if any(p.rule == "SECRET_ENV" for p in problems) else "INVALID_ARGUMENT"
            raise AgentError(code, "; ".join(f"{p.key_path or 'session'}: {p.message}" for p in problems))
        return base_url, hosts, refs, run_name

    def observe(self) -> dict[str, Any]:
        session = self._need()
        return observe_page(session.executor.page, session.redactor)

    def propose(self, step: dict[str, Any]) -> dict[str, Any]:
        session = self._need()
        if not isinstance(step, dict):
            raise AgentError("INVALID_ARGUMENT", "step must be a JSON object with the plan file's step keys")
        if isinstance(step.get("id"), str) and step["id"] in session.ids:
            # The saved plan needs unique ids (rule UNIQUE_ID); a failed proposal's id may be used again.
            raise AgentError("DUPLICATE_STEP_ID", f"step id {step.get('id')!r} was already accepted: give this step another id")
        step = copy.deepcopy(step)  # kept as proposed for save_plan, whatever the validation does to its input
        filled = {**DEFAULTS, **copy.deepcopy(step)}
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
        return session.redactor.tree(answer)

    def save_plan(self, path: str, name: str) -> dict[str, Any]:
        session = self._need()
        try:
            written = write_plan(self.workdir, path, name=name, base_url=session.base_url,
                                 allowlist=session.allowlist, secrets=session.secrets, policy=self.policy,
                                 steps=session.accepted, env=self.env, replaceable=self.written)
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

    def mask(self, answer: dict[str, Any]) -> dict[str, Any]:
        """An answer made outside this module (an unexpected fault's message), masked like every other."""
        return self.redactor.tree(answer)

    def close(self) -> None:
        """Server shutdown: the open session ends (its trace closes), the browser goes."""
        try:
            if self.open is not None:
                self.end()
        finally:
            if self.own_browsers:
                self.browsers.close()


__all__ = ["AgentSession", "AgentError"]
