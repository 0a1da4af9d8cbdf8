"""Read a Playwright codegen script with ``ast``: never imported, never run.

``playwright codegen --target python`` (and ``python-pytest``, and the async
form) writes a flat list of statements on one ``page``: ``page.goto(...)``,
``page.get_by_role(...).click()``, ``expect(...).to_have_url(...)``. This
module turns them into neutral ``Recorded`` calls, the locator chain spelled
out link by link, and leaves the meaning to ``codegen.map``. What is plainly
set-up or tear-down (imports, launch, new_context, new_page, close, the
``sync_playwright()`` block, the call of ``run``) is skipped without a word;
everything else that is not a call on the page is ``Unmapped`` with its line.

One ``with`` block is read as a step: ``with page.expect_download() as d:``
around a single action is that action with a ``download_started`` check (a
plan checks a download the same way), and ``download = d.value`` after it is
part of the idiom. Other waits (``expect_popup``, ...) are reported.
(v1.2) ``new_context``'s settings and ``page.clock`` by ``codegen.settings``;
``page.request.*``, ``page.route(...)`` and checks of a response by ``codegen.http``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_cometlocal.contract.errors import CometLocalError
from pytest_cometlocal.planners.codegen.http import (
    read_request, read_route, request_call, response_check, route_call, traffic_wait)
from pytest_cometlocal.planners.codegen.pages import PageBooks
from pytest_cometlocal.planners.codegen.settings import clock_at, context_settings, run_for_ms
from pytest_cometlocal.planners.codegen.state import cookie_calls, on_context
from pytest_cometlocal.planners.errors import CannotMap, NotAScript

# Calls that open or close the browser, context or page: codegen's boilerplate.
_SETUP_CALLS = frozenset({"launch", "new_context", "new_page", "close", "connect", "connect_over_cdp",
                          "set_default_timeout", "set_default_navigation_timeout", "stop"})
_ENTRY_FUNCTIONS = frozenset({"run", "main"})


@dataclass(frozen=True)
class Link:
    """One link of a locator chain: ``get_by_role("button", name="Save")`` or ``first``."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    is_call: bool = True


@dataclass(frozen=True)
class Recorded:
    """``<page>.<chain>.<action>(args)``, or ``expect(<subject>).<action>(args)`` when ``check``."""

    line: int
    action: str
    chain: tuple[Link, ...]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    check: bool = False
    on_page: bool = True       # the chain starts at the page (expect(page) has an empty chain)
    source: str = ""
    response: str | None = None  # (v1.2) the name a request's response is bound to, or a response check's


@dataclass(frozen=True)
class LocatorArg:
    """An argument that is a locator of the page (``drag_to(page.get_by_text("Done"))``)."""

    chain: tuple[Link, ...]


@dataclass(frozen=True)
class Unmapped:
    line: int
    why: str
    source: str = ""


class _Literal(CometLocalError):
    """A value that is not a literal (a variable, an expression): cannot be mapped."""


def _literal(node: ast.AST) -> Any:
    """A constant, a list of constants, a dict of them with string keys, or ``re.compile("...")`` as ("re", pattern)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        return {k.value: _literal(v) for k, v in zip(node.keys, node.values)}  # (v1.3) position=, an event's init
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "compile"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
            and len(node.args) == 1 and not node.keywords):
        return ("re", _literal(node.args[0]))
    raise _Literal()


def _size(node: ast.AST) -> Any:
    """(v1.3) set_viewport_size's argument: a dict of string keys and whole numbers (only there: a dict
    elsewhere, such as click's ``position``, stays not a literal until its key maps)."""
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        values = [_literal(v) for v in node.values]
        return {k.value: v for k, v in zip(node.keys, values)}  # type: ignore[union-attr]
    return _literal(node)


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.pages: set[str] = set()
        self.main_page: str | None = None
        self.books = PageBooks()  # (v1.2) the open pages and the active one
        self.popup_infos: set[str] = set()  # the names bound by a mapped ``expect_popup() as NAME``
        self.downloads: set[str] = set()  # the names bound by a mapped ``expect_download() as NAME``
        self.contexts: set[str] = {"context"}  # (v1.2) codegen's context, and names new_context() is bound to
        self.responses: set[str] = set()  # (v1.2) the names a request's response is bound to
        self.out: list[Recorded | Unmapped] = []

    def src(self, node: ast.AST) -> str:
        return (ast.get_source_segment(self.text, node) or "").strip()

    def unmapped(self, node: ast.AST, why: str) -> None:
        self.out.append(Unmapped(node.lineno, why, self.src(node)))

    # -- statements ---------------------------------------------------------

    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass)) or self.http(stmt):
            return
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(stmt)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            self.with_block(stmt)
        elif isinstance(stmt, ast.If) and _is_main_guard(stmt.test):
            self.block(stmt.body)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            self.assign(stmt)
        elif isinstance(stmt, ast.Expr):
            self.expression(stmt, stmt.value)
        else:
            self.unmapped(stmt, "not a call on the page")

    def function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        # python-pytest: ``def test_x(page: Page)``: the fixture is the page.
        for arg in fn.args.args:
            if arg.arg == "page" or (isinstance(arg.annotation, ast.Name) and arg.annotation.id == "Page"):
                self.add_page(arg.arg)
        body = fn.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        self.block(body)

    def with_block(self, stmt: ast.With | ast.AsyncWith) -> None:
        for item in stmt.items:
            call = item.context_expr
            name = call.func.attr if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) else (
                call.func.id if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) else "")
            if name in ("sync_playwright", "async_playwright"):
                continue
            if name == "expect_download" and len(stmt.items) == 1 and self.download_block(stmt, item):
                return
            seen = traffic_wait(call, name, self.main_page)  # (v1.3) expect_request / expect_response
            if seen is not None and len(stmt.items) == 1 and self.download_block(stmt, item, "request_seen", seen):
                return
            if name == "expect_popup" and len(stmt.items) == 1 and self.popup_block(stmt, item):
                return
            # expect_popup / expect_navigation / a download around several statements: no v1 step waits so.
            self.unmapped(stmt, f"'with {self.src(call)}' waits for an event a plan step cannot wait for; "
                                "its body is imported, the wait is not")
        self.block(stmt.body)

    def download_block(self, stmt: ast.With | ast.AsyncWith, item: ast.withitem, check: str = "download_started",
                       args: tuple[Any, ...] = ()) -> bool:
        """``with page.expect_download() as d:`` around one action: the action, then its download check;
        (v1.3) ``with page.expect_response(URL)`` (or ``expect_request``): the action, then its request_seen."""
        call = item.context_expr
        on_page = isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
            isinstance(call.func.value, ast.Name) and call.func.value.id == self.main_page
        if not on_page or (call.args and not args) or len(stmt.body) != 1:
            return False
        before = len(self.out)
        self.block(stmt.body)
        added = self.out[before:]
        if len(added) != 1 or not isinstance(added[0], Recorded) or added[0].check:
            del self.out[before:]  # reported as a wait, its body again as it reads on its own
            return False
        self.out.append(Recorded(stmt.lineno, check, (), args, {}, check=True, source=self.src(call)))
        if check == "download_started" and isinstance(item.optional_vars, ast.Name):
            self.downloads.add(item.optional_vars.id)
        return True

    def popup_block(self, stmt: ast.With | ast.AsyncWith, item: ast.withitem) -> bool:
        """(v1.2) ``with page.expect_popup() as p:`` around one action: that action with ``opens: page``."""
        call = item.context_expr
        on_page = isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
            isinstance(call.func.value, ast.Name) and call.func.value.id in self.pages
        if not on_page or len(stmt.body) != 1 or not isinstance(item.optional_vars, ast.Name):
            return False
        before = len(self.out)
        self.block(stmt.body)
        added = [r for r in self.out[before:] if isinstance(r, Recorded) and r.action != "switch_page"]
        if len(added) != 1 or added[0].check:
            del self.out[before:]
            return False
        self.out.append(Recorded(stmt.lineno, "opens_page", (), (), {}, source=self.src(call)))
        self.popup_infos.add(item.optional_vars.id)
        return True

    def assign(self, stmt: ast.Assign | ast.AnnAssign) -> None:
        value = stmt.value
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        if isinstance(value, ast.Await):
            value = value.value
        chain = _call_chain(value) if value is not None else []
        if chain and chain[-1] == "new_page":
            for name in names:
                self.add_page(name)
            return
        if chain and chain[-1] == "new_context" and isinstance(value, ast.Call):
            self.contexts.update(names)
            self.context(stmt, value)  # (v1.2) its settings are the plan's browser: keys
            return
        if chain and chain[-1] in _SETUP_CALLS or chain[:2] in (["playwright", "chromium"], ["playwright", "firefox"],
                                                                  ["playwright", "webkit"], ["p", "chromium"]):
            return
        if isinstance(value, ast.Attribute) and value.attr == "value":
            if isinstance(value.value, ast.Name) and value.value.id in self.downloads:
                return  # ``download = download_info.value``: the download step checks it
            if isinstance(value.value, ast.Name) and value.value.id in self.popup_infos and len(names) == 1:
                self.pages.add(names[0])  # ``page1 = page1_info.value``: the popup, active from now on
                self.books.popup(names[0])
                return
            self.unmapped(stmt, "a popup page or a download is not mapped (one page per plan in v1)")
            return
        self.unmapped(stmt, "an assignment is not a step")

    def context(self, stmt: ast.stmt, call: ast.Call) -> None:
        """(v1.2) ``browser.new_context(locale=..., **playwright.devices[...])``: the plan's ``browser:`` keys."""
        browser, problems = context_settings(call)
        for why in problems:
            self.unmapped(stmt, why)
        if browser:
            self.out.append(Recorded(stmt.lineno, "browser_settings", (), (), browser, on_page=False,
                                     source=self.src(stmt)))

    def clock(self, stmt: ast.stmt, call: ast.Call, method: str) -> None:
        """(v1.2) ``page.clock.install(time=...)`` is ``clock.at``, ``page.clock.run_for(ms)`` an ``advance_clock``."""
        try:
            if method == "install":
                recorded = Recorded(stmt.lineno, "clock_install", (), (clock_at(call),), {}, source=self.src(stmt))
            elif method == "run_for":
                recorded = Recorded(stmt.lineno, "advance_clock", (), (run_for_ms(call),), {}, source=self.src(stmt))
            else:
                raise CannotMap(f"page.clock.{method}() has no plan equivalent (clock.at is clock.install(time=...), "
                                "advance_clock is clock.run_for)")
        except CannotMap as exc:
            self.unmapped(stmt, str(exc))
            return
        self.out.append(recorded)

    def http(self, stmt: ast.stmt) -> bool:
        """(v1.2) A request, a route or a check of a response (``codegen.http``): recorded or reported."""
        value = stmt if isinstance(stmt, ast.Assert) else getattr(stmt, "value", None)
        owners = self.pages | self.contexts
        try:
            if (call := request_call(value, owners)) is not None:
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
                name = next((t.id for t in targets if isinstance(t, ast.Name)), None)
                args, kwargs = read_request(call)
                if name is not None:
                    self.responses.add(name)
                recorded = Recorded(stmt.lineno, "request", (), args, kwargs, on_page=False, response=name)
            elif (call := route_call(value, owners)) is not None:
                recorded = Recorded(stmt.lineno, "route", (), (read_route(call),), {}, on_page=False)
            elif (found := response_check(value, self.responses)) is not None:
                recorded = Recorded(stmt.lineno, "response_check", (), (found[1],), {}, check=True, on_page=False,
                                    response=found[0])
            else:
                return False
        except CannotMap as exc:
            self.unmapped(stmt, str(exc))
            return True
        self.out.append(replace(recorded, source=self.src(stmt)))
        return True

    def add_page(self, name: str) -> None:
        self.pages.add(name)
        if self.main_page is None:
            self.main_page = name
            self.books.first(name)

    # -- expressions --------------------------------------------------------

    def expression(self, stmt: ast.stmt, value: ast.AST) -> None:
        if isinstance(value, ast.Await):
            value = value.value
        if isinstance(value, ast.Constant):
            return  # a docstring or a bare literal
        if not isinstance(value, ast.Call):
            self.unmapped(stmt, "not a call on the page")
            return
        func = value.func
        if isinstance(func, ast.Name):
            if func.id in _ENTRY_FUNCTIONS:
                return  # run(playwright)
            self.unmapped(stmt, f"a call of {func.id}() is not a step")
            return
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "asyncio":
            return  # asyncio.run(main())
        if not isinstance(func, ast.Attribute):
            self.unmapped(stmt, "not a call on the page")
            return
        action = func.attr
        if action in ("on", "once") and isinstance(func.value, ast.Name) and func.value.id in self.pages:
            self.unmapped(stmt, f"an event handler (page.{action}, such as a dialog's) does not map: "
                                "a plan has no dialog step")
            return
        if (isinstance(func.value, ast.Attribute) and func.value.attr == "clock"
                and isinstance(func.value.value, ast.Name) and func.value.value.id in self.pages):
            self.clock(stmt, value, action)
            return
        read = _size if action == "set_viewport_size" else self.argument  # (v1.3) a {width, height} literal
        if action in ("add_cookies", "clear_cookies") and on_context(func.value, self.pages):  # (v1.3) state.py
            self.cookies(stmt, action, value)
            return
        try:
            args = tuple(read(a) for a in value.args)
            kwargs = {k.arg: read(k.value) for k in value.keywords if k.arg}
        except _Literal:
            self.unmapped(stmt, "an argument is not a literal (a variable or an expression)")
            return
        subject = func.value
        check = False
        if isinstance(subject, ast.Call) and isinstance(subject.func, ast.Name) and subject.func.id == "expect":
            check = True
            if len(subject.args) != 1:
                self.unmapped(stmt, "expect() takes one locator or the page")
                return
            subject = subject.args[0]
        try:
            root, chain = self.chain(subject)
        except _Literal:
            self.unmapped(stmt, "a locator argument is not a literal")
            return
        if root is None:
            self.unmapped(stmt, "not a call on the page")
            return
        if root in self.pages and not chain and not check and action == "close":
            if root in self.books.open and len(self.books.open) > 1:  # a popup or tab it closes: close_page (v1.2)
                switch = self.books.switch(root)
                if switch is not None:
                    self.out.append(Recorded(stmt.lineno, "switch_page", (), (switch,), {}, source=self.src(stmt)))
                self.books.close(root)
                self.out.append(Recorded(stmt.lineno, "close_page", (), (), {}, source=self.src(stmt)))
            return
        if root in self.pages and root not in self.books.open:
            self.unmapped(stmt, f"a call on {root}, which is not an open page of the plan")
            return
        switch = self.books.switch(root) if root in self.pages else None
        if switch is not None:  # a call on another open page: switch to it first (v1.2)
            self.out.append(Recorded(stmt.lineno, "switch_page", (), (switch,), {}, source=self.src(stmt)))
        if root not in self.pages:
            if not chain and action in _SETUP_CALLS:
                return  # context.close(), browser.close()
            if root in ("browser", "context", "playwright") or action in _SETUP_CALLS:
                return
            self.unmapped(stmt, f"a call on {root}, which is not the page")
            return
        if not check and not chain and action == "close":
            return
        self.out.append(Recorded(stmt.lineno, action, tuple(chain), args, kwargs, check=check,
                                 source=self.src(stmt)))

    def cookies(self, stmt: ast.stmt, action: str, call: ast.Call) -> None:
        """(v1.3) ``context.add_cookies([...])`` (a step per cookie) or ``context.clear_cookies(...)``."""
        try:
            steps = cookie_calls(action, call)
        except CannotMap as exc:
            self.unmapped(stmt, str(exc))
            return
        self.out.extend(Recorded(stmt.lineno, "state_step", (), (step,), {}, on_page=False, source=self.src(stmt))
                        for step in steps)

    def argument(self, node: ast.AST) -> Any:
        """A literal, or a locator of the main page (``LocatorArg``); _Literal otherwise."""
        try:
            return _literal(node)
        except _Literal:
            if isinstance(node, (ast.List, ast.Tuple)):  # (v1.2) locators in a list: to_have_screenshot's mask
                return [self.argument(e) for e in node.elts]
            root, chain = self.chain(node)
            if root is None or root != self.books.active or not chain:
                raise
            return LocatorArg(tuple(chain))

    def chain(self, node: ast.AST) -> tuple[str | None, list[Link]]:
        """``page.get_by_role("x").first`` -> ("page", [Link(get_by_role), Link(first)])."""
        links: list[Link] = []
        while True:
            if isinstance(node, ast.Name):
                return node.id, list(reversed(links))
            if isinstance(node, ast.Attribute):
                links.append(Link(node.attr, is_call=False))
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                args = tuple(_literal(a) for a in node.args)
                kwargs = {k.arg: _literal(k.value) for k in node.keywords if k.arg}
                links.append(Link(node.func.attr, args, kwargs))
                node = node.func.value
            else:
                return None, []


def _call_chain(node: ast.AST) -> list[str]:
    """``playwright.chromium.launch(headless=False)`` -> ["playwright", "chromium", "launch"]."""
    parts: list[str] = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Name):
            parts.append(node.id)
            return list(reversed(parts))
        else:
            return list(reversed(parts))


def _is_main_guard(test: ast.AST) -> bool:
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__")


def read_script(text: str, file: str) -> list[Recorded | Unmapped]:
    """The script's page calls in order, or NotAScript naming the file (and line)."""
    try:
        tree = ast.parse(text, filename=file)
    except SyntaxError as exc:
        raise NotAScript(f"{file}:{exc.lineno or 1}:{exc.offset or 1}: not valid Python: {exc.msg}") from None
    reader = _Reader(text)
    reader.block(tree.body)
    if reader.main_page is None:
        raise NotAScript(f"{file}: no Playwright page found (expected codegen's "
                         "'page = context.new_page()' or a test taking the 'page' fixture)")
    return reader.out
