"""What the test suite shares besides fixtures: plan text, result checks, servers, inner-session files.

Fixtures and hooks live in the conftest.py files (and the ``browser`` marker in
``tests/browser_guard.py``); everything else a test module imports from another
test file comes from here.
"""

from __future__ import annotations

import http.server
import socketserver
import textwrap
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_cometlocal.contract.validator import InvalidPlan, ValidPlan

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


def write(pytester: pytest.Pytester, name: str, text: str) -> Path:
    """Write ``text`` (dedented) to ``name`` under the inner session's folder; return the path."""
    path = pytester.path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path
