"""``screenshot_matches``: a stable picture of the viewport (or of a target) against its reviewed baseline.

**Stability first.** A look takes pictures until two consecutive ones are equal
(at most ``STABLE_TRIES``), each with Playwright's ``animations="disabled"`` (finite
CSS animations and transitions jump to their end, infinite ones back to their start),
the caret hidden and ``scale="css"``, so a picture does not depend on the screen's
pixel ratio. A page that never holds still does not hold: the poll looks again until
the step's timeout, and the failure says ``stable: false``.

**Masks.** Each ``mask`` target (one element, U4 rules) and every element showing a
secret (a field typed with one, a text holding one) is painted over with Playwright's
mask colour in the actual picture as it is taken, and the same boxes are painted over
the baseline before the comparison: a masked area is ignored in both, and a secret
never reaches a picture, a baseline least of all.

**Baselines.** Missing: written beside the plan when ``--cometlocal-update-snapshots``
is ``missing`` or ``all`` (the condition holds), else the condition fails with
``baseline: "missing"`` and the picture goes into the run folder as the would-be
baseline. Differing beyond the allowance: rewritten under ``all``, else a failure with
the expected, actual and diff pictures (executor/audits/baselines.py).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from pytest_cometlocal.executor.audits.baselines import AuditLook, PictureSet
from pytest_cometlocal.executor.errors import OutputWriteFailed, is_crash
from pytest_cometlocal.executor.scripts import load_script

if TYPE_CHECKING:
    from playwright.sync_api import Locator

    from pytest_cometlocal.contract.model.conditions import Condition
    from pytest_cometlocal.executor.audits.baselines import AuditContext

STABLE_TRIES = 4  # pictures one look may take to find two equal in a row
CAPTURE_MS = 5000  # one picture: a page that cannot give one in this time is not looked at again in this look
MASK_COLOUR = "#FF00FF"  # Playwright's default mask colour (picture_compare.MASK_COLOUR)
SECRET_ATTR = "data-cometlocal-secret"  # the attribute observe.js marks secrets with (and mark_secrets.js)

# Marks every element showing a secret now (a field's value, a text) and gives their boxes (scripts/mark_secrets.js).
MARK_SECRETS_JS = load_script(__package__, "mark_secrets.js")


def _box(x: float, y: float, w: float, h: float, origin: tuple[float, float]) -> tuple[int, int, int, int]:
    """A box in picture pixels (whole pixels covering it), relative to the picture's top left ``origin``."""
    x0, y0 = math.floor(x - origin[0]), math.floor(y - origin[1])
    return x0, y0, math.ceil(x - origin[0] + w) - x0, math.ceil(y - origin[1] + h) - y0


def _masks(cond: Condition, ctx: AuditContext, secrets: list[str]) -> tuple[list[Locator], dict[str, Any] | None]:
    """The mask locators (each target exactly one element, then every element showing a secret, marked
    now); or why a mask was not found."""
    page = ctx.page
    locators: list[Locator] = []
    for j, spec in enumerate(cond.args.mask):
        locator, found = ctx.locate(spec)
        if locator is None:
            return [], {"mask": j, **found}
        locators.append(locator)
    if secrets and page.evaluate(MARK_SECRETS_JS, secrets):
        locators.append(page.locator(f"[{SECRET_ATTR}]"))
    return locators, None


def _stable(take: Any) -> bytes | None:
    """Pictures until two in a row are equal; None when the page did not hold still for STABLE_TRIES."""
    last = take()
    for _ in range(STABLE_TRIES - 1):
        shot = take()
        if shot == last:
            return shot
        last = shot
    return None


def screenshot_matches(cond: Condition, ctx: AuditContext, phase: str) -> tuple[bool, Any]:
    """(v1.2) The picture against its baseline; observed: the name, what happened to the baseline, the difference."""
    args, look = cond.args, ctx.audit
    if look is None:  # a check context made without the executor's step context (nothing to compare with)
        return False, {"snapshot": args.name, "error": "no baselines for this check"}
    baselines = look.baselines
    seen: dict[str, Any] = {"snapshot": args.name, "baseline_file": baselines.shown(args.name)}
    target: Locator | None = None
    if args.target is not None:
        target, found = ctx.locate(args.target)
        if target is None:
            return False, {**seen, **found}
    secrets = [s for s in baselines.secrets if s]
    masks, missing = _masks(cond, ctx, secrets)
    if missing is not None:
        return False, {**seen, **missing}
    shoot = dict(animations="disabled", caret="hide", scale="css", type="png", timeout=CAPTURE_MS,
                 mask=masks, mask_color=MASK_COLOUR)
    try:
        png = _stable(lambda: (target or ctx.page).screenshot(**shoot))
        origin = (0.0, 0.0)
        if target is not None:
            box = target.bounding_box(timeout=CAPTURE_MS)
            origin = (box["x"], box["y"]) if box else origin
        mask_boxes = [b for b in (m.bounding_box(timeout=CAPTURE_MS) for m in masks[:len(args.mask)]) if b]
        # where the secrets are now (an element's picture scrolls it into view first)
        secret_boxes = ctx.page.evaluate(MARK_SECRETS_JS, secrets) if secrets else []
    except Exception as exc:
        if is_crash(exc):
            raise
        return False, {**seen, "error": type(exc).__name__, "message": ctx.mask_text(str(exc).splitlines()[0][:200])}
    if png is None:
        return False, {**seen, "stable": False}
    boxes = [_box(b["x"], b["y"], b["width"], b["height"], origin) for b in mask_boxes]
    boxes += [_box(*b, origin) for b in secret_boxes]
    return _judge(args, look, png, boxes, id(cond), seen)


def _judge(args: Any, look: AuditLook, png: bytes, boxes: list[tuple[int, int, int, int]], key: int,
           seen: dict[str, Any]) -> tuple[bool, Any]:
    """Compare with the baseline, write one where the update mode says so, keep a failure's pictures.

    A baseline that cannot be read as a PNG, or written, is a failed condition that says why, never a crash.
    """
    baselines = look.baselines
    try:
        expected = baselines.read(args.name)
    except OSError as exc:
        return False, {**seen, "baseline": "unreadable", "error": exc.strerror or str(exc)}
    if expected is None:
        if baselines.update in ("missing", "all") and baselines.folder is not None:
            return _write(args, look, png, key, seen, "missing")
        baselines.keep(look.tag, key, PictureSet(args.name, {"would_be_baseline": png}))
        return False, {**seen, "baseline": "missing"}
    try:
        from pytest_cometlocal.executor.audits.picture_compare import compare  # the pictures extra, loaded on use

        result = compare(expected, png, args.threshold, boxes)
    except (OSError, ValueError) as exc:  # not a PNG (Pillow's UnidentifiedImageError is an OSError)
        return False, {**seen, "baseline": "unreadable", "error": str(exc).splitlines()[0][:200]}
    shown = {**seen, **result.details()}
    if result.within(args.max_diff_pixels, args.max_diff_ratio):
        baselines.keep(look.tag, key, None)
        return True, shown
    if baselines.update == "all":
        return _write(args, look, png, key, shown, "differs")
    pictures = {"expected": expected, "actual": png, **({"diff": result.diff_png} if result.diff_png else {})}
    baselines.keep(look.tag, key, PictureSet(args.name, pictures))
    return False, {**shown, "baseline": "differs"}


def _write(args: Any, look: AuditLook, png: bytes, key: int, seen: dict[str, Any], why: str) -> tuple[bool, Any]:
    """The update mode writes the baseline: the condition holds; a folder that refuses it does not."""
    try:
        look.baselines.write(args.name, png, look.tag, look.step_id, why)
    except OutputWriteFailed:  # the run folder itself: the run's own typed error
        raise
    except OSError as exc:
        return False, {**seen, "baseline": "not written", "error": exc.strerror or str(exc)}
    look.baselines.keep(look.tag, key, None)
    return True, {**seen, "baseline": "written"}
