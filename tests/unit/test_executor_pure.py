"""Executor logic that needs no browser: policy counters, host matching, error classification."""

from __future__ import annotations

import json
import time

import pytest

from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.allowlist import host_allowed, url_allowed, url_host
from pytest_cometlocal.executor.browser.chromium import find_chromium
from pytest_cometlocal.executor.errors import ChromiumNotFound
from pytest_cometlocal.executor.step.action_failure import actionability_check, intercepting_overlay, net_error
from pytest_cometlocal.executor.browser.network_guard import NetworkGuard
from pytest_cometlocal.executor.page.conditions import clip_utf8
from pytest_cometlocal.executor.page.observation import observe
from pytest_cometlocal.executor.page.screenshots import SCREENSHOT_RETRY_DELAYS_MS
from tests.support import Sig
from pytest_cometlocal.executor.step.budget import PolicyState


class TestPolicyState:
    def test_same_state_counts_first_attempts_of_side_effects_only(self):
        state = PolicyState(Policy(same_state_revisits=2))
        assert state.count_revisit("click", Sig("k"), first_attempt=True, recovery=False) is None
        assert state.count_revisit("click", Sig("k"), first_attempt=False, recovery=False) is None  # retry
        assert state.count_revisit("click", Sig("k"), first_attempt=True, recovery=True) is None  # recovery
        for kind in ("assert", "wait_for", "stop"):
            assert state.count_revisit(kind, Sig("k"), first_attempt=True, recovery=False) is None
        assert state.revisits[Sig("k").state_key] == 1
        assert state.count_revisit("fill", Sig("k"), first_attempt=True, recovery=False) is None
        halt = state.count_revisit("navigate", Sig("k"), first_attempt=True, recovery=False)
        assert halt is not None and halt.reason == "same_state_revisit"
        assert halt.details == {"state_key": Sig("k").state_key, "count": 3, "threshold": 2}
        assert state.count_revisit("click", Sig("other"), first_attempt=True, recovery=False) is None

    def test_a_look_still_loading_when_its_wait_ran_out_is_never_counted(self):
        """page/settle.py: such a look is not a state; one read again once parsed is, like any other."""
        loading = {"document_loading": {"waited_ms": 5000, "parsed": False}}
        parsed = {"document_loading": {"waited_ms": 120, "parsed": True}}
        for pictures_optional in (False, True):
            state = PolicyState(Policy(same_state_revisits=1), pictures_optional=pictures_optional)
            for _ in range(3):
                assert state.count_revisit("click", Sig("empty", None, loading), True, False) is None
            assert state.observation_metadata(Sig("empty", None))["same_state_revisit_count"] == 0
            assert state.count_revisit("click", Sig("empty", None, parsed), True, False) is None
            assert state.count_revisit("click", Sig("empty", None, parsed), True, False).reason == "same_state_revisit"

    def test_a_request_steps_state_is_the_page_and_its_call(self):
        """(v1.2) A request leaves the page as it was: distinct calls from it are distinct states, the same
        call again is the same state (issue 46, item 6)."""
        page = Sig("page", None)
        for pictures_optional in (False, True):
            state = PolicyState(Policy(same_state_revisits=1), pictures_optional=pictures_optional)
            assert state.count_revisit("request", page, True, False, "sha256:a") is None
            assert state.count_revisit("request", page, True, False, "sha256:b") is None
            assert state.count_revisit("click", page, True, False) is None  # the page with no call: another state
            assert state.observation_metadata(page, "sha256:a")["same_state_revisit_count"] == 1
            assert state.observation_metadata(page, "sha256:a")["request_key"] == "sha256:a"
            assert "request_key" not in state.observation_metadata(page)
            halt = state.count_revisit("request", page, True, False, "sha256:a")
            assert halt is not None and halt.details == {
                "state_key": page.state_key, "request_key": "sha256:a", "count": 2, "threshold": 1}

    def test_a_request_key_is_its_method_url_and_body_with_secrets_as_references(self):
        from types import SimpleNamespace

        from pytest_cometlocal.executor.http.client import request_key

        def key(method="POST", url="/api/x", json_body=None, form=None, body=None, base="http://h:1"):
            return request_key(SimpleNamespace(method=method, url=url, json_body=json_body, form=form, body=body),
                               base)

        assert key(json_body={"n": 1}) == key(json_body={"n": 1}) == key(url="http://h:1/api/x", json_body={"n": 1})
        others = [key(json_body={"n": 1}), key(json_body={"n": 2}), key(method="PUT", json_body={"n": 1}),
                  key(url="/api/y", json_body={"n": 1}), key(form={"n": "1"}), key(body="n=1"), key()]
        assert len(set(others)) == len(others)
        assert all(k.startswith("sha256:") and len(k) == 71 for k in others)
        # A secret is in the key as its reference (one value per run), never as its value.
        assert key(body="t=${secrets.tok}") != key(body="t=")

    def test_hard_cap_is_checked_before_each_step(self):
        state = PolicyState(Policy(hard_cap_steps=2))
        for _ in range(2):
            assert state.check_step_budget() is None
            state.count_step()
        halt = state.check_step_budget()
        assert halt.reason == "max_steps" and halt.details == {"steps_taken": 2, "hard_cap_steps": 2}

    def test_observation_metadata_and_thresholds(self):
        state = PolicyState(Policy())
        state.count_revisit("click", Sig("k"), True, False)
        assert state.observation_metadata(Sig("k")) == {
            "steps_taken": 0, "hard_cap_steps": 60, "same_state_revisit_count": 1, "same_state_revisit_threshold": 2}
        assert state.thresholds()["backoff_ms"] == [300, 1000, 2000]

    def test_balanced_counts_a_state_by_its_whole_key_pictures_included(self):
        state = PolicyState(Policy(same_state_revisits=1))
        assert state.count_revisit("click", Sig("d", "sha256:" + "a" * 64), True, False) is None
        # the same DOM with another picture is another state; with none, another state too (v1's key)
        assert state.count_revisit("click", Sig("d", "sha256:" + "b" * 64), True, False) is None
        assert state.count_revisit("click", Sig("d", None), True, False) is None
        assert state.count_revisit("click", Sig("d", "sha256:" + "a" * 64), True, False).reason == "same_state_revisit"

    def test_fast_same_state_is_the_same_dom_and_where_both_have_one_the_same_picture(self):
        a, b = "sha256:" + "a" * 64, "sha256:" + "b" * 64
        state = PolicyState(Policy(same_state_revisits=2), pictures_optional=True)
        assert state.count_revisit("click", Sig("d", None), True, False) is None  # first visit, no picture
        assert state.observation_metadata(Sig("d", a))["same_state_revisit_count"] == 1  # None matches any picture
        assert state.count_revisit("click", Sig("d", a), True, False) is None  # 2nd visit
        assert state.observation_metadata(Sig("d", b))["same_state_revisit_count"] == 1  # only the one without
        assert state.count_revisit("click", Sig("other", None), True, False) is None  # another DOM: another state
        assert state.count_revisit("click", Sig("d", b), True, False) is None  # a visual change: count 2, not 3
        halt = state.count_revisit("click", Sig("d", a), True, False)  # None, a, and now a again: 3 > 2
        assert halt is not None and halt.details["count"] == 3

    def test_fast_pictures_taken_two_ways_are_not_compared(self):
        """A critical step's picture is its full-size PNG's hash, another step's a frame's: they never agree."""
        a, b = "sha256:" + "a" * 64, "sha256:" + "b" * 64
        png, frame = {"screenshot_method": "v1"}, {"screenshot_method": "v2-frame-320"}
        state = PolicyState(Policy(same_state_revisits=1), pictures_optional=True)
        assert state.count_revisit("click", Sig("d", a, png), True, False) is None
        assert state.observation_metadata(Sig("d", b, frame))["same_state_revisit_count"] == 1  # as if no picture
        assert state.observation_metadata(Sig("d", b, png))["same_state_revisit_count"] == 0  # another PNG
        assert state.observation_metadata(Sig("d", a, png))["same_state_revisit_count"] == 1
        halt = state.count_revisit("click", Sig("d", b, frame), True, False)
        assert halt is not None and halt.details["count"] == 2

    def test_fast_an_unchanged_page_halts_as_in_balanced(self):
        """The first visit has no picture, the later ones the same picture: the third is over the threshold."""
        a = "sha256:" + "a" * 64
        for optional in (False, True):
            state = PolicyState(Policy(same_state_revisits=2), pictures_optional=optional)
            visits = [Sig("d", None if optional else a), Sig("d", a), Sig("d", a)]
            halts = [state.count_revisit("click", v, True, False) for v in visits]
            assert [h is not None for h in halts] == [False, False, True]

    def test_backoff_repeats_the_last_value(self):
        assert [Policy(backoff_ms=[5, 7]).backoff_for(n) for n in (1, 2, 3, 4)] == [5, 7, 7, 7]


class TestAllowlist:
    @pytest.mark.parametrize("host, patterns, allowed", [
        ("example.com", ["example.com"], True),
        ("EXAMPLE.com", ["example.COM"], True),
        ("a.example.com", ["example.com"], False),
        ("a.example.com", ["*.example.com"], True),
        ("a.b.example.com", ["*.example.com"], True),
        ("example.com", ["*.example.com"], False),
        ("badexample.com", ["*.example.com"], False),
        ("localhost", ["127.0.0.1"], False),
        ("127.0.0.2", ["127.0.0.1"], False),
        ("::1", ["[::1]"], True),
    ])
    def test_hosts_match_literally(self, host, patterns, allowed):
        assert host_allowed(host, patterns) is allowed

    def test_ports_are_ignored_and_non_network_urls_pass(self):
        assert url_allowed("http://127.0.0.1:8123/x", ["127.0.0.1"])
        assert not url_allowed("https://localhost:443/", ["127.0.0.1"])
        assert url_allowed("about:blank", []) and url_allowed("data:text/html,hi", [])
        assert url_host("http://User@Example.COM:80/p") == "example.com"

    def test_guard_proxy_settings_put_loopback_rule_first(self):
        guard = NetworkGuard(["127.0.0.1", "*.example.com", "Example.org"]).start()
        try:
            settings = guard.proxy_settings()
            assert settings["server"] == f"http://127.0.0.1:{guard.port}"
            assert settings["bypass"] == "<-loopback>,127.0.0.1,example.org"
        finally:
            guard.stop()

    @pytest.mark.parametrize("wait", [True, False])
    def test_guard_stop_ends_serving_and_frees_the_port(self, wait):
        # How long stop() takes is in the benchmarks' per-item cost; here: that it
        # really stops, at once with wait=True, in the background without.
        import socket

        guard = NetworkGuard(["127.0.0.1"]).start()
        port, thread = guard.port, guard._thread
        time.sleep(0.1)  # the serving loop is inside its poll
        guard.stop(wait=wait)
        if not wait:
            guard._stopper.join(timeout=5)
        thread.join(timeout=5)
        assert not thread.is_alive()
        with socket.socket() as s:
            assert s.connect_ex(("127.0.0.1", port)) != 0  # nothing listens there any more
        guard.stop()  # a second stop is harmless


class TestErrorClassification:
    LOG = (
        "Locator.click: Timeout 1000ms exceeded.\nCall log:\n  - waiting for get_by_test_id(\"continue\")\n"
        "  - attempting click action\n    - element is visible, enabled and stable\n"
        "  - <div id=\"cookie-wall\" role=\"dialog\" class=\"cookie-wall\">…</div> intercepts pointer events\n"
    )

    def test_intercepting_overlay_is_named(self):
        overlay = intercepting_overlay(self.LOG)
        assert overlay is not None and overlay.selector == "div#cookie-wall"
        assert intercepting_overlay("Timeout 1000ms exceeded") is None

    def test_actionability_check_takes_the_last_reported(self):
        log = "waiting\n - element is not visible\n - retrying\n - element is not enabled\n"
        assert actionability_check(log) == "element_enabled"
        assert actionability_check("element is not editable") == "element_editable"
        assert actionability_check("other") is None

    def test_net_error(self):
        assert net_error("Page.goto: net::ERR_CONNECTION_REFUSED at http://x/") == "ERR_CONNECTION_REFUSED"
        assert net_error("no code") is None


class _ScreenshotPage:
    """A page whose screenshot fails ``failures`` times with ``message``, then works."""

    DATA = {"url": "about:blank", "title": "", "text": "", "key": [], "anchors": [], "inputs": []}

    def __init__(self, failures: int, message: str = "Page.screenshot: Protocol error (Page.captureScreenshot): "
                                                   "Unable to capture screenshot"):
        self.failures, self.message, self.calls, self.waits = failures, message, 0, []

    def evaluate(self, script, arg=None):
        return json.dumps(self.DATA)

    def screenshot(self, **kwargs):
        self.calls += 1
        if self.calls <= self.failures:
            raise Exception(self.message)
        return b"png"

    def wait_for_timeout(self, ms):
        self.waits.append(ms)


class TestObservationScreenshot:
    def test_transient_capture_error_is_retried(self):
        page = _ScreenshotPage(failures=2)
        obs = observe(page)
        assert obs.screenshot == b"png" and obs.signature.screenshot_hash.startswith("sha256:")
        assert page.calls == 3 and page.waits == list(SCREENSHOT_RETRY_DELAYS_MS[:2])
        assert "screenshot_error" not in obs.signature.metadata
        assert obs.signature == observe(_ScreenshotPage(failures=0)).signature.model_copy(
            update={"created_at": obs.signature.created_at})

    def test_persistent_capture_error_gives_an_observation_without_screenshot(self):
        page = _ScreenshotPage(failures=100)
        obs = observe(page)
        assert page.calls == len(SCREENSHOT_RETRY_DELAYS_MS) + 1
        assert obs.screenshot is None and obs.signature.screenshot_hash is None
        assert "Unable to capture screenshot" in obs.signature.metadata["screenshot_error"]

    @pytest.mark.parametrize("message", ["Target crashed", "Page.screenshot: Timeout 10000ms exceeded."])
    def test_other_screenshot_errors_are_not_retried(self, message):
        page = _ScreenshotPage(failures=1, message=message)
        with pytest.raises(Exception) as raised:
            observe(page)
        assert type(raised.value) is Exception and str(raised.value) == message  # the page's own error
        assert page.calls == 1


class _FakeChromium:
    def __init__(self, path):
        self.executable_path = path


class _FakePlaywright:
    def __init__(self, path):
        self.chromium = _FakeChromium(path)


def test_find_chromium_prefers_explicit_then_playwright_then_system(tmp_path, monkeypatch):
    monkeypatch.delenv("COMETLOCAL_CHROMIUM", raising=False)
    fake = tmp_path / "chrome"
    fake.write_text("")
    assert find_chromium(_FakePlaywright(str(tmp_path / "missing")), str(fake)) == str(fake)
    assert find_chromium(_FakePlaywright(str(fake))) is None  # Playwright's own build is used as is
    with pytest.raises(ChromiumNotFound, match="not found at"):
        find_chromium(_FakePlaywright(str(fake)), str(tmp_path / "nope"))
    monkeypatch.setenv("COMETLOCAL_CHROMIUM", str(fake))
    assert find_chromium(_FakePlaywright(None)) == str(fake)
    monkeypatch.delenv("COMETLOCAL_CHROMIUM")
    monkeypatch.setattr("pytest_cometlocal.executor.browser.chromium.system_chromium", lambda: None)
    with pytest.raises(ChromiumNotFound, match="no Chromium found"):
        find_chromium(_FakePlaywright(str(tmp_path / "missing")))


@pytest.mark.parametrize("text", ["a" * 5000, "é" * 3000, "中" * 2000, "- listitem: ab中\n" * 300])
def test_an_actual_aria_snapshot_is_cut_to_the_limit_in_utf8_bytes_and_marked(text):
    # (v1.1) details.actual of aria_snapshot_matches: at most the limit, whole characters, whole lines.
    clipped, cut = clip_utf8(text, 1000)
    assert cut is True and clipped.endswith("\n... (truncated)")
    assert len(clipped.encode("utf-8")) <= 1000
    kept = clipped[: -len("\n... (truncated)")]
    assert text.startswith(kept) and len(kept.encode("utf-8")) > 1000 - 40
    if "\n" in text:
        assert text[len(kept)] == "\n"  # cut at the end of a line
    assert clip_utf8(text[:100], 1000) == (text[:100], False)
