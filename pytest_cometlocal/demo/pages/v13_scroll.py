"""The demo portal's pages for plan format v1.3's scroll, viewport and reload.

``/v13/scroll`` is taller and wider than any window, with a grid that scrolls on
both axes inside it and a box that does not scroll at all. Each writes where it
is into the page as text (``page;x=0;y=300;x%=0;y%=13;v=middle;h=left;``, the
percentages of its own scroll range, ``v``/``h`` the edge it is at), so a plan
checks a ``scroll`` step's place with ``element_text_contains`` alone.

``/v13/viewport`` shows one of two notes by a media query (600 px wide or
more: "wide layout"; less: "narrow layout") and its window size, as a
responsive layout does: ``set_viewport`` mid-plan flips it.

``/v13/cache`` loads ``/v13/cache/app.js``, served with ``Cache-Control:
max-age=3600``; each serving of it carries a new number. The page counts its
loads in ``sessionStorage`` and the different numbers it has seen
(``loads=3;fetches=2;``): a plain reload takes the script from the browser's
cache, a ``reload`` with ``bypass_cache`` fetches it again. ``APP_SERVED``
counts the servings, for the tests.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

_REPORT = """<script>
function report(name, el, out, page) {
  const node = page ? document.scrollingElement : el;
  const x = Math.round(page ? scrollX : el.scrollLeft), y = Math.round(page ? scrollY : el.scrollTop);
  const rx = node.scrollWidth - node.clientWidth, ry = node.scrollHeight - node.clientHeight;
  const pct = (v, r) => r > 0 ? Math.round(100 * v / r) : 0;
  const edge = (v, r, a, b) => v <= 0 ? a : v >= r - 1 ? b : "middle";
  out.textContent = `${name};x=${x};y=${y};x%=${pct(x, rx)};y%=${pct(y, ry)};` +
    `v=${edge(y, ry, "top", "bottom")};h=${edge(x, rx, "left", "right")};`;
}
const pagePos = document.getElementById("page-pos"), grid = document.getElementById("grid");
const gridPos = document.getElementById("grid-pos");
const all = () => { report("page", null, pagePos, true); report("grid", grid, gridPos, false); };
addEventListener("scroll", all, {passive: true});
grid.addEventListener("scroll", all, {passive: true});
addEventListener("resize", all);
all();
</script>"""

SCROLL = """<style>
  html { scroll-behavior: smooth; }
  #pos { position: fixed; top: 0; right: 0; background: #ffd; padding: .3rem; font: 12px monospace; z-index: 10; }
  #tall { height: 3000px; width: 2400px; background: linear-gradient(#eef, #fee); }
  #grid { height: 200px; width: 400px; overflow: auto; border: 1px solid #888; scroll-behavior: smooth; }
  #grid .inner { width: 1200px; }
  #grid .row { height: 40px; border-bottom: 1px solid #ddd; }
  #plain { height: 80px; width: 400px; border: 1px dashed #888; }
</style>
<h1>Scroll to a place</h1>
<div id="pos"><span id="page-pos" data-testid="page-pos"></span><br><span id="grid-pos" data-testid="grid-pos"></span></div>
<div id="grid" data-testid="grid" role="region" aria-label="Grid" tabindex="0">
  <div class="inner">""" + "".join(f'<div class="row">Row {i}</div>' for i in range(1, 41)) + """</div>
</div>
<div id="plain" data-testid="plain">A box whose content fits: it does not scroll.</div>
<div id="tall"><p>The page goes on.</p></div>
<p data-testid="page-end">End of the page</p>
""" + _REPORT

VIEWPORT = """<style>
  .narrow { display: none; }
  @media (max-width: 599px) { .wide { display: none; } .narrow { display: block; } }
</style>
<h1>Responsive</h1>
<p class="wide" data-testid="wide">wide layout</p>
<p class="narrow" data-testid="narrow">narrow layout</p>
<p>Window: <output data-testid="size" id="size"></output></p>
<script>
const size = () => { document.getElementById("size").textContent = `size=${innerWidth}x${innerHeight};`; };
addEventListener("resize", size);
size();
</script>"""

CACHE = """<h1>Cached script</h1>
<p>Loads of this page and fetches of its script: <output data-testid="loads" id="loads"></output></p>
<script src="/v13/cache/app.js"></script>
<script>
const loads = Number(sessionStorage.getItem("loads") || 0) + 1;
const seen = new Set(JSON.parse(sessionStorage.getItem("served") || "[]"));
seen.add(window.appServed);
sessionStorage.setItem("loads", String(loads));
sessionStorage.setItem("served", JSON.stringify([...seen]));
document.getElementById("loads").textContent = `loads=${loads};fetches=${seen.size};`;
</script>"""

# How many times app.js was served (the tests read it); each serving carries its number.
APP_SERVED = itertools.count(1)
SERVED: list[int] = []


def _app_js(handler: Any) -> None:
    """The cacheable script: a new number each time the server is asked (the browser's cache answers otherwise)."""
    number = next(APP_SERVED)
    SERVED.append(number)
    data = f"window.appServed = {number};\n".encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "text/javascript; charset=utf-8")
    handler.send_header("Content-Length", str(len(data)))
    handler.send_header("Cache-Control", "max-age=3600")
    handler.end_headers()
    if handler.command != "HEAD":
        handler.wfile.write(data)


_PAGES: dict[str, tuple[str, str]] = {
    "/v13/scroll": ("Scroll to a place", SCROLL),
    "/v13/viewport": ("Responsive", VIEWPORT),
    "/v13/cache": ("Cached script", CACHE),
}
# path -> method -> handler, merged into portal.py's ROUTES.
V13_SCROLL_ROUTES: dict[str, dict[str, Callable[[Any], None]]] = {
    **{path: {"GET": lambda h, page=page: h._page(*page)} for path, page in _PAGES.items()},
    "/v13/cache/app.js": {"GET": _app_js},
}
