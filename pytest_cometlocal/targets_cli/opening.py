"""Opening the page ``cometlocal targets`` lists: through the executor, under a plan's allowlist and masking.

The page is always opened by running a plan, so nothing here is a second way
to drive a browser: a URL becomes a one-step plan (a ``navigate``, plus
``storage_state`` when asked), validated in the suite config of the suite's root
(``--root``, default the working folder), as a plan file written there would be; ``--plan FILE --step ID`` runs
that plan's steps before the step. The plan's effective settings
(``contract.settings``) give the allowlist, the base URL and the secrets: a
URL outside the allowlist is refused before a browser starts
(``DOMAIN_BLOCKED``, as the network guard would block it), and whatever
the listing reads is masked with the run's redactor. A storage state the plan
starts from is made first, by the suite's first valid plan that saves it,
as pytest would make it on demand (``plugin/shared_states.py``).
Every failure is a ``TargetsRefused``: the code of the step or check that failed, and its message.
"""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from pytest_cometlocal.contract.allowlist import url_allowed
from pytest_cometlocal.contract.browser_url import join_url
from pytest_cometlocal.contract.load.paths import DEFAULT_GLOBS
from pytest_cometlocal.contract.load.suite_config import SuiteConfigFinder
from pytest_cometlocal.contract.model.plan import state_settings
from pytest_cometlocal.contract.settings import EffectiveSettings, effective_settings
from pytest_cometlocal.contract.validate.validated import InvalidPlan, ValidationContext, ValidPlan
from pytest_cometlocal.contract.validate.validator import validate_path, validate_text
from pytest_cometlocal.targets_cli.errors import TargetsRefused, TargetsUsage

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

    from pytest_cometlocal.executor.runfolder.redactor import Redactor

T = TypeVar("T")
OPEN_MS = 30_000  # the navigation of a URL's plan
URL_PLAN_FILE = "cometlocal-targets.actions.yaml"  # where a URL's plan is taken to be written (in the suite's root)


@dataclass(frozen=True)
class Opening:
    """What to open: a URL, or a plan file (``FILE`` or ``FILE::NAME``) and the step to stop before."""

    root: Path
    url: str | None = None
    plan: str | None = None
    step: str | None = None
    storage_state: str | None = None
    config: Path | None = None
    base_url: str | None = None


def url_plan_text(url: str, storage_state: str | None) -> str:
    """A URL's one-step plan (JSON strings are YAML strings: nothing in the URL is read as YAML)."""
    state = f"storage_state: {json.dumps(storage_state)}\n" if storage_state else ""
    return (f"name: cometlocal targets\n{state}steps:\n"
            f"  - {{id: open, kind: navigate, target: {{type: url, url: {json.dumps(url)}}}, criticality: normal,\n"
            f"     timeout_ms: {OPEN_MS}, preconditions: [{{kind: host_in_allowlist}}],\n"
            f"     postconditions: [{{kind: host_in_allowlist}}]}}\n")


def _only_valid(results: list[Any], shown: str, name: str | None = None) -> ValidPlan:
    if name is not None:
        results = [r for r in results if r.item_name == name or getattr(r, "name", None) == name]
        if not results:
            raise TargetsUsage(f"{shown} has no plan named {name!r}")
    if len(results) != 1:
        names = ", ".join(r.item_name for r in results)
        raise TargetsUsage(f"{shown} holds {len(results)} plans ({names}): name one, --plan {shown}::NAME")
    (result,) = results
    if isinstance(result, InvalidPlan):
        first = result.problems[0].format() if result.problems else "invalid"
        raise TargetsUsage(f"the plan is invalid ({len(result.problems)} problem(s)); first: {first}")
    return result


def plan_to_run(opening: Opening) -> tuple[ValidPlan, EffectiveSettings]:
    """The plan whose run opens the page (a URL's, or the named plan cut before ``step``), and its settings."""
    configs = SuiteConfigFinder(opening.root, opening.config)
    if opening.plan is None:
        path = opening.root / URL_PLAN_FILE
        ctx = ValidationContext(root=opening.root, plan_path=path, suite_config=configs.for_plan(path))
        plan = _only_valid(validate_text(url_plan_text(opening.url or "", opening.storage_state), ctx,
                                         file=URL_PLAN_FILE), "the URL")
        eff = effective_settings(plan, cli_base_url=opening.base_url, default_base_url=opening.url)
        target = join_url(eff.base_url or "", opening.url or "")
        if not url_allowed(target, eff.allowlist):
            where = eff.sources.get("allowlist") or "the base URL"
            raise TargetsRefused("DOMAIN_BLOCKED", f"{target} is outside the allowlist "
                                 f"({', '.join(eff.allowlist) or 'empty'}, from {where}{_config_named(plan)})")
        return plan, eff
    file, _, name = opening.plan.partition("::")
    path = Path(file)
    if not path.is_file():
        raise TargetsUsage(f"no such plan file: {file}")
    real = path.resolve()
    ctx = ValidationContext(root=opening.root, plan_path=real, suite_config=configs.for_plan(real))
    plan = _only_valid(validate_path(path, ctx, shown=file), file, name or None)
    steps = plan.plan.steps
    if opening.step is not None:
        ids = [s.id for s in steps]
        if opening.step not in ids:
            raise TargetsUsage(f"{file}: plan {plan.name!r} has no step {opening.step!r} (its steps: {', '.join(ids)})")
        steps = steps[:ids.index(opening.step)]
    update: dict[str, Any] = {"steps": steps}
    if opening.storage_state:
        update["storage_state"] = opening.storage_state
    cut = replace(plan, plan=plan.plan.model_copy(update=update))
    return cut, effective_settings(cut, cli_base_url=opening.base_url)


def _config_named(plan: ValidPlan) -> str:
    return f", suite config {plan.suite_config}" if plan.suite_config else ""


def suite_plans(root: Path) -> list[Path]:
    """The suite's plan files under ``root``, in the order pytest collects them (hidden folders left out)."""
    return [p for p in sorted(root.rglob("*")) if p.is_file() and any(fnmatch.fnmatch(p.name, g) for g in DEFAULT_GLOBS)
            and not any(part.startswith(".") for part in p.relative_to(root).parts[:-1])]


def _maker(name: str, opening: Opening) -> ValidPlan:
    """The first valid plan of the suite that saves the state ``name`` (not a negative plan)."""
    configs = SuiteConfigFinder(opening.root, opening.config)
    for path in suite_plans(opening.root):
        real = path.resolve()
        ctx = ValidationContext(root=opening.root, plan_path=real, suite_config=configs.for_plan(real))
        for result in validate_path(path, ctx, shown=str(path)):
            if isinstance(result, ValidPlan) and result.plan.expect is None and any(
                    saved == name for _step, saved in result.storage_saves):
                return result
    raise TargetsUsage(f"no valid plan under {opening.root} saves the storage state {name!r} "
                       "(save_storage_state: NAME)")


def open_and_look(browser_of: Callable[[], Browser], opening: Opening, output: Path,
                  look: Callable[[Page, Redactor], T], kept: bool = True) -> T:
    """Run the plan that opens the page, then ``look`` at it (the page and the run's redactor), in its context.

    ``browser_of`` is asked for the browser once the plan is known to be valid and allowed: a refusal
    starts none. ``kept``: ``output`` outlives the command, so a refusal names its run folder."""
    from pytest_cometlocal.executor.browser.storage_states import StorageStates, state_key
    from pytest_cometlocal.executor.errors import ContextRefused
    from pytest_cometlocal.executor.session import RunRecord, open_run, run_plan, started_from

    plan, eff = plan_to_run(opening)
    storage = StorageStates(output)
    name = plan.plan.storage_state
    browser = browser_of()
    state = None
    try:
        if name:
            under = state_settings(plan.plan.browser)
            if not storage.exists(state_key(name, under)):
                maker = _maker(name, opening)
                made = run_plan(browser, maker, output, effective_settings(maker, cli_base_url=opening.base_url),
                                storage=storage)
                if made.status != "passed" or not storage.exists(state_key(name, under)):
                    raise _refused(made.error, f"the maker of storage state {name!r} ({maker.source.file}) "
                                   f"did not save it", made.run_dir if kept else None)
            state = storage.in_use(name, under)
        with open_run(browser, eff, output, RunRecord.of_plan(eff), state=state, storage=storage) as executor:
            result = executor.run_plan(plan.plan, metadata=started_from(state))
            if result.status != "passed":
                raise _refused(result.error, f"the page could not be opened ({result.status})",
                               result.run_dir if kept else None)
            return look(executor.page, executor.run.redactor)
    except ContextRefused as exc:
        raise TargetsRefused(exc.refusal.code.value, str(exc)) from None


def _refused(error: Any, what: str, run_dir: Path | None) -> TargetsRefused:
    where = f" (run folder {run_dir})" if run_dir else ""
    if error is None:
        return TargetsRefused("FAILED", what + where)
    step = f" at step {error.action_id}" if error.action_id else ""
    return TargetsRefused(error.error_code.value, f"{what}{step}: {error.message}{where}")
