"""Golden sets: hand-checked (completion, gold, expected verdict) rows per verifier.

Each row is its own test (known failures are `xfail`, strict, with the reason
in the row), and one test per verifier prints the false-negative rate (a
correct answer not rewarded) and false-positive rate (a wrong answer
rewarded) over every row, xfails included, and bounds them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rlvr_core.problem import Problem
from rlvr_core.verifiers import Score, VerifierPool

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
# Bounds on (false-negative rate, false-positive rate) over all rows, xfails included.
BOUNDS = {"math": (0.05, 0.01), "code": (0.06, 0.0), "ifeval": (0.0, 0.0), "ifbench": (0.0, 0.0)}


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines() if line.strip()]


def _problem(name: str, row: dict) -> Problem:
    answer = row["gold"] if name == "math" else row["answer"]
    return Problem(row["id"], "golden", "", answer, name, extra={"timeout_s": row.get("timeout_s", 5)})


@pytest.fixture(scope="module")
def golden_scores() -> dict[str, dict[str, Score]]:
    """Every golden row scored once, through the same pool training uses."""
    pairs, keys = [], []
    for name in BOUNDS:
        for row in _rows(name):
            pairs.append((row["completion"], _problem(name, row)))
            keys.append((name, row["id"]))
    with VerifierPool(workers=2, timeout_s=10) as pool:
        scores = pool.verify_batch(pairs)
    out: dict[str, dict[str, Score]] = {name: {} for name in BOUNDS}
    for (name, row_id), score in zip(keys, scores):
        out[name][row_id] = score
    return out


def _cases() -> list:
    cases = []
    for name in BOUNDS:
        for row in _rows(name):
            marks = [pytest.mark.xfail(reason=row["xfail"], strict=True)] if row.get("xfail") else []
            cases.append(pytest.param(name, row, id=row["id"], marks=marks))
    return cases


@pytest.mark.slow
@pytest.mark.parametrize(("name", "row"), _cases())
def test_golden_row(golden_scores, name: str, row: dict) -> None:
    score = golden_scores[name][row["id"]]
    assert score.status == row["expected"], f"{row['comment']}: got {score}"
    if "expected_reward" in row:
        assert score.reward == pytest.approx(row["expected_reward"])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BOUNDS))
def test_false_negative_and_false_positive_rates(golden_scores, name: str) -> None:
    rows = _rows(name)
    positives = [r for r in rows if r["expected"] == "correct"]
    negatives = [r for r in rows if r["expected"] != "correct"]
    fn = sum(golden_scores[name][r["id"]].status != "correct" for r in positives) / len(positives)
    fp = sum(golden_scores[name][r["id"]].status == "correct" for r in negatives) / len(negatives)
    print(f"\n{name}: {len(rows)} rows, FN {fn:.2%} of {len(positives)} positives, FP {fp:.2%} of {len(negatives)} negatives")
    assert len(rows) >= 150
    max_fn, max_fp = BOUNDS[name]
    assert fn <= max_fn and fp <= max_fp
