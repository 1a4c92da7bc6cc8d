"""Connecting to Ray: an existing cluster when one is named, else a private local one in a short temp folder.

Why the temp folder is not in the checkout: Ray puts its unix sockets under
`<temp_dir>/session_<date>_<time>_<pid>/sockets/`, about 72 characters past
the temp folder, and AF_UNIX socket paths are limited to 107 bytes. Inside
`<checkout>/.rlvr/ray` any checkout path over ~36 characters
(`/home/<user>/projects/rlvr-pipeline` already) made `ray.init` fail, so
`make demo` broke for ordinary users. The folder is per user
(`<system temp>/rlvr-ray-<uid>`, mode 0700): Ray keeps one folder per
session inside it, so private clusters of several runs share it safely.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

TEMP_DIR_ENV = "RLVR_RAY_TEMP_DIR"
FALLBACK_TEMP_ROOT = Path("/tmp")
# What Ray appends to its temp dir (`/session_<date>_<time>_<usec>_<pid>/sockets/plasma_store`), with room to spare.
RAY_SOCKET_SUFFIX = 72
AF_UNIX_MAX_BYTES = 107


class RayTempDirError(RuntimeError):
    """No usable short temp folder for Ray; the message names the folder and the fix."""


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
    (`ray.init(address=...)`); otherwise a private local cluster starts with
    `num_cpus` (default: all cores), no dashboard and its files under
    `temp_dir` (default `ray_temp_dir()`). "Private" is explicit
    (`address="local"`): a cluster someone started on this machine with
    `ray start` is never joined by accident, since joining it with
    `num_cpus` set is an error in Ray. The GPUs of a private cluster are
    those in CUDA_VISIBLE_DEVICES (the device plan sets it, `rlvr_core.devices`).
    """
    import ray

    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    address = address or os.environ.get("RAY_ADDRESS") or os.environ.get("RLVR_RAY_ADDRESS")
    if address:
        ray.init(address=address, log_to_driver=True)
        return False
    ray.init(address="local", num_cpus=num_cpus or os.cpu_count(), include_dashboard=False,
             _temp_dir=str(temp_dir or ray_temp_dir()), log_to_driver=True)
    return True
