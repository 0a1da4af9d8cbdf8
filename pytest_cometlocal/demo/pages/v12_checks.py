"""The demo portal's pages for plan format v1.2's checks: a to-do list and a settings panel.

``/v12/todos`` keeps its items in ``localStorage`` (``todos-v12``: a JSON array
of ``{title, completed}``) as the to-do applications of browser-test suites do,
marks a done item's ``<li>`` with the class ``completed``, shows or hides the
footer, the "Clear completed" button and the "nothing to do" note as items come
and go, and sets a cookie when a filter is picked. ``/v12/panel`` has a heading
hierarchy, a disclosure button (``aria-expanded``), a toggle button
(``aria-pressed``), tabs (``aria-selected``), checkboxes, one disabled, and a
field whose value the page fills. Each is static HTML with its own script.
"""

from __future__ import annotations

TODOS = """<style>
  li.completed label { text-decoration: line-through; color: #777; }
  .hidden { display: none; }
</style>
<h1>Todos</h1>
<input id="new-todo" aria-label="What needs to be done?" placeholder="What needs to be done?" autocomplete="off">
<p id="empty" data-testid="empty">Nothing to do yet.</p>
<ul id="todo-list" data-testid="todo-list"></ul>
<footer id="footer" class="hidden">
  <span id="count" data-testid="count"></span>
  <button type="button" data-filter="all">All</button>
  <button type="button" data-filter="active">Active</button>
  <button type="button" data-filter="completed">Completed</button>
  <button type="button" id="clear" class="hidden">Clear completed</button>
</footer>
<script>
const KEY = "todos-v12";
let filter = "all";
const load = () => JSON.parse(localStorage.getItem(KEY) || "[]");
const save = (items) => localStorage.setItem(KEY, JSON.stringify(items));
function render() {
  const items = load();
  const list = document.getElementById("todo-list");
  list.innerHTML = "";
  items.forEach((item, i) => {
    if ((filter === "active" && item.completed) || (filter === "completed" && !item.completed)) return;
    const li = document.createElement("li");
    li.dataset.testid = "todo-item";
    if (item.completed) li.className = "completed";
    li.innerHTML = `<input type="checkbox" class="toggle" aria-label="Toggle ${item.title}"> <label></label>`;
    li.querySelector("label").textContent = item.title;
    li.querySelector("input").checked = item.completed;
    li.querySelector("input").addEventListener("change", () => {
      const all = load(); all[i].completed = !all[i].completed; save(all); render();
    });
    list.appendChild(li);
  });
  const left = items.filter((t) => !t.completed).length;
  document.getElementById("count").textContent = `${left} ${left === 1 ? "item" : "items"} left`;
  document.getElementById("footer").classList.toggle("hidden", items.length === 0);
  document.getElementById("empty").classList.toggle("hidden", items.length !== 0);
  document.getElementById("clear").classList.toggle("hidden", !items.some((t) => t.completed));
}
document.getElementById("new-todo").addEventListener("keydown", (e) => {
  if (e.key !== "Enter" || !e.target.value.trim()) return;
  save([...load(), {title: e.target.value.trim(), completed: false}]);
  e.target.value = "";
  render();
});
document.getElementById("clear").addEventListener("click", () => { save(load().filter((t) => !t.completed)); render(); });
document.querySelectorAll("[data-filter]").forEach((b) => b.addEventListener("click", () => {
  filter = b.dataset.filter;
  document.cookie = `todo-filter=${filter}; path=/`;
  render();
}));
render();
</script>"""

PANEL = """<h1>Account</h1>
<h2>Profile</h2>
<label>Email <input id="email" value="ada@example.org"></label>
<button type="button" id="fill">Use work address</button>
<h2>Notifications</h2>
<label><input type="checkbox" id="mail" checked> Mail</label>
<label><input type="checkbox" id="sms"> Text messages</label>
<label><input type="checkbox" id="fax" disabled> Fax</label>
<button type="button" id="mute" aria-pressed="false">Mute</button>
<h3>Advanced</h3>
<button type="button" id="more" aria-expanded="false" aria-controls="more-panel">More options</button>
<div id="more-panel" hidden><p>Digest every week</p></div>
<div role="tablist" aria-label="Period">
  <button role="tab" aria-selected="true" id="t-day">Day</button>
  <button role="tab" aria-selected="false" id="t-week">Week</button>
</div>
<script>
document.getElementById("fill").addEventListener("click", () => {
  document.getElementById("email").value = "ada.lovelace@work.example";
});
document.getElementById("mute").addEventListener("click", (e) => {
  e.target.setAttribute("aria-pressed", String(e.target.getAttribute("aria-pressed") !== "true"));
});
document.getElementById("more").addEventListener("click", (e) => {
  const open = e.target.getAttribute("aria-expanded") !== "true";
  e.target.setAttribute("aria-expanded", String(open));
  document.getElementById("more-panel").hidden = !open;
});
document.querySelectorAll("[role=tab]").forEach((tab) => tab.addEventListener("click", () => {
  document.querySelectorAll("[role=tab]").forEach((t) => t.setAttribute("aria-selected", String(t === tab)));
}));
</script>"""

# path -> (title, body), served by portal.py like WIDGET_PAGES.
V12_CHECKS_PAGES: dict[str, tuple[str, str]] = {
    "/v12/todos": ("Todos", TODOS),
    "/v12/panel": ("Account", PANEL),
}
