"""The documentation names only things that exist: commands, modules, config fields, files, deployments.

Each test reads README.md, deployments/README.md and docs/*.md and checks one
kind of reference against the code, so a renamed field, a removed make target
or a moved file fails here instead of misleading a reader.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", REPO / "deployments" / "README.md", *sorted((REPO / "docs").glob("*.md"))]
HISTORY = REPO / "docs" / "LOG.md"  # quoted history: its commands and fields are as they were then
CURRENT = [doc for doc in DOCS if doc != HISTORY]
FILE_SUFFIXES = (".py", ".yaml", ".md", ".json", ".jsonl", ".safetensors", ".pt", ".csv", ".png", ".txt")


def _text(doc: Path) -> str:
    return doc.read_text(encoding="utf-8")


def _code_spans(text: str) -> list[str]:
    """Inline code spans and the lines of fenced blocks."""
    fenced = re.findall(r"```[^\n]*\n(.*?)```", text, flags=re.S)
    inline = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    return [line for block in fenced for line in block.splitlines()] + inline


def _config_fields() -> set[str]:
    from rlvr_core.config.__main__ import _sections
    from rlvr_core.config.experiment import ExperimentConfig

    return {name for _, _, fields in _sections(ExperimentConfig) for name, _, _ in fields}


def test_the_readme_is_a_short_users_document() -> None:
    lines = _text(REPO / "README.md").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines; move detail into docs/"
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", "\n".join(lines)), "dated figures belong in docs/BENCHMARKS.md"


def test_the_config_reference_is_what_the_models_generate() -> None:
    generated = subprocess.run([sys.executable, "-m", "rlvr_core.config", "fields", "--markdown"], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout
    assert (REPO / "docs" / "CONFIG.md").read_text() == generated, (
        "docs/CONFIG.md is stale: run `rlvr config fields --markdown > docs/CONFIG.md`")


@pytest.mark.parametrize("doc", CURRENT, ids=lambda p: str(p.relative_to(REPO)))
def test_every_make_target_named_exists(doc: Path) -> None:
    targets = set(re.findall(r"^([a-z][a-z-]*):", _text(REPO / "Makefile"), flags=re.M))
    named = {m for span in _code_spans(_text(doc)) for m in re.findall(r"(?:^|\s)make ([a-z][a-z-]*)", span)}
    assert named - targets == set(), f"{doc.name} names make targets that do not exist"


@pytest.mark.parametrize("doc", CURRENT, ids=lambda p: str(p.relative_to(REPO)))
def test_every_python_module_and_rlvr_command_named_exists(doc: Path) -> None:
    from rlvr_core.cli import COMMANDS

    spans = _code_spans(_text(doc))
    modules = {m for span in spans for m in re.findall(r"python(?:3(?:\.\d+)?)? -m ([A-Za-z_][\w.]*)", span)}
    missing = {m for m in modules - {"pip", "venv", "pytest", "moto.server"}
               if importlib.util.find_spec(m) is None}
    assert missing == set(), f"{doc.name} names modules that do not exist"
    commands = {c for span in spans for c in re.findall(r"(?:^|[\s/])rlvr ([a-z][a-z-]*)", span)}
    assert commands - set(COMMANDS) == set(), f"{doc.name} names rlvr commands that do not exist"


@pytest.mark.parametrize("doc", CURRENT, ids=lambda p: str(p.relative_to(REPO)))
def test_every_config_field_named_exists(doc: Path) -> None:
    fields = _config_fields()
    sections = {name.split(".")[0] for name in fields}
    named = set()
    for span in _code_spans(_text(doc)):
        for candidate in re.findall(r"(?<![\w./-])([a-z_]+(?:\.[a-z_]+)+)(?==|\b)", span):
            if candidate.split(".")[0] in sections and not candidate.endswith(FILE_SUFFIXES):
                named.add(re.sub(r"\.\d+", "[]", candidate))
    unknown = {name for name in named if name not in fields and not any(f.startswith(name + ".") for f in fields)}
    assert unknown == set(), f"{doc.name} names config fields that do not exist (see docs/CONFIG.md)"


@pytest.mark.parametrize("doc", CURRENT, ids=lambda p: str(p.relative_to(REPO)))
def test_every_repository_path_and_link_named_exists(doc: Path) -> None:
    text = _text(doc)
    links = [link.split("#")[0] for link in re.findall(r"\]\(([^)\s]+)\)", text)]
    broken = {link for link in links if link and "://" not in link and not (doc.parent / link).exists()}
    paths = {p for span in _code_spans(text)
             for p in re.findall(r"(?<![\w./<-])((?:rlvr_core|orchestration|flows|tasks|tests|benchmarks|configs|deployments|"
                                 r"requirements|docs)/[\w./*-]*[\w*])", span)}
    missing = {p for p in paths if not (any(REPO.glob(p)) if "*" in p else (REPO / p).exists())}
    assert broken | missing == set(), f"{doc.name} points at files that do not exist"


def test_every_deployment_named_is_in_prefect_yaml() -> None:
    spec = yaml.safe_load(_text(REPO / "prefect.yaml"))
    flows = {d["entrypoint"].split(":")[1].replace("_", "-") for d in spec["deployments"]}
    deployments = {(d["entrypoint"].split(":")[1].replace("_", "-"), d["name"]) for d in spec["deployments"]}
    for doc in CURRENT:
        for flow, name in re.findall(r"`([a-z-]+)/([a-z0-9-]+)`", _text(doc)):
            if flow in flows:
                assert (flow, name) in deployments, f"{doc.name} names the deployment {flow}/{name}"


def test_no_code_or_config_comment_carries_a_date() -> None:
    """Measured figures go stale in comments; they live in docs/BENCHMARKS.md with their date and machine."""
    dated = re.compile(r"\b20\d\d-(0[1-9]|1[0-2])-([0-2]\d|3[01])\b")
    offenders = []
    for folder in ("rlvr_core", "orchestration", "flows", "tasks", "deployments", "benchmarks", "configs"):
        for path in (REPO / folder).rglob("*"):
            if path.suffix in {".py", ".yaml", ".sh"} and dated.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(REPO)))
    assert offenders == []
