"""Hidden tests for a code problem, generated offline from its trusted reference solution (as EvalPlus builds
MBPP+).

Why: an MBPP prompt shows three asserts and MBPP rows have three, so a
lookup table of the shown inputs passes every graded test. Here each
official assert that calls an entry function with literal arguments is a
template: its arguments are mutated by type (ints nudged, strings edited,
lists shuffled, shortened, grown; a length argument follows its list), the
reference solution answers the mutated call in the sandbox, and the assert is
rewritten with the new arguments and the reference's value, in the same form
(`set(f(x')) == {...}`, `math.isclose(f(x'), v, rel_tol=...)`, `not f(x')`).
A candidate is kept only if the reference answers it without error, with plain
data a literal can express, and identically in two sandboxes (two
interpreters, two hash seeds: an answer that depends on set order or on
randomness is dropped). A scalar float compared with `==` becomes a
`math.isclose` with a relative tolerance of 1e-9; other float-holding values
are dropped. Finally the reference must pass its official tests and all the
new ones, else the problem keeps no hidden test (the reason is returned).

Deterministic per problem id (a seeded generator); `HIDDEN_TESTS_VERSION`
changes whenever the output would, so caches built by an older generator are
derived again.
"""

from __future__ import annotations

import ast
import copy
import json
import os
import random
import string
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from rlvr_core.problem import Problem
from rlvr_core.sandbox.codec import NotPlainData, encode
from rlvr_core.sandbox.runner import Sandbox
from rlvr_core.verifiers.code.grader import evaluate, grade, plan_tests
from rlvr_core.verifiers.code.verifier import parse_answer

HIDDEN_TESTS_VERSION = 1
DEFAULT_COUNT = 10
COUNT_ENV = "RLVR_CODE_HIDDEN_TESTS"
CANDIDATES_PER_TEST = 4  # candidates tried per hidden test wanted
BATCH = 8  # probes evaluated per sandbox run
PROBE_TIMEOUT_S = 5.0  # a batch of probes
RETRY_TIMEOUT_S = 2.0  # one probe of a batch the reference did not finish
MAX_LITERAL_CHARS = 2000  # a longer expected value is not kept (tests stay readable)


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
    """The hidden tests of one problem, and why there are fewer than asked (empty when all were found)."""

    tests: tuple[str, ...]
    note: str = ""


@dataclass(frozen=True)
class _Template:
    test: ast.expr  # the official assert's test expression
    call: int  # index of the entry call in ast.walk(test)
    args: tuple
    kwargs: tuple[tuple[str, Any], ...]
    probe: int  # index (in ast.walk(test)) of the expression whose value the reference gives
    kind: str  # "compare" (probe == expected), "close" (isclose(probe, expected, ...)), "truth" (assert [not] probe)
    expected: int  # index of the expected value's node (compare, close), else -1


def _walk(node: ast.AST) -> list[ast.AST]:
    return list(ast.walk(node))


def _contains(node: ast.AST, target: ast.AST) -> bool:
    return any(n is target for n in ast.walk(node))


def _templates(tests: Sequence[str], entries: frozenset[str]) -> list[_Template]:
    out = []
    for source in tests:
        try:
            tree = ast.parse(source.strip())
        except SyntaxError:
            continue
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assert):
            continue
        test = tree.body[0].test
        nodes = _walk(test)
        calls = [n for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in entries]
        if len(calls) != 1 or any(isinstance(a, ast.Starred) for a in calls[0].args) or any(k.arg is None for k in calls[0].keywords):
            continue
        call = calls[0]
        try:
            args = tuple(ast.literal_eval(a) for a in call.args)
            kwargs = tuple((k.arg, ast.literal_eval(k.value)) for k in call.keywords)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        shape = _shape(test, call)
        if shape is not None:
            kind, probe, expected = shape
            out.append(_Template(test, nodes.index(call), args, kwargs, nodes.index(probe), kind,
                                 nodes.index(expected) if expected is not None else -1))
    return out


def _shape(test: ast.expr, call: ast.Call) -> tuple[str, ast.expr, ast.expr | None] | None:
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        left, right = test.left, test.comparators[0]
        if _contains(left, call) != _contains(right, call):
            probe, expected = (left, right) if _contains(left, call) else (right, left)
            return "compare", probe, expected
    if isinstance(test, ast.Call) and len(test.args) >= 2 and _name_of(test.func) in ("isclose", "math.isclose"):
        first, second = test.args[0], test.args[1]
        if _contains(first, call) != _contains(second, call):
            probe, expected = (first, second) if _contains(first, call) else (second, first)
            return "close", probe, expected
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return "truth", test.operand, None
    if test is call or isinstance(test, ast.Call):
        return "truth", test, None
    return None


def _name_of(node: ast.expr) -> str:
    return ast.unparse(node)


# --- mutations --------------------------------------------------------------------------------------
def _mutate_int(value: int, rng: random.Random) -> int:
    low = 0 if value >= 0 else min(-10, 2 * value)
    high = max(10, 2 * abs(value))
    choices = [value + 1, value - 1, value + rng.randint(2, 5), value * 2, value // 2, rng.randint(low, high)]
    return max(choices[rng.randrange(len(choices))], 0) if value >= 0 else choices[rng.randrange(len(choices))]


def _mutate_text(value: str, rng: random.Random) -> str:
    if not value:
        return rng.choice(string.ascii_lowercase)
    i = rng.randrange(len(value))
    kind = rng.randrange(5)
    if kind == 0 and len(value) > 1:
        return value[:i] + value[i + 1:]
    if kind == 1:
        return value[:i] + value[i] + value[i:]
    if kind == 2 and len(value) > 1:
        j = rng.randrange(len(value))
        chars = list(value)
        chars[i], chars[j] = chars[j], chars[i]
        return "".join(chars)
    pool = (string.ascii_uppercase if value[i].isupper() else string.ascii_lowercase if value[i].isalpha()
            else string.digits if value[i].isdigit() else value)
    return value[:i] + rng.choice(pool) + (value[i + 1:] if kind == 3 else value[i:])


def _mutate_sequence(items: list, rng: random.Random, depth: int) -> list:
    items = list(items)
    if not items:
        return items
    kind = rng.randrange(6)
    i = rng.randrange(len(items))
    if kind == 0:
        rng.shuffle(items)
    elif kind == 1 and len(items) > 1:
        del items[i]
    elif kind == 2:
        items.insert(i, items[i])
    elif kind == 3:
        items.append(mutate(items[i], rng, depth + 1))
    elif kind == 4:
        items[i] = mutate(items[i], rng, depth + 1)
    else:
        items.reverse()
    return items


def mutate(value: Any, rng: random.Random, depth: int = 0) -> Any:
    """A value of the same type (and element types) near `value`."""
    if depth > 4:
        return value
    if isinstance(value, bool):
        return value if rng.random() < 0.5 else not value
    if isinstance(value, int):
        return _mutate_int(value, rng)
    if isinstance(value, float):
        return round(value * rng.choice((0.5, 1.5, 2.0)) + rng.choice((-1.0, 0.0, 1.0)), 6)
    if isinstance(value, str):
        return _mutate_text(value, rng)
    if isinstance(value, bytes):
        return _mutate_text(value.decode("latin-1"), rng).encode("latin-1")
    if isinstance(value, (list, tuple)):
        return type(value)(_mutate_sequence(list(value), rng, depth))
    if isinstance(value, (set, frozenset)):
        items = _mutate_sequence(sorted(value, key=repr), rng, depth)
        try:
            return type(value)(items)
        except TypeError:
            return value
    if isinstance(value, dict) and value:
        items = list(value.items())
        i = rng.randrange(len(items))
        if rng.random() < 0.5:
            items[i] = (items[i][0], mutate(items[i][1], rng, depth + 1))
        elif len(items) > 1:
            del items[i]
        return dict(items)
    return value


def _mutate_call(args: tuple, kwargs: tuple, rng: random.Random) -> tuple[tuple, tuple]:
    """Mutate one or two arguments; an int argument that was the length of a sequence argument stays so."""
    positions = list(range(len(args))) + [len(args) + i for i in range(len(kwargs))]
    if not positions:
        return args, kwargs
    values = [*args, *(v for _, v in kwargs)]
    lengths = {i: j for i, v in enumerate(values) for j, w in enumerate(values)
               if type(v) is int and isinstance(w, (list, tuple, str)) and i != j and v == len(w)}
    chosen = rng.sample(positions, min(len(positions), rng.choice((1, 2))))
    new = [mutate(v, rng) if i in chosen and i not in lengths else v for i, v in enumerate(values)]
    for i, j in lengths.items():
        new[i] = len(new[j])
    return tuple(new[:len(args)]), tuple((k, v) for (k, _), v in zip(kwargs, new[len(args):]))


# --- rendering --------------------------------------------------------------------------------------
def _literal_node(value: Any) -> ast.expr | None:
    """An AST literal that evaluates back to exactly `value` (same types all the way down), or None."""
    text = repr(value)
    if len(text) > MAX_LITERAL_CHARS:
        return None
    try:
        back = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if not _same(value, back):
        return None
    return ast.parse(text, mode="eval").body


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(k) or _has_float(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(_has_float(v) for v in value)
    return False


def _with_arguments(template: _Template, args: tuple, kwargs: tuple) -> tuple[ast.expr, list[ast.AST]] | None:
    test = copy.deepcopy(template.test)
    nodes = _walk(test)
    call = nodes[template.call]
    assert isinstance(call, ast.Call)
    arg_nodes = [_literal_node(a) for a in args]
    kwarg_nodes = [_literal_node(v) for _, v in kwargs]
    if any(n is None for n in (*arg_nodes, *kwarg_nodes)):
        return None
    call.args = arg_nodes  # type: ignore[assignment]
    call.keywords = [ast.keyword(k, n) for (k, _), n in zip(kwargs, kwarg_nodes)]
    return test, nodes


def _render(template: _Template, args: tuple, kwargs: tuple, value: Any) -> str | None:
    """The hidden assert for the mutated call whose probe gave `value`, or None when it cannot be written."""
    built = _with_arguments(template, args, kwargs)
    if built is None:
        return None
    test, nodes = built
    probe = nodes[template.probe]
    if template.kind == "truth":
        assertion = probe if value else ast.UnaryOp(ast.Not(), probe)
    elif template.kind == "close" or isinstance(value, float):
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value or abs(value) == float("inf"):
            return None
        if template.kind == "close":
            assert isinstance(test, ast.Call)
            expected = _literal_node(value)
            test.args = [expected if n is nodes[template.expected] else n for n in test.args]  # type: ignore[misc]
            assertion = test
        else:
            isclose = ast.Attribute(ast.Name("math", ast.Load()), "isclose", ast.Load())
            assertion = ast.Call(isclose, [probe, ast.Constant(value)], [ast.keyword("rel_tol", ast.Constant(1e-9))])
    else:
        expected = _literal_node(value)
        if expected is None or _has_float(value):
            return None
        assert isinstance(test, ast.Compare)
        if test.left is nodes[template.expected]:
            test.left = expected
        else:
            test.comparators = [expected]
        assertion = test
    return "assert " + ast.unparse(ast.fix_missing_locations(assertion))


def _probe_source(template: _Template, args: tuple, kwargs: tuple) -> str | None:
    built = _with_arguments(template, args, kwargs)
    return None if built is None else ast.unparse(built[1][template.probe])


# --- generation -------------------------------------------------------------------------------------
def _fingerprint(value: Any) -> str | None:
    try:
        return json.dumps(encode(value), sort_keys=True)
    except (NotPlainData, ValueError, TypeError):
        return None


def _answers(sandbox: Sandbox, reference: str, plan: Any, probes: list[str]) -> list[tuple[str, Any]]:
    """Each probe's outcome from the reference, in batches; a batch the reference did not finish (a probe that
    loops or crashes it) is retried one probe per run, so one bad input costs only itself."""
    out: list[tuple[str, Any]] = []
    for start in range(0, len(probes), BATCH):
        batch = probes[start:start + BATCH]
        answers = evaluate(sandbox, reference, plan, batch, timeout_s=PROBE_TIMEOUT_S)
        for probe, answer in zip(batch, answers):
            if answer[0] == "error" and str(answer[1]).startswith("ended"):
                answer = evaluate(sandbox, reference, plan, [probe], timeout_s=RETRY_TIMEOUT_S)[0]
            out.append(answer)
    return out


def generate_hidden_tests(problem_id: str, truth: dict, reference: str, count: int,
                          sandboxes: tuple[Sandbox, Sandbox]) -> Generated:
    """Up to `count` hidden asserts for one problem (`truth`: its parsed answer: tests, setup, entry, prelude)."""
    if count <= 0:
        return Generated(())
    official = tuple(truth["tests"])
    plan = plan_tests(official, truth["setup"], truth["entry"], truth["prelude"])
    verdict = grade(sandboxes[0], reference, plan, timeout_s=PROBE_TIMEOUT_S * 2)
    if verdict.status != "passed":
        return Generated((), f"the reference fails its official tests: {verdict.detail[:200]}")
    templates = _templates(official, plan.entries)
    if not templates:
        return Generated((), "no official test calls an entry function with literal arguments")
    rng = random.Random(f"hidden-tests:{HIDDEN_TESTS_VERSION}:{problem_id}")
    candidates: list[tuple[_Template, tuple, tuple, str]] = []
    seen = {_probe_source(t, t.args, t.kwargs) for t in templates}
    for attempt in range(count * CANDIDATES_PER_TEST * 4):
        if len(candidates) >= count * CANDIDATES_PER_TEST:
            break
        template = templates[attempt % len(templates)]
        args, kwargs = _mutate_call(template.args, template.kwargs, rng)
        probe = _probe_source(template, args, kwargs)
        if probe is None or probe in seen:
            continue
        seen.add(probe)
        candidates.append((template, args, kwargs, probe))
    probes = [c[3] for c in candidates]
    first, second = (_answers(s, reference, plan, probes) for s in sandboxes)
    tests: list[str] = []
    for (template, args, kwargs, _), a, b in zip(candidates, first, second):
        if a[0] != "value" or b[0] != "value" or _fingerprint(a[1]) is None or _fingerprint(a[1]) != _fingerprint(b[1]):
            continue
        rendered = _render(template, args, kwargs, a[1])
        if rendered is not None and rendered not in tests and rendered not in official:
            tests.append(rendered)
        if len(tests) == count:
            break
    check = grade(sandboxes[0], reference, plan_tests(official + tuple(tests), truth["setup"], truth["entry"],
                                                      truth["prelude"]), timeout_s=PROBE_TIMEOUT_S * 4)
    if check.status != "passed":
        return Generated((), f"the reference fails the generated tests: {check.detail[:200]}")
    note = "" if len(tests) == count else f"{len(tests)} of {count}: the other mutated inputs were not usable"
    return Generated(tuple(tests), note)


# --- a whole split ----------------------------------------------------------------------------------
def derivation_version() -> dict[str, Any]:
    """What `add_hidden_tests` would produce now: recorded in the dataset cache's manifest."""
    return {"generator": HIDDEN_TESTS_VERSION, "per_problem": hidden_test_count()}


def add_hidden_tests(problems: list[Problem]) -> tuple[list[Problem], dict[str, Any]]:
    """Every code problem with "hidden" tests in its answer, made from `extra["reference_code"]`; and a summary
    (counts, the problems whose reference fails its own official tests). Raises RuntimeError when no sandbox
    can run the references, naming the fix."""
    from tqdm import tqdm

    count = hidden_test_count()
    sandboxes = (Sandbox(), Sandbox()) if count else None
    try:
        if sandboxes and sandboxes[0].refusal:
            raise RuntimeError(f"cannot generate hidden tests: {sandboxes[0].refusal} Or set {COUNT_ENV}=0 to train "
                               "on the official tests only (their inputs are in the prompt: a lookup table passes).")
        out, notes, failing, total = [], Counter(), [], 0
        for problem in tqdm(problems, desc=f"hidden tests ({count} per problem)", unit="problem",
                            disable=not problems or count == 0):
            answer = json.loads(problem.answer)
            answer.pop("hidden", None)
            reference = problem.extra.get("reference_code")
            if count and reference:
                truth = parse_answer(json.dumps({**answer, "grade_on": "official"}))
                generated = generate_hidden_tests(problem.id, truth, reference, count, sandboxes)
                answer["hidden"] = list(generated.tests)
                total += len(generated.tests)
                if generated.note.startswith("the reference fails its official"):
                    failing.append(problem.id)
                notes[generated.note.partition(":")[0]] += bool(generated.note)
            elif count:
                notes["no reference solution"] += 1
            out.append(replace(problem, answer=json.dumps(answer)))
    finally:
        for sandbox in sandboxes or ():
            sandbox.close()
    summary = {"problems": len(problems), "tests": total,
               "with_all": sum(len(json.loads(p.answer).get("hidden", [])) == count for p in out) if count else 0,
               "short_because": {k: v for k, v in notes.items() if k and v}, "reference_fails_official": failing}
    return out, summary
