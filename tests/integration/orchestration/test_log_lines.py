"""Trainer output in the Prefect log: readable lines, no escape codes, bars or signal dumps, step lines thinned."""

from __future__ import annotations

import pytest

from orchestration.log_lines import StepLines, clean_line


def test_step_lines_pass_through_unchanged() -> None:
    line = "step 5/30 reward 0.078 pass 0.078 loss +0.0001 kl 0.0030 clip 0.000 gnorm 0.206 stale {'0': 128} 0.66s"
    assert clean_line(line) == line


def test_rays_coloured_actor_prefix_loses_its_escape_codes() -> None:
    assert clean_line("\x1b[36m(PolicyTrainer pid=8887)\x1b[0m step done") == "(PolicyTrainer pid=8887) step done"


@pytest.mark.parametrize("noise", [
    "\x1b[36m(PolicyTrainer pid=8887)\x1b[0m ",
    "Loading weights:   0%|          | 0/35 [00:00<?, ?it/s]",
    "Loading weights:   0%|          | 0/35 [00:00<?, ?it/s]\rLoading weights: 100%|██████████| 35/35 [00:00<00:00]",
    "Writing model shards: 100%|██████████| 1/1 [00:00<00:00, 156.28it/s]",
    "PC: @     0x7f6a13aa3f16  (unknown)  (unknown)",
    "    @     0x7f6a13a5a050  (unknown)  (unknown)",
    "[2026-11-23 22:02:49,401 E 8708 8708] logging.cc:474:     @     0x7f6a13a5a050  (unknown)  (unknown)",
    "",
])
def test_bars_blank_actor_lines_and_stack_frames_are_dropped(noise: str) -> None:
    assert clean_line(noise) is None


def test_a_signal_dump_printed_bare_and_logged_again_becomes_one_plain_line() -> None:
    dump = ["*** SIGTERM received at time=1795471369 on cpu 1 ***",
            "PC: @     0x7f6a13aa3f16  (unknown)  (unknown)",
            "[2026-11-23 22:02:49,401 E 8708 8708] logging.cc:474: *** SIGTERM received at time=1795471369 on cpu 1 ***",
            "[2026-11-23 22:02:49,401 E 8708 8708] logging.cc:474: PC: @     0x7f6a13aa3f16  (unknown)  (unknown)"]
    assert [kept for line in dump if (kept := clean_line(line))] == [
        "trainer process received SIGTERM (stopped from outside)"]


def test_a_percentage_in_prose_is_kept() -> None:
    assert clean_line("held-out accuracy 45% after 300 steps") == "held-out accuracy 45% after 300 steps"


def step_line(step: int, total: int = 300, heldout: float | None = None) -> str:
    """A step line as the trainer prints it (`rlvr_core/grpo/train.py`)."""
    line = (f"step {step}/{total} reward 0.100 pass 0.100 loss +0.0001 kl 0.0030 clip 0.000 gnorm 0.200 "
            f"stale {{'0': 128}} 0.10s")
    return line + (f" heldout {heldout:.3f}" if heldout is not None else "")


def test_step_lines_reach_the_log_at_most_once_per_interval() -> None:
    lines = StepLines(min_interval_s=5.0)
    kept = [step for step in range(1, 101) if lines.keep(step_line(step), now=step * 0.1)]  # ten steps a second
    assert kept == [1, 51]


def test_the_last_step_and_every_held_out_accuracy_are_always_logged() -> None:
    lines = StepLines(min_interval_s=5.0)
    assert lines.keep(step_line(1), now=0.0)
    assert not lines.keep(step_line(2), now=0.1)
    assert lines.keep(step_line(3, heldout=0.42), now=0.2)
    assert lines.keep(step_line(300), now=0.3)


def test_lines_other_than_steps_are_never_thinned() -> None:
    lines = StepLines(min_interval_s=5.0)
    assert lines.keep(step_line(1), now=0.0)
    others = ["checkpoint published: step 2", "Traceback (most recent call last):",
              "(PolicyTrainer pid=1) step 2/300 done"]
    assert all(lines.keep(line, now=0.1) for line in others)
