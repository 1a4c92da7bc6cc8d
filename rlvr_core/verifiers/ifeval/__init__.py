"""IFEval: the 25 instruction types, both RLVR ground-truth formats, IFEval's strict and loose scoring.

Each instruction has its reference check; strict training mode adds a check of what a reader sees
(`registry.strict_check`, `visible.py`), a stricter one where `strict.py` or `strict_formats.py` has it.
"""

from rlvr_core.verifiers.ifeval import (  # noqa: F401  (register)
    content,
    formats,
    keywords,
    language,
    length,
    strict,
    strict_formats,
)
from rlvr_core.verifiers.ifeval.checks import (
    Outcome,
    check_all,
    check_each,
    instruction_level_accuracy,
    loose_variants,
    prompt_level_accuracy,
)
from rlvr_core.verifiers.ifeval.parsing import parse_ground_truth
from rlvr_core.verifiers.ifeval.registry import INSTRUCTIONS, STRICT_MODE_INSTRUCTIONS

__all__ = [
    "INSTRUCTIONS", "STRICT_MODE_INSTRUCTIONS", "Outcome", "check_all", "check_each", "instruction_level_accuracy",
    "loose_variants", "parse_ground_truth", "prompt_level_accuracy",
]
