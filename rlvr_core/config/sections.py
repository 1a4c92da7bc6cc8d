"""Config sections shared by every experiment: run, storage, model, data.

Every field is documented, bounded, and unknown keys are rejected
(`extra="forbid"`), so a typo fails at load time instead of being ignored.
Cross-field rules live in the model that owns both fields.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class Section(BaseModel):
    """Base for all config sections: strict keys, validated assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class RunConfig(Section):
    """Where a run's folder goes and how it is named."""

    name: str = Field("experiment", pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
                      description="Run-name stem; the run folder is `<runs_dir>/<name>_<YYYYMMDD-HHMMSS>`.")
    runs_dir: str = Field("./.rlvr/runs", description="Local (or shared-filesystem) directory under which run folders are created.")
    seed: int = Field(0, ge=0, description="Seed for data order, sampling and initialisation.")


class StorageConfig(Section):
    """The store that caches datasets, models and checkpoints."""

    root: str = Field("./.rlvr/store", description="Local directory or `s3://bucket/prefix`.")
    endpoint_url: str | None = Field(None, description="S3-compatible endpoint (MinIO, moto); None uses the AWS default.")


class ModelConfig(Section):
    """The policy to train or evaluate."""

    name_or_path: str = Field(..., description="Hub id, local folder, store URI, or `tiny:arith` for the built-in tiny model.")
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field(
        "auto", description="Weights dtype; `auto` is bfloat16 on GPU and float32 on CPU.")
    trust_remote_code: bool = Field(False, description="Allow model code from the hub (off: only built-in architectures).")


class DatasetSpec(Section):
    """One dataset in a training mixture."""

    name: str = Field(..., description="Registry name (`rlvr_core.data.registry`), optionally `name:config`: "
                                       "openai/gsm8k, EleutherAI/hendrycks_math, google-research-datasets/mbpp, "
                                       "allenai/RLVR-IFeval, allenai/IF_multi_constraints_upto5, "
                                       "allenai/IFBench_test, arith.")
    split: str = Field("train", description="Split to read.")
    weight: float = Field(1.0, gt=0, description="Relative sampling weight when `data.mixing` is `weighted`.")
    limit: int | None = Field(None, ge=1, description="Use at most this many rows (None: all).")

    @model_validator(mode="after")
    def validate_dataset_exists(self) -> DatasetSpec:
        """A typo in a dataset name or split fails at load, not after a GPU node has started."""
        from rlvr_core.data.registry import resolve

        source = resolve(self.name).source  # raises with the list of known names
        if self.split not in source.splits:
            raise ValueError(f"dataset {self.name!r} has no split {self.split!r}. Fix: use one of {list(source.splits)}")
        return self


class DataConfig(Section):
    """Training prompts: which datasets and in which order."""

    train: list[DatasetSpec] = Field(..., min_length=1, description="Datasets to train on.")
    mixing: Literal["weighted", "sequential"] = Field("weighted", description="Interleave by weight or concatenate in order.")
    curriculum: str | None = Field(None, description="URI of a file listing prompt ids in training order.")
    prompt_template: str = Field("{prompt}\n", description="How a problem's prompt is shown to the model; must contain `{prompt}`.")

    @field_validator("prompt_template")
    @classmethod
    def validate_template_has_prompt(cls, value: str) -> str:
        if "{prompt}" not in value:
            raise ValueError("must contain the placeholder `{prompt}`, e.g. \"Question: {prompt}\\nAnswer:\"")
        return value
