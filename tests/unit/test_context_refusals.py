"""(v1.2) A context the browser refuses, without a browser: which code and which plan key a refusal
is, where that key is written, and a saved state that cannot be read.

The messages are Playwright's and Chromium's own, as seen in Chromium 156 and Playwright's
client (tests/executor/test_v12_setup_failures.py meets them in a real browser).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from pytest_cometlocal.contract.model.codes import ErrorCode
from pytest_cometlocal.contract.validate.settings_rules import locate_setting
from pytest_cometlocal.executor.browser.context_failure import (
    CLOCK, NEW_CONTEXT, NEW_PAGE, STATE_FILE, ContextRefused, classify, making,
)
from pytest_cometlocal.executor.browser.context_settings import install_clock
from pytest_cometlocal.executor.browser.storage_states import StorageStates
from tests.support import mark_at, only_valid, plan
from tests.unit.test_suite_config import check, write
from tests.unit.test_v12_settings_rules import OPEN, validate

SETTINGS = ("browser: {locale: de-DE, timezone: Europe/Berlin, permissions: [geolocation], "
            "geolocation: {latitude: 1, longitude: 2}, device: Pixel 7}\nclock: {at: '2024-03-01T09:30:00Z'}\n")


def settled():
    return only_valid(validate(plan(OPEN, extra=SETTINGS))).plan


@pytest.mark.parametrize(("during", "message", "code", "key", "rule"), [
    (NEW_PAGE, "BrowserContext.new_page: Invalid timezone ID: Mars/Olympus", "INVALID_ACTIONSPEC",
     "browser.timezone", "TIMEZONE"),
    (NEW_PAGE, "BrowserContext.new_page: Protocol error (Emulation.setLocaleOverride): Invalid locale name",
     "INVALID_ACTIONSPEC", "browser.locale", "LOCALE"),
    (NEW_CONTEXT, "Browser.new_context: Unknown permission: midi-sysex", "INVALID_ACTIONSPEC",
     "browser.permissions", "PERMISSION"),
    (NEW_CONTEXT, "Browser.new_context: Unknown permission: geolocation", "INVALID_ACTIONSPEC",
     "browser.permissions", "PERMISSION"),
    (NEW_CONTEXT, "Browser.new_context: geolocation.latitude: precondition -90 <= LATITUDE <= 90 failed.",
     "INVALID_ACTIONSPEC", "browser.geolocation", "SCHEMA"),
    # Any refusal of clock.install is the clock's (an older Playwright server without it, a time refused).
    (CLOCK, "BrowserContext.clock_install: Unknown method clockInstall", "INVALID_ACTIONSPEC", "clock.at", "CLOCK"),
    (CLOCK, "Out of range float values are not JSON compliant", "INVALID_ACTIONSPEC", "clock.at", "CLOCK"),
    # A browser that is gone is a crash, whatever the call and the message's words.
    (NEW_CONTEXT, "Browser.new_context: Target page, context or browser has been closed", "BROWSER_CRASHED",
     None, None),
    (CLOCK, "BrowserContext.clock_install: Connection closed", "BROWSER_CRASHED", None, None),
    (CLOCK, "BrowserContext.clock_pause_at: Connection closed", "BROWSER_CRASHED", None, None),
    # A refusal that names no setting: the context failed, not the plan.
    (NEW_CONTEXT, "Browser.new_context: extraHTTPHeaders: expected object", "BROWSER_CRASHED", None, None),
])
def test_a_refusal_is_pinned_on_the_setting_its_message_names(during, message, code, key, rule) -> None:
    refusal = classify(PlaywrightError(message), during, settled())
    assert (refusal.code.value, refusal.key, refusal.rule, refusal.during) == (code, key, rule, during)
    assert refusal.cause == message


class _Clock:
    """A context's clock that records its calls, and refuses ``refuse`` (a Playwright server without it)."""

    def __init__(self, refuse: str | None = None) -> None:
        self.calls: list[tuple[str, object]] = []
        self.refuse = refuse

    def __getattr__(self, name: str):
        def call(time) -> None:
            self.calls.append((name, time))
            if name == self.refuse:
                raise PlaywrightError(f"BrowserContext.clock_{name}: Unknown method clock{name.title()}")
        return call


class _Context:
    def __init__(self, refuse: str | None = None) -> None:
        self.clock = _Clock(refuse)


def test_the_clock_is_installed_and_paused_at_clock_at_and_a_refused_pause_is_the_clocks() -> None:
    plan_ = settled()
    context = _Context()
    install_clock(context, plan_.clock)  # type: ignore[arg-type]
    assert [name for name, _ in context.clock.calls] == ["install", "pause_at"]
    (_, installed), (_, paused) = context.clock.calls
    assert paused == installed and installed.isoformat() == "2024-03-01T09:30:00+00:00"
    install_clock(bare := _Context(), None)  # type: ignore[arg-type]
    assert bare.clock.calls == []
    with pytest.raises(ContextRefused) as refused:
        with making(CLOCK, plan_):
            install_clock(_Context(refuse="pause_at"), plan_.clock)  # type: ignore[arg-type]
    found = refused.value.refusal
    assert (found.code, found.key, found.rule, found.during) == (ErrorCode.INVALID_ACTIONSPEC, "clock.at", "CLOCK",
                                                                 "clock.install")


def test_a_refusal_is_pinned_only_on_a_setting_the_plan_makes() -> None:
    bare = only_valid(validate(plan(OPEN))).plan  # a locale refused: the user's context args set it, not the plan
    refused = classify(PlaywrightError("Invalid locale name"), NEW_PAGE, bare)
    assert (refused.code, refused.key) == (ErrorCode.BROWSER_CRASHED, None)
    gone = classify(PlaywrightError("Invalid timezone ID: Mars/Olympus"), NEW_PAGE, settled(), connected=False)
    assert (gone.code, gone.key) == (ErrorCode.BROWSER_CRASHED, None)
    state = classify(PlaywrightError("cookies[0].name: expected string"), NEW_CONTEXT, bare, has_state=True)
    assert (state.code, state.key, state.rule) == (ErrorCode.INVALID_ACTIONSPEC, "storage_state", "STORAGE_STATE")


def test_a_setting_is_located_at_its_own_line_even_from_a_quick_load(tmp_path: Path) -> None:
    text = plan(OPEN, extra="browser:\n  locale: de-DE\n  timezone: Europe/Berlin\nclock:\n  at: '2024-03-01T09:30:00Z'\n")
    valid = only_valid(validate(text))
    data = text.encode()
    assert locate_setting(valid.source, "browser.timezone", data) == ("p.yaml", mark_at(text, "timezone: ^Europe"))
    assert locate_setting(valid.source, "clock.at", data) == ("p.yaml", mark_at(text, "at: ^'2024"))
    # Without the bytes: where the mapping is written, which is the right line for a flow mapping.
    assert locate_setting(valid.source, "browser.timezone")[1].line == mark_at(text, "locale")[0]
    # A key from the suite config names the config file.
    config = write(tmp_path / "cometlocal.yaml", "browser:\n  timezone: Europe/Berlin\n")
    bare = write(tmp_path / "a.actions.yaml", plan(OPEN, extra="browser: {locale: de-DE}\n"))
    from_suite = only_valid(check(tmp_path, bare))
    assert locate_setting(from_suite.source, "browser.timezone", bare.read_bytes()) == (
        "cometlocal.yaml", mark_at(config.read_text(), "timezone: ^Europe"))
    assert locate_setting(from_suite.source, "browser.locale", bare.read_bytes())[0] == "a.actions.yaml"


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b'{"cookies": 5}', b"\xff\xfe"])
def test_a_saved_state_that_cannot_be_read_is_a_typed_refusal(tmp_path: Path, content: bytes) -> None:
    states = StorageStates(tmp_path)
    states.save("admin", {"cookies": [], "origins": []})
    states.path("admin").write_bytes(content)
    with pytest.raises(ContextRefused) as raised:
        states.in_use("admin")
    refusal = raised.value.refusal
    assert (refusal.code, refusal.key, refusal.rule, refusal.during) == (
        ErrorCode.INVALID_ACTIONSPEC, "storage_state", "STORAGE_STATE", STATE_FILE)
    assert "storage state 'admin' cannot be loaded from" in refusal.cause and "admin" in refusal.cause
    states.path("admin").unlink()  # a file that is gone
    with pytest.raises(ContextRefused, match="cannot be loaded"):
        states.in_use("admin")
    assert json.loads(json.dumps(refusal.cause))  # one line of text
