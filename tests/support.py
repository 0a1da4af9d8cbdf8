"""What the test suite shares besides fixtures: plan text, result checks, servers, inner-session files.

Fixtures and hooks live in the conftest.py files (and the ``browser`` marker in
``tests/browser_guard.py``); everything else a test module imports from another
test file comes from here.
"""

from __future__ import annotations

import http.server
import json
import signal
import socketserver
import textwrap
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

import pytest

from pytest_cometlocal.contract.validate.validator import InvalidPlan, ValidPlan

if TYPE_CHECKING:
    from pytest_cometlocal.executor.engine import RunResult

# ---------------------------------------------------------------------------
# Plan text

# A minimal valid plan with a base URL of its own; tests change one thing in it at a time.
VALID_PLAN = """\
name: minimal
base_url: http://127.0.0.1:8000
defaults:
  criticality: normal
  timeout_ms: 5000
  preconditions: [{kind: host_in_allowlist}]
  postconditions: [{kind: host_in_allowlist}]
steps:
  - id: open
    kind: navigate
    target: {type: url, url: /login}
  - id: go
    kind: click
    target: {type: testid, id: go}
"""

HOST_OK = "[{kind: host_in_allowlist}]"  # a trivially true condition list


@dataclass(frozen=True)
class Sig:
    """The parts of a StateSignature the policy counters read: a DOM-derived key and a picture."""

    dom_key: str
    screenshot_hash: str | None = "sha256:" + "0" * 64
    metadata: dict = field(default_factory=dict)  # screenshot_method: how the picture was taken (fast)

    @property
    def state_key(self) -> str:
        return f"{self.dom_key}:{self.screenshot_hash}"


def defaults(*, criticality: str = "normal", timeout_ms: int | str = 3000,
             preconditions: str = HOST_OK, postconditions: str = HOST_OK) -> str:
    """A ``defaults:`` block giving every step a criticality, a timeout and pre- and postconditions."""
    return (f"defaults:\n  criticality: {criticality}\n  timeout_ms: {timeout_ms}\n"
            f"  preconditions: {preconditions}\n  postconditions: {postconditions}\n")


# The defaults of plans that run against a portal (short timeouts: failures come quickly).
DEFAULTS = defaults()


def plan(steps: str = "", name: str = "t", *, extra: str = "", base_url: str | None = None, **defaults_args: Any) -> str:
    """The text of a plan: ``name``, the top-level lines ``extra``, ``base_url`` (none by default:
    a plan that runs gets the portal's from its session), ``defaults(**defaults_args)``, then
    ``steps``, dedented and indented under ``steps:``.

    ``plan(STEPS, "login", extra="policy: {retries_per_action: 0}\\n")``; the validation tests
    change one default at a time: ``plan(STEPS, criticality="critical")``.
    """
    base = f"base_url: {base_url}\n" if base_url is not None else ""
    return (f"name: {name}\n{extra}{base}{defaults(**defaults_args)}steps:\n"
            + textwrap.indent(textwrap.dedent(steps), "  "))


def opened(url: str, steps: str, **plan_args: Any) -> str:
    """A plan whose first step opens ``url`` (absolute, or against the portal), then runs ``steps``
    (YAML list items, dedented as written)."""
    return plan(f"- {{id: open, kind: navigate, target: {{type: url, url: \"{url}\"}}}}\n" + textwrap.dedent(steps),
                **plan_args)


# ---------------------------------------------------------------------------
# Where a problem is: lines and columns found in the plan text of the test itself


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line of the ``occurrence``-th line of ``text`` (dedented) that contains ``needle``."""
    hits = [i for i, line in enumerate(textwrap.dedent(text).splitlines(), 1) if needle in line]
    assert len(hits) >= occurrence, f"{needle!r} occurs {len(hits)} times"
    return hits[occurrence - 1]


def col_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based column where ``needle`` starts on the line ``line_of`` finds."""
    line = textwrap.dedent(text).splitlines()[line_of(text, needle, occurrence) - 1]
    return line.index(needle) + 1


def mark_at(text: str, at: str, occurrence: int = 1) -> tuple[int, int]:
    """(line, column) of the place ``at`` points to in ``text``.

    ``at`` is a piece of the text; the place is where it starts, or where its
    ``^`` is: ``mark_at(text, "timeout_ms: ^-1")`` is the column of ``-1``.
    """
    needle = at.replace("^", "")
    return line_of(text, needle, occurrence), col_of(text, needle, occurrence) + max(at.find("^"), 0)


# ---------------------------------------------------------------------------
# Validation results


def only_problems(results) -> InvalidPlan:
    """Assert there is exactly one plan and it is invalid; return it."""
    assert len(results) == 1, results
    result = results[0]
    assert isinstance(result, InvalidPlan), f"expected invalid, got valid plan {result.name}"
    return result


def only_valid(results) -> ValidPlan:
    """Assert there is exactly one plan and it is valid; return it."""
    assert len(results) == 1, results
    result = results[0]
    if isinstance(result, InvalidPlan):
        raise AssertionError("plan is invalid:\n" + "\n".join(p.format() for p in result.problems))
    return result


def triples(invalid: InvalidPlan) -> list[tuple[str, str, int]]:
    """(rule, key path, line) of every problem, in reported order."""
    return [(p.rule, p.key_path, p.mark.line) for p in invalid.problems]


def only(invalid: InvalidPlan, rule: str, key_path: str, line: int, col: int | None = None,
         message: str | None = None) -> None:
    """The plan has exactly one problem, and it is this one (and at this column, with this message, when given)."""
    listing = "\n".join(p.format() for p in invalid.problems)
    assert triples(invalid) == [(rule, key_path, line)], listing
    assert invalid.violated_rules == [rule]
    if col is not None:
        assert invalid.problems[0].mark.col == col, listing
    if message is not None:
        assert invalid.problems[0].message == message


# ---------------------------------------------------------------------------
# Running plans: the executor tests' results and servers


@dataclass
class Run:
    """What the ``run`` fixture returns: the result, the run folder and its parsed files."""

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


@contextmanager
def served_pages(pages: dict[str, str]) -> Iterator[str]:
    """Serve ``pages`` (path -> HTML; any other path is a 404) on 127.0.0.1; yields the base URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            body = pages.get(self.path.split("?")[0])
            data = (body or "<title>Not found</title>").encode()
            self.send_response(200 if body else 404)
            for header, value in (("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(data)))):
                self.send_header(header, value)
            self.end_headers()
            self.wfile.write(data)

    yield from serve(Handler)


def serve(handler: Any) -> Iterator[str]:
    """Serve ``handler`` (a request handler class or factory) on 127.0.0.1 in a thread; yields the base URL."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def page_with(chromium: Any, html: str) -> Iterator[Any]:
    """A page of its own context showing ``html`` (for a module-scoped fixture: ``yield from``)."""
    context = chromium.browser().new_context()
    try:
        page = context.new_page()
        page.set_content(html)
        yield page
    finally:
        context.close()


class CallRecorder:
    """A real Playwright object (a Page, a Locator) that lists the names of the calls made on it."""

    def __init__(self, real: Any):
        self._real = real
        self.calls: list[str] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            return attr(*args, **kwargs)
        return call


# A plan that signs in to the demo portal (the executor tests run it in several ways).
LOGIN = "name: login\n" + DEFAULTS + """\
steps:
  - {id: open, kind: navigate, target: {type: url, url: /login}}
  - {id: user, kind: fill, target: {type: label, text: User name, exact: true}, value: alice}
  - {id: pw, kind: fill, target: {type: label, text: Password, exact: true}, value: demo}
  - id: submit
    kind: click
    target: {type: role, role: button, name: Sign in, exact: true}
    postconditions: [{kind: url_matches, args: {pattern: /dashboard$}}]
"""


# ---------------------------------------------------------------------------
# Inner pytest sessions (pytester)

# The conftest.py of an inner session whose plans run against the demo portal.
PORTAL_CONFTEST = """
import pytest
from pytest_cometlocal.demo.portal import DemoPortal

@pytest.fixture(scope="session")
def demo_portal():
    with DemoPortal(slow_ms=20000) as portal:
        yield portal

@pytest.fixture
def cometlocal_base_url(demo_portal):
    return demo_portal.url
"""


# The conftest.py of an inner session that runs plans against the demo portal and writes every report the
# controller gets to outcomes.jsonl, one JSON line each (workers' reports reach it too, under xdist).
OUTCOMES_CONFTEST = PORTAL_CONFTEST + '''
import json

_FILE = []

def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):  # the controller (the env var may be an outer run's)
        _FILE.append(session.config.rootpath / "outcomes.jsonl")
        _FILE[0].write_text("")

def pytest_runtest_logreport(report):
    if _FILE:
        line = {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
                "code": dict(report.user_properties).get("cometlocal.error_code")}
        with open(_FILE[0], "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\\n")
'''


# What OUTCOMES_CONFTEST adds for tests that read the failure texts: each failed report's text, to
# texts.jsonl beside outcomes.jsonl.
TEXTS_CONFTEST = OUTCOMES_CONFTEST + '''
class _Texts:
    def pytest_runtest_logreport(self, report):
        if _FILE and report.failed:
            with open(_FILE[0].with_name("texts.jsonl"), "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"nodeid": report.nodeid, "text": report.longreprtext}) + "\\n")

def pytest_configure(config):
    config.pluginmanager.register(_Texts(), "texts-of-failures")
'''



def read_outcomes(path: Path) -> dict[str, tuple[str, str | None]]:
    """nodeid -> (passed / failed / error / skipped, the item's error code or None), from the outcomes.jsonl
    an inner session with OUTCOMES_CONFTEST wrote."""
    found: dict[str, tuple[str, str | None]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        report = json.loads(line)
        outcome, code = found.get(report["nodeid"], ("passed", None))
        if report["outcome"] == "failed":
            outcome = "failed" if report["when"] == "call" else "error"
        elif report["outcome"] == "skipped" and outcome == "passed":
            outcome = "skipped"
        found[report["nodeid"]] = (outcome, report["code"] or code)
    return found


def write(pytester: pytest.Pytester, name: str, text: str) -> Path:
    """Write ``text`` (dedented) to ``name`` under the inner session's folder; return the path."""
    path = pytester.path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def read_trace(path: Path) -> list[dict[str, Any]]:
    """The events of a trace.jsonl, parsed; a ValueError names the first line that is not JSON."""
    events = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not a JSON line ({exc.msg})") from None
    return events


# The conftest.py of an inner session whose plans run against a site with pages whose first load
# is wrong (each path counts its own loads), so a retried step passes at its second attempt:
# /late-title has the title "Loading" once, then "Ready"; /late-button has no "Go" button once,
# then has it; /steady is right from the start; any other path never is.
FLAKY_SITE_CONFTEST = '''
import http.server, socketserver, threading
import pytest

@pytest.fixture(scope="session")
def flaky_site():
    loads = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            return

        def do_GET(self):
            loads[self.path] = loads.get(self.path, 0) + 1
            first = loads[self.path] == 1
            if self.path == "/late-title":
                body = "<title>%s</title><p>status</p>" % ("Loading" if first else "Ready")
            elif self.path == "/late-button":
                body = "<title>Ready</title>" + ("" if first else "<button data-testid=go>Go</button>")
            elif self.path == "/steady":
                body = "<title>Ready</title><p>steady</p>"
            else:
                body = "<title>Loading</title><p>never ready</p>"
            data = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d" % server.server_address[1]
    server.shutdown()

@pytest.fixture
def cometlocal_base_url(flaky_site):
    return flaky_site
'''


def run_text(chromium: Any, root: Path, text: str, base_url: str, env: dict[str, str] | None = None,
             profile: dict[str, Any] | None = None) -> Run:
    """Validate a plan's text (dedented; written under ``root``/plans) and run it in a fresh context of the
    suite's Chromium against ``base_url``: the ``run`` fixture's work, for a site other than the portal."""
    from pytest_cometlocal.contract.settings import effective_settings
    from pytest_cometlocal.contract.validate.validator import ValidationContext, validate_text
    from pytest_cometlocal.executor.session import run_plan

    folder = root / "plans"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"p{len(list(folder.glob('*.actions.yaml')))}.actions.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    ctx = ValidationContext(root=root, plan_path=path, env=env or {})
    (valid,) = validate_text(path.read_bytes(), ctx, file=f"plans/{path.name}")
    if isinstance(valid, InvalidPlan):
        raise AssertionError("\n".join(p.format() for p in valid.problems))
    eff = effective_settings(valid, default_base_url=base_url, env=env or {})
    result = run_plan(chromium.browser(), valid, root / "runs", eff, profile=profile)
    return Run(result, result.run_dir, read_trace(result.run_dir / "trace.jsonl"),
               json.loads((result.run_dir / "run_manifest.json").read_text(encoding="utf-8")),
               json.loads((result.run_dir / "evidence_manifest.json").read_text(encoding="utf-8")))


def sigint_as_default() -> None:
    """``preexec_fn`` for a child a test interrupts with SIGINT.

    A shell starts a background job with SIGINT ignored, and a Python process
    that starts with SIGINT ignored keeps it so (no KeyboardInterrupt): run from
    such a job, the child would never see the test's signal.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def playwright_ffmpeg_in(folder: Path) -> Path | None:
    """A PLAYWRIGHT_BROWSERS_PATH under ``folder`` where Playwright finds an ffmpeg to record videos with
    (imageio-ffmpeg's, of the test extra), as ``playwright install ffmpeg`` would put its own; None without
    imageio-ffmpeg. Chromium stays the system one (the plugin finds it whatever that path holds)."""
    try:
        import imageio_ffmpeg
    except ImportError:
        return None
    from pytest_cometlocal.plugin.reporting.pwvideo import playwright_ffmpeg

    root = folder / "ms-playwright"
    old = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    os.environ["PLAYWRIGHT_BROWSERS_PATH"] = str(root)
    try:
        target = playwright_ffmpeg()
    finally:
        if old is None:
            del os.environ["PLAYWRIGHT_BROWSERS_PATH"]
        else:
            os.environ["PLAYWRIGHT_BROWSERS_PATH"] = old
    if target is None:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.symlink_to(imageio_ffmpeg.get_ffmpeg_exe())
    return root


def one_page_conftest(page: bytes) -> str:
    """An inner suite's conftest: ``page`` served at every path of its own 127.0.0.1 server, the plans' base URL."""
    return f'''
import http.server, threading
import pytest

PAGE = {page!r}

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass

@pytest.fixture(scope="session")
def one_page_site():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{{server.server_address[1]}}"
    server.shutdown()

@pytest.fixture
def cometlocal_base_url(one_page_site):
    return one_page_site
'''


# ---------------------------------------------------------------------------
# Soak counts


def soak(ci: int, full: int) -> int:
    """How many times a soak-style test repeats: ``ci`` by default (each repetition still lands at a
    different moment, so CI stays meaningful), ``full`` when COMETLOCAL_SOAK=1 asks for the long run."""
    return full if os.environ.get("COMETLOCAL_SOAK") == "1" else ci
