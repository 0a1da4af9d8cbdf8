"""``cometlocal import``: codegen recordings read with ``ast`` (never run) become plans that validate."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pytest_cometlocal.cli import main
from pytest_cometlocal.contract.validate.validated import ValidationContext, ValidPlan
from pytest_cometlocal.contract.validate.validator import validate_text

RECORDINGS = Path(__file__).with_name("recordings")
SECRET = "s3cret-Passw0rd"


def script(tmp_path: Path, body: str, name: str = "rec.py") -> Path:
    """A codegen --target python script with ``body`` as the statements of run()."""
    lines = "\n".join("    " + line for line in body.strip().splitlines())
    text = ("import re\nfrom playwright.sync_api import Playwright, sync_playwright, expect\n\n\n"
            "def run(playwright: Playwright) -> None:\n    browser = playwright.chromium.launch(headless=False)\n"
            "    context = browser.new_context()\n    page = context.new_page()\n"
            f"{lines}\n    context.close()\n    browser.close()\n\n\nwith sync_playwright() as playwright:\n    run(playwright)\n")
    path = tmp_path / name
    path.write_text(text)
    return path


def imported(tmp_path: Path, body: str, *args: str, capsys=None) -> tuple[int, dict | None]:
    out = tmp_path / "out.actions.yaml"
    code = main(["import", str(script(tmp_path, body)), "-o", str(out), *args])
    return code, (yaml.safe_load(out.read_text()) if out.exists() else None)


def only_step(plan: dict) -> dict:
    assert len(plan["steps"]) == 2, plan["steps"]  # the goto, then the step under test
    return plan["steps"][1]


GOTO = 'page.goto("http://127.0.0.1:8000/form")\n'


# Without exact=True Playwright matches a case-insensitive substring (codegen shortens long names):
# a role target without exact, normalize_ws: true for text and label (U2 accepts it), CSS *= ... i.
@pytest.mark.parametrize("call, target", [
    ('page.get_by_role("button", name="Save").click()', {"type": "role", "role": "button", "name": "Save"}),
    ('page.get_by_role("link", name="Groups", exact=True).click()',
     {"type": "role", "role": "link", "name": "Groups", "exact": True}),
    ('page.get_by_role("checkbox").click()', {"type": "role", "role": "checkbox"}),
    ('page.get_by_label("E-mail").click()', {"type": "label", "text": "E-mail", "normalize_ws": True}),
    ('page.get_by_label("E-mail", exact=True).click()', {"type": "label", "text": "E-mail", "exact": True}),
    ('page.get_by_text("Next").click()', {"type": "text", "text": "Next", "normalize_ws": True}),
    ('page.get_by_text("Next", exact=True).click()', {"type": "text", "text": "Next", "exact": True}),
    ('page.get_by_test_id("go").click()', {"type": "testid", "id": "go"}),
    ('page.get_by_placeholder("Say \\"hi\\"").click()', {"type": "css", "selector": '[placeholder*="Say \\"hi\\"" i]'}),
    ('page.get_by_placeholder("Name", exact=True).click()', {"type": "css", "selector": '[placeholder="Name"]'}),
    ('page.get_by_title("Close").click()', {"type": "css", "selector": '[title*="Close" i]'}),
    ('page.locator("#main .btn").click()', {"type": "css", "selector": "#main .btn"}),
    ('page.locator("xpath=//a[1]").click()', {"type": "xpath", "selector": "//a[1]"}),
    ('page.locator("//a[2]").click()', {"type": "xpath", "selector": "//a[2]"}),
    ('page.locator("form").locator("button").click()', {"type": "css", "selector": "form button"}),
    ('page.locator("li").filter(has_text="Two").click()', {"type": "css", "selector": 'li:has-text("Two")'}),
    ('page.locator("li, dt").filter(has_text="Two").click()', {"type": "css", "selector": ':is(li, dt):has-text("Two")'}),
    ('page.frame_locator("#pay").get_by_label("Card").click()',
     {"type": "frame", "selector": "#pay", "inner": {"type": "label", "text": "Card", "normalize_ws": True}}),
    ('page.locator("iframe").content_frame.get_by_test_id("x").click()',
     {"type": "frame", "selector": "iframe", "inner": {"type": "testid", "id": "x"}}),
])
def test_locators_map_to_targets(tmp_path, call, target):
    code, plan = imported(tmp_path, GOTO + call)
    assert code == 0
    assert only_step(plan)["target"] == target and only_step(plan)["kind"] == "click"


@pytest.mark.parametrize("call, index", [('page.get_by_role("row").nth(3).click()', 3),
                                          ('page.get_by_role("row").first.click()', 0)])
def test_nth_and_first_get_an_index_and_a_rationale(tmp_path, call, index):
    code, plan = imported(tmp_path, GOTO + call)
    step = only_step(plan)
    assert code == 0 and step["target"] == {"type": "nth", "base": {"type": "role", "role": "row"}, "index": index}
    assert "codegen" in step["metadata"]["target_rationale"]


@pytest.mark.parametrize("call, expected", [
    ('page.get_by_label("Name").fill("Ada")', {"kind": "fill", "value": "Ada"}),
    ('page.get_by_label("Terms").check()', {"kind": "check"}),
    ('page.get_by_label("Country").select_option("ES")', {"kind": "select", "value": "ES"}),
    ('page.get_by_label("Country").select_option(label="Spain")', {"kind": "select", "value": "Spain"}),
    ('page.get_by_label("CV").set_input_files("cv.pdf")', {"kind": "upload", "file_ref": "cv.pdf"}),
    ('page.get_by_label("CV").set_input_files(["a.pdf", "b.pdf"])', {"kind": "upload", "file_ref": ["a.pdf", "b.pdf"]}),
])
def test_actions_map_to_steps(tmp_path, call, expected):
    code, plan = imported(tmp_path, GOTO + call)
    step = only_step(plan)
    assert code == 0 and {k: step[k] for k in expected} == expected


@pytest.mark.parametrize("files, file_ref, dropped", [('"cv.pdf"', "cv.pdf", False),
                                                      ('"/home/qa/Desktop/cv.pdf"', "cv.pdf", True)])
def test_an_upload_says_where_the_file_must_be(tmp_path, capsys, files, file_ref, dropped):
    code, plan = imported(tmp_path, GOTO + f'page.get_by_label("CV").set_input_files({files})')
    err = capsys.readouterr().err
    assert code == 0 and only_step(plan)["file_ref"] == file_ref
    assert "rec.py:10: step 'upload_cv' uploads cv.pdf: put the file(s) in the plan's folder" in err
    assert ("the recorded absolute path was dropped" in err) == dropped


def test_goto_sets_the_base_url_and_later_gotos_are_relative_or_allowlisted(tmp_path, capsys):
    code, plan = imported(tmp_path, GOTO + 'page.goto("http://127.0.0.1:8000/b?q=1#top")\npage.goto("https://help.example.org/x")')
    assert code == 0 and plan["base_url"] == "http://127.0.0.1:8000"
    assert [s["target"]["url"] for s in plan["steps"]] == ["/form", "/b?q=1#top", "https://help.example.org/x"]
    assert plan["allowlist"] == ["127.0.0.1", "help.example.org"]
    assert "help.example.org: added to the allowlist" in capsys.readouterr().err


def test_base_url_option_wins_over_the_first_goto(tmp_path):
    code, plan = imported(tmp_path, 'page.goto("/login")', "--base-url", "http://127.0.0.1:9000/")
    assert code == 0 and plan["base_url"] == "http://127.0.0.1:9000" and plan["steps"][0]["target"]["url"] == "/login"


def test_a_recording_made_elsewhere_runs_against_the_base_url_option(tmp_path, capsys):
    """Recorded on a laptop, imported for staging: the recorded origin's pages become relative."""
    body = GOTO + 'page.get_by_test_id("go").click()\nexpect(page).to_have_url("http://127.0.0.1:8000/done")'
    code, plan = imported(tmp_path, body, "--base-url", "https://staging.example.org")
    assert code == 0 and plan["base_url"] == "https://staging.example.org" and "allowlist" not in plan
    assert plan["steps"][0]["target"]["url"] == "/form"
    assert plan["steps"][1]["postconditions"] == [{"kind": "url_is", "args": {"url": "/done"}}]
    assert "origin http://127.0.0.1:8000 is replaced by the base URL https://staging.example.org" in capsys.readouterr().err


@pytest.mark.parametrize("check, condition", [
    # A URL of the recorded origin is relative, as the navigations are: it resolves against the base URL.
    ('expect(page).to_have_url("http://127.0.0.1:8000/done")', {"kind": "url_is", "args": {"url": "/done"}}),
    ('expect(page).to_have_url("https://sso.example.org/")', {"kind": "url_is", "args": {"url": "https://sso.example.org/"}}),
    ('expect(page).to_have_url(re.compile(r"/done$"))', {"kind": "url_matches", "args": {"pattern": "/done$"}}),
    ('expect(page).to_have_title("Done")', {"kind": "title_contains", "args": {"text": "Done"}}),
    ('expect(page.get_by_test_id("ok")).to_be_visible()', {"kind": "element_visible", "args": {"target": {"type": "testid", "id": "ok"}}}),
    ('expect(page.get_by_test_id("ok")).to_have_text("Saved")',
     {"kind": "element_text_contains", "args": {"target": {"type": "testid", "id": "ok"}, "text": "Saved"}}),
    ('expect(page.get_by_test_id("ok")).to_contain_text("Sav")',
     {"kind": "element_text_contains", "args": {"target": {"type": "testid", "id": "ok"}, "text": "Sav"}}),
    ('expect(page.get_by_label("Name")).to_have_value("Ada")',
     {"kind": "element_value_equals", "args": {"target": {"type": "label", "text": "Name", "normalize_ws": True}, "value": "Ada"}}),
    ('expect(page.get_by_test_id("ok")).to_be_enabled()', {"kind": "element_enabled", "args": {"target": {"type": "testid", "id": "ok"}}}),
    ('expect(page.get_by_test_id("ok")).to_be_attached()', {"kind": "element_exists", "args": {"target": {"type": "testid", "id": "ok"}}}),
    ('expect(page.get_by_test_id("ok")).to_have_attribute("href", "/x")',
     {"kind": "element_attr_equals", "args": {"target": {"type": "testid", "id": "ok"}, "attr": "href", "value": "/x"}}),
    ('expect(page.locator("li")).to_have_count(2)',
     {"kind": "element_count_equals", "args": {"target": {"type": "css", "selector": "li"}, "count": 2}}),
])
def test_checks_become_postconditions_of_the_step_before(tmp_path, check, condition):
    code, plan = imported(tmp_path, GOTO + 'page.get_by_test_id("save").click()\n' + check)
    assert code == 0 and plan["steps"][1]["postconditions"] == [condition]


def test_a_check_on_an_nth_locator_gives_its_step_the_rationale(tmp_path):
    code, plan = imported(tmp_path, GOTO + 'page.get_by_test_id("add").click()\n'
                                           'expect(page.get_by_role("row").nth(1)).to_contain_text("Ada")')
    step = only_step(plan)
    assert code == 0 and step["postconditions"][0]["args"]["target"]["type"] == "nth"
    assert "nth(1)" in step["metadata"]["target_rationale"]


def test_a_download_block_is_its_click_with_a_download_check(tmp_path, capsys):
    body = GOTO + ('with page.expect_download() as download_info:\n    page.get_by_role("link", name="Export").click()\n'
                   'download = download_info.value')
    code, plan = imported(tmp_path, body)
    assert code == 0 and capsys.readouterr().err == ""
    assert only_step(plan) == {"id": "click_export", "kind": "click", "target": {"type": "role", "role": "link", "name": "Export"},
                               "postconditions": [{"kind": "download_started"}]}


@pytest.mark.parametrize("body, reported", [
    # The download's own action does not map: neither does its check.
    ('with page.expect_download() as download_info:\n    page.get_by_text("CSV").tap()\ndownload = download_info.value',
     [(10, "the action that starts the download was not imported, so neither is its check"),
      (11, "tap() has no step in the plan format (v1.1)")]),
    # Around several statements, the wait cannot be given to one step.
    ('with page.expect_download() as download_info:\n    page.get_by_text("CSV").click()\n    page.get_by_text("OK").click()\n'
     'download = download_info.value', [(10, "'with page.expect_download()' waits for an event"),
                                        (13, "a popup page or a download is not mapped")]),
    # (v1.2) A popup is followed only from a click or a key press (opens: page).
    ('with page.expect_popup() as page1_info:\n    page.get_by_label("Name").fill("ada")\npage1 = page1_info.value',
     [(10, "expect_popup() maps around a click or a key press only (opens: page)")]),
    ('page.once("dialog", lambda dialog: dialog.dismiss())', [(10, "an event handler (page.once")]),
    ('page.wait_for_timeout(500)', [(10, "a fixed wait does not map: a plan never sleeps")]),
    ('page.get_by_role("row").first.click()\nexpect(page.get_by_text("x")).not_to_be_visible()',
     [(11, "negated checks (not_to_...) do not map")]),
])
def test_waits_popups_handlers_and_sleeps_are_reported(tmp_path, capsys, body, reported):
    code, _plan = imported(tmp_path, GOTO + body)
    err = capsys.readouterr().err
    assert code == 1
    for line, why in reported:
        assert f"rec.py:{line}: not imported: {why}" in err, err
    assert [int(m) for m in re.findall(r"rec\.py:(\d+): not imported", err)] == [line for line, _why in reported]
    assert f"{len(reported)} statement(s) could not be imported" in err


def test_checks_after_a_statement_left_out_open_an_assert_step(tmp_path):
    """Not postconditions of the step before the gap: they belong after the step that will fill it."""
    body = GOTO + ('page.get_by_label("Search").fill("ada")\npage.get_by_label("Search").press("F13")\n'
                   'expect(page.get_by_test_id("hits")).to_have_count(1)\nexpect(page).to_have_title("Results")\n'
                   'page.get_by_test_id("first").click()\nexpect(page).to_have_title("Ada")')
    code, plan = imported(tmp_path, body, "--partial")
    assert code == 0
    assert [(s["id"], s["kind"], len(s.get("postconditions", []))) for s in plan["steps"]] == [
        ("open_form", "navigate", 0), ("fill_search", "fill", 0), ("check_hits", "assert", 2), ("click_first", "click", 1)]


def test_a_check_before_any_step_is_an_assert_step(tmp_path):
    body = 'expect(page).to_have_title("Blank")\n' + GOTO
    code, plan = imported(tmp_path, body, "--base-url", "http://127.0.0.1:8000")
    assert code == 0 and plan["steps"][0]["kind"] == "assert"
    assert plan["steps"][0]["postconditions"] == [{"kind": "title_contains", "args": {"text": "Blank"}}]


def test_codegens_click_before_a_fill_and_tab_presses_are_dropped(tmp_path):
    body = GOTO + ('page.get_by_label("User").click()\npage.get_by_label("User").fill("ada")\n'
                   'page.get_by_label("User").press("Tab")\npage.get_by_label("Pass").press("Shift+Tab")\n'
                   'page.get_by_label("Other").click()\npage.get_by_label("Pass").fill("x")')
    code, plan = imported(tmp_path, body)
    assert code == 0
    assert [(s["kind"], s["target"].get("text")) for s in plan["steps"][1:]] == [
        ("fill", "User"), ("click", "Other"), ("fill", "Pass")]


def test_unmapped_statements_are_reported_with_their_line_and_nothing_is_written(tmp_path, capsys):
    body = GOTO + ('page.get_by_label("Search").press("F13")\npage.get_by_role("row").get_by_role("button").click()\n'
                   'page.get_by_text("x").tap()\nwait = 3\npage.get_by_role("row").last.click()')
    code, plan = imported(tmp_path, body)
    err = capsys.readouterr().err
    assert code == 1 and plan is None
    # The script's run() starts on line 8 (see script()): the goto is line 9.
    for line, why in [(10, "press('F13'): 'F13' is not a key"), (11, "a locator chained with .get_by_role"),
                      (12, "tap() has no step in the plan format"), (13, "an assignment is not a step"), (14, ".last has no v1 target")]:
        assert f"rec.py:{line}: not imported: {why}" in err, err
    assert "5 statement(s) could not be imported; nothing written" in err


def test_partial_writes_the_plan_without_the_unmapped_statements(tmp_path, capsys):
    code, plan = imported(tmp_path, GOTO + 'page.get_by_label("Search").tap()\npage.get_by_test_id("go").click()',
                          "--partial")
    assert code == 0 and [s["kind"] for s in plan["steps"]] == ["navigate", "click"]
    assert "1 statement(s) left out" in capsys.readouterr().out


def test_secrets_become_references_and_never_reach_the_file_or_the_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("APP_PASSWORD", SECRET)
    body = GOTO + (f'page.get_by_label("Password").fill("{SECRET}")\n'
                   f'expect(page.get_by_label("Password")).to_have_value("{SECRET}")\n'
                   f'page.get_by_label("{SECRET}").tap()\n'
                   f'page.get_by_text("{SECRET}", exact=True).click()')
    out = tmp_path / "out.actions.yaml"
    code = main(["import", str(script(tmp_path, body)), "-o", str(out), "--secret", "password=APP_PASSWORD", "--partial"])
    captured = capsys.readouterr()
    text = out.read_text()
    assert code == 0 and SECRET not in text and SECRET not in captured.out + captured.err
    assert "s3cret" not in text.lower()  # not even as a step id's words
    plan = yaml.safe_load(text)
    assert plan["secrets"] == {"password": {"env": "APP_PASSWORD"}}
    assert plan["steps"][1]["value"] == "${secrets.password}"
    assert plan["steps"][1]["postconditions"][0]["args"]["value"] == "${secrets.password}"
    assert "***" in captured.err  # the unmapped line is shown, masked


def test_a_secret_inside_a_longer_text_refuses_to_write(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("APP_PASSWORD", SECRET)
    body = f'page.goto("http://127.0.0.1:8000/login?pw={SECRET}")'
    code, plan = imported(tmp_path, body, "--secret", "password=APP_PASSWORD")
    err = capsys.readouterr().err
    assert code == 2 and plan is None and SECRET not in err
    assert "the value of secret(s) password is part of a URL, selector or text" in err


@pytest.mark.parametrize("pair, message", [("password", "expected NAME=ENVVAR"),
                                           ("password=NOT_SET_ANYWHERE_X", "environment variable NOT_SET_ANYWHERE_X is not set")])
def test_bad_secret_options_are_usage_errors(tmp_path, capsys, pair, message):
    code, _plan = imported(tmp_path, GOTO, "--secret", pair)
    assert code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("call", ['page.get_by_role("button", name="Delete").click()',
                                  'page.get_by_text("Pay now", exact=True).click()',
                                  'page.locator("#checkout-submit").click()',
                                  'page.get_by_label("Action:").select_option("delete_selected")'])
def test_a_delete_or_payment_stays_normal_with_a_notice(tmp_path, capsys, call):
    code, plan = imported(tmp_path, GOTO + call)
    step = only_step(plan)
    assert code == 0 and "criticality" not in step and plan["defaults"]["criticality"] == "normal"
    assert (f"rec.py:10: step '{step['id']}' looks like a delete or a payment; it is imported as normal"
            in capsys.readouterr().err)


@pytest.mark.parametrize("call", ['page.get_by_role("button", name="Save").click()',
                                  'page.get_by_label("Payee name").fill("Ada")',
                                  'page.get_by_label("Action:").select_option("export_selected")'])
def test_other_steps_get_no_notice(tmp_path, capsys, call):
    assert imported(tmp_path, GOTO + call)[0] == 0 and capsys.readouterr().err == ""


@pytest.mark.parametrize("text, message", [
    ("def run(:\n", "rec.py:1:9: not valid Python"),
    ("print('hello')\n", "no Playwright page found"),
    (None, "rec.py: cannot read the script: No such file or directory"),
    (b"\xff\xfe page.goto('x')", "rec.py: cannot read the script: 'utf-8' codec can't decode"),
])
def test_a_file_that_is_not_a_codegen_script_is_a_clear_error(tmp_path, capsys, text, message):
    path = tmp_path / "rec.py"
    if isinstance(text, str):
        path.write_text(text)
    elif text is not None:
        path.write_bytes(text)
    assert main(["import", str(path), "-o", str(tmp_path / "o.actions.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cometlocal: error: ") and message in err and "Traceback" not in err
    assert len(err.splitlines()) == 1 and not (tmp_path / "o.actions.yaml").exists()


def test_output_name_and_overwrite_are_checked(tmp_path, capsys):
    path = script(tmp_path, GOTO)
    assert main(["import", str(path), "-o", str(tmp_path / "plan.yaml")]) == 2
    assert "ends in .actions.yaml" in capsys.readouterr().err
    assert main(["import", str(path)]) == 0
    written = tmp_path / "rec.actions.yaml"
    assert written.is_file()
    assert main(["import", str(path)]) == 2 and "exists" in capsys.readouterr().err
    assert main(["import", str(path), "--force"]) == 0
    assert main(["import", str(path), "-o", str(tmp_path / "no" / "p.actions.yaml")]) == 2
    assert capsys.readouterr().err.strip().endswith(f"the folder {tmp_path / 'no'} does not exist")


RECORDED_IDS = {
    "admin_login.py": ["open_admin_login", "fill_username", "fill_password", "click_log_in", "click_groups",
                       "click_add_group", "fill_name", "click_save"],
    # Line 13 (a button inside a row) is left out; the checks after the press (v1.1) are its postconditions.
    "pytest_style.py": ["open_form", "fill_placeholder_your_e_mail", "select_country", "check_terms", "upload_upload",
                        "click_pay", "click_listitem", "click_li_item_has_text_second", "click_button_id_go",
                        "press_enter_send", "open_done", "open_help"],
    "async_style.py": ["open_login", "fill_user", "click_sign_in"],
}


@pytest.mark.parametrize("name", sorted(RECORDED_IDS))
def test_recordings_of_each_codegen_target_import_into_valid_plans(tmp_path, name, monkeypatch):
    monkeypatch.setenv("ADMIN_PASSWORD", "a-test-password-for-127.0.0.1")
    out = tmp_path / "p.actions.yaml"
    code = main(["import", str(RECORDINGS / name), "-o", str(out), "--partial", "--secret", "password=ADMIN_PASSWORD"])
    assert code == 0
    (result,) = validate_text(out.read_bytes(), ValidationContext(root=tmp_path, plan_path=out), str(out))
    assert isinstance(result, ValidPlan)
    assert [step.id for step in result.plan.steps] == RECORDED_IDS[name]


def test_the_console_script_imports_and_never_runs_the_script(tmp_path):
    marker = tmp_path / "ran"
    path = script(tmp_path, GOTO + 'page.get_by_test_id("go").click()')
    path.write_text(path.read_text() + f"\nopen({str(marker)!r}, 'w').close()\n")
    exe = Path(sys.executable).with_name("cometlocal")
    proc = subprocess.run([str(exe), "import", str(path), "-o", "-", "--partial"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert yaml.safe_load(proc.stdout)["steps"][1]["target"] == {"type": "testid", "id": "go"}
    assert not marker.exists()
