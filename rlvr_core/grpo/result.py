"""`TrainResult`: what `train()` returns (driver.py) and a session builds (driver_session.py): where a run went."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class TrainResult:
    run_dir: Path
    final_checkpoint: str | None
    steps: int
    trainer_version: int
    heldout: list[tuple[int, float]] = field(default_factory=list)
    worker_restarts: int = 0
    events: list[str] = field(default_factory=list)
