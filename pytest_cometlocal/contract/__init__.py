"""The contract layer: plan models, the safe loader and the validator.

Pure Python: nothing here imports a browser library, so plans can be checked
(``cometlocal validate``, editors, collection) without Chromium.
"""

from pytest_cometlocal.contract.model.actionspec import ActionSpec, StepDefaults
from pytest_cometlocal.contract.model.codes import CANONICAL_CODES, EXTENSION_CODES, ErrorCode
from pytest_cometlocal.contract.model.conditions import Condition
from pytest_cometlocal.contract.load.safe_yaml import Document, load_documents, load_file
from pytest_cometlocal.contract.errors import YamlError
from pytest_cometlocal.contract.model.plan import Plan
from pytest_cometlocal.contract.model.plan import Policy
from pytest_cometlocal.contract.model.problems import Mark, Problem
from pytest_cometlocal.contract.model.records import EvidenceRef, ExecutorError, FailedCondition, StateSignature, TraceEvent
from pytest_cometlocal.contract.settings import EffectiveSettings, effective_settings
from pytest_cometlocal.contract.model.targets import Target, TargetSpec
from pytest_cometlocal.contract.validate.validator import (
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
