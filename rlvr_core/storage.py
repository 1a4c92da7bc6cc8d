"""One storage API for a local folder and S3, through fsspec.

A `Store` is rooted at a local directory (default `./.rlvr/store`) or an
`s3://bucket/prefix` URI; every caller uses relative paths and the same
methods, so code tested against a local folder runs unchanged on S3 (or an
S3-compatible endpoint such as MinIO).

Promises:
- Writes are all-or-nothing at the target path. Locally, bytes go through
  `rlvr_core.rundir.atomic` (a hidden temporary file in the target's folder,
  fsynced and renamed into place); on S3 the object is uploaded with one PUT (a multipart upload
  above 100 MB), which S3 only makes visible once complete. Hidden temporaries left by a killed process
  are never listed.
- Credentials come only from the standard AWS chain (environment, ~/.aws,
  instance role). They are never passed through this module and are scrubbed
  from error messages.
- An unreachable endpoint fails within seconds with a `StorageError` naming
  the URI and endpoint and what to check; botocore's connect timeout and retry
  budget are lowered for that.

- Locally, what the store writes is its owner's alone: files 0600, the
  folders it creates 0700. A dataset holds reference solutions and hidden
  tests; a sandboxed program running as another uid on the same file system
  (the code sandbox's host mode without namespaces) must not read them.

Where it stops: `put_dir` is atomic locally (copy to a temporary folder, then
rename); on S3 there is no folder rename, so files appear one by one (new
files first, stale ones deleted last) and a caller that needs an
all-or-nothing folder writes its own manifest or marker file last. Files and
folders written before these modes keep theirs (`chmod -R go-rwx` on the
store fixes them); `get_dir` copies out with the caller's umask.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fsspec

from rlvr_core.rundir.atomic import TMP_MARK, atomic_file, temp_path

if TYPE_CHECKING:
    import pandas

DEFAULT_STORE = "./.rlvr/store"

# A dead endpoint must fail in seconds. Each request gets 2 attempts in all
# (one retry for a transient blip); the connect timeout bounds an address
# that never answers, the read timeout an endpoint that accepts connections
# but never replies (a hung proxy) -- it bounds silence on the socket, not
# the length of a transfer. Worst cases: about 7 s and 21 s; a refused
# connection fails at once.
CONNECT_TIMEOUT_S = 3
READ_TIMEOUT_S = 10
TOTAL_ATTEMPTS = 2

_SECRET_ENV = ("AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN")


class StorageError(RuntimeError):
    """A storage operation failed; the message names the URI, the endpoint and what to check."""


class Store:
    """Relative-path file access under one root URI (local folder or s3://bucket/prefix)."""

    def __init__(self, root: str, *, endpoint_url: str | None = None) -> None:
        self.root = _normalise_root(root)
        self.is_s3 = self.root.startswith("s3://")
        self.endpoint_url = endpoint_url or (os.environ.get("AWS_ENDPOINT_URL") if self.is_s3 else None)
        if self.is_s3:
            self.fs = _s3_filesystem(self.endpoint_url)
            self._base = self.root[len("s3://") :]
            if not self._base.split("/")[0]:
                raise StorageError(f"store URI {root!r} has no bucket name. Fix: use s3://<bucket>[/<prefix>].")
        else:
            self.fs = fsspec.filesystem("file")
            self._base = self.root

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle as (root, endpoint) so Ray/Prefect workers rebuild an identically configured filesystem."""
        return (open_store, (self.root, self.endpoint_url))

    def __repr__(self) -> str:
        where = f", endpoint_url={_redact_url(self.endpoint_url)!r}" if self.endpoint_url else ""
        return f"Store({self.root!r}{where})"

    # -- paths -----------------------------------------------------------
    def uri(self, *parts: str) -> str:
        """The full URI (s3://... or absolute local path) of a path relative to the root."""
        rel = _join(*parts)
        return f"{self.root}/{rel}" if rel else self.root

    def _fs_path(self, path: str) -> str:
        rel = _join(path)
        return f"{self._base}/{rel}" if rel else self._base

    # -- queries ---------------------------------------------------------
    def exists(self, path: str) -> bool:
        with self._errors("check", path):
            return bool(self.fs.exists(self._fs_path(path)))

    def list(self, prefix: str = "") -> list[str]:
        """Relative paths of all files under `prefix` (recursive, sorted); hidden temporaries excluded."""
        with self._errors("list", prefix):
            target = self._fs_path(prefix)
            if not self.fs.exists(target):
                return []
            if self.fs.isfile(target):
                found = [target]
            else:
                found = self.fs.find(target)
        rels = [self._relative(p) for p in found]
        return sorted(r for r in rels if TMP_MARK not in r)

    # -- bytes -----------------------------------------------------------
    def write_bytes(self, path: str, data: bytes) -> None:
        """Write `data` at `path` atomically (see the module docstring)."""
        self.write_stream(path, [data])

    def write_stream(self, path: str, chunks: Iterable[bytes]) -> None:
        """Write the concatenated `chunks` at `path` atomically.

        If producing a chunk raises, or the process dies mid-way, the previous
        content at `path` (or its absence) is left untouched.
        """
        if self.is_s3:
            # Gather first so a failing producer never starts an upload; one
            # PUT is atomic on S3 (no partial object is ever visible).
            data = b"".join(chunks)
            with self._errors("write", path):
                self.fs.pipe_file(self._fs_path(path), data)
            return
        target = Path(self._fs_path(path))
        with self._errors("write", path):
            _make_private_dirs(target.parent)
        try:
            with atomic_file(target) as fh:
                os.fchmod(fh.fileno(), PRIVATE_FILE)
                for chunk in chunks:
                    fh.write(chunk)
        except OSError as exc:
            raise self._error("write", path, exc) from None

    def put_file(self, local_file: Path, path: str) -> None:
        """Copy one local file to `path` without reading it into memory (checkpoint shards are gigabytes).

        On S3 fsspec uploads in parts and the object appears only when complete; locally the copy is made
        beside the target and renamed into place.
        """
        if self.is_s3:
            with self._errors("upload", path):
                self.fs.put_file(str(local_file), self._fs_path(path))
            return
        target = Path(self._fs_path(path))
        try:
            _make_private_dirs(target.parent)
            with open(local_file, "rb") as source, atomic_file(target) as fh:
                os.fchmod(fh.fileno(), PRIVATE_FILE)
                shutil.copyfileobj(source, fh, length=1 << 20)
        except OSError as exc:
            raise self._error("upload", path, exc) from None

    def read_bytes(self, path: str) -> bytes:
        with self._errors("read", path):
            return self.fs.cat_file(self._fs_path(path))

    # -- text, JSON, parquet ----------------------------------------------
    def write_text(self, path: str, text: str) -> None:
        self.write_bytes(path, text.encode("utf-8"))

    def read_text(self, path: str) -> str:
        return self.read_bytes(path).decode("utf-8")

    def write_json(self, path: str, obj: Any) -> None:
        """Write `obj` as indented, key-sorted JSON (serialised before anything is written)."""
        self.write_text(path, json.dumps(obj, indent=2, sort_keys=True) + "\n")

    def read_json(self, path: str) -> Any:
        text = self.read_text(path)
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise StorageError(f"{self.uri(path)} is not valid JSON ({exc}). Fix: rewrite or delete it.") from None

    def write_parquet(self, path: str, df: pandas.DataFrame) -> None:
        """Write `df` (without its index) as parquet; serialised in memory, then written atomically."""
        import io

        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        self.write_bytes(path, buf.getvalue())

    def read_parquet(self, path: str) -> pandas.DataFrame:
        import io

        import pandas as pd

        return pd.read_parquet(io.BytesIO(self.read_bytes(path)))

    # -- folders ---------------------------------------------------------
    def put_dir(self, local_dir: Path, path: str) -> None:
        """Upload the folder `local_dir` to `path`, replacing what was there.

        Locally the copy is made in a hidden sibling folder and renamed into
        place, so readers see the old folder or the new one, never a mix.
        """
        local_dir = Path(local_dir)
        if not local_dir.is_dir():
            raise StorageError(f"put_dir: {local_dir} is not a folder. Fix: pass the folder to upload.")
        if self.is_s3:
            files = [p for p in sorted(local_dir.rglob("*")) if p.is_file()]
            rels = [_join(path, p.relative_to(local_dir).as_posix()) for p in files]
            stale = sorted(set(self.list(path)) - set(rels))
            with self._errors("upload folder to", path):
                if files:  # upload before deleting, so a failed upload never loses the old files
                    self.fs.put([str(p) for p in files], [self._fs_path(r) for r in rels])
                if stale:
                    self.fs.rm([self._fs_path(r) for r in stale])
            return
        target = Path(self._fs_path(path))
        tmp, old = temp_path(target), temp_path(target)
        try:
            _make_private_dirs(target.parent)
            shutil.copytree(local_dir, tmp)
            _make_private(tmp)
            if target.exists():
                os.replace(target, old)
            os.replace(tmp, target)
        except OSError as exc:
            raise self._error("upload folder to", path, exc) from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.rmtree(old, ignore_errors=True)

    def get_dir(self, path: str, local_dir: Path) -> Path:
        """Download every file under `path` into `local_dir` (created); returns `local_dir`."""
        local_dir = Path(local_dir)
        files = self.list(path)
        if not files:
            raise StorageError(f"{self.uri(path)} holds no files{self._endpoint_hint()}. Fix: check the path.")
        prefix = _join(path)
        if files == [prefix]:
            raise StorageError(f"{self.uri(path)} is a file, not a folder. Fix: use read_bytes for single files.")
        with self._errors("download folder", path):
            for rel in files:
                dest = local_dir / rel[len(prefix) :].lstrip("/")
                dest.parent.mkdir(parents=True, exist_ok=True)
                self.fs.get_file(self._fs_path(rel), str(dest))
        return local_dir

    def delete(self, path: str, recursive: bool = False) -> None:
        """Delete a file (or, with `recursive=True`, a folder); a missing path is not an error."""
        target = self._fs_path(path)
        with self._errors("delete", path):
            if not self.fs.exists(target):
                return
            if self.fs.isdir(target) and not recursive:
                raise StorageError(f"{self.uri(path)} is a folder. Fix: pass recursive=True to delete it.")
            self.fs.rm(target, recursive=recursive)

    # -- errors ----------------------------------------------------------
    def _relative(self, fs_path: str) -> str:
        fs_path = fs_path.replace("\\", "/")
        return fs_path[len(self._base) :].lstrip("/")

    def _endpoint_hint(self) -> str:
        if not self.is_s3:
            return ""
        return f" (endpoint {_redact_url(self.endpoint_url) if self.endpoint_url else 'AWS default'})"

    def _error(self, action: str, path: str, exc: BaseException) -> StorageError:
        if isinstance(exc, StorageError):
            return exc
        detail = _scrub(f"{type(exc).__name__}: {exc}")
        if isinstance(exc, FileNotFoundError):
            fix = "check the path" + (" and that the bucket exists" if self.is_s3 else "")
        elif self.is_s3:
            fix = (
                "check that the endpoint is up and reachable, that the bucket exists, and that "
                "credentials are available from the AWS chain (env, ~/.aws, instance role)"
            )
        else:
            fix = "check that the folder exists, is writable and the disk is not full"
        return StorageError(f"could not {action} {self.uri(path)}{self._endpoint_hint()}: {detail}. Fix: {fix}.")

    @contextlib.contextmanager
    def _errors(self, action: str, path: str) -> Iterator[None]:
        """Turn storage failures into a `StorageError` whose message carries no secrets.

        Only I/O failures are translated; a programming error (TypeError...)
        propagates unchanged so it is not mistaken for an unreachable endpoint.
        """
        try:
            yield
        except StorageError:
            raise
        except _io_errors() as exc:
            raise self._error(action, path, exc) from None


def open_store(uri_or_path: str | None = None, endpoint_url: str | None = None) -> Store:
    """A `Store` for a URI or local path; `None` or "" means the default `./.rlvr/store`."""
    return Store(uri_or_path or DEFAULT_STORE, endpoint_url=endpoint_url)


def split_uri(uri: str) -> tuple[str, str]:
    """Split a file URI into (parent URI, file name), e.g. for reading one file through a Store."""
    uri = uri.rstrip("/")
    parent, _, name = uri.rpartition("/")
    if not name or not parent or parent in ("s3:", "s3:/"):
        if uri.startswith("s3://"):
            raise StorageError(f"{uri!r} does not name a file in a bucket. Fix: use s3://<bucket>/<path>.")
        return ".", uri
    return parent, name


def _normalise_root(root: str) -> str:
    if not root:
        raise StorageError("store root is empty. Fix: give a folder or an s3://bucket/prefix URI.")
    if root.startswith("s3://"):
        return "s3://" + root[len("s3://") :].strip("/")
    if root.startswith("file://"):
        root = root[len("file://") :]
    if "://" in root:
        raise StorageError(
            f"store URI {root!r} has an unsupported scheme. Fix: use a local path or s3://bucket/prefix."
        )
    return str(Path(root).expanduser().resolve())


PRIVATE_FILE, PRIVATE_DIR = 0o600, 0o700


def _make_private_dirs(folder: Path) -> None:
    """`folder` and its missing parents, each created 0700 (`mkdir(parents=True)` leaves parents to the umask)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:  # made meanwhile by another writer
            continue
        os.chmod(path, PRIVATE_DIR)  # whatever the umask


def _make_private(tree: Path) -> None:
    """Every folder of `tree` 0700, every file 0600 (a copied folder keeps its source's modes)."""
    os.chmod(tree, PRIVATE_DIR)
    for root, dirs, files in os.walk(tree):
        for name in dirs:
            os.chmod(os.path.join(root, name), PRIVATE_DIR)
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):  # a link's target is not the store's to change
                os.chmod(path, PRIVATE_FILE)


def _join(*parts: str) -> str:
    joined = "/".join(p.strip("/") for p in parts if p and p.strip("/"))
    if any(seg == ".." for seg in joined.split("/")):
        raise StorageError(f"path {joined!r} escapes the store root. Fix: use a path without '..'.")
    return joined


def _s3_filesystem(endpoint_url: str | None) -> fsspec.AbstractFileSystem:
    from aiobotocore.session import AioSession
    from botocore.handlers import add_expect_header

    session = AioSession()  # the standard credential chain: env, ~/.aws, instance role
    # botocore asks S3 for "100-continue" before sending a PUT body; aiohttp
    # waits for that answer with no timeout, so an endpoint that accepts the
    # connection but never replies would hang a write forever.
    session.unregister("before-call.s3", add_expect_header)
    client_kwargs: dict[str, Any] = {}
    if endpoint_url:
        client_kwargs["endpoint_url"] = endpoint_url
    fs = fsspec.filesystem(
        "s3",
        session=session,
        client_kwargs=client_kwargs,
        config_kwargs={
            "connect_timeout": CONNECT_TIMEOUT_S,
            "read_timeout": READ_TIMEOUT_S,
            "retries": {"total_max_attempts": TOTAL_ATTEMPTS, "mode": "standard"},
        },
        use_listings_cache=False,  # other processes write the same prefixes
        skip_instance_cache=True,  # the retry setting below must not leak into shared instances
    )
    fs.retries = 1  # s3fs's own retry loop multiplies botocore's; botocore's budget is enough
    return fs


def _io_errors() -> tuple[type[BaseException], ...]:
    """OS errors (s3fs maps S3 error codes onto them) plus botocore's own connection/client errors."""
    try:
        from botocore.exceptions import BotoCoreError, ClientError
    except ImportError:  # local-only installs need not have botocore
        return (OSError,)
    return (OSError, BotoCoreError, ClientError)


def _redact_url(url: str | None) -> str:
    """Drop user:password@ from a URL."""
    return re.sub(r"//[^/@]*@", "//", url or "")


def _scrub(text: str) -> str:
    """Remove credential values and URL userinfo from an error message."""
    for name in _SECRET_ENV:
        value = os.environ.get(name)
        if value and len(value) >= 4:
            text = text.replace(value, "***")
    return _redact_url(text)
