"""Connecting to Ray: an existing cluster when one is named, else a private local one in a short temp folder.

Why the temp folder is not in the checkout: Ray puts its unix sockets under
`<temp_dir>/session_<date>_<time>_<pid>/sockets/`, about 72 characters past
the temp folder, and AF_UNIX socket paths are limited to 107 bytes. Inside
`<checkout>/.rlvr/ray` any checkout path over ~36 characters
(`/home/<user>/projects/rlvr-pipeline` already) made `ray.init` fail, so
`make demo` broke for ordinary users. The folder is per user
(`<system temp>/rlvr-ray-<uid>`, mode 0700): Ray keeps one folder per
session inside it, so private clusters of several runs share it safely.

Why a private cluster is closed to the network: Ray gives every process it
starts (GCS, raylets, agents, every worker) a server on the node's IP, and an
unauthenticated Ray cluster runs any job anyone who reaches it submits (remote
code execution, the "ShadowRay" class of incidents). A private cluster is
therefore loopback-only (every listener on 127.0.0.1) and token-authenticated
(a fresh random token per process, so another local user who finds a port
still cannot use it). A multi-node cluster cannot be loopback-only: it is
started with token authentication (`python -m rlvr_core.grpo.cluster token`,
docs/GPU.md), and every driver joins with the same token.
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import secrets
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

TEMP_DIR_ENV = "RLVR_RAY_TEMP_DIR"
FALLBACK_TEMP_ROOT = Path("/tmp")
# What Ray appends to its temp dir (`/session_<date>_<time>_<usec>_<pid>/sockets/plasma_store`), with room to spare.
RAY_SOCKET_SUFFIX = 72
AF_UNIX_MAX_BYTES = 107


# Ray's own switch for a cluster that only this machine can reach (its default on macOS and Windows): the node's IP,
# and so every server Ray starts, is the loopback address. Ray reads it when it is imported.
LOCAL_ONLY_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
AUTH_MODE_ENV, TOKEN_ENV, TOKEN_PATH_ENV = "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"


class RayTempDirError(RuntimeError):
    """No usable short temp folder for Ray; the message names the folder and the fix."""


class RayExposedError(RuntimeError):
    """A private Ray cluster came up reachable from the network or without authentication; it was shut down."""


def ray_temp_dir(environ: dict[str, str] | None = None, temp_root: Path | None = None) -> Path:
    """The folder a private Ray cluster keeps its sessions in: `$RLVR_RAY_TEMP_DIR` when set, else
    `<system temp>/rlvr-ray-<uid>`, else (a long system temp path, e.g. a TMPDIR under the checkout)
    `/tmp/rlvr-ray-<uid>`. Created with mode 0700; refused when it is too long for Ray's sockets or
    owned by someone else."""
    env = os.environ if environ is None else environ
    name = f"rlvr-ray-{os.getuid()}"
    if env.get(TEMP_DIR_ENV):
        chosen = Path(env[TEMP_DIR_ENV]).absolute()
    else:
        root = Path(temp_root or tempfile.gettempdir()).absolute()
        chosen = root / name if fits_ray_sockets(root / name) else FALLBACK_TEMP_ROOT / name
    if not fits_ray_sockets(chosen):
        raise RayTempDirError(f"Ray's temp folder {chosen} is {len(str(chosen).encode())} bytes long; Ray adds about "
                              f"{RAY_SOCKET_SUFFIX} for its sockets and unix socket paths stop at {AF_UNIX_MAX_BYTES}. "
                              f"Fix: set {TEMP_DIR_ENV} to a short folder, e.g. /tmp/{name}")
    _make_private(chosen)
    return chosen


def fits_ray_sockets(folder: Path) -> bool:
    """Whether Ray's socket paths under `folder` stay within the AF_UNIX limit."""
    return len(str(folder).encode()) + RAY_SOCKET_SUFFIX <= AF_UNIX_MAX_BYTES


def _make_private(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid():
        raise RayTempDirError(f"Ray's temp folder {folder} belongs to uid {info.st_uid}, not to you "
                              f"(uid {os.getuid()}). Fix: set {TEMP_DIR_ENV} to a folder of your own")
    if stat.S_IMODE(info.st_mode) & 0o077:
        folder.chmod(0o700)


def connect_ray(address: str | None = None, *, num_cpus: int | None = None, temp_dir: Path | None = None) -> bool:
    """Make sure this process is a Ray driver; return True when it started the cluster (and should shut it down).

    Order: an already-initialised Ray (a test fixture, a notebook) is used as is;
    `address`, else env RAY_ADDRESS, else env RLVR_RAY_ADDRESS (what the
    Prefect workers of a multi-node setup set) joins that cluster unchanged
    (`ray.init(address=...)`, with the token auth settings of the environment);
    otherwise `start_private_cluster` starts one with `num_cpus` (default: all
    cores) and its files under `temp_dir` (default `ray_temp_dir()`).
    "Private" is explicit (`address="local"`): a cluster someone started on
    this machine with `ray start` is never joined by accident, since joining
    it with `num_cpus` set is an error in Ray. The GPUs of a private cluster
    are those in CUDA_VISIBLE_DEVICES (the device plan sets it, `rlvr_core.devices`).
    """
    import ray

    if ray.is_initialized():
        return False
    address = address or os.environ.get("RAY_ADDRESS") or os.environ.get("RLVR_RAY_ADDRESS")
    if address:
        join_cluster(address, log_to_driver=True)
        return False
    start_private_cluster(num_cpus=num_cpus or os.cpu_count() or 1, temp_dir=temp_dir or ray_temp_dir(),
                          log_to_driver=True)
    return True


def start_private_cluster(*, num_cpus: int, temp_dir: Path, log_to_driver: bool = False) -> None:
    """Start a Ray cluster in this process that only this machine can reach, and only with this process's token.

    Every server of the cluster listens on 127.0.0.1, the cluster requires a
    token (RAY_AUTH_TOKEN_PATH or RAY_AUTH_TOKEN from the environment when
    set, else a fresh random token kept in this process's environment, which
    only this user can read, and inherited by Ray's processes), and there is
    no dashboard or job server. Checked once it is up: a cluster that came up
    otherwise is shut down and `RayExposedError` raised, never used.
    """
    import ray

    if not (os.environ.get(TOKEN_ENV) or os.environ.get(TOKEN_PATH_ENV)):
        os.environ[TOKEN_ENV] = secrets.token_hex(32)
    # With the mode unset Ray turns token authentication on for a cluster it starts, refreshing its cached
    # configuration (setting the mode here would leave that cache stale in a process that imported Ray already).
    os.environ.pop(AUTH_MODE_ENV, None)
    with _local_only():
        ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, _temp_dir=str(temp_dir),
                 log_to_driver=log_to_driver)
    problem = private_cluster_problem()
    if problem:
        ray.shutdown()
        raise RayExposedError(f"the private Ray cluster came up {problem}; it was shut down. Ray's own settings "
                              f"changed under it (rlvr_core/grpo/cluster.py: {LOCAL_ONLY_ENV}, {AUTH_MODE_ENV})")


@contextlib.contextmanager
def _local_only() -> Iterator[None]:
    """Ray's local-only switch, on while a cluster starts: the processes `ray.init` starts inherit it from the
    environment, this process reads Ray's constant (set when Ray was imported). Restored after, so a later join
    of another cluster from this process announces the host's address again."""
    constants = sys.modules["ray._private.ray_constants"]
    saved_env, saved_constant = os.environ.get(LOCAL_ONLY_ENV), constants.ENABLE_RAY_CLUSTER
    os.environ[LOCAL_ONLY_ENV], constants.ENABLE_RAY_CLUSTER = "0", False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = saved_constant
        if saved_env is None:
            os.environ.pop(LOCAL_ONLY_ENV, None)
        else:
            os.environ[LOCAL_ONLY_ENV] = saved_env


def private_cluster_problem() -> str | None:
    """What makes the Ray cluster this process is connected to reachable by others, or None."""
    import ray
    from ray._raylet import AuthenticationMode, get_authentication_mode

    node_ip = ray.util.get_node_ip_address()
    if not ipaddress.ip_address(node_ip).is_loopback:
        return f"on the network address {node_ip} instead of 127.0.0.1"
    if get_authentication_mode() != AuthenticationMode.TOKEN:
        return "without token authentication"
    return None


def join_cluster(address: str, *, log_to_driver: bool = False, **init_kwargs: object) -> None:
    """`ray.init(address=...)`, refused at once, with the fix, when the cluster does not accept this process's token.

    Ray's own join retries an unauthenticated connection forever, logging a
    warning a second: a Prefect worker started without the token would hang.
    One GCS request first (a GCS address `host:port` only) turns that into an
    error that says what to export. A loopback address is a cluster on this
    machine whose nodes registered as 127.0.0.1 (a private cluster, or `ray
    start --node-ip-address=127.0.0.1`): this driver joins as 127.0.0.1 too, or
    Ray waits forever for a node at the host's address.
    """
    import ray

    host_port = ":" in address and "://" not in address
    if host_port:
        _check_token_accepted(address)
    on_loopback = host_port and _is_loopback(address.rsplit(":", 1)[0])
    with _local_only() if on_loopback else contextlib.nullcontext():
        ray.init(address=address, log_to_driver=log_to_driver, **init_kwargs)  # type: ignore[arg-type]


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


def _check_token_accepted(address: str) -> None:
    from ray._raylet import GcsClient

    try:
        GcsClient(address=address).internal_kv_keys(b"", None, timeout=30)
    except Exception as exc:  # noqa: BLE001 - only an authentication refusal is ours to explain; ray.init reports the rest
        if "Authentication token" not in str(exc):
            return
        raise ConnectionError(
            f"the Ray cluster at {address} refused this process's token ({AUTH_MODE_ENV}="
            f"{os.environ.get(AUTH_MODE_ENV, 'unset')}, {TOKEN_PATH_ENV}={os.environ.get(TOKEN_PATH_ENV, 'unset')}). "
            f"Fix: export {AUTH_MODE_ENV}=token {TOKEN_PATH_ENV}=<the cluster's token file, as on its nodes> in every "
            "process that joins it, Prefect workers included (docs/GPU.md, 'Two nodes')") from None


def write_cluster_token(path: Path) -> Path:
    """Write a fresh random Ray token to `path` (mode 0600, created or replaced) for `ray start` and its drivers."""
    path = path.expanduser().absolute()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.unlink(missing_ok=True)  # a new file, so no one holds it open with wider permissions
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_hex(32))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_core.grpo.cluster",
        description="Ray cluster helpers. `token PATH` writes a fresh token (mode 0600) for a multi-node cluster: "
                    "copy it to every node (mode 0600) and export the printed variables before `ray start` and in "
                    "every process that joins (Prefect workers included). See docs/GPU.md.")
    sub = parser.add_subparsers(dest="command", required=True)
    token = sub.add_parser("token", help="write a fresh cluster token to PATH (mode 0600)")
    token.add_argument("path", type=Path, help="where to write it, e.g. ~/.rlvr/ray-token")
    args = parser.parse_args(argv)
    path = write_cluster_token(args.path)
    print(f"export {AUTH_MODE_ENV}=token {TOKEN_PATH_ENV}={path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
