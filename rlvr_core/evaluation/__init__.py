"""Evaluation: standard benchmarks, the resumable runner, pass@k, and the lm-eval-harness wrapper.

Public API: `evaluate` (runner.py), `get_benchmark` / `benchmark_names` /
`register_benchmark` (benchmarks.py), `pass_at_k` / `run_pass_at_k` /
`merge_pass_at_k` (pass_at_k.py). Importing this package is cheap: torch,
transformers and the verifiers load only when an evaluation runs.
"""

from rlvr_core.evaluation.benchmarks import Benchmark, benchmark_names, get_benchmark, register_benchmark
from rlvr_core.evaluation.runner import EvalFolderConflict, evaluate, evaluate_on_gpu

__all__ = ["Benchmark", "EvalFolderConflict", "benchmark_names", "evaluate", "evaluate_on_gpu", "get_benchmark",
           "register_benchmark"]
