"""The demo portal's "hold to confirm" button, for an event sequence plans cannot express.

Why: issue 48's example action extension presses the pointer, waits and
releases, which no built-in step does. ``/hold`` has a button (data-testid
``hold-button``) that confirms only when pointerdown and pointerup happen on it
at least 800 ms apart without the pointer leaving it (pointerleave and
pointercancel cancel the hold). The status (data-testid ``hold-status``,
role ``status``) then says ``Confirmed after <ms> ms``; a shorter press, a plain
click included, says ``Too short (<ms> ms)``; a keyboard click does nothing.
"""

from __future__ import annotations

from typing import Any, Callable

HOLD_MS = 800

HOLD_BODY = """<style>
  #hold { padding: 1rem 2rem; font-size: 1.1rem; touch-action: none; user-select: none; }
</style>
<h1>Hold to confirm</h1>
<p>Press and hold the button for at least HOLD_MS ms, then release it.</p>
<button type="button" id="hold" data-testid="hold-button">Hold to confirm</button>
<p id="hold-status" data-testid="hold-status" role="status" aria-live="polite"></p>
<script>
(() => {
  const button = document.getElementById("hold");
  const status = document.getElementById("hold-status");
  let pressedAt = null;
  const cancel = () => {
    if (pressedAt === null) return;
    pressedAt = null;
    status.textContent = "Cancelled";
  };
  button.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    pressedAt = performance.now();
    status.textContent = "Holding";
  });
  button.addEventListener("pointerup", () => {
    if (pressedAt === null) return;
    const ms = Math.round(performance.now() - pressedAt);
    pressedAt = null;
    status.textContent = ms >= HOLD_MS ? "Confirmed after " + ms + " ms" : "Too short (" + ms + " ms)";
  });
  button.addEventListener("pointerleave", cancel);
  button.addEventListener("pointercancel", cancel);
  button.addEventListener("contextmenu", (event) => event.preventDefault());
})();
</script>""".replace("HOLD_MS", str(HOLD_MS))

# path -> {method: handler}: rows of portal.py's ROUTES.
HOLD_ROUTES: dict[str, dict[str, Callable[[Any], None]]] = {
    "/hold": {"GET": lambda h: h._page("Hold to confirm", HOLD_BODY)},
}
