"""Paths handed between processes and nodes: absolute from the start, and the same folder on every node.

Why: run folders and the store default to relative paths (`./.rlvr/runs`,
`./.rlvr/store`). A relative path means something else in every working
folder, and on a multi-node Ray cluster a trainer placed on the other node
wrote its checkpoints to its own disk: the flow saw none, reported only the
base model, and the run ended Completed. So the flow pins every local path to
an absolute one before its first step (`absolute_path_overrides`), and on a
cluster of several nodes checks that each node sees the same folder
(`check_nodes_share`: a marker file written here, read back by a Ray task
pinned to every node), refusing with the fix when one does not.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from rlvr_core.config.fields import scheme_of

if TYPE_CHECKING:
    from rlvr_core.config import ExperimentConfig

MARKER_PREFIX = ".rlvr-shared-check-"
READ_TIMEOUT_S = 120.0


class UnsharedFolderError(RuntimeError):
    """A folder that processes on other nodes write to is not the same folder there; the message has the fix."""


def absolute_path_overrides(config: "ExperimentConfig", base: Path | None = None) -> list[str]:
    """Overrides that make `run.runs_dir` and a local `storage.root` absolute (resolved against `base`, default
    the working folder); none for paths already absolute and for s3:// stores."""
    base = (base or Path.cwd()).absolute()
    overrides = []
    for field, value in (("run.runs_dir", config.run.runs_dir), ("storage.root", config.storage.root)):
        scheme = scheme_of(value)
        if scheme == "file":
            path = value[len("file://"):]
        elif scheme is None:
            path = value
        else:
            continue
        if not Path(path).expanduser().is_absolute():
            overrides.append(f"{field}={(base / Path(path).expanduser()).absolute()}")
    return overrides


def check_nodes_share(folder: Path | str, field: str, timeout_s: float = READ_TIMEOUT_S) -> None:
    """On a Ray cluster of several alive nodes, make sure each sees `folder` (named `field` in the error) as
    this process does; nothing to check on one node. Needs a connected Ray driver."""
    import ray

    nodes = [n for n in ray.nodes() if n.get("Alive")]
    if len(nodes) < 2:
        return
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    folder = Path(folder).absolute()
    folder.mkdir(parents=True, exist_ok=True)
    token = uuid.uuid4().hex
    marker = folder / f"{MARKER_PREFIX}{token}"
    marker.write_text(token)
    try:
        read = ray.remote(num_cpus=0, max_retries=0)(_read_marker)
        refs = [read.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote(
            str(marker)) for n in nodes]
        seen = ray.get(refs, timeout=timeout_s)
    finally:
        marker.unlink(missing_ok=True)
    blind = [n.get("NodeManagerAddress", "?") + f" ({n['NodeID'][:12]})" for n, text in zip(nodes, seen)
             if text != token]
    if blind:
        raise UnsharedFolderError(
            f"{field} {folder} is not the same folder on every node of the Ray cluster: node(s) {', '.join(blind)} "
            f"do not see the marker file written there. A trainer or evaluation placed on such a node would write "
            f"its checkpoints and results to its own disk, where this run never sees them. Fix: set {field} to a "
            f"folder every node mounts at the same path (NFS, EFS, Lustre), e.g. {field}=/shared/rlvr/"
            f"{folder.name}; or run on one node (unset RLVR_RAY_ADDRESS)")


def _read_marker(path: str) -> str | None:
    """Runs on each node: the marker's text as that node sees it (None: no such file there)."""
    try:
        return Path(path).read_text()
    except OSError:
        return None
