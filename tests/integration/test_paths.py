"""Paths handed between processes and nodes: absolute from the flow's first step, and the same folder on every
node of a Ray cluster.

The two-node check runs on real `ray start` nodes. One node sees the machine's disk as the driver does; the
other runs inside a mount namespace (bubblewrap) with an empty tmpfs over the run folders' parent: a node with
its own disk, where a marker written here is not found.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from rlvr_core.config import load_config
from rlvr_core.paths import UnsharedFolderError, absolute_path_overrides, check_nodes_share
from tests.ray_nodes import free_port, short_dir, start_node, stop, wait_for_port


def test_relative_run_and_store_folders_become_absolute_against_the_working_folder(tmp_path: Path) -> None:
    config = load_config("tiny-arith", ["run.runs_dir=runs", "storage.root=./.rlvr/store"])
    assert absolute_path_overrides(config, tmp_path) == [f"run.runs_dir={tmp_path / 'runs'}",
                                                         f"storage.root={tmp_path / '.rlvr' / 'store'}"]
    pinned = load_config("tiny-arith", ["run.runs_dir=runs", "storage.root=./.rlvr/store",
                                        *absolute_path_overrides(config, tmp_path)])
    assert Path(pinned.run.runs_dir).is_absolute() and Path(pinned.storage.root).is_absolute()


def test_absolute_paths_and_s3_stores_are_left_alone(tmp_path: Path) -> None:
    config = load_config("tiny-arith", [f"run.runs_dir={tmp_path}", "storage.root=s3://bucket/rlvr"])
    assert absolute_path_overrides(config, Path("/elsewhere")) == []


def test_a_relative_file_uri_store_becomes_an_absolute_path(tmp_path: Path) -> None:
    config = load_config("tiny-arith", ["storage.root=file://store"])
    assert f"storage.root={tmp_path / 'store'}" in absolute_path_overrides(config, tmp_path)


def _start_blind_node(address: str, hidden: Path, log: Path) -> subprocess.Popen:
    """A `ray start` node that sees an empty folder at `hidden` (its own disk, as far as `hidden` goes)."""
    ray = str(Path(sys.executable).with_name("ray"))
    return subprocess.Popen(["bwrap", "--dev-bind", "/", "/", "--tmpfs", str(hidden), "--", ray, "start", "--block",
                             "--disable-usage-stats", "--node-ip-address=127.0.0.1", f"--address={address}",
                             "--num-cpus=1"],
                            env=dict(os.environ), start_new_session=True,
                            stdout=open(log, "w"), stderr=subprocess.STDOUT)  # noqa: SIM115


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap for a node with its own view of a folder")
def test_a_node_that_does_not_see_the_run_folder_is_refused_with_the_fix(tmp_path: Path) -> None:
    import ray

    shared = Path(tempfile.mkdtemp(prefix="rlvr-shared-", dir="/tmp"))
    probe = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--tmpfs", str(shared), "--", "true"])
    if probe.returncode != 0:
        pytest.skip("bubblewrap cannot create a mount namespace here")
    temp, port = short_dir(), free_port()
    address = f"127.0.0.1:{port}"
    nodes = [start_node("--head", f"--port={port}", "--num-cpus=1", f"--temp-dir={temp}", log=tmp_path / "head.log")]
    ray.shutdown()
    try:
        wait_for_port(nodes[0], port)
        ray.init(address=address, log_to_driver=False)
        check_nodes_share(shared / "runs", "run.runs_dir")  # one node: nothing to compare
        nodes.append(_start_blind_node(address, shared, tmp_path / "blind.log"))
        deadline = time.monotonic() + 180
        while len([n for n in ray.nodes() if n.get("Alive")]) < 2:
            assert nodes[1].poll() is None and time.monotonic() < deadline, (tmp_path / "blind.log").read_text()[-3000:]
            time.sleep(1)
        with pytest.raises(UnsharedFolderError) as err:
            check_nodes_share(shared / "runs", "run.runs_dir")
        message = str(err.value)
        assert f"run.runs_dir {shared / 'runs'} is not the same folder on every node" in message
        assert "Fix: set run.runs_dir to a folder every node mounts at the same path" in message
        assert list((shared / "runs").iterdir()) == [], "the marker file is removed after the check"
    finally:
        ray.shutdown()
        stop(*nodes)
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(shared, ignore_errors=True)


@pytest.mark.slow
def test_nodes_that_share_the_disk_pass_the_check(tmp_path: Path) -> None:
    import ray
    from ray.cluster_utils import Cluster

    ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        ray.init(address=cluster.address, log_to_driver=False)
        check_nodes_share(tmp_path / "runs", "run.runs_dir")
    finally:
        ray.shutdown()
        cluster.shutdown()
