"""The demo portal's page for plan format v1.3's actions: ``/v13/actions``.

One page with a status line per action, each written by the page's own listeners, so a plan's
postconditions read what the page saw: focus and blur of a field; events dispatched on a form, a
field and a button (with the init keys the listener read); a pad that reports where it was clicked
(``offsetX``/``offsetY``) and where the pointer hovers; a ``<select multiple>``; a field that counts
its key presses and input events (fill with ``delay_ms``); a keyboard line for a lone Shift; and
controls that only look disabled (``aria-disabled``: Playwright waits for them to be enabled, the
page still takes the click), which ``force: true`` acts on. Static HTML with its own script.
"""

from __future__ import annotations

ACTIONS = """<style>
  #pad { width: 200px; height: 100px; background: #def; margin: 0; padding: 0; border: 0; }
  .soft { opacity: .5; display: inline-block; padding: .3em .6em; border: 1px solid #999; cursor: pointer; }
</style>
<h1>Actions</h1>
<h2>Focus</h2>
<label>Name <input id="name" autocomplete="off"></label>
<p id="plain">Plain text</p>
<p id="focus-status" data-testid="focus-status">none</p>
<h2>Events</h2>
<form id="signup" aria-label="Signup"><label>Email <input id="email" autocomplete="off"></label>
  <button type="submit">Sign up</button></form>
<button type="button" id="ping">Ping</button>
<p id="event-status" data-testid="event-status">none</p>
<h2>Pad</h2>
<div id="pad" data-testid="pad"></div>
<p id="pad-status" data-testid="pad-status">none</p>
<h2>Toppings</h2>
<label for="toppings">Toppings</label> <select id="toppings" multiple size="4">
  <option value="ham">Ham</option><option value="olives">Olives</option>
  <option value="basil">Basil</option><option value="chili">Chili</option></select>
<label for="size">Size</label> <select id="size"><option value="s">Small</option><option value="l">Large</option></select>
<p id="toppings-status" data-testid="toppings-status">none</p>
<h2>Typing</h2>
<label>Card number <input id="card" autocomplete="off"></label>
<p id="typing-status" data-testid="typing-status">keys=0 inputs=0</p>
<p id="keys-status" data-testid="keys-status">none</p>
<h2>Looks disabled</h2>
<div role="button" class="soft" id="archive" aria-disabled="true" tabindex="0">Archive</div>
<label>Nickname <input id="nick" aria-disabled="true" autocomplete="off"></label>
<div role="checkbox" class="soft" id="beta" aria-checked="false" aria-disabled="true" aria-label="Beta features"
  tabindex="0">Beta features</div>
<p id="soft-status" data-testid="soft-status">none</p>
<script>
const say = (id, text) => { document.getElementById(id).textContent = text; };
const name = document.getElementById("name");
name.addEventListener("focus", () => say("focus-status", "focused name"));
name.addEventListener("blur", () => say("focus-status", "blurred name"));
document.getElementById("signup").addEventListener("submit", (e) => {
  e.preventDefault();
  say("event-status", `submit bubbles=${e.bubbles} trusted=${e.isTrusted}`);
});
const email = document.getElementById("email");
email.addEventListener("input", () => say("event-status", `input value=${email.value}`));
email.addEventListener("change", () => say("event-status", `change value=${email.value}`));
email.addEventListener("keydown", (e) => say("event-status", `keydown key=${e.key} code=${e.code}`));
document.getElementById("ping").addEventListener("click", (e) =>
  say("event-status", `click detail=${e.detail} clientX=${e.clientX} shift=${e.shiftKey}`));
const pad = document.getElementById("pad");
pad.addEventListener("click", (e) => say("pad-status", `clicked at ${e.offsetX},${e.offsetY}`));
pad.addEventListener("mousemove", (e) => say("pad-status", `over at ${e.offsetX},${e.offsetY}`));
const toppings = document.getElementById("toppings");
toppings.addEventListener("change", () =>
  say("toppings-status", "chosen " + [...toppings.selectedOptions].map((o) => o.value).join(",")));
const card = document.getElementById("card");
let keys = 0, inputs = 0;
card.addEventListener("keydown", () => { keys += 1; say("typing-status", `keys=${keys} inputs=${inputs}`); });
card.addEventListener("input", () => {
  inputs += 1; say("typing-status", `keys=${keys} inputs=${inputs} length=${card.value.length}`);
});
const seen = [];
document.addEventListener("keydown", (e) => { if (e.key === "Shift") { seen.push("down Shift"); say("keys-status", seen.join(", ")); } });
document.addEventListener("keyup", (e) => { if (e.key === "Shift") { seen.push("up Shift"); say("keys-status", seen.join(", ")); } });
document.getElementById("archive").addEventListener("click", () => say("soft-status", "archived"));
document.getElementById("nick").addEventListener("input", (e) => say("soft-status", `nickname ${e.target.value.length} characters`));
document.getElementById("beta").addEventListener("click", (e) => {
  const on = e.target.getAttribute("aria-checked") !== "true";
  e.target.setAttribute("aria-checked", String(on));
  say("soft-status", `beta ${on ? "on" : "off"}`);
});
</script>"""

# path -> (title, body), served by portal.py like WIDGET_PAGES.
V13_ACTIONS_PAGES: dict[str, tuple[str, str]] = {
    "/v13/actions": ("Actions", ACTIONS),
}
