"""Fuzzing `rlvr config validate`: whatever the documents, `extends:` targets and overrides, it answers.

An answer (tests/config/cli_answers.py): exit 0 with one `OK:` line, or exit 2
with one line per problem, each `<where>: <what>. Fix: <how>`, nothing on
stdout, no traceback, within a second. Hypothesis draws

- documents: real sections and fields with random values (scalars of every
  YAML type, huge and negative numbers, NaN, URLs of odd schemes, NUL bytes,
  nested lists and mappings), YAML-ish text from YAML's punctuation,
  anchors/aliases up to billion-laughs size, deep nesting, duplicate keys,
  bytes that are not UTF-8;
- `extends:` targets: a valid parent, a missing file, a directory, a FIFO,
  /dev/zero, itself, a two-file cycle, chains of 1 to 40 files, a symlink
  loop, and non-strings (numbers, lists, null);
- overrides: real dotted fields with random values, random text, broken
  syntax (`a..b=1`, `=`, no `=`), YAML that does not parse;
- the config argument itself: the document, a FIFO, a directory, a missing
  file, a name with a NUL byte.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rlvr_core.config import ExperimentConfig
from tests.config.cli_answers import validate

SECTIONS = {name: list(field.annotation.model_fields) for name, field in ExperimentConfig.model_fields.items()}
VALID = {"model": {"name_or_path": "tiny:arith"}, "data": {"train": [{"name": "arith"}]}}

words = st.sampled_from([
    "", "arith", "openai/gsm8k", "test", "train", "tiny:arith", "s3://bucket/x", "s3://", "ftp://h/x", "file:///tmp",
    "http://127.0.0.1:9000", "{prompt}", "{prompt} {x}", "{", "a\x00b", "~", "yes", "no", "null", ".inf", "-.nan",
    "2024-01-01", "0x1f", "1e3", "1.0e-4", "auto", "cpu", "cuda", "vllm", "hf", "grpo", "dapo", "weighted",
])
scalars = st.one_of(
    st.none(), st.booleans(), words, st.text(max_size=20),
    st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from([2**64, 2**32, 2**32 - 1, -1, 0, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                      max_leaves=12)


@st.composite
def structured(draw: st.DrawFn) -> str:
    """Real sections and fields, random values, dumped as valid YAML."""
    doc = {k: dict(v) for k, v in VALID.items()} if draw(st.booleans()) else {}
    for section in draw(st.lists(st.sampled_from([*SECTIONS, "nonsense"]), max_size=4)):
        fields = SECTIONS.get(section, ["x"])
        body = doc.setdefault(section, {}) if draw(st.integers(0, 9)) else draw(values)
        if isinstance(body, dict):
            for field in draw(st.lists(st.sampled_from([*fields, "typo"]), max_size=4)):
                body[field] = draw(values)
    return yaml.safe_dump(doc, allow_unicode=draw(st.booleans()))


yamlish = st.lists(st.sampled_from(list("{}[]:,-&*!|>'\"#%@`?~ \n\t\\") + [
    "a", "1", ".", "x: ", "- ", "&a ", "*a", "<<: ", "!!set ", "!!binary ", "!!python/object ", "\x00", "\xe9", "  "]),
    max_size=60).map("".join)


@st.composite
def hostile(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["laughs", "deep", "dup", "selfref", "wide"]))
    n = draw(st.integers(1, 12))
    if kind == "laughs":
        lines = ['l0: &l0 ["lol"]'] + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * n)}]" for i in range(1, 10)]
        return "\n".join(lines) + "\n"
    if kind == "deep":
        return "[" * (n * 5000)
    if kind == "dup":
        return "training: {max_steps: 1}\n" * (n + 1)
    if kind == "selfref":
        return "a: &a [" + ", ".join(["*a"] * n) + "]\n"
    return "[" + "1," * (n * 2000) + "]"


documents = st.one_of(structured(), yamlish, hostile(), st.binary(max_size=60))


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Fixed `extends:` targets: a valid parent, a directory, a FIFO, a symlink loop, a cycle, chains."""
    root = tmp_path_factory.mktemp("arena")
    (root / "parent.yaml").write_text(yaml.safe_dump(VALID))
    (root / "folder.yaml").mkdir()
    os.mkfifo(root / "fifo.yaml")
    os.symlink(root / "loop.yaml", root / "loop.yaml")
    (root / "cycle-a.yaml").write_text("extends: cycle-b.yaml\n")
    (root / "cycle-b.yaml").write_text("extends: cycle-a.yaml\n")
    (root / "chain-0.yaml").write_text(yaml.safe_dump(VALID))
    for i in range(1, 41):
        (root / f"chain-{i}.yaml").write_text(f"extends: chain-{i - 1}.yaml\n")
    return root


extends_targets = st.one_of(
    st.sampled_from(["parent.yaml", "missing.yaml", "folder.yaml", "fifo.yaml", "loop.yaml", "cycle-a.yaml",
                     "SELF", "/dev/zero", "''", "", "[a.yaml]", "5", "{a: 1}", '"a\\0b"']),
    st.integers(1, 40).map(lambda i: f"chain-{i}.yaml"),
)
field_paths = st.one_of(
    st.sampled_from([f"{s}.{f}" for s, fs in SECTIONS.items() for f in fs]),
    st.sampled_from(["extends", "a..b", "", ".", "data.train.0.name", "training.max_steps.x", "-x", "x y"]),
    st.text(max_size=12),
)
overrides = st.one_of(
    st.builds(lambda p, v: f"{p}={v}", field_paths, st.one_of(yamlish, words, values.map(
        lambda v: yaml.safe_dump(v, default_flow_style=True).strip()))),
    st.text(max_size=30),
)
counter = itertools.count()


@pytest.mark.slow  # 300 examples took 7.5 s and 19.6 s on a shared, loaded 2-core machine
@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=documents, parent=st.none() | extends_targets, extra=st.lists(overrides, max_size=3),
       as_config=st.sampled_from(["document"] * 4 + ["fifo.yaml", "folder.yaml", "missing.yaml", "nul\x00.yaml"]))
def test_validate_always_answers(arena: Path, document: str | bytes, parent: str | None, extra: list[str],
                                 as_config: str) -> None:
    path = arena / f"doc-{next(counter)}.yaml"
    header = "" if parent is None else f"extends: {path.name if parent == 'SELF' else parent}\n"
    path.write_bytes(header.encode() + (document if isinstance(document, bytes) else document.encode()))
    config = str(path) if as_config == "document" else str(arena / as_config)
    answer = validate(config, "--", *extra)
    answer.check()
