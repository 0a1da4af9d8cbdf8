"""Execution profiles: how much evidence a run takes, named once for every layer.

The profile is a setting of the run, not of the plan (a plan passes or fails
alike in each): ``--cometlocal-profile``, the suite config's ``profile``,
ini ``cometlocal_profile``, in that order; the run manifest records it as
``execution_profile.name``.

- ``balanced`` (the default): v1 exactly, a fresh picture of every state.
- ``fast``: a picture only where it can change a decision or a person will look
  at it (a DOM-derived state already seen in the run, critical steps,
  failures); the DOM-derived part of the state also covers the state of the
  visible form controls and the focus.
- ``forensic``: a full-size screenshot and the page's HTML at every step.
"""

from __future__ import annotations

from typing import Literal, get_args

ExecutionProfile = Literal["balanced", "fast", "forensic"]
PROFILES: tuple[str, ...] = get_args(ExecutionProfile)
DEFAULT_PROFILE: ExecutionProfile = "balanced"

# How the signature is computed in ``fast``: recorded as its algorithm_version
# (the picture's own method, when there is one, is in metadata.screenshot_method).
FAST_ALGORITHM = "v3-fast-dom"
