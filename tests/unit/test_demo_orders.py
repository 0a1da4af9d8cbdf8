"""The demo portal's /orders (a real SQLite file) and /hold pages, without a browser."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_cometlocal.demo import DemoPortal
from pytest_cometlocal.demo.orders import ENV
from tests.unit.test_demo_portal import fetch, title_of

GOOD = {"customer": "Ada Lovelace", "item": "Gadget", "quantity": "3"}


@pytest.fixture(autouse=True)
def _no_orders_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)


@pytest.fixture
def portal():
    with DemoPortal() as running:
        yield running


def rows(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT id, customer, item, quantity, placed_at FROM orders ORDER BY id").fetchall()


def test_the_pages_carry_their_testids(portal: DemoPortal) -> None:
    status, _, body = fetch(portal.url + "/orders")
    assert status == 200 and title_of(body) == "Orders"
    for testid in ("order-customer", "order-item", "order-quantity", "place-order", "order-status"):
        assert f'data-testid="{testid}"' in body, testid
    assert re.search(r'<p data-testid="order-status" role="status"[^>]*></p>', body)  # empty until an order
    assert '<label for="order-customer">Customer</label>' in body and "<select" in body
    assert all(f'<option value="{item}"' in body for item in ("Widget", "Gadget", "Gizmo"))
    status, _, body = fetch(portal.url + "/hold")
    assert status == 200 and title_of(body) == "Hold to confirm"
    assert 'data-testid="hold-button"' in body and 'data-testid="hold-status" role="status"' in body
    assert ">= 800" in body and "pointerleave" in body and "pointercancel" in body
    _, _, index = fetch(portal.url + "/")
    assert 'href="/orders"' in index and 'href="/hold"' in index


def test_an_order_is_a_committed_row_and_its_page_says_so(portal: DemoPortal) -> None:
    assert rows(portal.orders_db) == []
    status, headers, _ = fetch(portal.url + "/orders", data=GOOD)
    assert status == 302 and headers["Location"] == "/orders?placed=1"
    [(order_id, customer, item, quantity, placed_at)] = rows(portal.orders_db)  # committed before the 302
    assert (order_id, customer, item, quantity) == (1, "Ada Lovelace", "Gadget", 3)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", placed_at)
    _, _, body = fetch(portal.url + headers["Location"])
    assert re.search(r'data-testid="order-status" role="status"[^>]*>Order #1 placed</p>', body)
    fetch(portal.url + "/orders", data={**GOOD, "customer": "  Bob <b> ", "quantity": "99"})
    assert rows(portal.orders_db)[1][:4] == (2, "Bob <b>", "Gadget", 99)
    _, _, body = fetch(portal.url + "/orders?placed=7")  # no such order: no claim
    assert "Order #7" not in body


@pytest.mark.parametrize(("change", "reason"), [
    ({"customer": "  "}, "Customer is required"),
    ({"item": "Sprocket"}, "Choose an item"),
    ({"quantity": "0"}, "Quantity must be"),
    ({"quantity": "100"}, "Quantity must be"),
    ({"quantity": "2.5"}, "Quantity must be"),
    ({"quantity": ""}, "Quantity must be"),
])
def test_an_invalid_order_shows_why_and_writes_nothing(portal: DemoPortal, change: dict, reason: str) -> None:
    status, _, body = fetch(portal.url + "/orders", data={**GOOD, **change})
    assert status == 400 and 'data-testid="order-error"' in body and reason in body
    assert "placed" not in body
    assert rows(portal.orders_db) == []


def test_the_default_file_goes_with_the_portal_and_a_given_one_stays(tmp_path: Path) -> None:
    with DemoPortal() as portal:
        default = portal.orders_db
        assert default.is_file() and default.name == "orders.sqlite3"
        fetch(portal.url + "/orders", data=GOOD)
    assert not default.exists() and not default.parent.exists()
    given = tmp_path / "sub" / "orders.db"
    with DemoPortal(orders_db=str(given)) as portal:
        assert portal.orders_db == given
        fetch(portal.url + "/orders", data=GOOD)
    with DemoPortal(orders_db=given) as portal:  # the same file again: its rows are kept, ids go on
        fetch(portal.url + "/orders", data=GOOD)
    assert [row[0] for row in rows(given)] == [1, 2]


def test_the_environment_variable_names_the_default_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from_env = tmp_path / "env.sqlite3"
    monkeypatch.setenv(ENV, str(from_env))
    with DemoPortal() as portal:
        assert portal.orders_db == from_env
        fetch(portal.url + "/orders", data=GOOD)
    with DemoPortal(orders_db=tmp_path / "explicit.sqlite3") as portal:  # an argument wins
        assert portal.orders_db == tmp_path / "explicit.sqlite3"
    assert len(rows(from_env)) == 1


def test_the_command_line_documents_the_option_and_the_variable() -> None:
    done = subprocess.run([sys.executable, "-m", "pytest_cometlocal.demo.portal", "--help"],
                          capture_output=True, text=True, timeout=60, check=True)
    assert "--orders-db PATH" in done.stdout and ENV in done.stdout


def test_an_unusable_path_is_refused_at_start(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    portal = DemoPortal(orders_db=tmp_path / "file" / "orders.db")
    with pytest.raises(OSError, match="orders database"):
        portal.start()
    assert portal._server is None
