"""Verifier throughput on this machine, side by side with math-verify, against the targets.

Targets (issue 3): math >= 3x the throughput of math-verify's plain
`verify(parse(gold), parse(pred))` at >= 99.5% agreement on the golden set;
code >= 150 correct solutions/s (issue 26: plain data, every test evaluated, namespaces per
run; golden rows marked "bench": false, a sleep or a 10 MB print, time a limit and are left out),
beside the sandboxed executions/s over the whole code golden set; IFEval >= 3,000 checks/s. Math (issue 10):
>= 95% agreement with the labels of Math-Verify's own test cases
(tests/golden/math_verify_cases.jsonl; issue 28: the rows marked as deliberate
deviations aside) and no false positive, also with each prediction as the whole
completion, unboxed (issue 28: >= 75%); issue 28 keeps the math throughput
>= 3x math-verify's on the same items, in the same run. Items come from
tests/golden (repeated to `--repeat` copies), scored through `VerifierPool`
with `--workers` processes, the path training and evaluation use. math-verify
runs in the same number of processes so the ratio compares like with like.

    python benchmarks/verifiers.py --workers 2 --repeat 20
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import time
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "golden"


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines() if line.strip()]


def _problems(name: str):
    from rlvr_core.problem import Problem

    rows = _rows(name)
    answer_key = "gold" if name == "math" else "answer"
    return rows, [(r["completion"], Problem(r["id"], "bench", "", r[answer_key], name, extra={"timeout_s": r.get("timeout_s", 5)})) for r in rows]


def _math_verify_chunk(pairs: list[tuple[str, str]]) -> list[bool]:
    from math_verify import parse, verify

    return [bool(verify(parse(gold), parse(pred))) for pred, gold in pairs]


def _warmup():
    """Items that load sympy/math-verify, langdetect and the sandbox, on texts not measured."""
    from rlvr_core.problem import Problem

    lang = json.dumps({"func_name": "validate_response_language", "language": "en"})
    # IFEval counts sentences and capital words with NLTK, imported on first use (about a second).
    split = json.dumps({"instruction_id": ["length_constraints:number_sentences", "change_case:capital_word_frequency"],
                        "kwargs": [{"num_sentences": 2, "relation": "at least"}, {"capital_frequency": 1, "capital_relation": "at least"}]})
    code = json.dumps({"tests": ["assert f() == 1"], "setup": ""})
    return [
        ("\\boxed{2y}", Problem("w1", "warm", "", "y+y", "math")),
        ("Ceci est une phrase de mise en route.", Problem("w2", "warm", "", lang, "ifeval")),
        ("WARM up. Then go.", Problem("w4", "warm", "", split, "ifeval")),
        ("```python\ndef f():\n    return 1\n```", Problem("w3", "warm", "", code, "code")),
    ]


def _math_verify_cases(workers: int, bare: bool = False) -> tuple[int, int, int]:
    """(cases, agreements with Math-Verify's labels, false positives) over its own test cases.

    Rows marked `deviation` (a later issue decided against the label) are left out. `bare`: each
    prediction is the whole completion as written, not wrapped in a box (string-extraction cases aside).
    """
    from rlvr_core.problem import Problem
    from rlvr_core.verifiers import VerifierPool

    cases = [c for c in _rows("math_verify_cases") if not c.get("deviation")]
    if bare:
        cases = [c for c in cases if c["call"] != "parse(pred, [config]) == expected"]
    text = "pred" if bare else "completion"
    with VerifierPool(workers=workers) as pool:
        scores = pool.verify_batch([(c[text], Problem(c["id"], "math-verify", "", c["answer"], "math")) for c in cases])
    agree = sum((s.status == "correct") == bool(c["label"]) for s, c in zip(scores, cases))
    false_positives = sum(s.status == "correct" and not c["label"] for s, c in zip(scores, cases))
    return len(cases), agree, false_positives


def _time_pool(pool, pairs) -> tuple[float, list]:
    start = time.perf_counter()
    scores = pool.verify_batch(pairs)
    return time.perf_counter() - start, scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2, help="worker processes for both us and math-verify")
    parser.add_argument("--repeat", type=int, default=20, help="copies of each golden set per timed batch")
    parser.add_argument("--code-repeat", type=int, default=3, help="copies of the code golden set (it holds timeouts)")
    parser.add_argument("--sandbox", choices=["auto", "bwrap", "host", "host-unsafe"], default=None,
                        help="code sandbox mode for the pool's workers (default: RLVR_SANDBOX, else auto)")
    args = parser.parse_args()
    if args.sandbox:
        os.environ["RLVR_SANDBOX"] = args.sandbox  # the spawned workers read it
    from rlvr_core.sandbox.runner import Sandbox

    probe = Sandbox()  # the mode the workers will pick on this machine, for the report
    sandbox_mode = probe.mode or f"refused: {probe.refusal}"
    probe.close()

    from rlvr_core.verifiers import VerifierPool

    print(f"workers={args.workers} repeat={args.repeat}")
    with VerifierPool(workers=args.workers, timeout_s=10) as pool:
        pool.verify_batch(_warmup() * 4)  # imports and language profiles in every worker, not the measured texts
        figures = {}
        for name, repeat in (("math", args.repeat), ("ifeval", args.repeat), ("ifbench", args.repeat), ("code", args.code_repeat)):
            rows, pairs = _problems(name)
            if name == "code":  # exclude the deliberate timeouts: they measure the limit, not throughput
                keep = [i for i, r in enumerate(rows) if r["expected"] != "timeout"]
                rows, pairs = [rows[i] for i in keep], [pairs[i] for i in keep]
            seconds, scores = _time_pool(pool, pairs * repeat)
            figures[name] = len(pairs) * repeat / seconds
            constraints = 1.0
            if name in ("ifeval", "ifbench"):
                from rlvr_core.verifiers.ifeval.parsing import parse_ground_truth

                counts = []
                for _, p in pairs:
                    try:
                        counts.append(len(parse_ground_truth(p.answer)))
                    except ValueError:
                        counts.append(1)
                constraints = sum(counts) / len(counts)
            print(f"{name:8s} {len(pairs) * repeat:6d} items in {seconds:6.2f}s = {figures[name]:8.1f} items/s"
                  + (f" ({figures[name] * constraints:8.1f} constraint checks/s)" if constraints != 1.0 else ""))
            if name in ("ifeval", "ifbench"):
                figures[name + "_checks"] = figures[name] * constraints
        rows, pairs = _problems("code")  # rows with "bench": false sleep or print megabytes: they time a limit
        correct = [pair for row, pair in zip(rows, pairs) if row["expected"] == "correct" and row.get("bench", True)]
        seconds, scores = _time_pool(pool, correct * args.code_repeat)
        figures["code_correct"] = len(correct) * args.code_repeat / seconds
        rewarded = sum(s.status == "correct" for s in scores)
        print(f"{'code ok':8s} {len(scores):6d} items in {seconds:6.2f}s = {figures['code_correct']:8.1f} items/s "
              f"(correct solutions only; {rewarded} rewarded)")

    rows, pairs = _problems("math")
    with VerifierPool(workers=args.workers) as pool:
        ours = [s.status == "correct" for s in pool.verify_batch(pairs)]
    mv_pairs = [(r["completion"], r["gold"]) for r in rows]
    ctx = mp.get_context("spawn")
    with ctx.Pool(args.workers) as mv_pool:
        mv_pool.map(_math_verify_chunk, [mv_pairs[:4]] * args.workers)  # warm imports
        chunk = max(1, len(mv_pairs) * args.repeat // (4 * args.workers))
        work = mv_pairs * args.repeat
        start = time.perf_counter()
        mv_results = [x for part in mv_pool.map(_math_verify_chunk, [work[i : i + chunk] for i in range(0, len(work), chunk)]) for x in part]
        mv_seconds = time.perf_counter() - start
    mv_rate = len(work) / mv_seconds
    mv = mv_results[: len(rows)]
    agreement = sum(a == b for a, b in zip(ours, mv)) / len(rows)
    expected = [r["expected"] == "correct" for r in rows]
    acc_ours = sum(a == e for a, e in zip(ours, expected)) / len(rows)
    acc_mv = sum(a == e for a, e in zip(mv, expected)) / len(rows)
    print(f"mathverify {len(work):6d} items in {mv_seconds:6.2f}s = {mv_rate:8.1f} items/s")
    print()
    ratio = figures["math"] / mv_rate
    print(f"math: {ratio:.2f}x math-verify (target >= 3x): {'MET' if ratio >= 3 else 'MISSED'}")
    print(f"math: agreement with math-verify on the golden set {agreement:.1%} (target >= 99.5%): "
          f"{'MET' if agreement >= 0.995 else 'MISSED'}; accuracy vs hand labels: ours {acc_ours:.1%}, math-verify {acc_mv:.1%}")
    mv_right = [i for i in range(len(rows)) if mv[i] == expected[i]]
    print(f"math: where math-verify matches the hand label ({len(mv_right)} rows) we agree with it "
          f"{sum(ours[i] == mv[i] for i in mv_right) / len(mv_right):.1%}")
    cases, agree, false_positives = _math_verify_cases(args.workers)
    met = agree / cases >= 0.95 and false_positives == 0
    print(f"math: Math-Verify's own test cases ({cases}, deliberate deviations aside): agreement with their labels "
          f"{agree / cases:.1%} (target >= 95%), false positives {false_positives} (target 0): {'MET' if met else 'MISSED'}")
    cases, agree, false_positives = _math_verify_cases(args.workers, bare=True)
    met = agree / cases >= 0.75 and false_positives == 0
    print(f"math: the same predictions as the whole completion, unboxed ({cases}): agreement {agree / cases:.1%} "
          f"(target >= 75%), false positives {false_positives} (target 0): {'MET' if met else 'MISSED'}")
    print(f"code: {figures['code_correct']:.1f} correct solutions/s in {sandbox_mode} mode with {args.workers} workers "
          f"(target >= 150): {'MET' if figures['code_correct'] >= 150 else 'MISSED'}; "
          f"{figures['code']:.1f} sandboxed executions/s over the whole golden set (right and wrong answers)")
    print(f"ifeval: {figures['ifeval_checks']:.0f} checks/s (target >= 3000): {'MET' if figures['ifeval_checks'] >= 3000 else 'MISSED'}"
          " (repeated texts hit the language-detection cache; see the --repeat 1 figure for cold texts)")


if __name__ == "__main__":
    main()
