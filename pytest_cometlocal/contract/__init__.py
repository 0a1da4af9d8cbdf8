"""The contract layer: plan models, the safe loader and the validator.

Pure Python: nothing here imports a browser library, so plans can be checked
(``cometlocal validate``, editors, collection) without Chromium.
"""

from .actionspec import ActionSpec, StepDefaults
from .codes import CANONICAL_CODES, EXTENSION_CODES, ErrorCode
from .conditions import Condition
from .loader import Document, YamlError, load_documents, load_file
from .plan import Plan
from .policy import Policy
from .problems import Mark, Problem
from .records import EvidenceRef, ExecutorError, FailedCondition, StateSignature, TraceEvent
from .settings import EffectiveSettings, effective_settings
from .targets import Target, TargetSpec
from .validator import (
    InvalidPlan,
    PlanResult,
    PlanSource,
    ValidationContext,
    ValidPlan,
    validate_action_spec,
    validate_documents,
    validate_path,
    validate_text,
)

__all__ = [
    "ActionSpec", "StepDefaults", "CANONICAL_CODES", "EXTENSION_CODES", "ErrorCode", "Condition",
    "Document", "YamlError", "load_documents", "load_file", "Plan", "Policy", "Mark", "Problem",
    "EvidenceRef", "ExecutorError", "FailedCondition", "StateSignature", "TraceEvent", "Target",
    "TargetSpec", "InvalidPlan", "PlanResult", "PlanSource", "ValidationContext", "ValidPlan",
    "validate_action_spec", "validate_documents", "validate_path", "validate_text", "EffectiveSettings",
    "effective_settings",
]
