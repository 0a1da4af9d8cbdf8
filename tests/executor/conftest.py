"""Real Chromium against the demo portal, driven through the executor library.

One browser for the session; every test runs a plan in a fresh guarded
context and gets back the result, the parsed trace and the manifests.
An "outside" server on another loopback name (localhost) counts the
requests that reach it: the allowlist tests assert it counts zero.
"""

from __future__ import annotations

import http.server
import json
import socketserver
import textwrap
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_cometlocal.contract.validator import InvalidPlan, ValidationContext, validate_text
from pytest_cometlocal.demo.portal import DemoPortal
from pytest_cometlocal.executor.browser import BrowserManager  # noqa: F401 - type of `browser`
from pytest_cometlocal.executor.engine import RunResult
from pytest_cometlocal.contract.settings import effective_settings
from pytest_cometlocal.executor.session import run_plan

DEFAULTS = """\
defaults:
  criticality: normal
  timeout_ms: 3000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
"""


class OutsideServer:
    """A host the plans may not touch; it only counts what reaches it."""

    def __init__(self) -> None:
        hits: list[str] = []
        self.hits = hits

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def _hit(self) -> None:
                hits.append(f"{self.command} {self.path}")
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<title>Outside</title><h1>Outside</h1>")

            do_GET = do_POST = _hit

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        # Same machine, another name: "localhost" is not "127.0.0.1" for the allowlist.
        self.url = f"http://localhost:{self.server.server_address[1]}"


@pytest.fixture(scope="session")
def outside() -> OutsideServer:
    server = OutsideServer()
    yield server
    server.server.shutdown()


@pytest.fixture(scope="session")
def portal(outside: OutsideServer) -> DemoPortal:
    with DemoPortal(outside_url=outside.url + "/landing", slow_ms=2000) as p:
        yield p


@pytest.fixture(scope="session")
def browser(chromium):
    return chromium


@dataclass
class Run:
    result: RunResult
    run_dir: Path
    events: list[dict[str, Any]]
    manifest: dict[str, Any]
    evidence: dict[str, Any]

    @property
    def error(self):
        return self.result.error

    @property
    def code(self) -> str | None:
        return self.result.error.error_code.value if self.result.error else None

    def types(self, step: str | None = None) -> list[str]:
        return [e["event_type"] for e in self.events if step is None or e["step_id"] == step]

    def files(self) -> dict[str, bytes]:
        return {p.relative_to(self.run_dir).as_posix(): p.read_bytes() for p in self.run_dir.rglob("*") if p.is_file()}


@pytest.fixture
def run(tmp_path: Path, browser: BrowserManager, portal: DemoPortal, outside: OutsideServer):
    """run(yaml_text, env=..., context_args=...) -> Run. ``{portal}`` and ``{outside}`` are substituted."""

    def go(text: str, *, env: dict[str, str] | None = None, context_args: dict[str, Any] | None = None,
           dry_run: bool = False) -> Run:
        text = textwrap.dedent(text).replace("{portal}", portal.url).replace("{outside}", outside.url)
        plan_path = tmp_path / "plans" / "t.actions.yaml"
        plan_path.parent.mkdir(parents=True, exist_ok=True)
        plan_path.write_text(text, encoding="utf-8")
        ctx = ValidationContext(root=tmp_path, plan_path=plan_path, env=env or {})
        (plan,) = validate_text(plan_path.read_bytes(), ctx, file="plans/t.actions.yaml")
        if isinstance(plan, InvalidPlan):
            raise AssertionError("\n".join(p.format() for p in plan.problems))
        eff = effective_settings(plan, default_base_url=portal.url, force_dry_run=dry_run, env=env or {})
        result = run_plan(browser.browser(), plan, tmp_path / "runs", eff, context_args)
        events = [json.loads(line) for line in (result.run_dir / "trace.jsonl").read_text().splitlines()]
        manifest = json.loads((result.run_dir / "run_manifest.json").read_text())
        evidence = json.loads((result.run_dir / "evidence_manifest.json").read_text())
        return Run(result, result.run_dir, events, manifest, evidence)

    return go
