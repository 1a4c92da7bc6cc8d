"""Imports go one way: flows -> tasks -> rlvr_core, and inside rlvr_core from higher layers to lower ones.

The graph is read from the source (every `import` statement, lazy ones inside
functions and `TYPE_CHECKING` blocks included), so a dependency cannot hide in
a function body. `LAYERS` is the architecture: a module may import its own
layer or lower ones; two modules never import each other, directly or in a
circle.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Lowest first. A name is a top-level module or package of rlvr_core, or a module inside a package that sits
# higher than the rest of its package (the longest name that matches decides).
LAYERS: list[set[str]] = [
    {"problem", "filehash", "timing", "progress", "procgroup", "stats", "storage",
     "devices.gpu_state",                # what NVML says of each GPU (read by evaluation, below the device plan)
     "rundir"},                          # the run folder's names, atomic writes, checkpoints, claims, markers, sync
    {"sandbox", "generation"},           # run untrusted code; turn prompts into text
    {"verifiers"},                       # score one completion
    {"envs"},                            # multi-turn environments and their tools and rubrics
    {"data"},                            # dataset sources, cache, mixing
    {"models"},                          # model resolution and the offline tiny models
    {"evaluation"},                      # benchmarks and the runner
    {"config"},                          # the experiment config (validates names against data and evaluation)
    {"devices", "paths",
     "rundir.create"},                   # devices and their GPU locks, node-shared paths; a new run folder
    {"grpo"},                            # training
    {"reports", "cloud", "serve"},       # what reads runs, or runs them elsewhere
    {"cli"},                             # one entry point over everything
]
LEVEL = {name: level for level, names in enumerate(LAYERS) for name in names}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for folder in ("rlvr_core", "tasks", "flows") for p in (REPO / folder).rglob("*.py")}


def _resolve(name: str) -> str | None:
    """The project module an imported name lives in (`a.b.c` may be module `a.b` with attribute `c`)."""
    modules = _modules()
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


@cache
def imports_of(module: str) -> frozenset[str]:
    path = _modules()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:  # `from pkg import submodule` depends on the submodule, not on pkg
                target = f"{base}.{alias.name}"
                found.add(target if target in _modules() else base)
    resolved = {_resolve(name) for name in found if name.split(".")[0] in {"rlvr_core", "tasks", "flows"}}
    return frozenset(m for m in resolved if m and m != module)


def _unit(module: str) -> str:
    """The layer unit of an rlvr_core module: the longest of its names in LAYERS (`rundir.create`), else its
    top-level package or module name."""
    parts = module.split(".")[1:]
    for end in range(len(parts), 1, -1):
        if ".".join(parts[:end]) in LEVEL:
            return ".".join(parts[:end])
    return parts[0] if parts else module


def _is_own_package(importer: str, imported: str) -> bool:
    """A package's `__init__` re-exporting its submodules, or a submodule reaching its package: not a cycle."""
    return importer.startswith(imported + ".") or imported.startswith(importer + ".")


def test_every_rlvr_core_unit_has_a_layer() -> None:
    units = {_unit(m) for m in _modules() if m.startswith("rlvr_core.")}
    assert units - set(LEVEL) == set(), "add the new module or package to LAYERS"


def test_no_import_climbs_to_a_higher_layer() -> None:
    upward = sorted((m, target) for m in _modules() if m.startswith("rlvr_core.") for target in imports_of(m)
                    if target.startswith("rlvr_core.") and LEVEL[_unit(target)] > LEVEL[_unit(m)])
    assert upward == []


def test_rlvr_core_never_imports_prefect_tasks_or_flows() -> None:
    offenders = []
    for module, path in _modules().items():
        if not module.startswith("rlvr_core."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level]
        offenders += [(module, name) for name in names
                      if name.split(".")[0] in {"prefect", "prefect_ray", "tasks", "flows"}]
    assert offenders == []


def test_tasks_never_import_flows() -> None:
    assert [(m, t) for m in _modules() if m.startswith("tasks") for t in imports_of(m) if t.startswith("flows")] == []


@pytest.mark.parametrize("root", ["rlvr_core", "tasks", "flows"])
def test_no_modules_import_each_other_in_a_circle(root: str) -> None:
    graph = {m: {t for t in imports_of(m) if not _is_own_package(m, t)} for m in _modules() if m.startswith(root)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    assert circles == []
