"""The demo portal's variants (demo/variants.py): each change is made on its page, and only under its variant."""

from __future__ import annotations

import re

import pytest

from pytest_cometlocal.demo import DemoPortal
from pytest_cometlocal.demo.portal import main
from pytest_cometlocal.demo.variants import VARIANTS, apply, check
from tests.unit.test_demo_portal import fetch

CHANGES = [(name, c) for name, changes in VARIANTS.items() for c in changes]


def page(portal: DemoPortal, path: str) -> str:
    headers = {"Cookie": "session=alice"} if path == "/dashboard" else {}
    status, _, body = fetch(portal.url + path, headers=headers)
    assert status == 200, (path, status)
    return re.sub(r'name="csrf" value="[^"]*"', 'name="csrf" value=""', body)  # a fresh token per page


@pytest.mark.parametrize("variant, change", CHANGES, ids=[c.what.split(":")[0] for _, c in CHANGES])
def test_each_change_is_made_on_its_page_under_its_variant_only(variant, change):
    with DemoPortal() as plain, DemoPortal(variant=variant) as changed:
        before, after = page(plain, change.path), page(changed, change.path)
    assert change.before in before and change.before not in after
    assert change.after in after
    assert after == before.replace(change.before, change.after)  # nothing else on the page changes


def test_no_variant_changes_nothing_and_an_unknown_one_is_refused(capsys):
    assert apply(None, "/login", "<button>Sign in</button>") == "<button>Sign in</button>"
    assert check("") is None and check("renamed") == "renamed"
    with pytest.raises(ValueError, match="unknown demo portal variant 'renamd'; known: renamed, visual"):
        DemoPortal(variant="renamd")
    with pytest.raises(SystemExit):
        main(["--variant", "renamd"])
    assert "invalid choice: 'renamd'" in capsys.readouterr().err
