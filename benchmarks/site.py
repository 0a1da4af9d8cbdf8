"""The benchmark's own page, served on 127.0.0.1, and the flows run against it.

One page (``/bench``): rows of a text input, a select and a button; the button
writes what was chosen into the row's output and counts applied rows in
``#status``. A flow is a list of abstract steps; the same list is turned into a
plan (``plan_yaml``) and into a hand-written pytest-playwright test
(``hand_test_body``), so both do the same actions and the same checks; with
``reads``, that test also makes the one read a step of issue 38's executor
(the floors of ``fast`` and ``balanced``, benchmarks/floors.py).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROWS = 12
TITLE = "Bench form"


def page_html(rows: int = ROWS) -> str:
    parts = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><link rel='icon' href='data:,'>"
             f"<title>{TITLE}</title><style>body{{font-family:sans-serif;margin:1rem}} .row{{margin:.3rem 0}}"
             f" label{{margin-right:.4rem}}</style></head><body><main><h1>{TITLE}</h1>",
             "<p id='status'>Rows applied: 0</p>"]
    for i in range(1, rows + 1):
        parts.append(
            f"<div class='row'><label for='name-{i}'>Name {i}</label><input id='name-{i}' name='name-{i}'>"
            f"<label for='size-{i}'>Size {i}</label><select id='size-{i}' name='size-{i}'>"
            "<option value=''>Choose</option><option value='S'>Small</option><option value='M'>Medium</option>"
            "<option value='L'>Large</option></select>"
            f"<button type='button' id='apply-{i}' data-row='{i}'>Apply {i}</button>"
            f"<span id='out-{i}'>pending</span></div>"
        )
    parts.append("""<script>
let applied = 0;
document.querySelectorAll('button[data-row]').forEach((b) => b.addEventListener('click', () => {
  const i = b.dataset.row;
  const name = document.getElementById('name-' + i).value;
  const size = document.getElementById('size-' + i).value;
  document.getElementById('out-' + i).textContent = 'Applied ' + name + ' (' + size + ')';
  applied += 1;
  document.getElementById('status').textContent = 'Rows applied: ' + applied;
}));
</script></main></body></html>""")
    return "".join(parts)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802
        body = self.server.route(self.path.split("?")[0])  # type: ignore[attr-defined]
        status = 200 if body is not None else 404
        body = body if body is not None else b"<!doctype html><title>none</title>not found"
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


class LocalSite:
    """A ThreadingHTTPServer on 127.0.0.1 (a free port) in a thread, for ``with``: ``site.url``.

    A subclass names its request ``handler`` and what the server hands it (``_attach``)."""

    handler: type[BaseHTTPRequestHandler]
    _server: ThreadingHTTPServer | None = None

    def _attach(self, server: ThreadingHTTPServer) -> None:
        raise NotImplementedError

    def __enter__(self):
        server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler)
        server.daemon_threads = True
        self._attach(server)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
        self._server = server
        return self

    def __exit__(self, *exc) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"


class BenchSite(LocalSite):
    """``with BenchSite() as site: site.url`` -> http://127.0.0.1:<free port>.

    ``route(path)`` gives a page's bytes, or None for a 404; by default the
    benchmark page at ``/bench``.
    """

    handler = _Handler

    def __init__(self) -> None:
        self._page = page_html().encode()

    def route(self, path: str) -> bytes | None:
        return self._page if path == "/bench" else None

    def _attach(self, server: ThreadingHTTPServer) -> None:
        server.route = self.route  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- flows


@dataclass(frozen=True)
class Step:
    kind: str  # navigate | fill | select | click | assert
    arg: str = ""  # label / button name / selector
    value: str = ""
    check_selector: str = ""
    check_text: str = ""


def flow(steps: int) -> list[Step]:
    """navigate, then per row: fill, select, click (its output checked), assert (#status)."""
    out = [Step("navigate", "/bench", check_text=TITLE)]
    row = 0
    while len(out) < steps:
        row += 1
        if row > ROWS:
            raise ValueError(f"at most {1 + 4 * ROWS} steps")
        name = f"user-{row}"
        for step in (
            Step("fill", f"Name {row}", name),
            Step("select", f"Size {row}", "M"),
            Step("click", f"Apply {row}", check_selector=f"#out-{row}", check_text=f"Applied {name} (M)"),
            Step("assert", check_selector="#status", check_text=f"Rows applied: {row}"),
        ):
            if len(out) < steps:
                out.append(step)
    return out


def _q(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def step_id(i: int, step: Step) -> str:
    return f"s{i:02d}_{step.kind}"


def plan_yaml(name: str, steps: list[Step], *, critical: frozenset[int] = frozenset(), broken: dict[int, str] | None = None,
              expect: str | None = None) -> str:
    """The plan of a flow. ``critical``: step indexes made critical; ``broken``: index -> how to break it
    (``text``: a postcondition that never holds; ``target``: a target that does not exist), with a
    1 s timeout; ``expect``: the error code the plan expects at its (first) broken step."""
    broken = broken or {}
    lines = [
        f"name: {name}",
        "tags: [bench]",
    ]
    if expect:
        first = min(broken)
        lines.append(f"expect: {{error_code: {expect}, step: {step_id(first, steps[first])}}}")
    lines += [
        "defaults:",
        "  criticality: normal",
        "  timeout_ms: 5000",
        "  preconditions: [{kind: host_in_allowlist}]",
        "  postconditions: [{kind: host_in_allowlist}]",
        "steps:",
    ]
    for i, s in enumerate(steps):
        how = broken.get(i)
        lines.append(f"  - id: {step_id(i, s)}")
        lines.append(f"    kind: {s.kind}")
        if i in critical:
            lines.append("    criticality: critical")
        if how:
            lines.append("    timeout_ms: 1000")
        if s.kind == "navigate":
            lines.append(f"    target: {{type: url, url: {s.arg}}}")
            lines.append(f"    postconditions: [{{kind: title_contains, args: {{text: {_q(s.check_text)}}}}}]")
        elif s.kind in ("fill", "select"):
            label = s.arg + (" missing" if how == "target" else "")
            lines.append(f"    target: {{type: label, text: {_q(label)}, exact: true}}")
            lines.append(f"    value: {_q(s.value)}")
            expected = s.value + ("-wrong" if how == "text" else "")
            lines.append(f"    postconditions: [{{kind: element_value_equals, args: {{value: {_q(expected)}}}}}]")
        elif s.kind == "click":
            name = s.arg + (" missing" if how == "target" else "")
            lines.append(f"    target: {{type: role, role: button, name: {_q(name)}, exact: true}}")
            text = s.check_text + (" wrong" if how == "text" else "")
            severity = ", severity: critical" if i in critical else ""  # U5: a critical step needs a strong check
            lines.append("    postconditions: [{kind: element_text_contains, args: "
                         f"{{target: {{type: css, selector: {_q(s.check_selector)}}}, text: {_q(text)}}}{severity}}}]")
        elif s.kind == "assert":
            text = s.check_text + (" wrong" if how == "text" else "")
            lines.append("    postconditions: [{kind: element_text_contains, args: "
                         f"{{target: {{type: css, selector: {_q(s.check_selector)}}}, text: {_q(text)}}}}}]")
    return "\n".join(lines) + "\n"


# The locator of a step's target, by kind, in the hand-written test (navigate and assert have none).
TARGETS = {"fill": "page.get_by_label({arg!r}, exact=True)", "select": "page.get_by_label({arg!r}, exact=True)",
           "click": "page.get_by_role('button', name={arg!r}, exact=True)"}


def target_code(step: Step | None) -> str | None:
    """The Playwright locator expression of ``step``'s target, or None (no step, or a step without a target)."""
    how = TARGETS.get(step.kind) if step is not None else None
    return how.format(arg=step.arg) if how else None


def floor_read(step: Step | None) -> str:
    """The one read before ``step`` (benchmarks/floors.py), with its target matched when it has one."""
    target = target_code(step)
    return "floor.read(page)" if target is None else f"floor.read(page, {target})"


def hand_test_body(steps: list[Step], indent: str = "    ", reads: bool = False) -> str:
    """Unrolled pytest-playwright code doing the same actions and the same checks (``expect``).

    ``reads``: plus the one read between two steps (a ``floor``, benchmarks/floors.py, in scope): one
    before the first step, then after each step's check the read that is its "after" and the next step's
    "before" with the next step's target matched (the last step's: its "after" alone), as real_flow.py's
    "one" reads. The checks stay the test's own: each step checks an element of its own."""
    out = [floor_read(steps[0] if steps else None)] if reads else []
    for i, s in enumerate(steps):
        target = target_code(s)
        if s.kind == "navigate":
            out.append(f"page.goto(bench_url + {s.arg!r})")
            out.append(f"expect(page).to_have_title(re.compile(re.escape({s.check_text!r})))")
        elif s.kind == "fill":
            out.append(f"loc = {target}")
            out.append(f"loc.fill({s.value!r})")
            out.append(f"expect(loc).to_have_value({s.value!r})")
        elif s.kind == "select":
            out.append(f"loc = {target}")
            out.append(f"loc.select_option({s.value!r})")
            out.append(f"expect(loc).to_have_value({s.value!r})")
        elif s.kind == "click":
            out.append(f"{target}.click()")
            out.append(f"expect(page.locator({s.check_selector!r})).to_contain_text({s.check_text!r})")
        elif s.kind == "assert":
            out.append(f"expect(page.locator({s.check_selector!r})).to_contain_text({s.check_text!r})")
        if reads:
            out.append(floor_read(steps[i + 1] if i + 1 < len(steps) else None))
    return "".join(indent + line + "\n" for line in out)
