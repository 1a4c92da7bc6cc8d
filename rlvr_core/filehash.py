"""sha256 of files and folders: how stored artifacts prove they are what was written."""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def relative_files(folder: Path) -> list[str]:
    """Every file under `folder`, as sorted POSIX paths relative to it."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def hash_files(folder: Path) -> dict[str, str]:
    """{relative path: sha256} for every file under `folder`."""
    return {rel: sha256_file(folder / rel) for rel in relative_files(folder)}
