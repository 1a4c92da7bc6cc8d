"""GPU smoke test: what can only break on a GPU, proved in minutes on a bare host.

    make gpu-smoke                                   # or: python -m benchmarks.gpu_smoke [--phases a,b] [--budget S]
    RLVR_SMOKE_OUT=/some/folder make gpu-smoke       # where results.json goes (else $OUT, else .rlvr/gpu-smoke/)

Made for a first GPU that may be lent for minutes, on a host that cannot install the project: its own
PyTorch (CUDA build) and transformers, no network, and a few small wheels carried in (docs/GPU.md, "GPU smoke
test", lists them). Ray, Prefect and vLLM are not needed; when vLLM is installed the `vllm` phase runs too.

Phases, most informative first, each timed, time-limited and written to results.json as it finishes
(`phases.py`; `runner.py` for the budget, the limits and the file):
  plan        the device plan for this machine (NVML must see the GPUs CUDA sees) and the gsm8k estimate;
  facts       device, driver, versions, packages; a bf16 matmul on the device;
  model       Qwen3-1.7B's exact shape from random weights, built in code (shape.py), saved in bf16;
  trainer     GRPO steps in bf16 autocast with the project's trainer, loss and micro-batching at the gsm8k
              config's settings; peak CUDA memory against `rlvr_core.devices.memory`'s estimate;
  generation  the hf backend on the device: sampling throughput;
  sync        trainer -> hf backend as a run ships weights, proved by a log-prob probe whose bf16 tolerance
              is derived in probe.py (and which must fail for a stale engine);
  recompute   the trainer's recomputed log-probs of the engine's samples (`rollout_logprob_gap`);
  checkpoint  a checkpoint publish: the training loop's pause, the commit, the sizes on disk;
  vllm        with vLLM: an engine beside the trainer, sleep/wake, in-place reload, the same probe;
  tiny        the tiny model end to end: built or reused, GRPO steps, checkpoint, one evaluation.
The default budget is 7 minutes; a phase starts only with time left, and what it needs must have passed.
Exit status 0 when every phase that ran passed, 1 otherwise (124: a phase hung outside Python). Without
CUDA every phase runs on the CPU at a reduced shape (`--device cpu`), which is how the suite tests it.
"""
