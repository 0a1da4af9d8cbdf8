"""(v1.3) The demo portal's page for ``request_seen`` and ``delay_ms``: a notes form, a buy button, two feeds.

``/v13/traffic`` posts a note through ``fetch`` (JSON: the title, an API token
the user types, tags; headers ``Content-Type`` and ``X-Client``) to
``/v13/api/notes``, which answers 201 with the note's id as JSON and in
``X-Note-Id``. "Buy" fires an analytics beacon (``navigator.sendBeacon``) at
``http://analytics.outside.example/collect``, a host no plan may reach: the
network guard refuses it, and a plan checks that the page did (or did not)
send it. "Load" fetches ``/v13/api/slow`` and ``/v13/api/fast`` together and
lists each answer as it comes back, so a plan that stubs them (``routes:``,
one with ``delay_ms``) sees the order the answers arrived in.
"""

from __future__ import annotations

import json
from typing import Any, Callable

BEACON_URL = "http://analytics.outside.example/collect"

TRAFFIC_PAGE = """<h1>Notes</h1>
<p><label>Title <input id="title" autocomplete="off"></label></p>
<p><label>API token <input id="token" type="password" autocomplete="off"></label></p>
<p><button type="button" id="save">Save note</button>
<button type="button" id="buy">Buy</button>
<button type="button" id="load">Load feeds</button></p>
<p data-testid="status">Idle</p>
<ol data-testid="log"></ol>
<script>
const $ = (id) => document.getElementById(id);
const status = document.querySelector("[data-testid=status]");
const log = (text) => {
  const li = document.createElement("li");
  li.textContent = text;
  document.querySelector("[data-testid=log]").appendChild(li);
};
$("save").addEventListener("click", async () => {
  status.textContent = "Saving";
  const r = await fetch("/v13/api/notes", {method: "POST",
    headers: {"Content-Type": "application/json", "X-Client": "demo-notes"},
    body: JSON.stringify({title: $("title").value, token: $("token").value, tags: ["demo", "v13"]})});
  const note = await r.json();
  status.textContent = r.ok ? "Saved note " + note.id : "Refused: " + note.error;
});
$("buy").addEventListener("click", () => {
  navigator.sendBeacon("BEACON", JSON.stringify({event: "buy"}));
  status.textContent = "Bought";
});
$("load").addEventListener("click", () => {
  status.textContent = "Loading";
  for (const name of ["slow", "fast"]) {
    fetch("/v13/api/" + name).then((r) => r.json()).then((d) => log(name + " " + d.n));
  }
});
</script>""".replace("BEACON", BEACON_URL)


class _Notes:
    """The notes the API keeps (in memory, for the portal's life)."""

    def __init__(self) -> None:
        self.count = 0


_NOTES = _Notes()


def _send_json(h: Any, status: int, payload: Any, headers: list[tuple[str, str]] | None = None) -> None:
    h._send(status, json.dumps(payload), "application/json; charset=utf-8", headers)


def _create_note(h: Any) -> None:
    try:
        body = json.loads(h._read_body(64 * 1024) or b"null")
    except ValueError:
        body = None
    title = body.get("title") if isinstance(body, dict) else None
    if not isinstance(title, str) or not title.strip():
        _send_json(h, 400, {"error": "a note needs a title"})
        return
    _NOTES.count += 1
    _send_json(h, 201, {"id": _NOTES.count, "title": title}, [("X-Note-Id", str(_NOTES.count))])


def _feed(n: int) -> Callable[[Any], None]:
    return lambda h: _send_json(h, 200, {"n": n})


def _page(h: Any) -> None:
    h._page("Notes", TRAFFIC_PAGE)


# The portal's rows (path -> method -> handler), spread into portal.py's ROUTES.
V13_TRAFFIC_ROUTES: dict[str, dict[str, Callable[[Any], None]]] = {
    "/v13/traffic": {"GET": _page},
    "/v13/api/notes": {"POST": _create_note},
    "/v13/api/slow": {"GET": _feed(1)},
    "/v13/api/fast": {"GET": _feed(2)},
}
