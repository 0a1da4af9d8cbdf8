"""pytest-playwright's option names, read beside this plugin's own, into one ``Flags``.

A pytest-playwright user types ``--headed``, ``--slowmo``, ``--browser-channel``,
``--tracing``, ``--video``, ``--screenshot`` and ``--device``; when that plugin is
loaded they drive plan items too, as ``--base-url`` does. This plugin's own
``--cometlocal-*`` options cover the same ground without it and win when both
are given (they are the more specific ones: a suite may want plans and ``page``
tests recorded differently). ``--headed`` is the one exception: either turns it on.
Only option destinations are read, never pytest-playwright's code, so any
plugin that registers them (pytest-playwright-asyncio too) drives plans alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pytest_cometlocal.contract.devices import DeviceRegistryUnavailable, device_registry
from pytest_cometlocal.plugin.reporting.pwvideo import ffmpeg_problem

VIDEO_MODES = ("off", "on", "retain-on-failure")
SCREENSHOT_MODES = ("off", "on", "only-on-failure")


def add_options(group: Any) -> None:
    """This plugin's own names for what pytest-playwright's video, screenshot and device options do."""
    group.addoption("--cometlocal-video", choices=VIDEO_MODES, default=None,
                    help="record a video of each plan into its evidence (on, off, retain-on-failure; default off; "
                         "pytest-playwright's --video too). Plans with secrets: see --cometlocal-video-secrets")
    group.addoption("--cometlocal-video-secrets", action="store_true", default=False,
                    help="record the video of plans with secrets too (a video shows every typed value unmasked)")
    group.addoption("--cometlocal-screenshot", choices=SCREENSHOT_MODES, default=None,
                    help="keep a screenshot of the page as each plan leaves it (on, off, only-on-failure; "
                         "default off; pytest-playwright's --screenshot too); failed steps always keep theirs")
    group.addoption("--cometlocal-device", metavar="NAME", default=None,
                    help="emulate a Playwright device (e.g. 'Pixel 7') in every plan without browser.device "
                         "(pytest-playwright's --device too)")


@dataclass(frozen=True)
class Flags:
    """The resolved values; ``headed_by`` names the option that asked for a window (for its error line)."""

    headed: bool = False
    headed_by: str = "--cometlocal-headed"
    slowmo: float = 0
    channel: str | None = None
    tracing: str | None = None  # None: neither option given (the ini key decides)
    video: str = "off"
    video_secrets: bool = False
    screenshot: str = "off"
    device: str | None = None

    def launch_record(self) -> dict[str, Any]:
        """What the run manifest's execution profile says of the launch and the recording."""
        record: dict[str, Any] = {"slow_mo": self.slowmo}
        if self.channel:
            record["channel"] = self.channel
        if self.device:
            record["device"] = self.device
        if self.video != "off":
            record["video"] = self.video
        if self.screenshot != "off":
            record["screenshot"] = self.screenshot
        return record


def _theirs(config: pytest.Config, dest: str) -> Any:
    """pytest-playwright's value, or None when no plugin registered that option (or it is its default)."""
    value = getattr(config.option, dest, None)
    return None if value in (None, False, 0, "off") else value


def read_flags(config: pytest.Config, remote: bool = False) -> Flags:
    """Ours first, then pytest-playwright's, then the default. An unknown device, or a video without
    Playwright's ffmpeg on a browser launched here (``remote``: the server records it), is a one-line usage error."""
    ours_headed = bool(config.getoption("cometlocal_headed", False))
    headed = ours_headed or bool(_theirs(config, "headed"))
    device = config.getoption("cometlocal_device", None) or _theirs(config, "device")
    flags = Flags(
        headed=headed,
        headed_by="--cometlocal-headed" if ours_headed or not headed else "--headed",
        slowmo=float(config.getoption("cometlocal_slowmo", 0) or _theirs(config, "slowmo") or 0),
        channel=_theirs(config, "browser_channel"),
        tracing=config.getoption("cometlocal_tracing", None) or _theirs(config, "tracing"),
        video=config.getoption("cometlocal_video", None) or _theirs(config, "video") or "off",
        video_secrets=bool(config.getoption("cometlocal_video_secrets", False)),
        screenshot=config.getoption("cometlocal_screenshot", None) or _theirs(config, "screenshot") or "off",
        device=device,
    )
    if device is not None:
        _check_device(device)
    if flags.video != "off" and not remote:
        option = "--cometlocal-video" if config.getoption("cometlocal_video", None) else "--video"
        problem = ffmpeg_problem(option)
        if problem:
            raise pytest.UsageError(f"cometlocal: {problem}")
    return flags


def _check_device(name: str) -> None:
    try:
        known = device_registry()
    except DeviceRegistryUnavailable as exc:
        raise pytest.UsageError(f"cometlocal: --cometlocal-device {name!r}: {exc}") from None
    if name not in known:
        close = sorted(n for n in known if n.lower().split()[0] == name.lower().split()[0])[:5] if name.strip() else []
        hint = f" (similar: {', '.join(close)})" if close else " (`playwright.devices` lists them)"
        raise pytest.UsageError(f"cometlocal: --cometlocal-device {name!r} is not one of Playwright's devices{hint}")


def device_context_args(flags: Flags) -> dict[str, Any]:
    """new_context's keyword arguments for the option's device; a plan's own ``browser.device`` replaces them
    all (``guarded_context`` lays the plan's settings over these, and a descriptor sets every key)."""
    if flags.device is None:
        return {}
    descriptor = dict(device_registry()[flags.device])
    descriptor.pop("default_browser_type", None)  # the browser is always Chromium
    return descriptor
