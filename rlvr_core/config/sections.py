"""Config sections shared by every experiment: run, storage, model, data.

Every field is documented, bounded, and unknown keys are rejected
(`extra="forbid"`), so a typo fails at load time instead of being ignored.
Cross-field rules live in the model that owns both fields.
"""

from __future__ import annotations

import string
import types
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from rlvr_core.config.errors import Violation, clean, raise_violations, show
from rlvr_core.config.fields import EndpointURL, FileURI, LocalDir, ModelRef, StoreURI, Text

SEED_MAX = 2**32 - 1  # numpy's seed range; sampling seeds are derived as seed * 1_000_003 + n


class Section(BaseModel):
    """Base for all config sections: strict keys, validated assignment, finite floats, no true/false for numbers."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def validate_number_is_not_bool(cls, value: Any, info: ValidationInfo) -> Any:
        """YAML reads `yes`/`on`/`true` as True, which pydantic would take as the number 1."""
        if isinstance(value, bool) and info.field_name is not None:
            if _is_number_type(cls.model_fields[info.field_name].annotation):
                raise ValueError("must be a number, not true/false. Fix: write a number (YAML reads yes, no, on, "
                                 "off as true/false)")
        return value


def _is_number_type(annotation: Any) -> bool:
    """int, float, or an optional/union of them."""
    if annotation in (int, float):
        return True
    return get_origin(annotation) in (Union, types.UnionType) and any(map(_is_number_type, get_args(annotation)))


class RunConfig(Section):
    """Where a run's folder goes and how it is named."""

    name: str = Field("experiment", pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=100,
                      description="Run-name stem; the run folder is `<runs_dir>/<name>_<YYYYMMDD-HHMMSS>`.")
    runs_dir: LocalDir = Field(
        "./.rlvr/runs", description="Local (or shared-filesystem) directory under which run folders are created; "
                                    "not a URL (run folders are written as training goes).")
    seed: int = Field(0, ge=0, le=SEED_MAX, description="Seed for data order, sampling and initialisation (0 to 2**32-1).")


class StorageConfig(Section):
    """The store that caches datasets, models and checkpoints."""

    root: StoreURI = Field("./.rlvr/store", description="Local directory, `file://path` or `s3://bucket/prefix`.")
    endpoint_url: EndpointURL | None = Field(
        None, description="http(s) URL of an S3-compatible endpoint (MinIO, moto); None uses the AWS default. "
                          "Only used for s3:// URIs (storage.root, data.curriculum).")
    sync_runs: bool = Field(
        False, description="Copy each run folder (traces, RESULTS.md, evals, published checkpoints) to "
                           "<root>/runs/<run>/ while train-and-eval runs, and once more at its end.")


class VerifiersConfig(Section):
    """How rewards are verified during training."""

    strict: bool = Field(
        True, description="Strict training mode: an instruction check (IFEval, IFBench) passes only if the reference "
                          "check passes, on the text as written and on what a reader sees, and the strict check closes "
                          "the loopholes the reference accepts (a keyword inside another word or split by invisible "
                          "characters, numbers counted as words, `5` as JSON, empty bullets, every option at once, "
                          "comma look-alikes). Evaluations always score in the reference mode, so benchmark numbers "
                          "stay comparable; set false to train on the reference checks. The rules: docs/SECURITY.md.")


class ModelConfig(Section):
    """The policy to train or evaluate."""

    name_or_path: ModelRef = Field(..., description="Hub id, local folder, store URI, or `tiny:arith` for the built-in tiny model.")
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field(
        "auto", description="Weights dtype; `auto` is bfloat16 on GPU and float32 on CPU.")
    trust_remote_code: bool = Field(False, description="Allow model code from the hub (off: only built-in architectures).")


class DatasetSpec(Section):
    """One dataset in a training mixture."""

    name: Text = Field(..., description="Registry name (`rlvr_core.data.registry`), optionally `name:config`: "
                                       "openai/gsm8k, EleutherAI/hendrycks_math, google-research-datasets/mbpp, "
                                       "allenai/RLVR-IFeval, allenai/IF_multi_constraints_upto5, "
                                       "allenai/IFBench_test, arith.")
    split: Text = Field("train", description="Split to read (one the source has; e.g. arith: train, test).")
    weight: float = Field(1.0, gt=0, description="Relative sampling weight when `data.mixing` is `weighted`.")
    limit: int | None = Field(None, ge=1, description="Use at most this many rows (None: all).")

    @model_validator(mode="after")
    def validate_dataset_exists(self) -> DatasetSpec:
        """A typo in a dataset name or split fails at load, not after a GPU node has started."""
        raise_violations([dataset_problem(self.name, self.split, name_field="name", split_field="split")])
        return self


def dataset_problem(name: str, split: str, *, name_field: str, split_field: str, note: str = "",
                    ) -> Violation | None:
    """Why `name`/`split` cannot be loaded from the dataset registry (None if they can).

    The eval-only sources (google/IFEval, MATH-500) are registered too, so
    every name `load_problems` accepts in a training process passes here.
    """
    from rlvr_core.data.registry import resolve, source_names
    from rlvr_core.evaluation import sources  # noqa: F401  (registers the eval-only datasets)

    try:
        source = resolve(name).source
    except ValueError as err:
        base, _, config = name.partition(":")
        if base not in source_names():
            return Violation(name_field, name, "unknown dataset", f"use one of {source_names()} (optionally 'name:config')")
        message = str(err)
        fix = message.partition("Fix: ")[2] or message.partition("; ")[2]
        return Violation(name_field, name, f"dataset {base!r} has no config {show(config)}", clean(fix, 200))
    if split not in source.splits:
        return Violation(split_field, split, f"dataset {show(name)} has no split {show(split)}{note}",
                         f"use one of {list(source.splits)}")
    return None


class DataConfig(Section):
    """Training prompts: which datasets and in which order."""

    train: list[DatasetSpec] = Field(..., min_length=1, description="Datasets to train on.")
    mixing: Literal["weighted", "sequential"] = Field("weighted", description="Interleave by weight or concatenate in order.")
    curriculum: FileURI | None = Field(
        None, description="Local path, file:// or s3:// URI of a file listing prompt ids in training order.")
    prompt_template: str = Field(
        "{prompt}\n", description="How a problem's prompt is shown to the model: a Python format string whose only "
                                  "placeholder is `{prompt}` (write `{{` and `}}` for literal braces).")

    @field_validator("prompt_template")
    @classmethod
    def validate_template_has_prompt(cls, value: str) -> str:
        """`{prompt}` must be there, and nothing else `str.format` would choke on at the first training step."""
        if "{prompt}" not in value:
            raise ValueError("must contain the placeholder `{prompt}`. Fix: e.g. \"Question: {prompt}\\nAnswer:\"")
        fix = "write literal braces as {{ and }}, e.g. \\boxed{{}}"
        try:
            fields = {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
        except ValueError as err:
            raise ValueError(f"is not a valid format string ({err}). Fix: {fix}") from None
        others = sorted(fields - {"prompt"})
        if others:
            shown = clean(", ".join("{" + name + "}" for name in others), 80)
            raise ValueError(f"has placeholders other than {{prompt}}: {shown}. Fix: {fix}")
        try:
            value.format(prompt="")
        except (ValueError, KeyError, IndexError, AttributeError) as err:
            raise ValueError(f"is not a valid format string ({type(err).__name__}: {clean(str(err), 80)}). "
                             f"Fix: {fix}") from None
        return value
