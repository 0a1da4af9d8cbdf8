"""The demo portal's pages for plan format v1.3's browser state: a per-record to-do store and a page of cookies.

``/v13/state/todos`` stores each to-do under its own generated key (``todo-<random id>``, a JSON
``{title, completed}``), as one of the TodoMVC implementations does: no single key holds the list,
so only ``storage_items`` (a key pattern) can count and check them. It keeps a ``settings`` item
beside them (a key the pattern must leave out), shows what the session area holds, and renders
from storage on every load. ``/v13/state/cookies`` is sent with cookies whose attributes differ
(an HttpOnly session cookie, a persistent one on a narrower path), sets one more from its script,
and shows ``document.cookie``, which a secret cookie would show too (masked in the run folder).
"""

from __future__ import annotations

TODOS = """<h1>Todos</h1>
<input id="new-todo" aria-label="What needs to be done?" placeholder="What needs to be done?" autocomplete="off">
<ul id="todo-list" data-testid="todo-list"></ul>
<p><span id="count" data-testid="count"></span> <button type="button" id="clear">Clear completed</button></p>
<p>Session: <span id="session" data-testid="session"></span></p>
<script>
const PREFIX = "todo-";
const items = () => Object.keys(localStorage).filter((k) => k.startsWith(PREFIX)).sort()
  .map((k) => [k, JSON.parse(localStorage.getItem(k))]);
function render() {
  const list = document.getElementById("todo-list");
  list.innerHTML = "";
  for (const [key, item] of items()) {
    const li = document.createElement("li");
    li.dataset.testid = "todo-item";
    const box = document.createElement("input");
    box.type = "checkbox";
    box.checked = item.completed;
    box.setAttribute("aria-label", "Toggle " + item.title);
    box.addEventListener("change", () => {
      localStorage.setItem(key, JSON.stringify({...item, completed: box.checked}));
      render();
    });
    const label = document.createElement("label");
    label.textContent = item.title;
    li.append(box, label);
    list.append(li);
  }
  const left = items().filter(([, i]) => !i.completed).length;
  document.getElementById("count").textContent = left + (left === 1 ? " item left" : " items left");
  document.getElementById("session").textContent = JSON.stringify(Object.fromEntries(Object.entries(sessionStorage)));
}
document.getElementById("new-todo").addEventListener("keydown", (e) => {
  const title = e.target.value.trim();
  if (e.key !== "Enter" || !title) return;
  const id = crypto.getRandomValues(new Uint32Array(2)).join("").slice(0, 12);
  localStorage.setItem(PREFIX + id, JSON.stringify({title, completed: false}));
  e.target.value = "";
  render();
});
document.getElementById("clear").addEventListener("click", () => {
  for (const [key, item] of items()) if (item.completed) localStorage.removeItem(key);
  render();
});
if (!localStorage.getItem("settings")) localStorage.setItem("settings", JSON.stringify({theme: "light"}));
if (!sessionStorage.getItem("tab")) {
  sessionStorage.setItem("tab", "todos");
  sessionStorage.setItem("filters", JSON.stringify({show: "all", sort: ["title"]}));
}
render();
</script>"""

COOKIES = """<h1>Cookies</h1>
<p>The server set a session cookie and a preference; this page sets one more.</p>
<p>document.cookie: <span id="cookies" data-testid="cookies"></span></p>
<script>
document.cookie = "seen=1; path=/";
document.getElementById("cookies").textContent = document.cookie;
</script>"""

# path -> (title, body, status, head, headers), served by portal.py like V12_CHECKS_PAGES.
V13_STATE_PAGES: dict[str, tuple[str, str, int, str, list[tuple[str, str]]]] = {
    "/v13/state/todos": ("Todos", TODOS, 200, "", []),
    "/v13/state/cookies": ("Cookies", COOKIES, 200, "", [
        ("Set-Cookie", "session_id=s3ss10n; Path=/; HttpOnly; SameSite=Strict"),
        ("Set-Cookie", "prefs=compact; Path=/v13; Max-Age=3600; SameSite=Lax"),
    ]),
}
