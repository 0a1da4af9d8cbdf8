"""``contract.settings.effective_settings``: the one computation of a plan's base URL, allowlist,
mode and secrets, with where each came from; the runtime's fixture and the run manifest use it
(tests/integration/test_plan_settings_fixture.py checks the fixture in an inner pytest session)."""

from __future__ import annotations

import pytest

from pytest_cometlocal.contract.settings import effective_settings
from tests.support import VALID_PLAN, only_valid

NO_BASE = VALID_PLAN.replace("base_url: http://127.0.0.1:8000\n", "")


@pytest.mark.parametrize("text, cli, default, base, source, allowlist", [
    (VALID_PLAN, None, None, "http://127.0.0.1:8000", "plan", ("127.0.0.1",)),
    (VALID_PLAN, "http://other.test:1", None, "http://other.test:1", "cli", ("other.test",)),
    (VALID_PLAN, None, "http://default.test", "http://127.0.0.1:8000", "plan", ("127.0.0.1",)),
    (NO_BASE, None, "http://Default.TEST:9/x", "http://Default.TEST:9/x", "default", ("default.test",)),
    (NO_BASE, "http://localhost:9000", "http://default.test", "http://localhost:9000", "cli", ("localhost",)),
    (NO_BASE, None, None, None, None, ()),
], ids=["plan", "cli-wins-over-plan", "plan-wins-over-default", "default", "cli-wins-over-default", "none"])
def test_base_url_precedence_and_the_allowlist_it_implies(validate, text, cli, default, base, source, allowlist):
    eff = effective_settings(only_valid(validate(text)), cli_base_url=cli, default_base_url=default, env={})
    assert (eff.base_url, eff.base_url_source, eff.allowlist) == (base, source, allowlist)
    assert eff.sources["allowlist"] == "base_url host"
    assert eff.configuration()["effective"]["base_url"] == base


def test_the_allowlist_host_is_lower_cased_without_port_or_path(validate):
    text = VALID_PLAN.replace("http://127.0.0.1:8000", "https://Portal.Example.COM:8443/app/")
    eff = effective_settings(only_valid(validate(text)), env={})
    assert eff.allowlist == ("portal.example.com",)


@pytest.mark.parametrize("cli", [None, "http://elsewhere.test"])
def test_an_explicit_allowlist_is_lower_cased_and_never_extended_by_the_base_url(validate, cli):
    text = VALID_PLAN + 'allowlist: [Example.COM, "*.CDN.example.org", 127.0.0.1]\n'
    eff = effective_settings(only_valid(validate(text)), cli_base_url=cli, env={})
    assert eff.allowlist == ("example.com", "*.cdn.example.org", "127.0.0.1")
    assert eff.sources["allowlist"] == "plan"


def test_mode_and_secrets(validate):
    text = VALID_PLAN + "secrets: {pw: {env: APP_PW}}\n"
    valid = only_valid(validate(text, env={"APP_PW": "at validation"}))
    eff = effective_settings(valid, force_dry_run=True, env={"APP_PW": "at run time"})
    assert eff.mode == "dry_run" and eff.secrets == {"pw": "at run time"}
    assert "at run time" not in repr(eff) and "at run time" not in str(eff.configuration())
    assert effective_settings(valid, env={}).mode == "live"


def test_an_ipv6_base_url_gives_its_host_in_brackets_as_a_plan_writes_it(validate):
    """The agent's session takes this default too (agent/plan_writer.session_plan): the form the allowlist's host
    pattern accepts in a saved plan, and the one Chromium's proxy bypass list needs."""
    text = VALID_PLAN.replace("http://127.0.0.1:8000", "http://[::1]:8000")
    eff = effective_settings(only_valid(validate(text)), env={})
    assert eff.allowlist == ("[::1]",)
    saved = VALID_PLAN + 'allowlist: ["[::1]"]\n'  # the same list written out validates
    assert effective_settings(only_valid(validate(saved)), env={}).allowlist == ("[::1]",)
