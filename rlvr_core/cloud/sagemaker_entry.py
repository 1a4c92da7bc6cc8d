"""Container entry point of a SageMaker training job: `python -m rlvr_core.cloud.sagemaker_entry`.

SageMaker's side of the contract (the folders it fills and collects under
/opt/ml, or `$RLVR_SAGEMAKER_ROOT` in tests):

  input/config/hyperparameters.json   overrides, {"dotted.field": "value"} (all strings, as SageMaker writes them)
  input/data/config/config.yaml       the resolved config, from the `config` input channel
  checkpoints/                        synced to the job's checkpoint S3 URI while it runs, restored on a restart
  model/                              packed into <output>/<job>/output/model.tar.gz when the job ends
  output/failure                      its text becomes the job's FailureReason

What it does: trains with `python -m rlvr_core.grpo.train` into the run folder
`checkpoints/run` (so traces and checkpoints are synced to S3 as they are
written), then copies the final checkpoint and the report files into
`model/`. A job that finds `checkpoints/run/config.yaml` already there (a
spot interruption or a new job pointed at an earlier job's checkpoints) runs
`--resume` on it: training continues from the newest published checkpoint,
or restarts from step 0 when the first one was never written. The trainer
runs as its own process group (`rlvr_core.procgroup`), so nothing outlives
the entry point.

Where it stops: one instance; the trainer places its trainer actor and
rollout workers on that instance's GPUs. Credentials for the store and the
hub come from the instance (execution role, environment), never from here.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import sys
from dataclasses import dataclass
from pathlib import Path

from rlvr_core.rundir import layout as run_folder  # `layout` here is SageMaker's folder layout

ROOT_ENV = "RLVR_SAGEMAKER_ROOT"
DEFAULT_ROOT = "/opt/ml"
CONFIG_CHANNEL = "config"
CHECKPOINT_LOCAL_PATH = "/opt/ml/checkpoints"
# What a user reads after a job, beside the weights: the config that ran, provenance, the results and the curve.
REPORT_FILES = (run_folder.CONFIG, run_folder.RUN_RECORD, run_folder.RESULTS, run_folder.REWARD_CURVE,
                f"{run_folder.TRACES}/{run_folder.TRACE}")
FAILURE_CHARS = 1024  # SageMaker keeps at most this much of output/failure as the FailureReason
TAIL_LINES = 20


@dataclass(frozen=True)
class Layout:
    """SageMaker's folders inside the container, under one root (/opt/ml on SageMaker)."""

    root: Path

    @property
    def hyperparameters(self) -> Path:
        return self.root / "input" / "config" / "hyperparameters.json"

    @property
    def config(self) -> Path:
        return self.root / "input" / "data" / CONFIG_CHANNEL / "config.yaml"

    @property
    def run_dir(self) -> Path:
        return self.root / "checkpoints" / "run"

    @property
    def model_dir(self) -> Path:
        return self.root / "model"

    @property
    def failure(self) -> Path:
        return self.root / "output" / "failure"


def read_overrides(layout: Layout) -> list[str]:
    """The job's hyperparameters as `dotted.field=value` overrides (none when the file is absent)."""
    if not layout.hyperparameters.is_file():
        return []
    params = json.loads(layout.hyperparameters.read_text())
    return [f"{field}={value}" for field, value in params.items()]


def training_command(layout: Layout, overrides: list[str]) -> list[str]:
    """The trainer call: `--resume` when an earlier attempt left a run folder, else a fresh run into it."""
    train = [sys.executable, "-m", "rlvr_core.grpo.train"]
    if run_folder.config_path(layout.run_dir).is_file():
        return [*train, *overrides, "--resume", str(layout.run_dir), "--no-progress"]
    return [*train, str(layout.config), *overrides, "--run-dir", str(layout.run_dir), "--no-progress"]


def export_model(run_dir: Path, model_dir: Path) -> Path:
    """Copy the newest published checkpoint and the report files of `run_dir` into `model_dir`; returns the copy.

    Raises FileNotFoundError when the run published no checkpoint (a finished
    run always publishes its last step, so this means the run did not finish).
    """
    from rlvr_core.rundir.checkpoints import latest_checkpoint

    checkpoints = run_folder.checkpoints_dir(run_dir)
    final = latest_checkpoint(checkpoints)
    if final is None:
        raise FileNotFoundError(f"{checkpoints} holds no published checkpoint; nothing to export")
    model_dir.mkdir(parents=True, exist_ok=True)
    target = model_dir / final.name
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(final.path, target)
    for name in REPORT_FILES:
        source = run_dir / name
        if source.is_file():
            (model_dir / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, model_dir / name)
    return target


def run(layout: Layout) -> int:
    """Train (or resume), stream the trainer's output, export the model; returns the exit status for SageMaker."""
    from rlvr_core.procgroup import ProcessGroup

    # `StopTrainingJob` sends SIGTERM; as PID 1 this process would ignore it until SageMaker's SIGKILL.
    # Raising instead leaves the `with` block, which ends the trainer's whole process group.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    argv = training_command(layout, read_overrides(layout))
    print(f"rlvr sagemaker: {'resuming' if '--resume' in argv else 'starting'}: {' '.join(argv)}", flush=True)
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
    with ProcessGroup(argv, env={**os.environ, "PYTHONUNBUFFERED": "1"}) as group:
        for line in group.lines():
            print(line, flush=True)  # stdout is the job's CloudWatch log
            tail.append(line)
        status = group.wait()
    if status != 0:
        return fail(layout, f"training exited with status {status}. Last output: " + " | ".join(tail))
    try:
        exported = export_model(layout.run_dir, layout.model_dir)
    except (OSError, ValueError) as err:
        return fail(layout, f"training finished but exporting the model failed: {err}")
    print(f"rlvr sagemaker: exported {exported.name} and the report files to {layout.model_dir}", flush=True)
    return 0


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def fail(layout: Layout, reason: str) -> int:
    """Write `reason` where SageMaker reads the FailureReason (its last characters, which name the error)."""
    layout.failure.parent.mkdir(parents=True, exist_ok=True)
    layout.failure.write_text(reason[-FAILURE_CHARS:])
    print(f"rlvr sagemaker: {reason}", file=sys.stderr, flush=True)
    return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_core.cloud.sagemaker_entry",
        description="Entry point of the rlvr-pipeline image in a SageMaker training job: train the config of the "
                    "`config` channel with the job's hyperparameters as overrides, resume from /opt/ml/checkpoints "
                    f"after a restart, export the final checkpoint and report files to /opt/ml/model. "
                    f"${ROOT_ENV} replaces /opt/ml (tests).")
    # SageMaker starts training images as `<entrypoint> train`; accept that argument and nothing else.
    parser.add_argument("mode", nargs="?", choices=["train"], help="ignored; SageMaker passes `train`")
    parser.parse_args(argv)
    return run(Layout(Path(os.environ.get(ROOT_ENV, DEFAULT_ROOT))))


if __name__ == "__main__":
    sys.exit(main())
