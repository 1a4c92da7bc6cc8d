"""The malformed configs of issue 10, class by class: each gets one line naming where, what and the fix.

Before: tracebacks (non-UTF-8, `extends:` an int/list/dir/empty, bad YAML in
an override, a 1,500-deep extends chain), hangs (billion laughs, `extends:`
a FIFO) and silently accepted mistakes (duplicate keys, NUL bytes). Each
case runs in-process (timed, < 1 s); the slow test runs the ones that could
crash (libyaml recurses in C on deep nesting), block or run away as real
`python -m rlvr_core.config` processes.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest

from tests.config.cli_answers import validate

MINIMAL = 'model: {name_or_path: "tiny:arith"}\ndata: {train: [{name: arith}]}\n'


def laughs(levels: int = 9, fanout: int = 9) -> str:
    """The billion-laughs document: each anchor is a list of `fanout` aliases of the previous one."""
    lines = ['l0: &l0 ["lol"]']
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * fanout)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + f"\nmodel: {{name_or_path: *l{levels}}}\n"


def chain(tmp: Path, depth: int) -> Path:
    (tmp / "c0.yaml").write_text(MINIMAL)
    for i in range(1, depth + 1):
        (tmp / f"c{i}.yaml").write_text(f"extends: c{i - 1}.yaml\n")
    return tmp / f"c{depth}.yaml"


def file(name: str, content: str | bytes) -> Callable[[Path], list[str]]:
    def make(tmp: Path) -> list[str]:
        path = tmp / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        return [str(path)]
    return make


def extends(value: str, setup: Callable[[Path], None] = lambda tmp: None) -> Callable[[Path], list[str]]:
    def make(tmp: Path) -> list[str]:
        setup(tmp)
        path = tmp / "child.yaml"
        path.write_text(f"extends: {value}\n")
        return [str(path)]
    return make


def override(*overrides: str) -> Callable[[Path], list[str]]:
    def make(tmp: Path) -> list[str]:
        return ["tiny-arith", *overrides]
    return make


def fifo(tmp: Path) -> None:
    os.mkfifo(tmp / "pipe.yaml")


def symlink_loop(tmp: Path) -> None:
    os.symlink(tmp / "loop.yaml", tmp / "loop.yaml")


CASES = {
    # tracebacks before
    "non-utf8": (file("latin1.yaml", b"run: {name: caf\xe9}\n"), r"latin1\.yaml:1: not UTF-8 text \(byte 0xe9 at offset 15\)\. Fix: save the file as UTF-8"),
    "extends-int": (extends("5"), r"child\.yaml: extends = 5: must name one parent file, not a number\. Fix: write `extends: base\.yaml`"),
    "extends-list": (extends("[a.yaml, b.yaml]"), r"child\.yaml: extends = \['a\.yaml', 'b\.yaml'\]: must name one parent file, not a list\."),
    "extends-mapping": (extends("{a: 1}"), r"child\.yaml: extends = \{'a': 1\}: must name one parent file, not a mapping\."),
    "extends-dir": (extends("sub", lambda tmp: (tmp / "sub").mkdir()), r"child\.yaml: extends = 'sub': is a directory, not a config file \(looked for .*/sub\)\. Fix: name a \.yaml file"),
    "extends-empty": (extends(""), r"child\.yaml: extends = null: is empty\. Fix:"),
    "extends-empty-string": (extends("''"), r"child\.yaml: extends = '': is empty\. Fix:"),
    "override-bad-yaml": (override("training.max_steps=[1, 2"), r"tiny-arith\.yaml: override 'training\.max_steps=\[1, 2': the value \(column \d+\): not valid YAML: while parsing a flow sequence, .*\. Fix: check the quotes and brackets in the value"),
    "extends-chain-1500": (lambda tmp: [str(chain(tmp, 1500))], r"c1485\.yaml: extends = 'c1484\.yaml': the `extends:` chain is longer than 16 files\. Fix:"),
    # hangs before
    "billion-laughs": (file("lol.yaml", laughs()), r"lol\.yaml: l\d\.[0-9.]+: aliases expand to more than 10000 values\. Fix:"),
    "billion-laughs-override": (override("model.name_or_path=" + laughs(7, 9).replace("\n", ", ").replace("model: {name_or_path: *l7}, ", "x: *l7").join("{}")),
                                r"override 'model\.name_or_path=\{l0: .*\.\.\.' \(429 characters\): the value at l\d[0-9.]*: aliases expand to more than 10000 values"),
    "extends-fifo": (extends("pipe.yaml", fifo), r"child\.yaml: extends = 'pipe\.yaml': is a FIFO \(named pipe\), not a config file"),
    "config-is-fifo": (lambda tmp: (fifo(tmp), [str(tmp / "pipe.yaml")])[1], r"pipe\.yaml: is a FIFO \(named pipe\), not a config file"),
    "config-is-device": (lambda tmp: ["/dev/zero"], r"^/dev/zero: is a device, not a config file"),
    "extends-symlink-loop": (extends("loop.yaml", symlink_loop), r"child\.yaml: extends = 'loop\.yaml': cannot be read \(Too many levels of symbolic links\)"),
    "self-reference": (file("self.yaml", "a: &a [1, *a]\n" + MINIMAL), r"self\.yaml: a\.1: an alias refers to a value that contains it\."),
    "deep-nesting": (file("deep.yaml", "[" * 60_000), r"deep\.yaml:1: nested deeper than 32 levels\."),
    "deep-nesting-override": (override("training=" + "[" * 60_000), r"override 'training=\[\[\[.*: the value: nested deeper than 32 levels"),
    "too-many-values": (file("wide.yaml", "[" + "1," * 20_000 + "]"), r"wide\.yaml:1: more than 10000 YAML values\."),
    "too-big": (file("big.yaml", "# " + "x" * 70_000), r"big\.yaml: is 70002 bytes; a config may be at most 64 KiB\."),
    # accepted before
    "duplicate-key": (file("dup.yaml", MINIMAL + "training: {max_steps: 5}\ntraining: {max_steps: 6}\n"), r"dup\.yaml:4:1: duplicate key 'training' \(first given at line 3\)\. Fix: keep one of them"),
    "duplicate-nested-key": (file("dup2.yaml", MINIMAL + "training:\n  max_steps: 5\n  max_steps: 6\n"), r"dup2\.yaml:5:3: duplicate key 'max_steps' \(first given at line 4\)"),
    "duplicate-key-override": (override("data={train: [{name: arith}], train: []}"), r"override 'data=.*': the value \(column 26\): duplicate key 'train' \(first given at line 1\)\. Fix: keep one of them"),
    "nul-in-path": (file("nul.yaml", MINIMAL + 'run: {runs_dir: "runs\\0x"}\n'), r"nul\.yaml: run\.runs_dir = 'runs\\x00x': contains the control character '\\x00'"),
    "nul-in-extends": (extends('"a\\0b.yaml"'), r"child\.yaml: extends = 'a\\x00b\.yaml': contains a control character"),
    "nul-in-file": (file("nulbyte.yaml", MINIMAL + "x: \x00\n"), r"nulbyte\.yaml:3:4: not valid YAML: control characters are not allowed \(character #x0000\)\. Fix: remove the character"),
    "runs-dir-s3": (override("run.runs_dir=s3://bucket/runs"), r"run\.runs_dir = 's3://bucket/runs': is a URL \(s3://\), but run folders"),
    "huge-int": (override("run.seed=" + "9" * 5000), r"override 'run\.seed=9{40,}.*: the value: not a usable YAML value \(Exceeds the limit"),
    "date": (file("date.yaml", MINIMAL + "run: {name: 2024-01-01}\n"), r"date\.yaml: run\.name: is read by YAML as a date\. Fix: quote it"),
    "python-tag": (file("tag.yaml", "!!python/object:os.system {}\n"), r"tag\.yaml:1:1: not valid YAML: could not determine a constructor"),
    "int-key": (file("intkey.yaml", MINIMAL + "training: {1: 2}\n"), r"intkey\.yaml: training: the key 1 is read by YAML as int, not as a name\. Fix: quote it: '1'"),
    "top-level-list": (file("list.yaml", "- 1\n- 2\n"), r"list\.yaml: <top level> = \[1, 2\]: must be a mapping of sections, not a list\."),
    "two-documents": (file("two.yaml", MINIMAL + "---\n" + MINIMAL), r"two\.yaml:3:1: not valid YAML: expected a single document in the stream, but found another document\."),
    "override-into-list": (override("data.train.0.name=arith"), r"override 'data\.train\.0\.name=arith': data\.train is a list, not a section\. Fix: override the whole list"),
    "override-extends": (override("extends=x.yaml"), r"override 'extends=x\.yaml': `extends` cannot be overridden\."),
    "override-empty-name": (override("training..max_steps=1"), r"override 'training\.\.max_steps=1': '' is not a field name\."),
    "usage": (lambda tmp: ["tiny-arith", "--no-such-flag"], r"^python -m rlvr_core\.config: unrecognized arguments: --no-such-flag\. Fix: see"),
}


@pytest.mark.parametrize("case", CASES)
def test_malformed_config_gets_one_line(case: str, tmp_path: Path) -> None:
    make, expected = CASES[case]
    answer = validate(*make(tmp_path))
    answer.check()
    assert answer.code == 2 and len(answer.lines) == 1, answer.err
    assert re.search(expected, answer.lines[0]), answer.lines[0]


# The classes where a real process could crash (libyaml in C), block (FIFO, device) or run away (aliases, chains).
PROCESS_CASES = ["non-utf8", "extends-chain-1500", "billion-laughs", "extends-fifo", "config-is-fifo",
                 "config-is-device", "deep-nesting", "deep-nesting-override", "duplicate-key", "usage"]


@pytest.mark.slow
@pytest.mark.parametrize("case", PROCESS_CASES)
def test_malformed_config_as_a_real_process(case: str, tmp_path: Path) -> None:
    """No segfault, hang or traceback in a real `python -m rlvr_core.config` (interpreter start not timed)."""
    make, expected = CASES[case]
    done = subprocess.run([sys.executable, "-m", "rlvr_core.config", "validate", *make(tmp_path), "--quiet"],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr[-2000:]
    assert re.search(expected, done.stderr), done.stderr
