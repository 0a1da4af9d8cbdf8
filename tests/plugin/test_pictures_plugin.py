"""(v1.2) --cometlocal-update-snapshots in a pytest session: the item says which baselines it wrote,
and a failed comparison's three pictures are one Allure image-diff attachment.

One inner session, two plans on one page of the conftest's own server (a 40×30 green box):
``new`` has no baseline and gets one (mode ``missing``); ``old``'s baseline is a white box
written here, which ``missing`` never rewrites, so it fails with the diff.
"""

from __future__ import annotations

import base64
import io
import json
import sys

import pytest
from PIL import Image

from tests.support import DEFAULTS, one_page_conftest, write

pytestmark = pytest.mark.browser

BOX_CONFTEST = one_page_conftest(b'<div id="box" style="width:40px;height:30px;background:#0a0"></div>')


def box_plan(name: str) -> str:
    return f"name: {name}\n" + DEFAULTS + f"""\
steps:
  - {{id: open, kind: navigate, target: {{type: url, url: /}}}}
  - id: look
    kind: assert
    timeout_ms: 600
    postconditions: [{{kind: screenshot_matches, args: {{name: box, target: {{type: css, selector: "#box"}}}}}}]
"""


def test_update_missing_writes_and_says_so_and_allure_shows_a_failure_side_by_side(pytester: pytest.Pytester):
    pytester.makeconftest(BOX_CONFTEST)
    write(pytester, "new.actions.yaml", box_plan("new"))
    write(pytester, "old.actions.yaml", box_plan("old"))
    white = io.BytesIO()
    Image.new("RGB", (40, 30), "white").save(white, format="PNG")
    folder = pytester.path / "old.actions.snapshots"
    folder.mkdir()
    old_baseline = folder / f"box-chromium-{sys.platform}.png"  # this machine's platform
    old_baseline.write_bytes(white.getvalue())

    result = pytester.runpytest_subprocess("--cometlocal-update-snapshots", "missing", "--alluredir", "allure",
                                           "--junitxml", "junit.xml", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    written = f"new.actions.snapshots/box-chromium-{sys.platform}.png"
    assert (pytester.path / written).is_file()
    result.stdout.fnmatch_lines([f"*new.actions.yaml::new: wrote baseline {written}"])
    junit = (pytester.path / "junit.xml").read_text()
    assert f'name="cometlocal.baselines_written" value="{written}"' in junit
    assert old_baseline.read_bytes() == white.getvalue()  # "missing" never rewrites a baseline that differs
    result.stdout.fnmatch_lines(["*baseline: differs*", "*diff_pixels: 1200*", "*diff_ratio: 1.0*"])

    (old,) = [json.loads(p.read_text()) for p in (pytester.path / "allure").glob("*-result.json")
              if json.loads(p.read_text())["name"] == "old"]
    (diff,) = [a for a in old["attachments"] if a["type"] == "application/vnd.allure.image.diff"]
    assert diff["name"] == "screenshot_matches box"
    body = json.loads((pytester.path / "allure" / diff["source"]).read_text())
    assert set(body) == {"expected", "actual", "diff"}
    assert base64.b64decode(body["expected"].split(",", 1)[1]) == white.getvalue()
    names = {a["name"] for a in old["attachments"]}
    assert {"screenshot: expected.png", "screenshot: actual.png", "screenshot: diff.png"} <= names
