"""A loopback HTTP server whose pages misbehave on purpose, for the hang tests.

Each path is one misbehaviour the executor must survive without hanging the
suite (tests/reliability/test_misbehaving_pages.py): a click handler that never
returns, a page whose own timer freezes its main thread, a page that repaints
every frame, a click that eats memory until the renderer dies, a page that
reloads itself forever, a body that drips one byte a second, a server that
never answers, a reset connection, a page that freezes when it is looked at
(``/look-trap``, for tests/executor/test_evidence_gaps.py). ``/healthy`` is a
page that behaves, for the plan that must pass after each of them.

It is started by the conftest.py of an inner pytest run (the inner session
owns it). Handlers that wait (``/silent``, ``/drip``) stop when ``release`` is
set, which ``close()`` does, when the client goes away, or after a bounded
time, so no thread outlives its run for long.
"""

from __future__ import annotations

import html
import socket
import struct
import time
from http.server import ThreadingHTTPServer
from typing import Any

from tests.reliability.faultserver import LoopbackServer, RoutedHandler

# The renderer dies of V8 heap exhaustion ("V8 javascript OOM (CALL_AND_RETRY_LAST)"):
# flat one-byte strings of 128 MiB each ('x'.repeat builds a cheap cons string,
# indexOf flattens it into one sequential string). The GC never scans their
# bytes, so the heap fills at the speed the machine can touch memory; no
# RangeError is thrown (the string length stays far below the maximum).
OOM_SCRIPT = ("const x='x'.repeat(1<<27); const keep=[]; let i=0;"
              " while(true){ const s=(i++)+x; s.indexOf('y'); keep.push(s); }")

# Longest a hanging handler waits, whatever happens.
HANG_LIMIT_S = 120.0
DRIP_BYTES = 120


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser that gives up on a page (a reload, a timeout) closes the
        # connection mid-answer; that is expected here, not worth a traceback
        # on stderr (the tests assert the session prints none).
        return


class MisbehavingServer(LoopbackServer):
    def __init__(self) -> None:
        super().__init__()
        server = self

        class Handler(RoutedHandler):
            owner = server

            # -- a page that behaves ------------------------------------------------

            def route_healthy(self, query: dict[str, str]) -> None:
                self._page("Healthy", '<button type="button" onclick="document.getElementById(\'out\').textContent=\'done\'">Go</button>'
                           '<p id="out">idle</p>')

            # -- the page's main thread stops answering -----------------------------

            def route_spin_click(self, query: dict[str, str]) -> None:
                """The click handler never returns."""
                self._page("Spin on click", '<button type="button" onclick="while(true){}">Spin</button>')

            def route_spin_timer(self, query: dict[str, str]) -> None:
                """The page's own timer freezes it, with no action of the plan.

                The button the plan waits for appears at ``ms`` after load, and the
                freeze starts in the very next task: whatever the plan does with the
                page from then on meets a main thread that never answers.
                """
                ms = int(query.get("ms", "1000"))
                self._page("Spin on a timer", '<p id="state">loading</p>', head=f"""<script>
addEventListener("load", () => setTimeout(() => {{
  const b = document.createElement("button"); b.type = "button"; b.textContent = "Late";
  document.body.appendChild(b); document.getElementById("state").textContent = "frozen";
  setTimeout(() => {{ while (true) {{}} }}, 0);
}}, {ms}));
</script>""")

            def route_look_trap(self, query: dict[str, str]) -> None:
                """Freezes when it is looked at: the second read of its title after Arm is pressed.

                Each observation reads the title once: the look after the click on
                Arm passes, the look before the next step never returns. So the page
                stops answering before that step has any observation of its own.
                """
                self._page("Trap", '<button type="button" onclick="armed=true">Arm</button>'
                           '<button type="button">Next</button>', head="""<script>
let armed = false, reads = 0;
const real = Object.getOwnPropertyDescriptor(Document.prototype, "title");
Object.defineProperty(document, "title", {get() {
  if (armed && ++reads >= 2) { while (true) {} }
  return real.get.call(document);
}});
</script>""")

            def route_raf(self, query: dict[str, str]) -> None:
                """Busy but answering: the page changes on every animation frame, forever."""
                self._page("Animated", """<p id="frame">0</p><div id="bar" style="height:20px;width:0;background:#c33"></div>
<button type="button" onclick="document.getElementById('out').textContent='pressed'">Press</button><p id="out">idle</p>
<script>
  let n = 0;
  const frame = document.getElementById("frame"), bar = document.getElementById("bar");
  function tick() { n++; frame.textContent = String(n); bar.style.width = (n % 300) + "px";
                    bar.style.background = n % 2 ? "#c33" : "#33c"; requestAnimationFrame(tick); }
  requestAnimationFrame(tick);
</script>""")

            def route_oom(self, query: dict[str, str]) -> None:
                """The click allocates until the renderer dies of V8 heap exhaustion."""
                self._page("Out of memory", f'<button type="button" onclick="{html.escape(OOM_SCRIPT, quote=True)}">Allocate</button>')

            def route_refresh(self, query: dict[str, str]) -> None:
                """Reloads itself at once, forever."""
                self._page("Refreshing", "<p>again</p>", head='<meta http-equiv="refresh" content="0">')

            # -- the server side ----------------------------------------------------

            def route_drip(self, query: dict[str, str]) -> None:
                """Headers at once, then the body one byte a second (Content-Length says how many)."""
                body = (b"<!doctype html><html><head><title>Drip</title></head><body>"
                        + b"." * DRIP_BYTES + b"</body></html>")
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.flush()
                deadline = time.monotonic() + HANG_LIMIT_S
                try:
                    for i in range(len(body)):
                        self.wfile.write(body[i:i + 1])
                        self.wfile.flush()
                        if server.release.wait(1.0) or time.monotonic() > deadline:
                            break
                except OSError:  # the browser gave up and closed the connection
                    pass
                self.close_connection = True

            def route_silent(self, query: dict[str, str]) -> None:
                """The request is read; no answer ever comes (until the server is closed)."""
                server.release.wait(HANG_LIMIT_S)
                self.close_connection = True

            def route_reset(self, query: dict[str, str]) -> None:
                # SO_LINGER 0: close() sends RST instead of FIN.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True

        self._serve(Handler, _QuietServer)
