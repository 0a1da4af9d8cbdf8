"""Extensions under pytest: the kinds a plan may use (``kinds``), the observers of its run (``observers``)."""

from pytest_cometlocal.plugin.extensions.kinds import load_entry_points, pytest_addhooks, registry_for
from pytest_cometlocal.plugin.extensions.observers import RunObservers, chained

__all__ = ["RunObservers", "chained", "load_entry_points", "pytest_addhooks", "registry_for"]
