"""The demo portal's TodoMVC (``/todomvc/``): the application browser-test suites ship their example for.

Why: Playwright's own example suite (``demo-todo-app.spec.ts``) runs against TodoMVC's React
implementation; porting it plan by plan needs that application on 127.0.0.1. This page
follows TodoMVC's app spec and the React implementation's DOM: the classes ``new-todo``,
``toggle-all``, ``todo-list``, ``toggle``, ``destroy``, ``edit``, ``footer``,
``todo-count``, ``filters`` and ``clear-completed``; ``completed`` and ``editing`` on an
item's ``<li>``; ``data-testid`` ``todo-item``, ``todo-title`` and ``todo-count``; hash
routes ``#/``, ``#/active``, ``#/completed`` with the current filter's link ``selected``;
double-click to edit, Enter or blur saves (trimmed; empty removes), Escape cancels; and the
items kept in ``localStorage['react-todos']`` as a JSON array of ``{id, title, completed}``.
``/v12/todos`` stays as it was for the v1.2 example plan.
"""

from __future__ import annotations

TODOMVC = """<style>
  .todoapp { max-width: 550px; }
  .new-todo, .edit { font-size: 1.2rem; padding: .4rem; width: 90%; }
  .toggle-all { position: absolute; opacity: 0; width: 1px; height: 1px; }
  .todo-list { list-style: none; padding: 0; }
  .todo-list li { display: flex; gap: .5rem; align-items: center; min-height: 2rem; }
  .todo-list li .view { display: flex; gap: .5rem; align-items: center; width: 100%; }
  .todo-list li label { display: inline; margin: 0; flex: 1; }
  .todo-list li.completed label { text-decoration: line-through; color: #999; }
  .todo-list li .edit { display: none; }
  .todo-list li.editing .edit { display: block; }
  .todo-list li.editing .view { display: none; }
  .todo-list li .destroy { visibility: hidden; margin: 0; }
  .todo-list li:hover .destroy { visibility: visible; }
  .todo-list li .destroy::after { content: "\\00d7"; }
  .filters { list-style: none; display: inline-flex; gap: .6rem; padding: 0; }
  .filters a.selected { font-weight: bold; }
</style>
<section class="todoapp">
  <header class="header">
    <h1>todos</h1>
    <input class="new-todo" placeholder="What needs to be done?" autofocus>
  </header>
  <section class="main" hidden>
    <input id="toggle-all" class="toggle-all" type="checkbox">
    <label for="toggle-all">Mark all as complete</label>
    <ul class="todo-list"></ul>
  </section>
  <footer class="footer" hidden>
    <span class="todo-count" data-testid="todo-count"></span>
    <ul class="filters">
      <li><a href="#/">All</a></li>
      <li><a href="#/active">Active</a></li>
      <li><a href="#/completed">Completed</a></li>
    </ul>
    <button class="clear-completed">Clear completed</button>
  </footer>
</section>
<p class="info">Double-click to edit a todo</p>
<script>
const KEY = "react-todos";
const $ = (s) => document.querySelector(s);
let todos = JSON.parse(localStorage.getItem(KEY) || "[]");
let editing = null;
const save = () => localStorage.setItem(KEY, JSON.stringify(todos));
const route = () => ({"#/active": "active", "#/completed": "completed"})[location.hash] || "all";
const shown = (t) => route() === "all" || (route() === "active") === !t.completed;
function uuid() { return Math.random().toString(36).slice(2) + Date.now().toString(36); }
function update(next) { todos = next; save(); render(); }

function item(todo) {
  const li = document.createElement("li");
  li.dataset.testid = "todo-item";
  li.className = [todo.completed ? "completed" : "", editing === todo.id ? "editing" : ""].join(" ").trim();
  li.innerHTML = '<div class="view"><input class="toggle" type="checkbox" aria-label="Toggle Todo">'
    + '<label data-testid="todo-title"></label><button class="destroy" aria-label="Delete"></button></div>';
  li.querySelector("label").textContent = todo.title;
  const toggle = li.querySelector(".toggle");
  toggle.checked = todo.completed;
  toggle.addEventListener("change", () => update(todos.map((t) => t === todo ? {...t, completed: !t.completed} : t)));
  li.querySelector(".destroy").addEventListener("click", () => update(todos.filter((t) => t !== todo)));
  li.querySelector("label").addEventListener("dblclick", () => { editing = todo.id; render(); });
  if (editing === todo.id) {
    const edit = document.createElement("input");
    edit.className = "edit";
    edit.setAttribute("aria-label", "Edit");
    edit.value = todo.title;
    let done = false;
    const finish = (keep) => {
      if (done) return;
      done = true;
      editing = null;
      const title = edit.value.trim();
      if (!keep) render();
      else if (title) update(todos.map((t) => t.id === todo.id ? {...t, title} : t));
      else update(todos.filter((t) => t.id !== todo.id));
    };
    edit.addEventListener("keydown", (e) => {
      if (e.key === "Enter") finish(true);
      if (e.key === "Escape") finish(false);
    });
    edit.addEventListener("blur", () => finish(true));
    li.appendChild(edit);
  }
  return li;
}

function render() {
  const list = $(".todo-list");
  list.replaceChildren(...todos.filter(shown).map(item));
  const left = todos.filter((t) => !t.completed).length;
  const done = todos.length - left;
  $(".main").hidden = todos.length === 0;
  $(".footer").hidden = todos.length === 0;
  $(".toggle-all").checked = todos.length > 0 && left === 0;
  $(".todo-count").innerHTML = "<strong>" + left + "</strong> " + (left === 1 ? "item" : "items") + " left";
  $(".clear-completed").hidden = done === 0;
  document.querySelectorAll(".filters a").forEach((a) => {
    a.className = (a.getAttribute("href") === "#/" + (route() === "all" ? "" : route())) ? "selected" : "";
  });
  const edit = list.querySelector(".edit");
  if (edit) edit.focus();
}

$(".new-todo").addEventListener("keydown", (e) => {
  const title = e.target.value.trim();
  if (e.key !== "Enter" || !title) return;
  e.target.value = "";
  update([...todos, {id: uuid(), title, completed: false}]);
});
$(".toggle-all").addEventListener("change", (e) => update(todos.map((t) => ({...t, completed: e.target.checked}))));
$(".clear-completed").addEventListener("click", () => update(todos.filter((t) => !t.completed)));
window.addEventListener("hashchange", render);
render();
</script>"""

# path -> (title, body), served by portal.py like V12_CHECKS_PAGES.
TODOMVC_PAGES: dict[str, tuple[str, str]] = {
    "/todomvc/": ("React • TodoMVC", TODOMVC),
}
