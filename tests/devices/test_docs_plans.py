"""docs/GPU.md shows the plans `python -m rlvr_core.devices plan` prints: each one is printed again here and must
match, so the page cannot drift from the code."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from rlvr_core.devices.__main__ import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "GPU.md"
BLOCK = re.compile(r"```\n\$ python -m rlvr_core\.devices (plan [^\n]*)\n(.*?)```", re.DOTALL)
SHOWN = BLOCK.findall(DOC.read_text())


def test_the_page_shows_every_layout() -> None:
    commands = [command for command, _ in SHOWN]
    for gpus in ("--gpus 1", "--gpus 2", "--gpus 4", "--gpus 8", "--gpus 1,1", "--gpus 2,2", "--gpus 8,8"):
        assert any(command.endswith(gpus) for command in commands), gpus


@pytest.mark.parametrize("command,printed", SHOWN, ids=[command for command, _ in SHOWN])
def test_each_plan_on_the_page_is_what_the_cli_prints(command: str, printed: str, capsys) -> None:
    main(shlex.split(command))
    out = capsys.readouterr()
    assert (out.out + out.err).strip() == printed.strip()
