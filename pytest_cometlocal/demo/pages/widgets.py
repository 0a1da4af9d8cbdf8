"""The demo portal's single-page widgets: one page per thing plan format v1.1 adds.

Each page is static HTML with its own script, built the way real single-page
applications build theirs, so that v1 alone cannot drive it: a search that
applies only on Enter, a menu and a toolbar that take the pointer only while
hovered, a virtualized list that renders only the rows in view, a custom ARIA
combobox, checkboxes whose native input is hidden behind its label, a switch,
a sortable list (HTML5 drag and drop) and a code editor whose text area must
be cleared with select-all.
"""

from __future__ import annotations

SEARCH = """<h1>Search</h1>
<p>Press Enter to apply.</p>
<input id="q" aria-label="Search" autocomplete="off">
<p id="results" role="status">No search yet</p>
<ul id="hits"></ul>
<script>
const BOOKS = ["Dune", "Dune Messiah", "Emma", "Ulysses", "Middlemarch"];
document.getElementById("q").addEventListener("keydown", (e) => {
  if (e.key !== "Enter") return;
  const q = e.target.value.trim().toLowerCase();
  const found = BOOKS.filter((b) => b.toLowerCase().includes(q));
  document.getElementById("results").textContent = `Results for "${e.target.value.trim()}": ${found.length}`;
  document.getElementById("hits").innerHTML = found.map((b) => `<li>${b}</li>`).join("");
});
</script>"""

MENU = """<style>
  .menu { display: inline-block; position: relative; padding: 4px; }
  .menu .submenu { display: none; position: absolute; top: 100%; left: 0; background: #fff;
                   border: 1px solid #999; padding: 4px; min-width: 8em; }
  .menu:hover .submenu { display: block; }
  .grid { border: 1px solid #999; margin-top: 3em; padding: 8px; width: 24em; position: relative; }
  .grid .toolbar { visibility: hidden; position: absolute; top: 2px; right: 2px; }
  .grid:hover .toolbar { visibility: visible; }
</style>
<h1>Menu</h1>
<nav aria-label="Main">
  <div class="menu" data-testid="products-menu">
    <span role="button" tabindex="0" aria-haspopup="menu">Products</span>
    <div class="submenu" role="menu" aria-label="Products">
      <a role="menuitem" href="#laptops" data-item="Laptops">Laptops</a><br>
      <a role="menuitem" href="#phones" data-item="Phones">Phones</a>
    </div>
  </div>
</nav>
<p id="picked" role="status">Nothing picked</p>
<div class="grid" data-testid="grid" aria-label="Orders grid" role="region">
  <div class="toolbar" role="toolbar" aria-label="Grid tools">
    <button type="button">Download</button><button type="button">Fullscreen</button>
  </div>
  <p>Order 1 &middot; Order 2 &middot; Order 3</p>
</div>
<script>
document.querySelectorAll("[role=menuitem]").forEach((a) => a.addEventListener("click", (e) => {
  e.preventDefault();
  document.getElementById("picked").textContent = "Picked: " + a.dataset.item;
}));
document.querySelectorAll(".toolbar button").forEach((b) => b.addEventListener("click", () => {
  document.getElementById("picked").textContent = "Tool: " + b.textContent;
}));
</script>"""

GRID = """<style>
  #viewport { height: 300px; width: 24em; overflow-y: auto; border: 1px solid #999; position: relative; }
  #spacer { position: relative; }
  .row { position: absolute; left: 0; right: 0; height: 30px; line-height: 30px; padding-left: 6px;
         box-sizing: border-box; border-bottom: 1px solid #eee; }
</style>
<h1>Products</h1>
<p id="count">1000 products</p>
<div id="viewport" data-testid="product-grid" role="grid" aria-label="Products" aria-rowcount="1000">
  <div id="spacer" role="rowgroup"></div>
</div>
<p id="selected" role="status">No product selected</p>
<script>
// Renders only the rows in view; like many grids, it renders after scrolling stops.
// ?rows=N gives a shorter (or longer) list: 1000 rows by default.
const wanted = parseInt(new URLSearchParams(location.search).get("rows"), 10);
const ROWS = wanted > 0 && wanted <= 100000 ? wanted : 1000, HEIGHT = 30, OVERSCAN = 2;
document.getElementById("count").textContent = ROWS + " products";
document.getElementById("viewport").setAttribute("aria-rowcount", String(ROWS));
const viewport = document.getElementById("viewport"), spacer = document.getElementById("spacer");
spacer.style.height = (ROWS * HEIGHT) + "px";
const code = (i) => "P-" + String(i).padStart(3, "0");
function render() {
  const first = Math.max(0, Math.floor(viewport.scrollTop / HEIGHT) - OVERSCAN);
  const last = Math.min(ROWS, Math.ceil((viewport.scrollTop + viewport.clientHeight) / HEIGHT) + OVERSCAN);
  const html = [];
  for (let i = first; i < last; i++) {
    html.push(`<div class="row" role="row" aria-rowindex="${i + 1}" style="top:${i * HEIGHT}px">` +
              `<span role="gridcell">${code(i + 1)}</span> <span role="gridcell">Product ${i + 1}</span></div>`);
  }
  spacer.innerHTML = html.join("");
}
let timer = null;
viewport.addEventListener("scroll", () => { clearTimeout(timer); timer = setTimeout(render, 120); });
spacer.addEventListener("click", (e) => {
  const row = e.target.closest(".row");
  if (row) document.getElementById("selected").textContent = "Selected " + row.querySelector("span").textContent;
});
render();
</script>"""

LISTBOX = """<style>
  [role=listbox] { list-style: none; margin: 0; padding: 2px; border: 1px solid #999; width: 12em; background: #fff; }
  [role=option] { padding: 2px 4px; cursor: pointer; }
  [role=option]:hover { background: #def; }
  .combo { border: 1px solid #666; padding: 4px; width: 12em; cursor: pointer; }
</style>
<h1>Preferences</h1>
<span id="country-label">Country</span>
<div class="combo" role="combobox" tabindex="0" aria-haspopup="listbox" aria-expanded="false"
     aria-controls="countries" aria-labelledby="country-label" data-testid="country">Choose a country</div>
<ul id="countries" role="listbox" aria-label="Countries" hidden>
  <li role="option">France</li><li role="option">Germany</li><li role="option">New Zealand</li>
  <li role="option">Spain</li><li role="option">United Kingdom</li>
</ul>
<p><button type="button" aria-haspopup="listbox" aria-expanded="false" id="sort">Sort: Newest</button></p>
<ul id="sorts" role="listbox" aria-label="Sort order" hidden>
  <li role="option">Newest</li><li role="option">Oldest</li><li role="option">Price</li><li role="option">Price</li>
</ul>
<p id="chosen" role="status">No country</p>
<script>
function popup(opener, list, apply) {
  opener.addEventListener("click", () => {
    list.hidden = !list.hidden;
    opener.setAttribute("aria-expanded", String(!list.hidden));
  });
  list.addEventListener("click", (e) => {
    const option = e.target.closest("[role=option]");
    if (!option) return;
    list.hidden = true;
    opener.setAttribute("aria-expanded", "false");
    apply(option.textContent);
  });
}
const combo = document.querySelector("[role=combobox]");
popup(combo, document.getElementById("countries"), (name) => {
  combo.textContent = name;
  document.getElementById("chosen").textContent = "Country: " + name;
});
const sort = document.getElementById("sort");
popup(sort, document.getElementById("sorts"), (name) => { sort.textContent = "Sort: " + name; });
</script>"""

TOGGLES = """<style>
  .kit { position: relative; display: inline-block; padding-left: 1.6em; cursor: pointer; }
  .kit input { position: absolute; left: 0; top: 0; opacity: 0; width: 1px; height: 1px; }
  .kit .box { position: absolute; left: 0; top: 0.1em; width: 1em; height: 1em; border: 1px solid #333; }
  .kit input:checked + .box { background: #333; }
  [role=switch] { border: 1px solid #333; border-radius: 1em; padding: 2px 10px; }
  [role=switch][aria-checked=true] { background: #333; color: #fff; }
</style>
<h1>Settings</h1>
<p><label><input type="checkbox" id="news" name="news"> Subscribe to the newsletter</label></p>
<p><label class="kit" data-testid="terms-label"><input type="checkbox" id="terms"><span class="box"></span>
   Accept the terms</label></p>
<p><button type="button" role="switch" aria-checked="false" id="dark">Dark mode</button></p>
<fieldset><legend>Plan</legend>
  <label><input type="radio" name="plan" value="basic" checked> Basic</label>
  <label><input type="radio" name="plan" value="pro"> Pro</label>
</fieldset>
<p><button type="button" id="save">Save settings</button></p>
<p id="state" role="status"></p>
<script>
const state = document.getElementById("state");
function show() {
  const plan = document.querySelector("input[name=plan]:checked").value;
  state.textContent = `newsletter=${document.getElementById("news").checked} terms=${document.getElementById("terms").checked} ` +
                      `dark=${document.getElementById("dark").getAttribute("aria-checked")} plan=${plan}`;
}
document.querySelectorAll("input").forEach((i) => i.addEventListener("change", show));
document.getElementById("dark").addEventListener("click", (e) => {
  const b = e.currentTarget;
  b.setAttribute("aria-checked", b.getAttribute("aria-checked") === "true" ? "false" : "true");
  show();
});
document.getElementById("save").addEventListener("click", () => { state.textContent = "Saved. " + state.textContent; });
show();
</script>"""

SORTABLE = """<style>
  #tasks { list-style: none; padding: 0; width: 14em; }
  #tasks li { border: 1px solid #999; margin: 4px 0; padding: 6px; background: #fafafa; cursor: move; }
</style>
<h1>Priorities</h1>
<ul id="tasks" aria-label="Tasks">
  <li draggable="true" data-testid="task-write">Write</li>
  <li draggable="true" data-testid="task-review">Review</li>
  <li draggable="true" data-testid="task-ship">Ship</li>
</ul>
<p id="order" role="status"></p>
<script>
const list = document.getElementById("tasks");
const order = () => { document.getElementById("order").textContent =
  "Order: " + [...list.children].map((li) => li.textContent).join(", "); };
let dragged = null;
list.addEventListener("dragstart", (e) => { dragged = e.target.closest("li"); e.dataTransfer.setData("text/plain", dragged.textContent); });
list.addEventListener("dragover", (e) => e.preventDefault());
list.addEventListener("drop", (e) => {
  e.preventDefault();
  const onto = e.target.closest("li");
  if (!dragged || !onto || onto === dragged) return;
  list.insertBefore(dragged, onto);
  order();
});
order();
</script>"""

EDITOR = """<style>
  .editor { border: 1px solid #333; font-family: monospace; padding: 6px; width: 30em; min-height: 3em; position: relative; }
  .editor textarea { position: absolute; opacity: 0; left: 0; top: 0; width: 1px; height: 1px; }
  .editor .selected { background: #bdf; }
</style>
<h1>Query</h1>
<div class="editor" data-testid="sql-editor">
  <textarea aria-label="SQL query" autocomplete="off" spellcheck="false"></textarea>
  <pre id="code">select * from books order by year</pre>
</div>
<p><button type="button" id="run">Run SQL</button></p>
<p id="output" role="status">Not run yet</p>
<script>
// Like a code editor built on a hidden text area: what is typed is inserted at the
// cursor (the end); only select-all (Control/Meta+A) makes the next input replace it.
const area = document.querySelector(".editor textarea"), code = document.getElementById("code");
let all = false;
document.querySelector(".editor").addEventListener("click", () => area.focus());
area.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "a") { e.preventDefault(); all = true; code.className = "selected"; }
  else if (e.key === "Delete" || e.key === "Backspace") { if (all) { code.textContent = ""; all = false; code.className = ""; } }
});
area.addEventListener("input", () => {
  code.textContent = all ? area.value : code.textContent + area.value;
  all = false; code.className = ""; area.value = "";
});
document.getElementById("run").addEventListener("click", () => {
  const sql = code.textContent.trim();
  const ok = /^select \\* from \\w+( order by \\w+)?$/i.test(sql);
  document.getElementById("output").textContent = ok ? "Ran: " + sql : "Error: syntax error near " + JSON.stringify(sql.slice(-20));
});
</script>"""

WIDGETS_INDEX = """<h1>Widgets</h1>
<ul>
  <li><a href="/spa/search">Search that applies on Enter</a></li>
  <li><a href="/spa/menu">Hover menu and toolbar</a></li>
  <li><a href="/spa/grid">Virtualized product list</a></li>
  <li><a href="/spa/listbox">Custom dropdowns</a></li>
  <li><a href="/spa/toggles">Checkboxes, switch and radios</a></li>
  <li><a href="/spa/sortable">Sortable list</a></li>
  <li><a href="/spa/editor">SQL editor</a></li>
</ul>"""

# path -> (title, body): served as is by the portal (portal.ROUTES).
WIDGET_PAGES: dict[str, tuple[str, str]] = {
    "/spa": ("Widgets", WIDGETS_INDEX),
    "/spa/search": ("Search", SEARCH),
    "/spa/menu": ("Menu", MENU),
    "/spa/grid": ("Products", GRID),
    "/spa/listbox": ("Preferences", LISTBOX),
    "/spa/toggles": ("Settings", TOGGLES),
    "/spa/sortable": ("Priorities", SORTABLE),
    "/spa/editor": ("Query", EDITOR),
}
