"""Hidden tests for a code problem, generated offline from its trusted reference solution (as EvalPlus builds
MBPP+): tests that bite, and never pin a bug.

Why: a prompt shows a problem's asserts, so a lookup table of the shown
calls, or a program that answers each call with the answer of the most
similar shown call, passes every test built on a shown answer. Each
official or challenge assert that calls an entry function with literal
arguments is a template (`templates.py`); its arguments are mutated inside
the domain every official and challenge call shares (`domain.py`: types,
signs, lengths, order, relations between arguments); the reference answers
the new call, and the assert is rewritten in the same form.

A candidate becomes a hidden test only if:
- the reference passes every official and challenge test (else the problem
  gets none and is listed: it trains on its official tests only);
- its input is in the domain and its answer has the shape of every shown
  answer (`OutputShape`: a None among bools, an unsorted tuple among sorted
  ones is the reference's accident, not the task);
- every known-correct program of the problem (written for problems whose
  reference has bugs inside the domain) passes the written assert;
- the reference passes the written assert again in a second sandbox (another
  interpreter, another hash seed: an answer that depends on set order or on
  chance fails there).
Which are kept: those whose answer differs from every official test's
("novel": no program answering with shown answers passes one). Where too
few answers can (bools, a few labels), tests whose answer differs from the
nearest official call's by two measures (repr similarity, distance of the
numbers and lengths) alternate with tests whose answer agrees with it, with
two different answers at least: a program answering as the nearest call,
the other way, or always the same fails one. Finally the reference must pass
its own tests and all the new ones, graded as a reward is.

Deterministic per problem id (a seeded generator); `HIDDEN_TESTS_VERSION`
changes whenever the output would, so caches built by an older generator are
derived again.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import zip_longest
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.sandbox.codec import NotPlainData, encode
from rlvr_core.sandbox.runner import Sandbox
from rlvr_core.verifiers.code.domain import CallDomain, OutputShape
from rlvr_core.verifiers.code.grader import TestPlan, evaluate, grade, plan_tests
from rlvr_core.verifiers.code.reference import trusted_parts
from rlvr_core.verifiers.code.templates import Template, form, probe_source, render, templates

HIDDEN_TESTS_VERSION = 2
DEFAULT_COUNT = 10
COUNT_ENV = "RLVR_CODE_HIDDEN_TESTS"
CANDIDATES_PER_TEST = 8  # distinct in-domain candidates at most, per hidden test wanted
FIRST_CHUNK = 3  # candidates per hidden test judged first; the rest only if too few answers were new
ATTEMPTS_PER_CANDIDATE = 8  # mutations tried per candidate wanted (most fall outside the domain or repeat)
BATCH = 48  # probes evaluated per sandbox run
PROBE_TIMEOUT_S = 2.0  # a batch of probes
RETRY_TIMEOUT_S = 1.0  # one probe of a batch the program did not finish
REFERENCE_FAILS = "the reference fails its own tests"


def hidden_test_count() -> int:
    """Hidden tests per problem: RLVR_CODE_HIDDEN_TESTS, else DEFAULT_COUNT; ValueError names the variable."""
    text = os.environ.get(COUNT_ENV, "").strip()
    if not text:
        return DEFAULT_COUNT
    if not text.isdigit():
        raise ValueError(f"{COUNT_ENV}={text!r} must be a whole number of hidden tests per problem (0 turns them off)")
    return int(text)


@dataclass(frozen=True)
class Generated:
    """The hidden tests of one problem, why there are fewer than asked (empty when all were found), and how many
    answer as some official test does (bools, a few labels: see the module docstring)."""

    tests: tuple[str, ...]
    note: str = ""
    contrast: int = 0


@dataclass(frozen=True)
class _Candidate:
    template: Template
    args: tuple
    kwargs: tuple
    probe: str
    size: float


def _numbers(value: Any) -> list[float]:
    """The numbers and lengths in a value, in order: what the numeric nearness measure compares."""
    if isinstance(value, (bool, int, float)):
        return [float(value)]
    if isinstance(value, str):
        return [float(len(value)), *(float(ord(c)) for c in value)]
    if isinstance(value, dict):
        value = list(value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value) if isinstance(value, (list, tuple)) else sorted(value, key=repr)
        return [float(len(items)), *(x for item in items for x in _numbers(item))]
    return []


def _values(candidate: _Candidate) -> tuple:
    return (*candidate.args, *(v for _, v in candidate.kwargs))


def _size(values: Sequence[Any]) -> float:
    return sum(abs(x) for x in _numbers(list(values)))


def _nearest(values: tuple, shown: Sequence[tuple]) -> list[int]:
    """The index of the most similar shown call by each measure: repr similarity, numeric distance."""
    text = repr(values)
    by_text = max(range(len(shown)), key=lambda i: difflib.SequenceMatcher(None, text, repr(shown[i])).ratio())
    mine = _numbers(list(values))
    by_number = min(range(len(shown)), key=lambda i: sum(
        abs(a - b) for a, b in zip_longest(mine, _numbers(list(shown[i])), fillvalue=0.0)))
    return [by_text, by_number]


def _fingerprint(value: Any) -> str | None:
    try:
        return json.dumps(encode(value), sort_keys=True)
    except (NotPlainData, ValueError, TypeError):
        return None


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(a, b, rel_tol=1e-6)
        except TypeError:
            return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - plain data compared with plain data; anything odd is "not equal"
        return False


def _outcome(template: Template, value: Any) -> Any:
    return bool(value) if template.kind == "truth" else value


def _form(template: Template) -> tuple:
    """Templates of one form (signature, probe shape, assert kind) answer comparable values."""
    return template.signature, form(template), template.kind


def _ended(answer: tuple[str, Any]) -> bool:
    return answer[0] == "error" and str(answer[1]).startswith("ended")


def _answers(sandbox: Sandbox, program: str, plan: TestPlan, probes: Sequence[str],
             sizes: Sequence[float]) -> list[tuple[str, Any]]:
    """Each probe's outcome from `program`, smallest inputs first, in batches. A batch the program did not
    finish is retried one probe per run; once a probe runs out of time, larger ones are not tried (an
    exponential reference costs one timeout, not one per input)."""
    order = sorted(range(len(probes)), key=lambda k: sizes[k])
    out: dict[int, tuple[str, Any]] = {}
    limit = math.inf
    for start in range(0, len(order), BATCH):
        batch = order[start:start + BATCH]
        if sizes[batch[0]] >= limit:
            out.update({k: ("error", "not tried: larger than an input that ran out of time") for k in batch})
            continue
        for k, answer in zip(batch, evaluate(sandbox, program, plan, [probes[k] for k in batch],
                                             timeout_s=PROBE_TIMEOUT_S)):
            if _ended(answer):
                if sizes[k] >= limit:
                    answer = ("error", "not tried: larger than an input that ran out of time")
                else:
                    answer = evaluate(sandbox, program, plan, [probes[k]], timeout_s=RETRY_TIMEOUT_S)[0]
                    if _ended(answer):
                        limit = sizes[k]
            out[k] = answer
    return [out[k] for k in range(len(probes))]


def _candidates(pool: Sequence[Template], domains: Mapping[tuple, CallDomain], wanted: int,
                rng: random.Random) -> list[_Candidate]:
    seen = {probe_source(t, t.args, t.kwargs) for t in pool}
    out: list[_Candidate] = []
    for attempt in range(wanted * ATTEMPTS_PER_CANDIDATE):
        if len(out) >= wanted:
            break
        template = pool[attempt % len(pool)]
        domain = domains[template.signature]
        values = template.values
        for _ in range(rng.choice((1, 1, 2, 3))):
            values = domain.mutate(values, rng)
        if not domain.accepts(values):
            continue
        args, kwargs = template.split(values)
        probe = probe_source(template, args, kwargs)
        if probe is None or probe in seen:
            continue
        seen.add(probe)
        out.append(_Candidate(template, args, kwargs, probe, _size(values)))
    return out


def _spread(chosen: list[tuple[str, str | None]], n: int) -> list[str]:
    """Up to n tests, taking each answer in turn (round robin over the distinct answers, in order)."""
    groups: dict[str | None, list[str]] = {}
    for test, key in chosen:
        groups.setdefault(key, []).append(test)
    out: list[str] = []
    while len(out) < n and any(groups.values()):
        for tests in groups.values():
            if tests and len(out) < n:
                out.append(tests.pop(0))
    return out


def _select(pools: dict[str, list[tuple[str, str | None]]], count: int) -> list[str]:
    """The hidden tests: novel answers first (no program that gives shown answers passes one). Without any, a
    program giving shown answers must still fail: contrast tests fail the one answering as the nearest shown
    call, alternating with agreeing tests that fail the one answering otherwise, and two answers at least fail
    every constant."""
    if pools["novel"]:
        tests: list[str] = []
        for pool in ("novel", "contrast", "mixed", "agree"):
            tests += _spread(pools[pool], count - len(tests))
        return tests
    contrast, agree = _spread(pools["contrast"], count), _spread(pools["agree"], count)
    tests = [t for pair in zip_longest(contrast, agree) for t in pair if t is not None][:count]
    tests += _spread(pools["mixed"], count - len(tests))
    everything = pools["contrast"] + pools["agree"] + pools["mixed"]
    keys = {key for test, key in everything if test in tests}
    if len(keys) == 1:
        cover = next((test for test, key in everything if key not in keys), None)
        if cover is not None:
            tests = tests[:count - 1] + [cover]
    return tests


@dataclass
class _Problem:
    """What judging a candidate needs: the problem's own tests, the reference's answers to its own calls."""

    official: tuple[str, ...]
    challenge: tuple[str, ...]
    setup: str
    entry: Any
    prelude: str
    reference: str
    known_correct: Sequence[str]
    sandboxes: tuple[Sandbox, Sandbox]
    forms: dict[tuple, list[tuple[tuple, Any]]]  # form -> [(an official call's arguments, its outcome)]
    shapes: dict[tuple, OutputShape]  # form -> the shape of every own call's answer

    def plan(self, extra: tuple[str, ...] = ()) -> TestPlan:
        return plan_tests(self.official + self.challenge + extra, self.setup, self.entry, self.prelude)


def generate_hidden_tests(problem_id: str, answer: Mapping[str, Any], reference: str, count: int,
                          sandboxes: tuple[Sandbox, Sandbox], known_correct: Sequence[str] = ()) -> Generated:
    """Up to `count` hidden asserts for one problem. `answer`: its code answer (`tests` the official asserts,
    `challenge`, `setup`, `entry`, `prelude`); `known_correct`: programs known to solve it, which every hidden
    test must let pass (ValueError when one fails the problem's own tests: it is not known to be correct)."""
    if count <= 0:
        return Generated(())
    entry = answer.get("entry") or trusted_parts(reference)[0] or None
    problem = _Problem(tuple(answer["tests"]), tuple(answer.get("challenge") or ()), answer.get("setup") or "",
                       tuple(entry) if isinstance(entry, list) else entry, answer.get("prelude") or "", reference,
                       known_correct, sandboxes, {}, {})
    own = problem.plan()
    verdict = grade(sandboxes[0], reference, own, timeout_s=PROBE_TIMEOUT_S * 2)
    if verdict.status != "passed":
        return Generated((), f"{REFERENCE_FAILS}: {verdict.detail[:200]}")
    for program in known_correct:
        check = grade(sandboxes[0], program, own, timeout_s=PROBE_TIMEOUT_S * 2)
        if check.status != "passed":
            raise ValueError(f"problem {problem_id}: a known-correct program fails the problem's own tests "
                             f"({check.detail[:200]}): fix it or remove it\n{program}")
    shown = templates(problem.official, own.entries)
    if not shown:
        return Generated((), "no official test calls an entry function with literal arguments")
    pool = shown + templates(problem.challenge, own.entries)
    domains = {sig: CallDomain([t.values for t in pool if t.signature == sig]) for sig in {t.signature for t in pool}}
    rng = random.Random(f"hidden-tests:{HIDDEN_TESTS_VERSION}:{problem_id}")
    candidates = _candidates(pool, domains, count * CANDIDATES_PER_TEST, rng)
    first = candidates[:count * FIRST_CHUNK]  # most problems need only these; the rest if too few answers were new
    answers = _answers(sandboxes[0], reference, own, [probe_source(t, t.args, t.kwargs) or "" for t in pool]
                       + [c.probe for c in first], [-math.inf] * len(pool) + [c.size for c in first])  # own calls first
    if any(a[0] != "value" for a in answers[:len(pool)]):
        return Generated((), "the reference's answer to one of its own calls cannot be read back")
    outputs: dict[tuple, list[Any]] = {}
    for k, (template, (_, value)) in enumerate(zip(pool, answers)):
        outputs.setdefault(_form(template), []).append(value)
        if k < len(shown):
            problem.forms.setdefault(_form(template), []).append((template.values, _outcome(template, value)))
    problem.shapes.update({form: OutputShape(values) for form, values in outputs.items()})
    reasons: Counter[str] = Counter()
    pools = _judge(problem, first, answers[len(pool):], reasons)
    rest = candidates[len(first):]
    if rest and len(pools["novel"]) < count:
        rest_answers = _answers(sandboxes[0], reference, own, [c.probe for c in rest], [c.size for c in rest])
        for name, judged in _judge(problem, rest, rest_answers, reasons).items():
            pools[name] += judged
    tests = _select(pools, count)
    n_contrast = len(tests) - len([t for t, _ in pools["novel"] if t in tests])
    check = grade(sandboxes[0], reference, problem.plan(tuple(tests)), timeout_s=PROBE_TIMEOUT_S * 4)
    if check.status != "passed":
        return Generated((), f"the reference fails the generated tests: {check.detail[:200]}")
    if len(tests) == count:
        return Generated(tuple(tests), "", n_contrast)
    why = ", ".join(f"{n} {reason}" for reason, n in reasons.most_common() if n)
    return Generated(tuple(tests), f"{len(tests)} of {count}: {len(candidates)} in-domain inputs tried; {why}",
                     n_contrast)


def _judge(problem: _Problem, chunk: list[_Candidate], answers: list[tuple[str, Any]], reasons: Counter[str]
           ) -> dict[str, list[tuple[str, str | None]]]:
    """The valid tests among `chunk` (each with its answer's fingerprint), given the reference's `answers`, by how
    their answer relates to the shown ones: "novel" (no official test answers so), "contrast" (the nearest
    official call answers otherwise by both measures), "agree" (it answers so by both), "mixed". `reasons`
    counts why the rest were dropped."""
    kept: list[tuple[_Candidate, Any, str]] = []
    for candidate, (status, value) in zip(chunk, answers):
        form = _form(candidate.template)
        rendered = render(candidate.template, candidate.args, candidate.kwargs, value) if status == "value" else None
        if status != "value":
            reasons["the reference raised or ran out of time"] += 1
        elif not problem.shapes[form].accepts(value):
            reasons["answer outside the shown answers' shape"] += 1
        elif form not in problem.forms:
            reasons["no official call of its form"] += 1
        elif rendered is None or rendered in problem.official or rendered in problem.challenge:
            reasons["cannot be written"] += 1
        else:
            kept.append((candidate, value, rendered))
    kept = _agreed(problem, kept, reasons)
    # The reference again, in the other interpreter, on the written asserts: an answer that changes with the
    # hash seed (set order) or with chance fails there, and so would a written assert that missed its answer.
    holds = _holds(problem, problem.sandboxes[1], problem.reference, kept)
    reasons["not deterministic"] += holds.count(False)
    pools: dict[str, list[tuple[str, str | None]]] = {"novel": [], "contrast": [], "agree": [], "mixed": []}
    for (candidate, value, rendered), ok in zip(kept, holds):
        if not ok:
            continue
        outcome = _outcome(candidate.template, value)
        calls = problem.forms[_form(candidate.template)]
        if all(not _equal(outcome, shown_outcome) for _, shown_outcome in calls):
            pool = "novel"
        else:
            same = [_equal(outcome, calls[i][1]) for i in _nearest(_values(candidate), [c for c, _ in calls])]
            pool = "agree" if all(same) else "mixed" if any(same) else "contrast"
        pools[pool].append((rendered, _fingerprint(outcome)))
    return pools


def _holds(problem: _Problem, sandbox: Sandbox, program: str, kept: list[tuple[_Candidate, Any, str]]) -> list[bool]:
    """Whether `program` passes each candidate's written assert (evaluated as the grader would, in one run)."""
    if not kept:
        return []
    plan = replace(problem.plan(), modules=problem.plan().modules | {"math"})  # a float's assert uses math.isclose
    answers = _answers(sandbox, program, plan, [r.removeprefix("assert ") for _, _, r in kept],
                       [c.size for c, _, _ in kept])
    return [status == "value" and value is not None and bool(value) for status, value in answers]


def _agreed(problem: _Problem, kept: list[tuple[_Candidate, Any, str]], reasons: Counter[str]
            ) -> list[tuple[_Candidate, Any, str]]:
    """The candidates whose written assert every known-correct program passes."""
    for program in problem.known_correct:
        holds = _holds(problem, problem.sandboxes[0], program, kept)
        reasons["a known-correct program disagrees"] += holds.count(False)
        kept = [c for c, ok in zip(kept, holds) if ok]
    return kept


# --- a whole split ----------------------------------------------------------------------------------
def derivation_version() -> dict[str, Any]:
    """What `add_hidden_tests` would produce now: recorded in the dataset cache's manifest."""
    return {"generator": HIDDEN_TESTS_VERSION, "per_problem": hidden_test_count()}


def add_hidden_tests(problems: list[Problem], known_correct: Mapping[str, Sequence[str]] | None = None
                     ) -> tuple[list[Problem], dict[str, Any]]:
    """Every code problem with "hidden" tests in its answer, made from `extra["reference_code"]`
    (`known_correct`: programs per problem id that every hidden test must let pass); and a summary (counts,
    the problems with fewer than asked, those whose reference fails its own tests: these are graded on
    their official tests only). Raises RuntimeError when no sandbox can run the references, naming the fix."""
    from tqdm import tqdm

    count = hidden_test_count()
    sandboxes = (Sandbox(), Sandbox()) if count else None
    known_correct = known_correct or {}
    try:
        if sandboxes and sandboxes[0].refusal:
            raise RuntimeError(f"cannot generate hidden tests: {sandboxes[0].refusal} Or set {COUNT_ENV}=0 to train "
                               "on the official tests only (their inputs are in the prompt: a lookup table passes).")
        out, notes, failing, short, total, contrast = [], Counter(), [], {}, 0, 0
        for problem in tqdm(problems, desc=f"hidden tests ({count} per problem)", unit="problem",
                            disable=not problems or count == 0):
            answer = json.loads(problem.answer)
            answer.pop("hidden", None)
            reference = problem.extra.get("reference_code")
            if count and reference:
                assert sandboxes is not None
                generated = generate_hidden_tests(problem.id, answer, reference, count, sandboxes,
                                                  known_correct.get(problem.id, ()))
                answer["hidden"] = list(generated.tests)
                total += len(generated.tests)
                contrast += generated.contrast
                if generated.note.startswith(REFERENCE_FAILS):
                    failing.append(problem.id)
                    answer["grade_on"] = "official"
                elif len(generated.tests) < count:
                    short[problem.id] = len(generated.tests)
                notes[generated.note.partition(":")[0]] += bool(generated.note)
            elif count:
                notes["no reference solution"] += 1
            out.append(replace(problem, answer=json.dumps(answer)))
    finally:
        for sandbox in sandboxes or ():
            sandbox.close()
    summary = {"problems": len(problems), "tests": total, "contrast_tests": contrast,
               "with_all": sum(len(json.loads(p.answer).get("hidden", [])) == count for p in out) if count else 0,
               "fewer_than_asked": short, "short_because": {k: v for k, v in notes.items() if k and v},
               "reference_fails_own_tests": failing}
    return out, summary
