"""`ExperimentConfig`: the whole experiment, assembled from its sections."""

from __future__ import annotations

import hashlib
import json

from pydantic import Field

from rlvr_core.config.evaluation import EvaluationConfig
from rlvr_core.config.sections import DataConfig, ModelConfig, RunConfig, Section, StorageConfig
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
    evaluation: EvaluationConfig = Field(default_factory=EvaluationConfig, description="Checkpoint evaluation.")

    def config_hash(self) -> str:
        """A short stable hash of the resolved config (recorded in checkpoint manifests)."""
        payload = json.dumps(self.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]
