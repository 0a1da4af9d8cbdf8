"""(v1.2 audits) The demo portal's page with known accessibility violations, for ``accessibility_clean``.

``/a11y/signup``: a sign-up form whose e-mail field has no label, only a text above it
(axe rule ``label``, impact critical), and a hint in light grey on white (``color-contrast``,
serious), on purpose; its newsletter box (``data-testid="newsletter"``) is clean, so a
target-scoped audit of it holds. Nothing else on the page breaks WCAG 2.1 AA, so the
two rules are exactly what an audit of the whole page finds (tests/executor/test_accessibility.py).

Static HTML, registered by portal.py's ROUTES (one line).
"""

from __future__ import annotations

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
