"""(v1.2) The demo portal's pages for the audit conditions: a page to keep a reviewed picture of.

- ``/pictures``: a checkout summary drawn the same way every time (fixed sizes, no web
  font, nothing random), with three things a picture check must cope with: a badge
  whose CSS animation never ends (stopped for the picture, as Playwright's
  ``animations: "disabled"`` stops it), a clock that shows the time (masked by the plan),
  and a field for a card code typed from a secret (always masked).

The ``visual`` variant (variants.py, ``COMETLOCAL_DEMO_VARIANT=visual``) is a visual
regression: the "Pay now" button moved right and turned red. The example plan
example_plans/v12/pictures_checkout.actions.yaml keeps its baseline beside it.

Static HTML with its own script, registered by portal.py's ROUTES (one line).

- ``accessibility_clean``'s page with known violations: ``/a11y/signup``: a sign-up form whose e-mail field has no label, only a text above it
(axe rule ``label``, impact critical), and a hint in light grey on white (``color-contrast``,
serious), on purpose; its newsletter box (``data-testid="newsletter"``) is clean, so a
target-scoped audit of it holds. Nothing else on the page breaks WCAG 2.1 AA, so the
two rules are exactly what an audit of the whole page finds (tests/executor/test_accessibility.py).
"""

from __future__ import annotations

PICTURES = """<style>
  #checkout { font: 16px/1.4 sans-serif; width: 520px; padding: 16px; border: 1px solid #cbd5e1; }
  #checkout h2 { margin: 0 0 8px; font-size: 20px; }
  #pay { margin-left: 0; background: #2563eb; color: #fff; border: 0; padding: 8px 20px; font-size: 16px; }
  .badge { display: inline-block; width: 12px; height: 12px; border-radius: 6px; background: #16a34a;
           animation: pulse 0.8s linear infinite alternate; }
  @keyframes pulse { from { opacity: 1; transform: scale(1); } to { opacity: 0.2; transform: scale(1.6); } }
  #clock { display: inline-block; width: 140px; overflow: hidden; white-space: nowrap; font-family: monospace; }
</style>
<section id="checkout" data-testid="checkout">
  <h2>Order summary <span class="badge" title="live"></span></h2>
  <p>2 × Notebook, 1 × Pen: <strong>14.50 EUR</strong></p>
  <p>Updated at <span id="clock" data-testid="clock"></span></p>
  <p><label>Card code <input id="code" data-testid="card-code" autocomplete="off" size="12"></label></p>
  <p data-testid="pay-row"><button type="button" id="pay">Pay now</button></p>
</section>
<script>
const clock = document.getElementById("clock");
const tick = () => { clock.textContent = new Date().toISOString().slice(11, 23); };
tick();
setInterval(tick, 37);
</script>"""

# The visual regression the ``visual`` variant serves: the button moved and recoloured (variants.py).
PAY_BUTTON = "#pay { margin-left: 0; background: #2563eb;"
PAY_BUTTON_REGRESSED = "#pay { margin-left: 40px; background: #dc2626;"

AUDIT_PAGES: dict[str, tuple[str, str]] = {
    "/pictures": ("Checkout", PICTURES),
}


SIGNUP = """<h1>Sign up</h1>
<form id="signup" onsubmit="return false">
  <p>E-mail address</p>
  <input type="email" name="email">
  <p class="hint" style="color: #c4c4c4; background: #ffffff">We never share your address.</p>
  <label>Name <input type="text" name="name"></label>
  <button type="submit">Create account</button>
</form>
<section data-testid="newsletter" aria-labelledby="news">
  <h2 id="news">Newsletter</h2>
  <p>One e-mail a month, no more.</p>
  <label><input type="checkbox" name="monthly"> Send me the newsletter</label>
</section>"""

ACCESSIBILITY_PAGES: dict[str, tuple[str, str]] = {
    "/a11y/signup": ("Sign up", SIGNUP),
}
