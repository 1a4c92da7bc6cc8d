"""Reading configs: YAML with `extends:`, dotted overrides, one line per problem.

A bad config fails here, before any work starts. Every problem is one line,
`<file>: <dotted.field> = <value>: <what is wrong>. Fix: <what to do>`
(errors.py); reading is bounded in size, nesting and time and never blocks
on a FIFO (yamlfile.py); rules across fields live in the models that own
the fields (sections.py, training.py, evaluation.py, experiment.py).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rlvr_core.config.errors import ConfigError, clean, format_validation_error, problem_line, show
from rlvr_core.config.experiment import ExperimentConfig
from rlvr_core.config.yamlfile import SYNTAX_FIX, FileProblem, YamlProblem, decode, parse, read_bytes

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"
MAX_EXTENDS = 16  # files in one `extends:` chain (the shipped configs use 2)
FIELD_NAME = re.compile(r"^[A-Za-z0-9_]+$")  # digits too, so `data.train.0.x` gets the "is a list" answer
_ABSENT: Any = object()

__all__ = ["CONFIG_DIR", "ConfigError", "deep_merge", "format_validation_error", "load_config", "read_config_tree",
           "resolve_config_path"]


def resolve_config_path(name_or_path: str | Path) -> Path:
    """Accept a path, or a bare name looked up in the repository's `configs/`; never reads the file."""
    text = str(name_or_path)
    if "\x00" in text:
        raise ConfigError(problem_line(text, None, "the config path contains a NUL byte", "remove it"))
    path = Path(text)
    if os.path.lexists(path):
        return path
    for candidate in (CONFIG_DIR / path, CONFIG_DIR / f"{text}.yaml"):
        if os.path.lexists(candidate):
            return candidate
    known = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")))
    raise ConfigError(problem_line(text, None, "no such config file", f"pass a path or one of: {known}"))


def load_config(name_or_path: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> ExperimentConfig:
    """Load, merge `extends:` parents, apply `a.b.c=value` overrides and validate; ConfigError otherwise."""
    path = resolve_config_path(name_or_path)
    raw = read_config_tree(path)
    for override in overrides:
        apply_override(raw, override, str(path))
    try:
        return ExperimentConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(format_validation_error(err, str(path))) from None


def read_config_tree(path: Path) -> dict[str, Any]:
    """The file merged over its `extends:` parents (resolved relative to the file that names them)."""
    docs: list[dict[str, Any]] = []
    seen: list[tuple[Path, str]] = []  # (path as named, real path) of each file read so far
    current, named_by = path, None
    while True:
        real = _real(current)
        if real in (r for _, r in seen):
            cycle = " -> ".join(clean(str(p), 60) for p in [*(p for p, _ in seen), current])
            raise ConfigError(problem_line(str(seen[-1][0]), "extends", f"`extends:` forms a cycle: {cycle}",
                                           "remove the `extends:` that leads back", value=named_by[1]))
        if len(seen) >= MAX_EXTENDS:
            raise ConfigError(problem_line(str(seen[-1][0]), "extends",
                                           f"the `extends:` chain is longer than {MAX_EXTENDS} files",
                                           "merge some of the parent files", value=named_by[1]))
        data = _read_mapping(current, named_by)
        seen.append((current, real))
        parent = data.pop("extends", _ABSENT)
        docs.append(data)
        if parent is _ABSENT:
            break
        current, named_by = _parent_path(current, parent), (str(current), parent)
    merged = docs[-1]
    for doc in reversed(docs[:-1]):
        merged = deep_merge(merged, doc)
    return merged


def _real(path: Path) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return str(path)


def _parent_path(child: Path, parent: Any) -> Path:
    """Where `extends: <parent>` in `child` points; ConfigError for anything but one file name."""
    fix = "write `extends: base.yaml` (one file, relative to this one), or remove the key"
    if not isinstance(parent, str) or not parent.strip():
        what = "is empty" if parent is None or parent == "" else f"must name one parent file, not a {_kind(parent)}"
        raise ConfigError(problem_line(str(child), "extends", what, fix, value=parent))
    if any(ord(c) < 32 for c in parent):
        raise ConfigError(problem_line(str(child), "extends", "contains a control character (e.g. a NUL byte)",
                                       "remove it", value=parent))
    return Path(parent) if Path(parent).is_absolute() else child.parent / parent


def _kind(value: Any) -> str:
    return {list: "list", dict: "mapping", bool: "true/false", int: "number", float: "number", str: "string"
            }.get(type(value), type(value).__name__)


def _read_mapping(path: Path, named_by: tuple[str, Any] | None) -> dict[str, Any]:
    """One file's top-level mapping. Problems opening it are blamed on the `extends:` that named it, if any."""
    try:
        data = read_bytes(path)
    except FileProblem as problem:
        if named_by is None:
            raise ConfigError(problem_line(str(path), None, problem.what, problem.fix)) from None
        child, parent = named_by
        raise ConfigError(problem_line(child, "extends", f"{problem.what} (looked for {clean(str(path), 100)})",
                                       problem.fix, value=parent)) from None
    try:
        value = parse(decode(data))
    except YamlProblem as problem:
        raise ConfigError(problem.line_for(str(path))) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(problem_line(str(path), "<top level>", f"must be a mapping of sections, not a {_kind(value)}",
                                       "start with section names, e.g. `training:` on its own line", value=value))
    return value


def deep_merge(base: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """Child values win; mappings merge key by key; lists are replaced whole."""
    merged = dict(base)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def apply_override(raw: dict[str, Any], override: str, source: str) -> None:
    """Set `a.b.c=value` (value parsed as YAML) in `raw`; ConfigError naming the override otherwise."""
    def fail(what: str, fix: str) -> ConfigError:
        return ConfigError(problem_line(source, None, f"override {show(override)}: {what}", fix))

    example = "write section.field=value, e.g. training.max_steps=20"
    if not isinstance(override, str) or "=" not in override:
        raise fail("expected `dotted.path=value`", example)
    dotted, _, text = override.partition("=")
    keys = dotted.strip().split(".")
    bad = next((k for k in keys if not FIELD_NAME.match(k)), None)
    if bad is not None:
        raise fail(f"{show(bad)} is not a field name", f"{example}; `rlvr config fields` lists the fields")
    if keys[0] == "extends":
        raise fail("`extends` cannot be overridden", "pass the parent file as the config, or edit the file")
    try:
        value = parse(text)
    except YamlProblem as problem:
        column = f" (column {problem.column})" if problem.column is not None else ""
        field = f" at {problem.field}" if problem.field else ""
        fix = "check the quotes and brackets in the value" if problem.fix == SYNTAX_FIX else problem.fix
        raise fail(f"the value{field}{column}: {problem.what}", fix) from None
    node = raw
    for depth, key in enumerate(keys[:-1], start=1):
        child = node.get(key)
        where = ".".join(keys[:depth])
        if child is None:
            child = node[key] = {}
        elif isinstance(child, list):
            raise fail(f"{where} is a list, not a section", f"override the whole list, e.g. {where}=[...]")
        elif not isinstance(child, dict):
            raise fail(f"{where} is a value, not a section", f"override {where}=VALUE itself")
        node = child
    node[keys[-1]] = value
