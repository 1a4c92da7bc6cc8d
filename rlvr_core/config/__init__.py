"""Experiment configuration: pydantic sections, YAML with `extends:`, overrides."""

from rlvr_core.config.experiment import ExperimentConfig
from rlvr_core.config.loader import ConfigError, load_config, resolve_config_path
from rlvr_core.config.evaluation import EvaluationConfig
from rlvr_core.config.sections import DataConfig, DatasetSpec, ModelConfig, RunConfig, StorageConfig, VerifiersConfig
from rlvr_core.config.training import CheckpointConfig, GRPOConfig, SamplingConfig, TrainingConfig

__all__ = [
    "CheckpointConfig", "ConfigError", "DataConfig", "DatasetSpec", "EvaluationConfig", "ExperimentConfig",
    "GRPOConfig", "ModelConfig", "RunConfig", "SamplingConfig", "StorageConfig", "TrainingConfig", "VerifiersConfig",
    "load_config", "resolve_config_path",
]
