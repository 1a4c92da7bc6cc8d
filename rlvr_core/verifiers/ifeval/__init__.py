"""IFEval: the 25 instruction types, both RLVR ground-truth formats, strict and loose checks."""

from rlvr_core.verifiers.ifeval import content, formats, keywords, language, length  # noqa: F401  (register)
from rlvr_core.verifiers.ifeval.checks import (
    Outcome,
    check_all,
    check_each,
    instruction_level_accuracy,
    loose_variants,
    prompt_level_accuracy,
)
from rlvr_core.verifiers.ifeval.parsing import parse_ground_truth
from rlvr_core.verifiers.ifeval.registry import INSTRUCTIONS

__all__ = [
    "INSTRUCTIONS", "Outcome", "check_all", "check_each", "instruction_level_accuracy", "loose_variants",
    "parse_ground_truth", "prompt_level_accuracy",
]
