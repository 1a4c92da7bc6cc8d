"""A real trainer process that SIGKILLs itself at a chosen step.

`python killed_trainer.py CONFIG RUN_DIR STEP [a.b=v ...]`.

The kill comes from the driver's own step hook, so where it lands does not
depend on how fast a test reads the trainer's output: after step STEP's trace
rows are written and, when STEP follows a checkpoint, once that checkpoint's
background commit is complete (so the run folder holds exactly the
checkpoints up to STEP and trace rows past the last one, as a crash mid-step
would leave them).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from rlvr_core.config import load_config
from rlvr_core.grpo import train
from rlvr_core.rundir import layout
from rlvr_core.rundir.checkpoints import list_checkpoints

WAIT_FOR_COMMIT_S = 300


def main(config_file: str, run_dir: str, kill_step: str, *overrides: str) -> None:
    config = load_config(config_file, overrides)
    step, every = int(kill_step), config.checkpointing.every_steps
    due = list(range(every, step, every))  # the checkpoints this step comes after
    checkpoints = layout.checkpoints_dir(Path(run_dir))

    def kill_at(record: dict) -> None:
        if record["step"] != step:
            return
        deadline = time.monotonic() + WAIT_FOR_COMMIT_S
        while [c.step for c in list_checkpoints(checkpoints)] != due:
            if time.monotonic() > deadline:
                sys.exit(f"checkpoints {due} were not committed within {WAIT_FOR_COMMIT_S} s")
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGKILL)

    train(config, run_dir=Path(run_dir), step_hooks=[kill_at])


if __name__ == "__main__":
    main(*sys.argv[1:])
