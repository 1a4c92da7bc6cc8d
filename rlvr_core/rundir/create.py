"""Run folders: one directory per training run that records exactly what ran.

`<runs_dir>/<name>_<YYYYMMDD-HHMMSS>/` starts with `config.yaml` (resolved),
`run.json` (host, start/end, git commit, dirty flag, python and package
versions), `patches/` (git status, diff, untracked files) and the empty
`traces/`, `checkpoints/`, `evals/`; the names are `rlvr_core.rundir.layout`'s.

Run folders are local directories (the trainer appends to files in them as
it goes); ship them to an object store after the run if needed.
"""

from __future__ import annotations

import json
import platform
import socket
import subprocess
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from rlvr_core.rundir import layout
from rlvr_core.rundir.atomic import write_atomic, write_json_atomic

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rlvr-pipeline", "torch", "transformers", "ray", "vllm", "trl", "pydantic", "numpy", "prefect")


def create_run_dir(config: "ExperimentConfig", runs_dir: str | Path | None = None, name: str | None = None) -> Path:
    """Create a fresh run folder and write config.yaml, run.json and patches/; return its path.

    `runs_dir` defaults to `config.run.runs_dir`, `name` to `config.run.name`.
    Raises ValueError for a remote `runs_dir` (run folders are written
    incrementally, so they live on local disk) and FileExistsError when the
    timestamped folder already exists (two runs started in the same second).
    """
    root = str(runs_dir if runs_dir is not None else config.run.runs_dir)
    if "://" in root:
        raise ValueError(f"run.runs_dir={root!r}: run folders must be on local disk; "
                         f"set run.runs_dir to a local directory and copy the folder to the store afterwards")
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    run_dir = Path(root) / f"{name or config.run.name}_{stamp}"
    run_dir.mkdir(parents=True, exist_ok=False)
    init_run_dir(run_dir, config)
    return run_dir


def init_run_dir(run_dir: Path, config: "ExperimentConfig") -> None:
    """Fill an (existing, possibly empty) folder with the run skeleton and provenance files."""
    run_dir = Path(run_dir)
    for sub in layout.SUBDIRS:
        (run_dir / sub).mkdir(parents=True, exist_ok=True)
    write_atomic(layout.config_path(run_dir), yaml.safe_dump(config.model_dump(mode="json"), sort_keys=False))
    git = capture_git(layout.patches_dir(run_dir))
    write_run_json(run_dir, {
        "name": run_dir.name,
        "config_hash": config.config_hash(),
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "argv": sys.argv,
        "packages": package_versions(),
        "git": git,
        "started_at": now_iso(),
        "ended_at": None,
        "status": "running",
    })


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def read_run_json(run_dir: Path) -> dict[str, Any]:
    return json.loads(layout.run_record_path(run_dir).read_text())


def write_run_json(run_dir: Path, record: dict[str, Any]) -> None:
    write_json_atomic(layout.run_record_path(run_dir), record, sort_keys=False)


def update_run_json(run_dir: Path, **fields: Any) -> dict[str, Any]:
    """Merge `fields` into run.json (e.g. ended_at, status, resumed_at) and return the record."""
    record = read_run_json(run_dir)
    record.update(fields)
    write_run_json(run_dir, record)
    return record


def package_versions() -> dict[str, str | None]:
    """Installed versions of the packages that decide a run's numbers (None: not installed)."""
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def capture_git(patches_dir: Path, repo: Path = REPO_ROOT) -> dict[str, Any]:
    """Write git status, the diff against HEAD and the untracked-file list; return commit and dirty flag.

    Outside a git checkout (an installed package) it records `{"commit": None}`
    and writes nothing, rather than failing the run.
    """
    patches_dir.mkdir(parents=True, exist_ok=True)
    if _git(repo, "rev-parse", "--is-inside-work-tree") is None:
        return {"commit": None, "dirty": None, "repo": None}
    commit = _git(repo, "rev-parse", "HEAD")
    status = _git(repo, "status", "--porcelain") or ""
    diff = _git(repo, "diff", "HEAD") if commit else _git(repo, "diff")
    untracked = _git(repo, "ls-files", "--others", "--exclude-standard") or ""
    (patches_dir / "git_status.txt").write_text(status)
    (patches_dir / "git_diff.patch").write_text(diff or "")
    (patches_dir / "untracked.txt").write_text(untracked)
    return {"commit": commit.strip() if commit else None, "dirty": bool(status.strip()), "repo": str(repo)}


def _git(repo: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None
