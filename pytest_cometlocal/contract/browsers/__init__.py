"""(v1.4) The browsers a plan runs on, and the features of a plan that only Chromium has.

A run has a matrix of browsers (the command line's ``--cometlocal-browser`` / pytest-playwright's
``--browser``, ini ``cometlocal_browsers``, the suite config's ``browsers:``, else Chromium alone:
the plugin decides). A plan's ``browser.name`` (one name or a list) says which of them it may run on:
``browsers_for`` filters the matrix by it, giving the browsers the plan gets an item on and those it
is not run on (the terminal summary counts these).

Some features of a plan only Chromium has: they are done through Chromium's DevTools protocol (CDP),
or the other browsers ignore them (measured on Firefox 153 through WebDriver BiDi, issue 49; WebKit
cannot run on the project's machines, so it is taken to be as Firefox is, never claimed better):

====================== ======================================= ==============================================
feature id             where in the plan                       why Chromium only
====================== ======================================= ==============================================
``accessibility_clean`` a condition of that kind               axe runs in a CDP isolated world, out of the
                                                               page's reach; no public API gives one
``reload_bypass_cache`` a ``reload`` step with ``bypass_cache`` CDP's ``Network.setCacheDisabled``
``touch``               ``browser.device`` with touch          no touch emulation on Firefox
                        (``has_touch`` / ``is_mobile``)
``color_scheme``        ``browser.color_scheme``               the emulation has no effect on Firefox
====================== ======================================= ==============================================

``chromium_only_features`` lists each use, located (key path, step id) and with the name of the
condition a run on another browser fails (PRECONDITION_FAILED at item setup, the plugin's refusal).
A plan whose ``browser.name`` allows no Chromium and that uses one of them is refused at load: rule
BROWSER_FEATURE (contract/browsers/rules.py), located at the feature.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from pytest_cometlocal.contract.model.plan import BROWSER_NAMES, Plan
from pytest_cometlocal.contract.model.problems import Loc, format_key_path

__all__ = [
    "BROWSER_NAMES", "CHROMIUM_ONLY", "ChromiumOnlyFeature", "allowed_browsers", "browsers_for",
    "chromium_only_features", "device_has_touch",
]

# feature id -> (the condition a run on another browser fails, why only Chromium has it).
CHROMIUM_ONLY: dict[str, tuple[str, str]] = {
    "accessibility_clean": ("isolated_world_available",
                            "the accessibility audit runs axe in Chromium's isolated world (DevTools protocol), "
                            "out of the page's reach"),
    "reload_bypass_cache": ("cache_bypass_available",
                            "a reload that bypasses the cache needs Chromium's DevTools protocol"),
    "touch": ("touch_emulation_available", "only Chromium emulates a device's touch screen"),
    "color_scheme": ("color_scheme_emulation_available", "only Chromium emulates a color scheme"),
}


class ChromiumOnlyFeature(str):
    """One use of a Chromium-only feature. The string is the feature's id (a key of CHROMIUM_ONLY), so
    ``"accessibility_clean" in chromium_only_features(plan)`` reads as it says; the attributes say where:

    - ``loc``: the key path as the rules report it (``("steps", 2, "postconditions", 0)``, ``("browser", "device")``);
    - ``where``: that path as text (``steps[2].postconditions[0]``), as a Problem's key path is written;
    - ``step``: the id of the step that uses it, or None for a plan key;
    - ``condition``: the failed condition of the refusal on another browser (``isolated_world_available``);
    - ``why``: one clause a message can end with.
    """

    loc: Loc
    step: str | None

    def __new__(cls, feature: str, loc: Loc, step: str | None = None) -> "ChromiumOnlyFeature":
        if feature not in CHROMIUM_ONLY:
            raise ValueError(f"not a Chromium-only feature: {feature!r} (known: {', '.join(CHROMIUM_ONLY)})")
        obj = super().__new__(cls, feature)
        obj.loc, obj.step = tuple(loc), step
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (ChromiumOnlyFeature, (str(self), self.loc, self.step))

    def __repr__(self) -> str:
        return f"ChromiumOnlyFeature({str(self)!r}, {self.where!r}" + (f", step={self.step!r})" if self.step else ")")

    @property
    def feature(self) -> str:
        return str(self)

    @property
    def where(self) -> str:
        return format_key_path(self.loc)

    @property
    def condition(self) -> str:
        return CHROMIUM_ONLY[str(self)][0]

    @property
    def why(self) -> str:
        return CHROMIUM_ONLY[str(self)][1]

    def describe(self) -> str:
        """``accessibility_clean (step 'check', steps[2].postconditions[0])``, ``touch (browser.device)``."""
        return f"{self} (" + (f"step '{self.step}', " if self.step else "") + f"{self.where})"


def allowed_browsers(plan: Plan) -> frozenset[str] | None:
    """The browsers the plan's ``browser.name`` allows (its own, or its suite config's ``browser``), or None
    when it has none: any browser of the matrix."""
    name = plan.browser.name if plan.browser is not None else None
    if name is None:
        return None
    return frozenset([name] if isinstance(name, str) else name)


def browsers_for(plan: Plan, matrix: Sequence[str]) -> tuple[list[str], list[str]]:
    """The run's ``matrix`` filtered by the plan's ``browser.name``: (the browsers the plan gets an item on,
    the browsers it is not run on), each in the matrix's order, each name once. Without ``browser.name``
    every browser of the matrix runs it. Both lists may be empty (an empty matrix); ``run`` is empty when
    the plan allows none of the matrix (the plugin then collects no item for it and says so)."""
    allowed = allowed_browsers(plan)
    run: list[str] = []
    skipped: list[str] = []
    for name in dict.fromkeys(matrix):
        (run if allowed is None or name in allowed else skipped).append(name)
    return run, skipped


def chromium_only_features(plan: Plan, *, devices: Mapping[str, Mapping[str, Any]] | None = None
                           ) -> list[ChromiumOnlyFeature]:
    """Every use of a Chromium-only feature in the plan (CHROMIUM_ONLY), in plan order: the plan keys
    (``browser.device``, ``browser.color_scheme``), then the steps and recovery steps, each step's
    ``bypass_cache`` then its conditions, preconditions first. The same feature is listed once per use.

    ``devices``: Playwright's device registry (name -> descriptor), for ``browser.device``; None reads it
    (contract/devices.py, cached; the validator has read it already for a plan with a device). A registry
    that cannot be read, or a device it does not know, counts as no touch: rule DEVICE reports that."""
    found: list[ChromiumOnlyFeature] = []
    browser = plan.browser
    if browser is not None:
        if browser.device is not None and device_has_touch(browser.device, devices):
            found.append(ChromiumOnlyFeature("touch", ("browser", "device")))
        if browser.color_scheme is not None:
            found.append(ChromiumOnlyFeature("color_scheme", ("browser", "color_scheme")))
    blocks: list[tuple[Loc, Sequence[Any]]] = [(("steps",), plan.steps)]
    if plan.recovery is not None:
        blocks.append((("recovery", "steps"), plan.recovery.steps))
    for prefix, steps in blocks:
        for i, step in enumerate(steps):
            loc = prefix + (i,)
            if step.kind == "reload" and step.bypass_cache:
                found.append(ChromiumOnlyFeature("reload_bypass_cache", loc + ("bypass_cache",), step.id))
            for phase in ("preconditions", "postconditions"):
                for j, condition in enumerate(getattr(step, phase)):
                    if condition.kind == "accessibility_clean":
                        found.append(ChromiumOnlyFeature("accessibility_clean", loc + (phase, j), step.id))
    return found


def device_has_touch(name: str, devices: Mapping[str, Mapping[str, Any]] | None = None) -> bool:
    """Whether Playwright's device ``name`` has a touch screen or is a mobile (``has_touch`` / ``is_mobile``)."""
    if devices is None:
        from pytest_cometlocal.contract.devices import DeviceRegistryUnavailable, device_registry

        try:
            devices = device_registry()
        except DeviceRegistryUnavailable:
            return False
    descriptor = devices.get(name)
    return bool(descriptor) and bool(descriptor.get("has_touch") or descriptor.get("is_mobile"))
