"""The demo portal's order form, whose orders go into a real SQLite database.

Why: a plan sees only the page, yet real suites often need to check what the
application stored (issue 48's example extension checks a row here). So
``/orders`` is a plain HTML form (customer, item, quantity) whose POST is
validated on the server and, when valid, inserts one row into the ``orders``
table of a SQLite file, commits, and redirects to ``/orders?placed=<id>``,
which shows ``Order #<id> placed`` (data-testid ``order-status``). An invalid
order answers 400 with an error text (data-testid ``order-error``) and writes
nothing.

The file is ``DemoPortal(orders_db=...)``, else ``$COMETLOCAL_DEMO_ORDERS_DB``,
else ``orders.sqlite3`` in a temporary folder the portal removes when it stops.
Only the stdlib's ``sqlite3`` is used, with one connection per request (the
portal serves each request on its own thread).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import sqlite3
import tempfile
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

ENV = "COMETLOCAL_DEMO_ORDERS_DB"
ITEMS = ("Widget", "Gadget", "Gizmo")
QUANTITY_MAX = 99
CUSTOMER_MAX = 100
SCHEMA = """CREATE TABLE IF NOT EXISTS orders (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    customer TEXT NOT NULL,
    item TEXT NOT NULL,
    quantity INTEGER NOT NULL,
    placed_at TEXT NOT NULL
)"""

ORDERS_BODY = """<h1>Orders</h1>
<p data-testid="order-status" role="status" aria-live="polite">{status}</p>
{error}<form method="post" action="/orders">
<label for="order-customer">Customer</label>
<input id="order-customer" name="customer" data-testid="order-customer" value="{customer}" autocomplete="off">
<label for="order-item">Item</label>
<select id="order-item" name="item" data-testid="order-item">
{options}
</select>
<label for="order-quantity">Quantity</label>
<input id="order-quantity" name="quantity" type="number" min="1" max="99" step="1"
       data-testid="order-quantity" value="{quantity}">
<button type="submit" data-testid="place-order">Place order</button>
</form>"""


class OrderStore:
    """The ``orders`` table in one SQLite file; ``open()`` creates it, ``close()`` removes a temporary one."""

    def __init__(self, path: str | Path | None = None) -> None:
        chosen = path if path is not None else (os.environ.get(ENV) or None)
        self._path: Path | None = Path(chosen) if chosen is not None else None
        self._temp_dir: str | None = None

    @property
    def path(self) -> Path:
        if self._path is None:
            raise RuntimeError("the order store has no file yet; start the portal first")
        return self._path

    def open(self) -> None:
        """Create the file (a temporary one when no path was given) and the table, if missing."""
        if self._path is None or self._temp_dir is not None:
            self._temp_dir = tempfile.mkdtemp(prefix="cometlocal-orders-")
            self._path = Path(self._temp_dir) / "orders.sqlite3"
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            with closing(self._connect()) as connection, connection:
                connection.execute(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            self.close()
            raise OSError(f"cannot use {self._path} as the orders database: {exc}") from exc

    def close(self) -> None:
        """Remove the temporary folder, if this store made one; a given file stays."""
        if self._temp_dir is not None:
            shutil.rmtree(self._temp_dir, ignore_errors=True)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def place(self, customer: str, item: str, quantity: int) -> int:
        """Insert one order and commit before returning its id."""
        placed_at = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        with closing(self._connect()) as connection, connection:
            cursor = connection.execute(
                "INSERT INTO orders (customer, item, quantity, placed_at) VALUES (?, ?, ?, ?)",
                (customer, item, quantity, placed_at),
            )
            return int(cursor.lastrowid or 0)

    def get(self, order_id: int) -> dict[str, Any] | None:
        with closing(self._connect()) as connection:
            connection.row_factory = sqlite3.Row
            row = connection.execute("SELECT * FROM orders WHERE id = ?", (order_id,)).fetchone()
        return dict(row) if row is not None else None


def validate(form: dict[str, str]) -> tuple[tuple[str, str, int] | None, str]:
    """((customer, item, quantity), "") for a valid order, else (None, the reason)."""
    customer = form.get("customer", "").strip()
    item = form.get("item", "")
    quantity_text = form.get("quantity", "").strip()
    if not customer:
        return None, "Customer is required"
    if len(customer) > CUSTOMER_MAX or any(ord(ch) < 0x20 for ch in customer):
        return None, f"Customer must be at most {CUSTOMER_MAX} printable characters"
    if item not in ITEMS:
        return None, "Choose an item"
    if not re.fullmatch(r"[0-9]{1,3}", quantity_text) or not 1 <= int(quantity_text) <= QUANTITY_MAX:
        return None, f"Quantity must be a whole number from 1 to {QUANTITY_MAX}"
    return (customer, item, int(quantity_text)), ""


def _body(status: str = "", error: str = "", customer: str = "", item: str = "", quantity: str = "1") -> str:
    options = "\n".join(
        f'<option value="{name}"{" selected" if name == item else ""}>{name}</option>' for name in ITEMS)
    error_html = f'<p role="alert" data-testid="order-error">{html.escape(error)}</p>\n' if error else ""
    values = {"status": html.escape(status), "error": error_html, "customer": html.escape(customer, quote=True),
              "options": options, "quantity": html.escape(quantity, quote=True)}
    return re.sub(r"\{([a-z]+)\}", lambda m: values[m.group(1)], ORDERS_BODY)


def _orders_get(h: Any) -> None:
    """The form; with ``?placed=<id>`` of a stored order, its status line above it."""
    placed = h._query().get("placed", "")
    status = ""
    if re.fullmatch(r"[0-9]{1,12}", placed):
        status = f"Order #{int(placed)} placed" if h.portal.order_store.get(int(placed)) else ""
    h._page("Orders", _body(status=status))


def _orders_post(h: Any) -> None:
    form = h._form()
    order, error = validate(form)
    if order is None:
        body = _body(error=error, customer=form.get("customer", ""), item=form.get("item", ""),
                     quantity=form.get("quantity", ""))
        h._page("Orders", body, 400)
        return
    order_id = h.portal.order_store.place(*order)  # committed before the answer leaves
    h._redirect(f"/orders?placed={order_id}")


# path -> {method: handler}: rows of portal.py's ROUTES.
ORDER_ROUTES: dict[str, dict[str, Callable[[Any], None]]] = {
    "/orders": {"GET": _orders_get, "POST": _orders_post},
}
