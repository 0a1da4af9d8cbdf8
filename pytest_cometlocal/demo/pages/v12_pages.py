"""(v1.2) The demo portal's pages for history, popups and new tabs.

- ``/tabs``: a link that opens a new tab (``target=_blank``) and a button that
  opens a sign-in popup (``window.open``); the popup signs in with a form,
  tells its opener (``postMessage``, also kept in ``sessionStorage`` of the
  opener so a reload still shows it) and closes itself, and this page then
  shows "Signed in as NAME".
- ``/tabs/help``: the page the new tab shows.
- ``/tabs/signin``: the popup's form.
- ``/chapters/1`` .. ``/chapters/3``: pages linked one to the next, for
  ``go_back``, ``go_forward`` and ``reload``.

Static HTML with its own script, registered by portal.py's ROUTES (one line).
"""

from __future__ import annotations

TABS = """<h1>Accounts</h1>
<p><a href="/tabs/help" target="_blank" rel="opener">Open help in a new tab</a></p>
<p><button type="button" id="signin">Sign in with popup</button>
   <button type="button" id="nothing">Does nothing</button></p>
<p id="who" data-testid="who" role="status">Not signed in</p>
<script>
const who = document.getElementById("who");
const show = (user) => { who.textContent = `Signed in as ${user}`; };
const kept = sessionStorage.getItem("demo-popup-user");
if (kept) show(kept);
document.getElementById("signin").addEventListener("click", () => {
  window.open("/tabs/signin", "signin", "popup,width=420,height=360");
});
window.addEventListener("message", (e) => {
  if (e.origin !== location.origin || !e.data || typeof e.data.user !== "string") return;
  sessionStorage.setItem("demo-popup-user", e.data.user);
  show(e.data.user);
});
</script>"""

HELP = """<h1>Help</h1>
<p data-testid="help-text">Ask the front desk.</p>"""

SIGNIN = """<h1>Sign in</h1>
<form id="f">
  <label>User <input name="user" autocomplete="off"></label>
  <label>Password <input name="password" type="password"></label>
  <button type="submit">Sign in</button>
</form>
<script>
document.getElementById("f").addEventListener("submit", (e) => {
  e.preventDefault();
  const user = new FormData(e.target).get("user").trim();
  if (window.opener) window.opener.postMessage({user}, location.origin);
  window.close();
});
</script>"""


def _chapter(n: int) -> tuple[str, str]:
    nxt = f'<p><a href="/chapters/{n + 1}">Next chapter</a></p>' if n < 3 else "<p>The end.</p>"
    return f"Chapter {n}", f'<h1>Chapter {n}</h1>\n<p data-testid="chapter">You are reading chapter {n}.</p>\n{nxt}'


PAGES_V12: dict[str, tuple[str, str]] = {
    "/tabs": ("Accounts", TABS),
    "/tabs/help": ("Help", HELP),
    "/tabs/signin": ("Sign in", SIGNIN),
    **{f"/chapters/{n}": _chapter(n) for n in (1, 2, 3)},
}
