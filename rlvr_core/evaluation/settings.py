"""The decoding/engine settings every evaluation runs under, and how overrides are recorded.

Why enforced: scores are only comparable across checkpoints and papers when
the engine settings match. Tensor parallel > 1 has produced badly wrong
scores, so TP is pinned to 1; greedy decoding with seed 42 makes reruns
reproducible. Changing any of these needs an explicit override, which is
written into `summary.json` (`settings_overridden`) and into the idempotency
key, so a non-standard result is never mistaken for a standard one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class EvalSettings:
    """Engine and decoding settings (the vLLM names, so lm-eval and vLLM get them verbatim)."""

    tensor_parallel_size: int = 1
    seed: int = 42
    temperature: float = 0.0
    max_model_len: int = 4096
    gpu_memory_utilization: float = 0.8
    dtype: str = "bfloat16"  # on GPU; CPU runs use float32 (see `for_device`)

    def for_device(self, device: str) -> "EvalSettings":
        """CPU kernels are slow and inexact in bf16, so a CPU run uses float32 unless overridden."""
        return replace(self, dtype="float32") if device == "cpu" and self.dtype == "bfloat16" else self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


STANDARD = EvalSettings()
SETTING_NAMES: tuple[str, ...] = tuple(f.name for f in fields(EvalSettings))


def apply_overrides(overrides: dict[str, Any] | None) -> tuple[EvalSettings, dict[str, Any]]:
    """The settings with `overrides` applied, plus the overrides that actually changed something.

    Raises ValueError naming an unknown setting or a value of the wrong type.
    """
    if not overrides:
        return STANDARD, {}
    changed: dict[str, Any] = {}
    for name, value in overrides.items():
        if name not in SETTING_NAMES:
            raise ValueError(f"settings_override: unknown setting {name!r}. Fix: use one of {list(SETTING_NAMES)}")
        default = getattr(STANDARD, name)
        try:
            value = type(default)(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"settings_override.{name}={value!r} is not a {type(default).__name__}; fix the value"
            ) from None
        if value != default:
            changed[name] = value
    return replace(STANDARD, **changed), changed


def parse_override_args(pairs: list[str]) -> dict[str, Any]:
    """CLI `--override name=value` pairs as a dict (values still strings; `apply_overrides` converts)."""
    result = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--override {pair!r} must look like name=value, e.g. temperature=0.7")
        result[name.strip()] = value.strip()
    return result


def stable_hash(payload: Any) -> str:
    """A short sha256 of canonical JSON: the idempotency key of an evaluation."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
