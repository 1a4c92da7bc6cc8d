"""Imports go one way: flows -> tasks -> orchestration -> rlvr_core, and inside rlvr_core from higher layers to lower.

The graph is read from the source (every `import` statement, lazy ones inside
functions and `TYPE_CHECKING` blocks included), so a dependency cannot hide in
a function body. `LAYERS` is the architecture: a module may import its own
layer or lower ones; two modules never import each other, directly or in a
circle. Each package holds what its name says: every module of `tasks/`
defines a Prefect task (plumbing goes to `orchestration/`), and no module of
`tasks/` or `orchestration/` takes the name of a module of `rlvr_core/`.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ["rlvr_core", "orchestration", "tasks", "flows"]  # lowest first: each imports only those before it

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
    return {_module_name(p): p for folder in PACKAGES for p in (REPO / folder).rglob("*.py")}


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
    resolved = {_resolve(name) for name in found if name.split(".")[0] in PACKAGES}
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


def test_rlvr_core_never_imports_prefect_or_the_packages_above_it() -> None:
    offenders = []
    for module, path in _modules().items():
        if not module.startswith("rlvr_core."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level]
        offenders += [(module, name) for name in names
                      if name.split(".")[0] in {"prefect", "prefect_ray", *PACKAGES[1:]}]
    assert offenders == []


@pytest.mark.parametrize("package", PACKAGES[:-1])
def test_a_package_never_imports_the_packages_above_it(package: str) -> None:
    above = PACKAGES[PACKAGES.index(package) + 1:]
    assert [(m, t) for m in _modules() if m.split(".")[0] == package for t in imports_of(m)
            if t.split(".")[0] in above] == []


def _defines_a_prefect_task(path: Path) -> bool:
    """A function decorated `@task`, `@task(...)` or `@prefect.task(...)` at the module's top level."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if (isinstance(target, ast.Name) and target.id == "task") or \
                        (isinstance(target, ast.Attribute) and target.attr == "task"):
                    return True
    return False


def test_every_module_in_tasks_defines_a_prefect_task() -> None:
    helpers = sorted(p.name for p in (REPO / "tasks").glob("*.py")
                     if p.name != "__init__.py" and not _defines_a_prefect_task(p))
    assert helpers == [], "tasks/ holds tasks: move helpers to orchestration/ (Prefect plumbing) or rlvr_core/"


# tasks modules named after the rlvr_core area they wrap as Prefect tasks: rlvr_core/data, evaluation, models
# and reports, the SageMaker jobs of cloud/sagemaker.py, and a training run (config/training.py is its
# config section). Any other shared name is two layers claiming one word (as gpus.py and placement.py did).
TASK_WRAPPERS = {"data", "evaluation", "models", "reports", "sagemaker", "training"}


def _basenames(package: str) -> dict[str, list[str]]:
    """Module and subpackage names under `package` (`__init__`, `__main__` left out), each with its paths."""
    names: dict[str, list[str]] = {}
    for path in sorted((REPO / package).rglob("*.py")):
        if path.name == "__init__.py" and path.parent != REPO / package:
            names.setdefault(path.parent.name, []).append(str(path.parent.relative_to(REPO)))
        elif path.name not in ("__init__.py", "__main__.py"):
            names.setdefault(path.stem, []).append(str(path.relative_to(REPO)))
    return names


def test_the_task_wrappers_named_after_a_core_area_exist_and_are_tasks() -> None:
    assert sorted(name for name in TASK_WRAPPERS if not _defines_a_prefect_task(REPO / "tasks" / f"{name}.py")) == []


@pytest.mark.parametrize("package", ["tasks", "orchestration"])
def test_no_module_takes_the_name_of_a_module_of_rlvr_core(package: str) -> None:
    core = _basenames("rlvr_core")
    allowed = TASK_WRAPPERS if package == "tasks" else set()
    clashes = {name: core[name] for name in _basenames(package) if name in core and name not in allowed}
    assert clashes == {}, f"{package}/ reuses names of rlvr_core modules: rename the {package} module"


def test_orchestration_and_tasks_share_no_module_name() -> None:
    assert set(_basenames("orchestration")) & set(_basenames("tasks")) == set()


@pytest.mark.parametrize("root", PACKAGES)
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
