"""Field types for config strings that name things: local folders, store URIs, models, endpoints, Ray addresses.

Each type is a `str` with an after-validator that raises `ValueError("what.
Fix: how")`; the loader turns that into the one-line message. They check
the text only (no file system or network access), so validation stays fast
and gives the same answer on every machine.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
STORE_SCHEMES = ("s3", "file")  # what rlvr_core.storage opens
RAY_ADDRESS = re.compile(r"^(auto|local|(ray://)?[A-Za-z0-9_.-]+:\d{1,5})$")
URL = re.compile(r"^https?://[^\s/:?#]+(:\d{1,5})?(/\S*)?$")


def validate_text(value: str) -> str:
    """Non-empty, and no control characters (a NUL byte in a path fails deep inside the OS otherwise)."""
    if not value.strip():
        raise ValueError("must not be empty. Fix: fill it in, or remove the key to use the default")
    bad = next((c for c in value if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        raise ValueError(f"contains the control character {bad!r}. Fix: remove it (check for a stray escape "
                         f"or a pasted NUL byte)")
    return value


def scheme_of(value: str) -> str | None:
    """`s3` for `s3://bucket/x`, None for a plain path; as written (the store matches `s3://` exactly)."""
    match = SCHEME.match(value)
    return match.group(1) if match else None


def validate_local_dir(value: str) -> str:
    validate_text(value)
    if "://" in value:
        scheme = scheme_of(value)
        raise ValueError(f"is a URL{f' ({scheme}://)' if scheme else ''}, but run folders are written to as "
                         f"training goes and must be on local disk (or a shared filesystem). Fix: set a local directory, e.g. ./.rlvr/runs, and "
                         f"copy the finished run folder to the store")
    return value


def validate_store_uri(value: str, *, needs_key: bool = False) -> str:
    """A local path, `file://path` or `s3://bucket[/prefix]` (with `needs_key`, the URI must name an object)."""
    validate_text(value)
    scheme = scheme_of(value)
    if scheme is None and "://" in value:
        raise ValueError("is neither a local path nor a URL with a scheme. Fix: use a local path or "
                         "s3://bucket/prefix")
    if scheme is not None and scheme not in STORE_SCHEMES:
        raise ValueError(f"uses the unsupported scheme {scheme}://. Fix: use a local path or s3://bucket/prefix "
                         f"(s3-compatible stores such as MinIO: set storage.endpoint_url)")
    if scheme == "s3":
        bucket, _, key = value[len("s3://"):].partition("/")
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", bucket):
            raise ValueError("has no valid bucket name. Fix: use s3://<bucket>/<prefix>, e.g. s3://my-bucket/rlvr")
        if needs_key and not key.strip("/"):
            raise ValueError("names a bucket but no file in it. Fix: use s3://<bucket>/<path to the file>")
    return value


def validate_file_uri(value: str) -> str:
    return validate_store_uri(value, needs_key=True)


def validate_model_ref(value: str) -> str:
    """`tiny:arith`, a hub id, a local folder, or a store URI (`s3://`, `file://`)."""
    validate_text(value)
    scheme = scheme_of(value)
    if scheme is not None and scheme not in STORE_SCHEMES:
        raise ValueError(f"uses the unsupported scheme {scheme}://. Fix: use a hub id (Qwen/Qwen3-1.7B-Base), a "
                         f"local folder, tiny:arith, or an s3:// or file:// URI of a model folder")
    return value


def validate_endpoint_url(value: str) -> str:
    validate_text(value)
    if not URL.match(value):
        raise ValueError("is not an http(s) URL. Fix: use http://host:port or https://host, e.g. "
                         "http://127.0.0.1:9000 for a local MinIO")
    return value


def validate_ray_address(value: str) -> str:
    validate_text(value)
    match = RAY_ADDRESS.match(value)
    port = int(value.rsplit(":", 1)[1]) if match and ":" in value.removeprefix("ray://") else None
    if not match or (port is not None and not 1 <= port <= 65535):
        raise ValueError("is not a Ray address. Fix: use auto, host:port (e.g. 10.0.0.1:6379) or "
                         "ray://host:port, or remove it to start a local cluster")
    return value


Text = Annotated[str, AfterValidator(validate_text)]
LocalDir = Annotated[str, AfterValidator(validate_local_dir)]
StoreURI = Annotated[str, AfterValidator(validate_store_uri)]
FileURI = Annotated[str, AfterValidator(validate_file_uri)]
ModelRef = Annotated[str, AfterValidator(validate_model_ref)]
EndpointURL = Annotated[str, AfterValidator(validate_endpoint_url)]
RayAddress = Annotated[str, AfterValidator(validate_ray_address)]
