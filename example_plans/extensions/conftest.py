"""Two example extensions (docs/extensions.md) for the demo portal, registered by this conftest for
the plans in this folder:

- ``x_order_row``, a condition: the portal's /orders page writes each order into a real SQLite
  database; the plan checks the row is there, not only the page's "Order #N placed". The database's
  path comes from the environment (``COMETLOCAL_DEMO_ORDERS_DB``, which example_plans/conftest.py
  sets to the file of the portal it serves).
- ``x_hold``, an action the plan format lacks: press the pointer on the step's element, hold it for
  ``ms`` milliseconds, release it (the portal's /hold "Hold to confirm" button).

And an observer: with ``COMETLOCAL_RUNS_LOG`` set, one JSON line per finished plan is appended to
that file (one write per line: several pytest-xdist workers may append at once).
"""

from __future__ import annotations

import json
import os
import sqlite3
from contextlib import closing

from pydantic import BaseModel, ConfigDict, Field

from pytest_cometlocal.extensions import ExtensionContext, KindRegistry, StepFailed


class OrderRow(BaseModel):
    """x_order_row's args: the order the page said it placed."""

    model_config = ConfigDict(extra="forbid")
    customer: str = Field(min_length=1)
    item: str = Field(min_length=1)
    quantity: int | None = Field(None, ge=1)


def order_row(ctx: ExtensionContext) -> tuple[bool, dict]:
    database = os.environ.get("COMETLOCAL_DEMO_ORDERS_DB")
    if not database:
        raise StepFailed("PRECONDITION_FAILED", "COMETLOCAL_DEMO_ORDERS_DB is not set: which database holds the orders?")
    args = ctx.args
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=1)) as db:
        rows = db.execute("SELECT id, quantity FROM orders WHERE customer = ? AND item = ? ORDER BY id DESC",
                          (args.customer, args.item)).fetchall()
    matching = [order_id for order_id, quantity in rows if args.quantity in (None, quantity)]
    return bool(matching), {"rows": len(rows), "matching": len(matching), "order_id": matching[0] if matching else None}


class Hold(BaseModel):
    """x_hold's args: how long the pointer stays down."""

    model_config = ConfigDict(extra="forbid")
    ms: int = Field(ge=1, le=10_000)


def hold(ctx: ExtensionContext) -> dict:
    box = ctx.target.bounding_box(timeout=ctx.remaining_ms)
    if box is None:
        raise StepFailed("TARGET_NOT_FOUND", "the element to hold is not shown")
    ctx.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    ctx.page.mouse.down()
    ctx.page.wait_for_timeout(ctx.args.ms)
    ctx.page.mouse.up()
    ctx.log("pointer released", held_ms=ctx.args.ms)
    return {"held_ms": ctx.args.ms}


def pytest_cometlocal_register_kinds(registry: KindRegistry) -> None:
    registry.condition("x_order_row", check=order_row, args=OrderRow, strong=True)
    registry.action("x_hold", perform=hold, args=Hold, target="required")


def pytest_cometlocal_run_finished(run: dict) -> None:
    path = os.environ.get("COMETLOCAL_RUNS_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps(run, sort_keys=True) + "\n")
