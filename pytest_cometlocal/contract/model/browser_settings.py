"""(v1.2) ``browser:`` and ``clock:``: the settings a plan's browser context is made with.

Plan keys that a suite config may also set (merged key by key, the plan's key
wins). They are context options (Playwright's ``browser.new_context``), so
they are set before the first step and hold for the whole run. The closed
sets (permissions, colour schemes) are the models' own; what needs the
outside world (the device registry, the time-zone database, a time with its
offset) is checked by contract/validate/settings_rules.py, located at the key.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field

from pytest_cometlocal.contract.model.base import ContractModel

# Chromium's permissions as Playwright grants them (BrowserContext.grant_permissions).
Permission = Literal[
    "geolocation", "midi", "midi-sysex", "notifications", "camera", "microphone", "background-sync",
    "ambient-light-sensor", "accelerometer", "gyroscope", "magnetometer", "clipboard-read", "clipboard-write",
    "payment-handler", "storage-access", "local-fonts", "local-network-access", "screen-wake-lock",
]
PERMISSIONS: tuple[str, ...] = get_args(Permission)
ColorScheme = Literal["light", "dark", "no-preference"]
# BCP 47 as browsers take it: "de", "de-DE", "zh-Hant-TW", "sr-Latn".
LOCALE_PATTERN = r"^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$"
Pixels = Annotated[int, Field(ge=1, le=10_000)]


class Viewport(ContractModel):
    width: Pixels
    height: Pixels


class Geolocation(ContractModel):
    """Where the page's ``navigator.geolocation`` says it is (needs the ``geolocation`` permission)."""

    latitude: Annotated[float, Field(ge=-90, le=90)]
    longitude: Annotated[float, Field(ge=-180, le=180)]
    accuracy: Annotated[float, Field(ge=0)] | None = None


class BrowserSettings(ContractModel):
    """(v1.2) The browser context's settings; a key left out keeps the executor's default."""

    viewport: Viewport | None = None
    device: Annotated[str, Field(min_length=1)] | None = None  # a name from Playwright's device registry
    locale: Annotated[str, Field(pattern=LOCALE_PATTERN)] | None = None
    timezone: Annotated[str, Field(min_length=1)] | None = None  # an IANA zone, "Europe/Madrid"
    geolocation: Geolocation | None = None
    permissions: list[Permission] | None = None
    color_scheme: ColorScheme | None = None
    offline: bool | None = None


class ClockSettings(ContractModel):
    """(v1.2) ``clock.at``: an ISO 8601 time with its UTC offset; the page's clock starts there."""

    at: Annotated[str, Field(min_length=1)]


# The browser settings that make a saved storage state: a state made under other values of
# these is not reused (plugin/shared_states.py). What the server and the application see of
# who is there (user agent, language, time zone); the rest (size, colours, permissions, place,
# network) changes how the page looks, not who is signed in.
STATE_SETTINGS: tuple[str, ...] = ("device", "locale", "timezone")


def settings_record(browser: BrowserSettings | None, clock: ClockSettings | None) -> dict[str, Any]:
    """What a manifest, ``show`` and Allure say about the settings: only the keys set."""
    record: dict[str, Any] = {}
    if browser is not None:
        record["browser"] = browser.model_dump(mode="json", exclude_none=True)
    if clock is not None:
        record["clock"] = clock.model_dump(mode="json")
    return record


def state_settings(browser: BrowserSettings | None) -> dict[str, str]:
    """The STATE_SETTINGS a context is made with (only those set): what a saved state was made under."""
    if browser is None:
        return {}
    return {key: getattr(browser, key) for key in STATE_SETTINGS if getattr(browser, key) is not None}
