"""``cometlocal mcp``: the executor as an MCP server on stdio, for an agent planner.

Tools (each answers a JSON object; a refusal is ``{ok: false, error_code,
message}``, never a traceback): ``start_session``, ``observe``, ``propose``,
``save_plan``, ``end_session``. No tool runs script: a proposal is an
ActionSpec, validated by the plan rules before anything touches the page.

Playwright's sync API is bound to the thread that started it, and the MCP SDK
serves tools on an event loop, so every browser call runs on one worker
thread of its own, one call at a time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import signal
from pathlib import Path
from types import FrameType
from typing import Any, Callable

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

from pytest_cometlocal.agent.agent_session import AgentSession
from pytest_cometlocal.agent.errors import AgentError
from pytest_cometlocal.contract.extensions.registry import KindRegistry

INSTRUCTIONS = (
    "Drive a browser one validated step at a time. start_session first; observe gives candidate targets that "
    "each match exactly one element: use them as they are (observe with aria=true adds the page's accessibility "
    "tree as an aria snapshot). propose takes one step with the plan file's keys "
    "(id, kind, target, value, ...); criticality, timeout_ms and the host_in_allowlist conditions are filled in. "
    "Give secrets as ${secrets.NAME}. save_plan writes the steps that passed as a plan file pytest runs."
)
# Every kind a proposal may have, with the keys that only it takes (plan format v1.2; docs/plan-format.md).
PROPOSE_DESCRIPTION = (
    "Validate one step (plan file keys) and run it; returns ok, the typed error when not ok, and the page after. "
    "kind: navigate (target {type: url, url}), click, fill (value), select (value), upload (file_ref), wait_for, "
    "assert, stop; and (v1.1) press (key: Enter, Escape, Shift+Tab, ControlOrMeta+a, ...; target optional: "
    "without one the key goes to what has focus), hover, check, uncheck, drag (to: a target), scroll "
    "(direction: down, up, right or left; target optional: the page). click also takes button (left, right, "
    "middle), click_count (1, 2 or 3) and modifiers (Alt, Control, ControlOrMeta, Meta, Shift). Conditions "
    "(v1.1) include element_checked, element_focused and aria_snapshot_matches."
    " (v1.2) Conditions element_hidden, element_text_matches (pattern), element_value_contains (text), "
    "element_value_matches (pattern), element_attr_matches (attr, pattern), element_texts_equal (target, texts), "
    "storage_item (area: local or session, key, pointer?, one of equals/matches/length), cookie (name, "
    "equals or matches); a role target takes level (heading, 1-6), checked, expanded, selected, pressed, "
    "disabled and include_hidden, each on the roles ARIA gives it. Pages (v1.2): go_back, go_forward, reload, close_page (no target), "
    "switch_page (page: {index: N} | {url_matches: REGEX} | {title_contains: TEXT}); click and press take "
    "opens: page when they open a popup or tab, which becomes the active page; condition page_count_equals (count)."
    " Condition screenshot_matches (name, target?, mask, threshold, max_diff_pixels | max_diff_ratio) compares with "
    "a baseline kept beside a plan file: a session has none, so it fails with baseline missing."
    " advance_clock (ms) needs a plan's clock.at, which a session has not: it is refused (rule CLOCK)."
    " HTTP (v1.2): kind request (method GET/POST/PUT/PATCH/DELETE/HEAD, url absolute or relative to the base URL, "
    "headers, at most one of json/form/body, save: {NAME: /json/pointer | status | header:NAME}) goes through the "
    "browser context's own request client, held to the allowlist; conditions response_status (status: code or "
    "list), response_json (pointer, one of equals/matches/length), response_header (name, equals or matches). "
    "assert and wait_for with a target take save_text: NAME. Later steps use ${saved.NAME} (rule SAVED: only "
    "names an accepted step saved). Stubs are start_session's routes."
    " Audits (v1.2): condition accessibility_clean (target? default the page; rules: wcag2a, wcag2aa, wcag21aa, "
    "best-practice; disable: axe rule ids; impact_at_least: minor, moderate, serious or critical, default serious) "
    "holds when the vendored axe-core finds no violation at or above that impact."
    " (v1.3) scroll takes to (top, bottom, left, right or {x, y}: px or \"0%\"-\"100%\") instead of direction: one "
    "move; set_viewport (viewport: {width, height}); reload takes bypass_cache: true (a hard reload)."
    " Actions (v1.3): focus, blur, dispatch_event (event: submit, change, input, focus, blur, click, mouse or key "
    "events; detail: its init keys); click/hover position {x, y}; select value [a, b]; fill delay_ms; press Shift; "
    "force: true on click, fill, check, uncheck (never on a critical step)."
    " State (v1.3, no target): set_cookie (cookie: {name, value, url? | domain?+path?, http_only?, secure?, "
    "same_site?, expires?: seconds}; host held to the allowlist), clear_cookies (cookie?: {name?, domain?, path?}), "
    "set_storage_item (area, key, value), clear_storage (area, key? | key_matches?); conditions cookie (absent, "
    "http_only, secure, domain, path, same_site, expires: session|persistent), storage_item (absent), cookie_count "
    "(name?, domain?, count), storage_items (area, key_matches, where?: a filter, count?, every|some: {pointer?, "
    "equals|matches|length}), storage_equals (area, equals: {key: value})."
    " (v1.3) Condition request_seen (url: a glob of the whole URL or {pattern}, method?, since: an earlier step id?, "
    "count?: 0 = none sent, request_json/request_header/request_body, response_status/response_json/response_header) "
    "checks the requests the page itself sent since the step began; routes' respond takes delay_ms (0-60000)."
    " (v1.3) Numbers: greater_than, less_than, between [lo, hi], one_of [...] instead of text/value/equals on "
    "element_text_contains, element_value_equals, element_attr_equals, storage_item, cookie, response_json, "
    "response_header, and instead of count on element_count_equals, cookie_count, storage_items, request_seen; "
    "conditions element_css (property, equals|matches), element_in_viewport (ratio?), "
    "element_html_contains (text)."
)




def extension_description(registry: KindRegistry | None) -> str:
    """(extensions) The kinds registered where the server runs, for propose's description: a proposal
    may use them (``args``: the kind's input, checked against its model; rule EXTENSION)."""
    if registry is None or not (registry.actions or registry.conditions):
        return ""
    def one(kind: Any, what: str) -> str:
        fields = ", ".join(kind.args.model_fields)
        return f"{kind.name} ({what}{'; args: ' + fields if fields else ''})"
    kinds = [*(one(k, "action") for k in registry.actions.values()),
             *(one(k, "condition") for k in registry.conditions.values())]
    return (" Extension kinds registered here (step kind, or a condition's kind; their input under args: {...}): "
            + ", ".join(sorted(kinds)) + ".")


class _Server(MCPServer):
    """Arguments that do not fit a tool's input schema get a typed answer too (INVALID_ARGUMENT).

    The SDK checks them before the tool runs, and would answer with its
    validation text; the agent gets the same kind of object as from any other
    refusal. Only field names and pydantic's messages are shown, never the
    rejected values.
    """

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            fields = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
                               for err in exc.__cause__.errors())
            answer = {"ok": False, "error_code": "INVALID_ARGUMENT", "message": f"{name}: {fields}"}
            return CallToolResult(content=[TextContent(type="text", text=json.dumps(answer, indent=2))],
                                  structured_content=answer)


def build_server(workdir: Path, *, headed: bool = False,
                 extensions: KindRegistry | None = None) -> tuple[MCPServer, Callable[[], None]]:
    """The server, and what to call once it has stopped (ends an open session, closes the browser);
    ``extensions``: the kinds a proposal may use (``cometlocal mcp`` loads those of the working folder)."""
    worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="cometlocal-browser")
    session_box: list[AgentSession] = []

    def session() -> AgentSession:
        if not session_box:
            session_box.append(AgentSession(workdir, headed=headed, extensions=extensions))
        return session_box[0]

    async def call(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        def guarded() -> dict[str, Any]:
            try:
                return fn()
            except AgentError as exc:
                return exc.as_dict()
            except Exception as exc:  # an unexpected fault is still an answer, typed (and masked)
                return session().mask({"ok": False, "error_code": "INTERNAL_ERROR",
                                       "message": f"{type(exc).__name__}: {exc}"[:500]})
        return await asyncio.get_running_loop().run_in_executor(worker, guarded)

    server = _Server("cometlocal", instructions=INSTRUCTIONS)

    @server.tool()
    async def start_session(base_url: str, allowlist: list[str] | None = None, name: str | None = None,
                            secrets: dict[str, dict[str, str]] | None = None,
                            routes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """Open a fresh browser context behind the allowlist guard, and a run folder.

        secrets: {NAME: {env: VARIABLE}}, read from the server's environment; refer to them as ${secrets.NAME}.
        routes (v1.2): the plan key routes: [{url: GLOB | {pattern: REGEX}, method?, respond: {status, json | body
        | file, headers} | abort: true}], validated as a plan's; the saved plan keeps them.
        """
        return await call(lambda: session().start(base_url, allowlist, name, secrets, routes))

    @server.tool()
    async def observe(aria: bool = False) -> dict[str, Any]:
        """The page now: url, title, links, inputs, and up to 50 targets that each match exactly one element.

        aria: true adds aria_snapshot, the page's accessibility tree as Playwright's aria snapshot (YAML, the
        template aria_snapshot_matches takes), masked and at most 20 KB (aria_snapshot_truncated when cut).
        """
        return await call(lambda: session().observe(aria))

    @server.tool(description=PROPOSE_DESCRIPTION + extension_description(extensions))
    async def propose(step: dict[str, Any]) -> dict[str, Any]:
        return await call(lambda: session().propose(step))

    @server.tool()
    async def save_plan(path: str, name: str) -> dict[str, Any]:
        """Write the steps that passed, in order, as a plan file (path inside the working folder, *.actions.yaml)."""
        return await call(lambda: session().save_plan(path, name))

    @server.tool()
    async def end_session() -> dict[str, Any]:
        """Finish the run (its trace and evidence are complete) and close the browser context."""
        return await call(lambda: session().end())

    def shutdown() -> None:
        """Idempotent: SIGTERM's handler and the normal exit may both call it."""
        if session_box:
            session_ = session_box.pop()
            worker.submit(session_.close).result(timeout=60)
        worker.shutdown(wait=True)

    return server, shutdown


def serve(workdir: Path, *, headed: bool = False, extensions: KindRegistry | None = None) -> int:
    """Serve until the client closes stdin, Ctrl-C or SIGTERM: an open session's run is finished either way.

    On SIGTERM the server cannot unwind on its own (its stdin reader is a
    thread blocked in a read), so the handler finishes the session itself and
    leaves at once.
    """
    server, shutdown = build_server(workdir, headed=headed, extensions=extensions)

    def terminate(signum: int, frame: FrameType | None) -> None:
        try:
            shutdown()
        finally:
            os._exit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        shutdown()
    return 0
