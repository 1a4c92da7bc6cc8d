"""`ExperimentConfig`: the whole experiment, assembled from its sections."""

from __future__ import annotations

import hashlib
import json

from pydantic import Field, model_validator

from rlvr_core.config.errors import Violation, raise_violations
from rlvr_core.config.evaluation import EvaluationConfig
from rlvr_core.config.fields import scheme_of
from rlvr_core.config.sections import (
    DataConfig,
    ModelConfig,
    RunConfig,
    Section,
    StorageConfig,
    VerifiersConfig,
    dataset_problem,
)
from rlvr_core.config.training import CheckpointConfig, GRPOConfig, SamplingConfig, TrainingConfig


class ExperimentConfig(Section):
    """Everything a training-and-evaluation run needs; written resolved into the run folder."""

    run: RunConfig = Field(default_factory=RunConfig, description="Run naming and seed.")
    storage: StorageConfig = Field(default_factory=StorageConfig, description="Dataset/model/checkpoint store.")
    model: ModelConfig = Field(..., description="The policy model.")
    data: DataConfig = Field(..., description="Training datasets.")
    sampling: SamplingConfig = Field(default_factory=SamplingConfig, description="Rollout sampling.")
    grpo: GRPOConfig = Field(default_factory=GRPOConfig, description="Loss and filters.")
    training: TrainingConfig = Field(default_factory=TrainingConfig, description="Optimisation and placement.")
    checkpointing: CheckpointConfig = Field(default_factory=CheckpointConfig, description="Checkpoint cadence.")
    verifiers: VerifiersConfig = Field(default_factory=VerifiersConfig, description="Reward verification mode.")
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig, description="Checkpoint evaluation.")

    @model_validator(mode="after")
    def validate_rules(self) -> "ExperimentConfig":
        """Rules whose fields sit in different sections; every broken one is reported."""
        raise_violations([self._heldout_problem(), self._endpoint_problem()])
        return self

    def _heldout_problem(self) -> Violation | None:
        """With no training.eval_dataset, the held-out set is eval_split of data.train.0, if eval_every > 0."""
        t = self.training
        if t.eval_dataset is not None or not t.eval_every:
            return None  # a named eval_dataset is checked by TrainingConfig
        problem = dataset_problem(self.data.train[0].name, t.eval_split, name_field="data.train.0.name",
                                  split_field="training.eval_split",
                                  note=" (training.eval_dataset is unset, so the held-out set comes from data.train.0)")
        if problem is None:
            return None
        return Violation(problem.field, problem.value, problem.what,
                         f"{problem.fix}, set training.eval_dataset to a dataset with a held-out split, or set "
                         f"training.eval_every: 0")

    def _endpoint_problem(self) -> Violation | None:
        """An endpoint with nothing on S3 to use it would be silently ignored."""
        uris = [self.storage.root, self.data.curriculum or ""]
        if self.storage.endpoint_url is None or any(scheme_of(u) == "s3" for u in uris):
            return None
        return Violation("storage.endpoint_url", self.storage.endpoint_url, "is set, but neither storage.root nor "
                         "data.curriculum is an s3:// URI, so it would be ignored",
                         "remove storage.endpoint_url, or point storage.root at s3://bucket/prefix")

    def config_hash(self) -> str:
        """A short stable hash of the resolved config (recorded in checkpoint manifests)."""
        payload = json.dumps(self.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]
