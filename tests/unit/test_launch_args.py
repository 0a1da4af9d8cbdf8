"""The Chromium launch line's feature switches (executor/browser/chromium.py ``launch_args``).

Chromium keeps only the last ``--disable-features`` and ``--enable-features``; the
launch line must hold one of each, with Playwright's features, ours and the user's.
tests/executor/test_chromium_switches.py holds the copy of Playwright's list to the
list Playwright passes, and shows what ours keep away.
"""

from __future__ import annotations

from pytest_cometlocal.executor.browser.chromium import (
    LAUNCH_ARGS, OUR_DISABLED, PLAYWRIGHT_DISABLED, PLAYWRIGHT_ENABLED, launch_args)


def features(args: list[str], switch: str) -> list[list[str]]:
    return [arg.split("=", 1)[1].split(",") for arg in args if arg.startswith(f"--{switch}-features=")]


def test_the_launch_line_has_one_disable_switch_with_playwrights_features_and_ours() -> None:
    (disabled,) = features(LAUNCH_ARGS, "disable")
    assert set(PLAYWRIGHT_DISABLED) | set(OUR_DISABLED) == set(disabled)
    assert {"WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "PaintHolding", "NetworkTimeServiceQuerying"} <= set(disabled)
    assert len(disabled) == len(set(disabled))
    assert features(LAUNCH_ARGS, "enable") == []  # Playwright's own --enable-features stays the only one


def test_user_args_without_feature_switches_follow_ours_unchanged() -> None:
    assert launch_args(["--lang=de", "--window-size=800,600"]) == LAUNCH_ARGS + ["--lang=de", "--window-size=800,600"]
    assert launch_args() == LAUNCH_ARGS
    assert launch_args() is not LAUNCH_ARGS  # a caller may append to it


def test_a_users_disabled_features_are_added_to_ours_in_one_switch() -> None:
    args = launch_args(["--disable-features=Foo,Translate", "--lang=de", "--disable-features=Bar"])
    (disabled,) = features(args, "disable")
    assert disabled == list(dict.fromkeys(PLAYWRIGHT_DISABLED + OUR_DISABLED + ("Foo", "Bar")))
    assert args[-1] == "--lang=de"
    assert [a for a in args if not a.startswith("--disable-features=")] == [
        a for a in LAUNCH_ARGS if not a.startswith("--disable-features=")] + ["--lang=de"]


def test_a_users_enabled_features_keep_playwrights() -> None:
    args = launch_args(["--enable-features=Foo", "--enable-features=Bar,Foo"])
    assert features(args, "enable") == [list(PLAYWRIGHT_ENABLED) + ["Foo", "Bar"]]
    assert features(args, "disable") == features(LAUNCH_ARGS, "disable")


def test_an_empty_switch_adds_nothing() -> None:
    assert features(launch_args(["--disable-features="]), "disable") == features(LAUNCH_ARGS, "disable")
