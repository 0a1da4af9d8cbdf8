"""One agent session: a guarded browser context, an executor and a run folder, like a pytest item's.

The session's settings are a plan's: ``plan_writer.session_plan`` validates
the plan it could save, ``effective_settings`` gives its allowlist and
secrets, and ``executor.session.open_run`` opens the run, as for a plan item.

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
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pytest_cometlocal.contract.extensions.registry import KindRegistry, active, using
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.allowlist import host_allowed
from pytest_cometlocal.contract.browser_url import read_url
from pytest_cometlocal.contract.settings import EffectiveSettings, effective_settings
from pytest_cometlocal.contract.model.problems import Mark, Problem, format_key_path
from pytest_cometlocal.contract.http.saved import unsaved_references
from pytest_cometlocal.contract.validate.settings_rules import NO_CLOCK
from pytest_cometlocal.contract.validate.validated import InvalidPlan
from pytest_cometlocal.executor.browser.manager import BrowserManager
from pytest_cometlocal.executor.engine import Executor
from pytest_cometlocal.executor.errors import ContextRefused, ExecutorFailure, Refusal
from pytest_cometlocal.executor.runfolder.redactor import Redactor
from pytest_cometlocal.executor.session import RunRecord, create_run_folder, open_run
from pytest_cometlocal.executor.setup_failure import record_refusal
from pytest_cometlocal.agent.page_view import observe_page
from pytest_cometlocal.agent.plan_writer import DEFAULTS, PlanRefused, session_plan, write_plan
from pytest_cometlocal.agent.errors import AgentError


@dataclass
class _Open:
    executor: Executor
    closing: ExitStack  # the run open_run opened: its context and guard
    base_url: str
    allowlist: list[str]
    secrets: dict[str, str]  # name -> environment variable
    name: str
    redactor: Redactor
    accepted: list[dict[str, Any]] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    clock: bool = False  # (v1.2) the session's plan installs a clock (clock.at): advance_clock may run
    routes: list[Any] | None = None  # (v1.2) the session's stubs, as given: the saved plan keeps them
    saved: list[str] = field(default_factory=list)  # (v1.2) names the accepted steps save, in order (rule SAVED)


class AgentSession:
    """At most one open session; ``start`` / ``observe`` / ``propose`` / ``save_plan`` / ``end``."""

    def __init__(self, workdir: Path, *, headed: bool = False, env: Mapping[str, str] | None = None,
                 policy: Policy | None = None, browsers: BrowserManager | None = None,
                 extensions: KindRegistry | None = None):
        """``policy``: the v1 defaults unless given (a saved plan then carries it); ``browsers``: a
        BrowserManager to share (the caller closes it), else one of this session's own; ``extensions``:
        the kinds a proposal may use (the server's: contract/extensions/loading.py), active while the
        session's plan, its proposals and the saved plan are validated and its steps run."""
        self.extensions = extensions
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
              secrets: dict[str, dict[str, str]] | None = None, routes: list[Any] | None = None) -> dict[str, Any]:
        with using(self.extensions if self.extensions is not None else active()):  # (extensions) the kinds the session may use
            return self._start(base_url, allowlist, name, secrets, routes)

    def _start(self, base_url: str, allowlist: list[str] | None = None, name: str | None = None,
               secrets: dict[str, dict[str, str]] | None = None, routes: list[Any] | None = None) -> dict[str, Any]:
        if self.open is not None:
            raise AgentError("SESSION_OPEN", "a session is already open: call end_session first")
        if routes is not None and not isinstance(routes, list):
            raise AgentError("INVALID_ARGUMENT", "routes must be a list of routes (the plan key routes:, v1.2)")
        routes = copy.deepcopy(routes)
        eff, refs = self._settings(base_url, allowlist, name, secrets, routes)
        run_name = eff.plan.name
        self.redactor = Redactor(eff.secrets.values())  # masks even a failed start's answer
        record = RunRecord(run_name, {"planner": "mcp", "name": run_name}, {"name": "mcp"},
                           connection=self.browsers.remote and self.browsers.remote.connection)
        closing = ExitStack()
        try:
            executor = closing.enter_context(open_run(self.browsers.browser(), eff, self.workdir / "cometlocal-runs",
                                                      record))
            executor.start({"planner": "mcp", "plan": run_name})
        except ContextRefused as exc:  # the browser disconnected (or refused) while the context was made
            closing.close()
            return self._refused(eff, record, exc.refusal)
        except BaseException:
            closing.close()
            raise
        self.redactor = executor.run.redactor
        hosts = list(eff.allowlist)
        self.open = _Open(executor, closing, eff.base_url or "", hosts, refs, run_name, self.redactor,
                          clock=eff.plan.plan.clock is not None, routes=routes)
        return {"ok": True, "run_dir": str(executor.run.path), "base_url": eff.base_url, "allowlist": hosts,
                "defaults": DEFAULTS}

    def _refused(self, eff: EffectiveSettings, record: RunRecord, refusal: Refusal) -> dict[str, Any]:
        """A start whose context was refused: a typed answer with the run folder that records it, as a plan
        item's (``executor.setup_failure``); no session is open."""
        run = create_run_folder(eff, self.workdir / "cometlocal-runs", record)
        error = record_refusal(eff, run, refusal, metadata={"planner": "mcp"})
        self.redactor = run.redactor
        return self.mask({"ok": False, "error_code": error.error_code.value, "message": error.message,
                          "during": refusal.during, "run_dir": str(run.path)})

    def _settings(self, base_url: Any, allowlist: Any, name: Any, secrets: Any,
                  routes: list[Any] | None = None) -> tuple[EffectiveSettings, dict[str, str]]:
        """The session's settings, from its plan as a plan file's are, and its secrets (name -> variable)."""
        reading = read_url(base_url) if isinstance(base_url, str) else None
        if reading is None or reading.refused or reading.scheme not in ("http", "https") or not reading.host:
            raise AgentError("INVALID_ARGUMENT", f"base_url must be an absolute http(s) URL, not {base_url!r}"
                             + (f" ({reading.refused})" if reading and reading.refused else ""))
        base_url = base_url.rstrip("/")
        host = reading.host.strip("[]")
        hosts = None  # the plan's default: the base URL's host
        if allowlist is not None:
            if not (isinstance(allowlist, list) and allowlist and all(isinstance(h, str) for h in allowlist)):
                raise AgentError("INVALID_ARGUMENT",
                                 "allowlist must be a non-empty list of hosts (default: the base URL's host)")
            hosts = [h.lower() for h in allowlist]
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
        plan = session_plan(self.workdir, name=run_name, base_url=base_url, allowlist=hosts, secrets=refs,
                            policy=self.policy, env=self.env, routes=routes)  # (v1.2) routes validated as a plan's
        if isinstance(plan, InvalidPlan):
            problems = plan.problems
            code = "SECRET_ENV" if any(p.rule == "SECRET_ENV" for p in problems) else "INVALID_ARGUMENT"
            raise AgentError(code, "; ".join(f"{p.key_path or 'session'}: {p.message}" for p in problems))
        return effective_settings(plan, env=self.env), refs

    def observe(self, aria: bool = False) -> dict[str, Any]:
        session = self._need()
        if not isinstance(aria, bool):
            raise AgentError("INVALID_ARGUMENT", "aria must be true or false")
        return observe_page(session.executor.page, session.redactor, aria=aria)

    def propose(self, step: dict[str, Any]) -> dict[str, Any]:
        with using(self.extensions if self.extensions is not None else active()):  # (extensions) the kinds the session may use
            return self._propose(step)

    def _propose(self, step: dict[str, Any]) -> dict[str, Any]:
        session = self._need()
        if not isinstance(step, dict):
            raise AgentError("INVALID_ARGUMENT", "step must be a JSON object with the plan file's step keys")
        if isinstance(step.get("id"), str) and step["id"] in session.ids:
            # The saved plan needs unique ids (rule UNIQUE_ID); a failed proposal's id may be used again.
            raise AgentError("DUPLICATE_STEP_ID", f"step id {step.get('id')!r} was already accepted: give this step another id")
        step = copy.deepcopy(step)  # kept as proposed for save_plan, whatever the validation does to its input
        filled = {**DEFAULTS, **copy.deepcopy(step)}
        try:
            if filled.get("kind") == "advance_clock" and not session.clock:
                # (v1.2) rule CLOCK, refused as any invalid proposal is: not Playwright's error from the page
                raise session.executor.failures.reject(filled, [Problem("<proposal>", Mark(1, 1), "kind", NO_CLOCK,
                                                                        "CLOCK")])
            unsaved = [Problem("<proposal>", Mark(1, 1), format_key_path(path), message, "SAVED")
                       for path, message in unsaved_references(step, session.saved)]
            if unsaved:  # (v1.2) rule SAVED across proposals: the plan save_plan writes must load
                raise session.executor.failures.reject(filled, unsaved)
            result = session.executor.propose(filled)
        except ExecutorFailure as failure:
            error = failure.error.model_dump(mode="json")
            answer = {"ok": False, **error}
        else:
            answer = {"ok": True, "step_id": result.step_id, "attempts": result.attempts,
                      "duration_ms": result.duration_ms}
            session.accepted.append(step)
            session.ids.add(step.get("id"))
            session.saved.extend(_saves(step))
        try:
            answer["observation"] = observe_page(session.executor.page, session.redactor)
        except Exception as exc:  # a page that crashed or closed: the answer still comes
            answer["observation"] = {"unavailable": str(exc).splitlines()[0][:200]}
        return session.redactor.tree(answer)

    def save_plan(self, path: str, name: str) -> dict[str, Any]:
        with using(self.extensions if self.extensions is not None else active()):  # (extensions) the kinds the session may use
            return self._save_plan(path, name)

    def _save_plan(self, path: str, name: str) -> dict[str, Any]:
        session = self._need()
        try:
            written = write_plan(self.workdir, path, name=name, base_url=session.base_url,
                                 allowlist=session.allowlist, secrets=session.secrets, policy=self.policy,
                                 steps=session.accepted, env=self.env, replaceable=self.written,
                                 routes=session.routes)
        except PlanRefused as exc:
            raise AgentError(exc.code, str(exc)) from None
        return {"ok": True, "path": str(written), "steps": len(session.accepted)}

    def end(self) -> dict[str, Any]:
        with using(self.extensions if self.extensions is not None else active()):  # (extensions) the kinds the session may use
            return self._end()

    def _end(self) -> dict[str, Any]:
        session = self._need()
        self.open = None
        status, error = "passed", None
        failed = [r for r in session.executor.results if not r.ok]
        if failed and failed[-1] is session.executor.results[-1]:
            status, error = "failed", failed[-1].typed_error
        try:
            session.executor.finish(status, error)
        finally:
            session.closing.close()  # the context, then the guard
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


def _saves(step: dict[str, Any]) -> list[str]:
    """The names an accepted (so valid) proposal saves: its ``save`` keys and its ``save_text``."""
    save, text = step.get("save"), step.get("save_text")
    return [*(save if isinstance(save, dict) else ()), *([text] if isinstance(text, str) else [])]


__all__ = ["AgentSession", "AgentError"]
