"""Reading configs: YAML with `extends:`, dotted overrides, readable errors.

A bad config fails here, before any work starts, with one message per problem
that names the file, the dotted field path, the bad value and the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from rlvr_core.config.experiment import ExperimentConfig

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"


class ConfigError(ValueError):
    """A config that cannot be used; the message is meant for the user as-is."""


def resolve_config_path(name_or_path: str | Path) -> Path:
    """Accept a path, or a bare name looked up in the repository's `configs/`."""
    path = Path(name_or_path)
    if path.exists():
        return path
    for candidate in (CONFIG_DIR / path, CONFIG_DIR / f"{path}.yaml"):
        if candidate.exists():
            return candidate
    known = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.yaml")))
    raise ConfigError(f"{name_or_path}: no such config file. Pass a path or one of: {known}")


def load_config(name_or_path: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> ExperimentConfig:
    """Load, merge `extends:` parents, apply `a.b.c=value` overrides and validate."""
    path = resolve_config_path(name_or_path)
    raw = _read_with_extends(path, chain=())
    for override in overrides:
        _apply_override(raw, override, path)
    try:
        return ExperimentConfig.model_validate(raw)
    except ValidationError as err:
        raise ConfigError(format_validation_error(err, path)) from None


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML: {err}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: top level must be a mapping of sections, got {type(data).__name__}")
    return data


def _read_with_extends(path: Path, chain: tuple[Path, ...]) -> dict[str, Any]:
    resolved = path.resolve()
    if resolved in chain:
        cycle = " -> ".join(str(p) for p in (*chain, resolved))
        raise ConfigError(f"{path}: `extends:` forms a cycle: {cycle}")
    data = _read_yaml(path)
    parent_name = data.pop("extends", None)
    if parent_name is None:
        return data
    parent_path = (path.parent / parent_name) if not Path(parent_name).is_absolute() else Path(parent_name)
    if not parent_path.exists():
        raise ConfigError(f"{path}: extends: {parent_name!r} not found (looked for {parent_path})")
    return deep_merge(_read_with_extends(parent_path, (*chain, resolved)), data)


def deep_merge(base: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """Child values win; mappings merge key by key; lists are replaced whole."""
    merged = dict(base)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _apply_override(raw: dict[str, Any], override: str, path: Path) -> None:
    if "=" not in override:
        raise ConfigError(f"override {override!r}: expected `dotted.path=value`, e.g. training.max_staleness=1")
    dotted, _, text = override.partition("=")
    keys = dotted.strip().split(".")
    node = raw
    for key in keys[:-1]:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{path}: override {override!r}: {key!r} is a value, not a section")
        node = child
    node[keys[-1]] = yaml.safe_load(text)


def format_validation_error(err: ValidationError, path: Path) -> str:
    """One line per problem: `file: field.path = value: what is wrong (fix)`."""
    lines = [f"{path}: {err.error_count()} problem(s) in the config:"]
    for problem in err.errors():
        field = ".".join(str(part) for part in problem["loc"]) or "<top level>"
        kind = problem["type"]
        if kind == "extra_forbidden":
            lines.append(f"  {field}: unknown field. Remove it or check the spelling against "
                         f"`python -m rlvr_core.config fields`.")
        elif kind == "missing":
            lines.append(f"  {field}: required field is missing. Add it to the file or an `extends:` parent.")
        elif isinstance(problem.get("input"), dict):  # a rule across several fields of a section
            lines.append(f"  {field}: {_describe(problem)}")
        else:
            lines.append(f"  {field} = {problem.get('input')!r}: {_describe(problem)}")
    return "\n".join(lines)


def _describe(problem: dict[str, Any]) -> str:
    ctx = problem.get("ctx") or {}
    kind = problem["type"]
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}"
    if kind in {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}:
        bound = next(iter(ctx.values()))
        words = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<", "less_than_equal": "<="}[kind]
        return f"must be {words} {bound}"
    message = str(problem["msg"])
    return message.removeprefix("Value error, ")
