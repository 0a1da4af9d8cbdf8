"""Two extension kinds and an observer hook for the demo portal (docs/extensions.md)."""

import json
import os
import sqlite3
from contextlib import closing
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from pytest_cometlocal.extensions import ExtensionContext, StepFailed

DB_ENV = "COMETLOCAL_DEMO_ORDERS_DB"
RUN_LOG_ENV = "COMETLOCAL_RUN_LOG"

# The demo portal writes its orders to the SQLite file this variable names: example_plans/conftest.py,
# which serves the portal, sets it to the portal's file (each pytest worker serves a portal of its own).


class OrderRowArgs(BaseModel):
    """x_order_row's args: the customer's latest order is this item (and this quantity, if given)."""

    model_config = ConfigDict(extra="forbid")  # a misspelt key is a located problem, not ignored

    customer: str
    item: str
    quantity: int | None = None


def order_row(ctx: ExtensionContext) -> tuple[bool, dict]:
    """Look at the customer's latest order in the portal's SQLite database."""
    path = os.environ.get(DB_ENV)
    if not path:
        raise RuntimeError(f"set {DB_ENV} to the orders database's file")  # EXTENSION_FAILED
    # Read only, and wait up to 5 s for a writer (the portal) to finish.
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as db:
        db.row_factory = sqlite3.Row
        row = db.execute(
            "SELECT id, customer, item, quantity FROM orders WHERE customer = ? ORDER BY id DESC LIMIT 1",
            (ctx.args.customer,),
        ).fetchone()
    if row is None:
        return False, {"order": None}  # not yet: a polled condition is looked at again
    order = dict(row)
    held = order["item"] == ctx.args.item and ctx.args.quantity in (None, order["quantity"])
    if held:
        ctx.evidence.attach("order_row.json", json.dumps(order), kind="json")
    return held, {"order": order}


class HoldArgs(BaseModel):
    """x_hold's args: how long to hold the pointer down."""

    model_config = ConfigDict(extra="forbid")

    ms: int = Field(ge=1, le=10000)


def hold(ctx: ExtensionContext) -> dict:
    """Press the pointer on the middle of the target, hold it for ``ms``, release it."""
    ms = ctx.args.ms
    if ms + 1000 > ctx.remaining_ms:
        raise StepFailed("PRECONDITION_FAILED", f"holding {ms} ms does not fit in what is left of the "
                         f"step's timeout_ms ({ctx.remaining_ms} ms): raise timeout_ms",
                         {"ms": ms, "remaining_ms": ctx.remaining_ms})
    ctx.target.scroll_into_view_if_needed(timeout=ctx.remaining_ms)
    box = ctx.target.bounding_box(timeout=ctx.remaining_ms)
    if box is None:
        raise StepFailed("PRECONDITION_FAILED", "the target is not rendered: nothing to press on")
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    ctx.page.mouse.move(x, y)
    ctx.page.mouse.down()
    ctx.log("pointer down", x=round(x), y=round(y), ms=ms)
    ctx.page.wait_for_timeout(ms)
    ctx.page.mouse.up()
    return {"held_ms": ms, "x": round(x), "y": round(y)}  # recorded as the action's result


def pytest_cometlocal_register_kinds(registry):
    registry.condition("x_order_row", check=order_row, args=OrderRowArgs, polled=True, strong=True)
    registry.action("x_hold", perform=hold, args=HoldArgs, target="required")


def pytest_cometlocal_run_finished(run):
    """One JSON line per finished run. Under pytest -n 2 several processes append to one file: each
    line is written by one write call on a file opened for appending, so lines never interleave."""
    log = Path(os.environ.get(RUN_LOG_ENV) or Path(run["run_dir"]).parent / "finished_runs.jsonl")
    line = json.dumps({
        "plan": run["plan"]["name"],
        "status": run["status"],
        "error_code": run["error_code"],
        "steps": len(run["steps"]),
        "run_dir": run["run_dir"],
    }, sort_keys=True) + "\n"
    with open(log, "ab", buffering=0) as out:  # unbuffered: one os.write of the whole line
        out.write(line.encode("utf-8"))
