"""The demo portal's pages for plan format v1.2's browser settings and clock.

``/v12/settings`` shows what a plan's ``browser:`` and ``clock:`` change, as
the browser reports it: today's date and a number in the locale's format
(``Intl.DateTimeFormat`` / ``Intl.NumberFormat``), the time zone, the
language, the window's width, whether it is a touch screen and the user agent.
``/v12/banner`` shows a banner ten seconds after it loads (``setTimeout``):
with ``clock.at`` a plan's ``advance_clock`` brings it at once.
``/v12/clock`` reads ``Date.now()`` and ``performance.now()`` (since it loaded) when asked (no
timer of its own runs meanwhile), waits on the server when asked (``/slow``:
real time passes), marks a ``setTimeout`` of one second when it fires, and adds
a paragraph once scrolled near its bottom (a ``scroll`` step works there): with
``clock.at`` the readings stand still until ``advance_clock`` moves them.
"""

from __future__ import annotations

SETTINGS = """<h1>Settings</h1>
<dl>
  <dt>Today</dt><dd id="today" data-testid="today"></dd>
  <dt>ISO date</dt><dd id="iso" data-testid="iso"></dd>
  <dt>Amount</dt><dd id="amount" data-testid="amount"></dd>
  <dt>Time zone</dt><dd id="zone" data-testid="zone"></dd>
  <dt>Language</dt><dd id="language" data-testid="language"></dd>
  <dt>Width</dt><dd id="width" data-testid="width"></dd>
  <dt>Touch</dt><dd id="touch" data-testid="touch"></dd>
  <dt>Browser</dt><dd id="agent" data-testid="agent"></dd>
</dl>
<script>
const now = new Date();
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const show = (id, text) => { document.getElementById(id).textContent = text; };
show("today", new Intl.DateTimeFormat(undefined, {dateStyle: "long", timeZone: zone}).format(now));
show("iso", now.toISOString().slice(0, 16) + "Z");
show("amount", new Intl.NumberFormat().format(1234567.891));
show("zone", zone);
show("language", navigator.language);
show("width", String(window.innerWidth));
show("touch", navigator.maxTouchPoints > 0 ? "yes" : "no");
show("agent", navigator.userAgent);
</script>"""

BANNER = """<h1>Offers</h1>
<p>Today's offer appears in a moment.</p>
<div id="banner" role="status" hidden>Flash sale: 20% off until midnight</div>
<script>
setTimeout(() => { document.getElementById("banner").hidden = false; }, 10000);
</script>"""

CLOCK = """<h1>Clock</h1>
<button id="read" type="button">Read the clock</button>
<button id="wait" type="button">Ask the server</button>
<p>Date.now(): <output id="date" data-testid="date"></output></p>
<p>performance.now() since the page loaded: <output id="perf" data-testid="perf"></output></p>
<p id="answer" data-testid="answer"></p>
<p id="fired" data-testid="fired" hidden>One second has passed</p>
<div style="height: 3000px"></div>
<script>
addEventListener("scroll", () => {
  if (scrollY + innerHeight < 2500 || document.getElementById("more")) return;
  document.body.insertAdjacentHTML("beforeend", '<p id="more" data-testid="more">More below</p>');
});
const loaded = performance.now();
const show = (id, text) => { document.getElementById(id).textContent = text; };
document.getElementById("read").onclick = () => {
  show("date", String(Date.now()));
  show("perf", String(performance.now() - loaded));
};
document.getElementById("wait").onclick = async () => {
  show("answer", "");
  const response = await fetch("/slow?ms=300");
  show("answer", response.ok ? "answered" : "failed");
};
setTimeout(() => { document.getElementById("fired").hidden = false; }, 1000);
</script>"""

# path -> (title, body), served as the widgets are (portal.py).
V12_SETTINGS_PAGES: dict[str, tuple[str, str]] = {
    "/v12/settings": ("Settings", SETTINGS),
    "/v12/banner": ("Offers", BANNER),
    "/v12/clock": ("Clock", CLOCK),
}
