"""The demo portal's page for plan format v1.3's numbers and element checks: a small shop cart.

``/v13/numbers`` shows a cart: an item count that a button raises, a total
price, a quantity field, a stock attribute, a "not a number" status, a red
sale badge (``element_css``), a card whose inner HTML has markup
(``element_html_contains``) and a note far below the fold
(``element_in_viewport``). Its script stores the cart in ``localStorage``
(``cart-v13``: ``{"items", "total"}``) and a ``visits`` cookie, numbers as
browser suites find them. ``/v13/numbers/cart.json`` answers the cart as JSON
(numbers, a number as a string, an ``X-Total-Count`` header) and
``/v13/numbers/echo`` answers a POST's JSON body as it got it, so a plan can
see that a saved number is sent as a number.
"""

from __future__ import annotations

import json
from typing import Any, Callable

CART = """<style>
  .badge { color: rgb(255, 0, 0); background-color: rgb(255, 255, 0); font-weight: 700; }
  .spacer { height: 3000px; }
</style>
<h1>Cart</h1>
<p>Items: <span data-testid="items">3</span></p>
<p>Total: EUR <span data-testid="total">42.50</span></p>
<p>Status: <span data-testid="status">N/A</span></p>
<label>Quantity <input id="qty" type="number" value="2"></label>
<div data-testid="stock" data-stock="15">In stock</div>
<span data-testid="badge" class="badge">Sale</span>
<div data-testid="card"><strong>Sale</strong> ends <em>today</em></div>
<button type="button" id="add">Add one</button>
<div class="spacer"></div>
<p data-testid="note">Prices include VAT.</p>
<script>
const cart = {items: 3, total: 42.5};
const store = () => localStorage.setItem("cart-v13", JSON.stringify(cart));
store();
localStorage.setItem("visits", "5");
document.cookie = "visits=5; path=/";
document.getElementById("add").addEventListener("click", () => {
  cart.items += 1;
  cart.total = Math.round((cart.total + 14.25) * 100) / 100;
  document.querySelector("[data-testid=items]").textContent = String(cart.items);
  document.querySelector("[data-testid=total]").textContent = cart.total.toFixed(2);
  store();
});
</script>"""

CART_JSON = {"items": 3, "total": 42.5, "count_text": "7", "label": "many", "ids": [101, 102, 103]}


def _send_json(h: Any, status: int, payload: Any, headers: list[tuple[str, str]] | None = None) -> None:
    h._send(status, json.dumps(payload), "application/json; charset=utf-8", headers)


def _cart(h: Any) -> None:
    _send_json(h, 200, CART_JSON, [("X-Total-Count", str(CART_JSON["items"]))])


def _echo(h: Any) -> None:
    """The POST's JSON body, as it came (a JSON value of at most 16 KB), under ``got``."""
    try:
        got = json.loads(h._read_body(16 * 1024) or b"null")
    except ValueError:
        return _send_json(h, 400, {"error": "the body is not JSON"})
    except Exception as exc:  # the portal's _BodyRefused
        return _send_json(h, getattr(exc, "status", 400), {"error": str(exc)})
    _send_json(h, 200, {"got": got})


# path -> {method: handler}: rows of portal.py's ROUTES.
V13_NUMBERS_ROUTES: dict[str, dict[str, Callable[[Any], None]]] = {
    "/v13/numbers": {"GET": lambda h: h._page("Cart", CART)},
    "/v13/numbers/cart.json": {"GET": _cart},
    "/v13/numbers/echo": {"POST": _echo},
}
