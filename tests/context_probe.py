"""A real Browser whose new contexts tell how they were set up: a test's window on the one wiring.

``executor.session`` sets a context up (its arguments, the channels guard's
binding, the default timeout) inside the entry points; a test hands one of
these in place of the browser and compares what each entry point did. Every
call still goes to the real Chromium.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class ContextProbe:
    def __init__(self, browser: Any, log: Path | None = None):
        self.browser = browser
        self.log = log  # one JSON line per context, for a pytest run in a subprocess
        self.seen: list[dict[str, Any]] = []

    def new_context(self, **kwargs: Any) -> Any:
        context = self.browser.new_context(**kwargs)
        seen: dict[str, Any] = {"args": sorted(k for k in kwargs if k != "proxy"), "viewport": kwargs.get("viewport"),
                                "accept_downloads": kwargs.get("accept_downloads"),
                                "proxy_bypass": (kwargs.get("proxy") or {}).get("bypass"), "timeout": None,
                                "bindings": []}
        set_timeout, expose = context.set_default_timeout, context.expose_binding

        def set_default_timeout(ms: float) -> None:
            seen["timeout"] = ms
            set_timeout(ms)
            self._write()

        def expose_binding(name: str, *args: Any, **kw: Any) -> Any:
            seen["bindings"].append(name)
            return expose(name, *args, **kw)

        context.set_default_timeout = set_default_timeout
        context.expose_binding = expose_binding
        self.seen.append(seen)
        return context

    def _write(self) -> None:
        if self.log is not None:
            self.log.write_text("".join(json.dumps(s) + "\n" for s in self.seen), encoding="utf-8")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.browser, name)


class ProbeBrowsers:
    """What AgentSession needs of a BrowserManager: ``browser()`` and ``remote``."""

    remote = None

    def __init__(self, probe: ContextProbe):
        self.probe = probe

    def browser(self) -> ContextProbe:
        return self.probe
