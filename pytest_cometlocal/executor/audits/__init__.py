"""How the audit conditions look at the page: a picture against its reviewed baseline,
the page against accessibility rules (contract: ``contract/model/checks/audits.py``).

One row per kind in ``EVALUATORS``, merged into ``executor/page/conditions.py``'s
table. This room never imports ``executor/page`` (that would be a circle): an
evaluator gets the page and the means to find its targets from the ``CheckContext``
it is given (``ctx.page``, ``ctx.locate(spec)``, ``ctx.mask_text``: ``baselines.AuditContext``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from pytest_cometlocal.executor.audits import accessibility
from pytest_cometlocal.executor.audits.screenshot_check import screenshot_matches

if TYPE_CHECKING:
    from pytest_cometlocal.contract.model.conditions import Condition
    from pytest_cometlocal.executor.audits.baselines import AuditContext

# kind -> evaluator(condition, ctx, phase) -> (holds, observed); see page/conditions.Evaluator
EVALUATORS: dict[str, Callable[[Condition, AuditContext, str], tuple[bool, Any]]] = {
    **accessibility.EVALUATORS,  # accessibility_clean (accessibility.py: axe-core in an isolated world)
    "screenshot_matches": screenshot_matches,  # pictures (screenshot_check.py, baselines.py, picture_compare.py)
}
