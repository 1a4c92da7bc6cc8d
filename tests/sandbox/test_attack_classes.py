"""The red team's attack classes against the wave-2 grader (issue 26), each a scripted wrong program, in every mode.

F1 the graded asserts are the shown ones · F2 learning answers across
samples · F3 operations on a returned object answered by the program · F4
helper names in tests resolved in the program · F5 entries named like
builtins · F6 OrderedDict order lost · F7 reading every test's arguments
before answering · interference with the next item · permanent loss of a
worker's sandbox. Each wrong program must score 0 (a correct one still
passes: the guard tests). docs/SECURITY.md maps each class to its tests.
"""

from __future__ import annotations

import json
import os

import psutil
import pytest

from rlvr_core.verifiers.code.grader import grade, plan_tests, run_tests
from tests.sandbox import mbpp_offline
from tests.sandbox.modes import has_namespaces, skip_without_namespaces


def verdict(sandbox, program: str, tests, setup: str = "", entry=None, prelude: str = "", timeout_s: float = 5.0):
    return grade(sandbox, program, plan_tests(tuple(tests), setup, entry, prelude), timeout_s=timeout_s)


def graded_tests(problem) -> tuple[str, ...]:
    answer = mbpp_offline.answer(problem)
    return tuple(answer["tests"] + answer.get("challenge", []) + answer.get("hidden", []))


# --- F1: every graded assert was in the prompt ------------------------------------------------------
@pytest.mark.parametrize("index", range(len(mbpp_offline.rows())))
def test_f1_a_lookup_table_of_the_shown_asserts_fails_the_hidden_tests(sandbox, index: int) -> None:
    problem = mbpp_offline.problems_with_hidden_tests()[index]
    answer = mbpp_offline.answer(problem)
    assert len(answer["hidden"]) >= 10
    cheat = mbpp_offline.lookup_table(problem)
    assert verdict(sandbox, cheat, answer["tests"], entry=tuple(answer["entry"]), prelude=answer.get("prelude", "")).status \
        == "passed", "the shown asserts alone are beaten by a lookup table: the hidden tests are what stops it"
    graded = verdict(sandbox, cheat, graded_tests(problem), entry=tuple(answer["entry"]), prelude=answer.get("prelude", ""))
    assert graded.status == "failed", graded


@pytest.mark.parametrize("index", range(len(mbpp_offline.rows())))
def test_f1_the_reference_solution_passes_its_extended_tests(sandbox, index: int) -> None:
    problem = mbpp_offline.problems_with_hidden_tests()[index]
    answer = mbpp_offline.answer(problem)
    graded = verdict(sandbox, problem.extra["reference_code"], graded_tests(problem), entry=tuple(answer["entry"]),
                     prelude=answer.get("prelude", ""))
    assert graded.status == "passed" and graded.total == len(graded_tests(problem)) >= 13, graded


# --- F2: learning across samples --------------------------------------------------------------------
LEARNER = '''
import ctypes, json, os
PLACES = ["/tmp/rlvr-learn", "/dev/shm/rlvr-learn", "/var/tmp/rlvr-learn", os.path.expanduser("~/.rlvr-learn")]
def load():
    for place in PLACES:
        try:
            return json.load(open(place))
        except Exception:
            pass
    try:  # a POSIX message queue, then SysV shared memory
        libc = ctypes.CDLL(None, use_errno=True)
        q = libc.mq_open(b"/rlvr-learn", os.O_RDONLY | os.O_NONBLOCK)
        if q >= 0:
            buf = ctypes.create_string_buffer(8192)
            n = libc.mq_receive(q, buf, 8192, None)
            if n > 0:
                return json.loads(buf.raw[:n])
    except Exception:
        pass
    return {}
def save(state):
    data = json.dumps(state)
    for place in PLACES:
        try:
            open(place, "w").write(data)
        except Exception:
            pass
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        q = libc.mq_open(b"/rlvr-learn", os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, 0o666, None)
        if q >= 0:
            libc.mq_send(q, data.encode(), len(data), 0)
    except Exception:
        pass
state = load()
if state.get("ended_after") is not None:  # the last run stopped right after this answer: it was wrong, flip it
    key = str(state["ended_after"])
    state[key] = not state.get(key, False)
state["ended_after"] = None
def is_even(x):
    state["ended_after"] = None  # a new call arrived: the previous answer held
    answer = state.setdefault(str(x), False)
    state["ended_after"] = x
    save(state)
    return answer
'''
EVEN_TESTS = ("assert is_even(2)", "assert not is_even(3)", "assert is_even(10)", "assert not is_even(7)", "assert is_even(0)")


def test_f2_a_wrong_program_cannot_learn_the_answers_over_eight_samples(sandbox) -> None:
    """The red team's run scored [0,0,1,1,1,1,1,1]: early stop told the program which answer failed, and a
    message queue carried that to the next sample."""
    scores = [verdict(sandbox, LEARNER, EVEN_TESTS, entry="is_even").status for _ in range(8)]
    assert scores == ["failed"] * 8, scores
    assert verdict(sandbox, "def is_even(x):\n    return x % 2 == 0\n", EVEN_TESTS, entry="is_even").status == "passed"


TRANSCRIBED = ("assert f(1) == 2 and f(2) == 3", "assert f(3) == 4 or f(4) == 5", "assert 0 < f(5) < f(6)",
               "assert all(f(i) == i + 1 for i in range(3))", "assert (f(7) if f(8) == 9 else f(9)) == 8",
               "assert f(10) == 11, f(11)", "assert not f(12) == 13", "assert f(13) in (14, 15)")


def transcript(sandbox, answer_body: str) -> str:
    """The calls a program was asked, in order, as it saw them (it prints each)."""
    program = f"def f(x):\n    print(x, flush=True)\n    return {answer_body}\n"
    plan = plan_tests(TRANSCRIBED, "", "f")
    with sandbox.serve(program) as session:
        run_tests(session, plan)
    return session.result.stdout


def test_f2_the_calls_a_program_answers_are_the_same_whatever_it_answers(sandbox) -> None:
    right, wrong, erratic = (transcript(sandbox, body) for body in ("x + 1", "0", "x + 1 if x % 3 else -x"))
    assert right == wrong == erratic and right.split() == [
        "1", "2", "3", "4", "5", "6", "0", "1", "2", "8", "7", "9", "10", "12", "13"]


def test_f2_a_posix_message_queue_cannot_be_opened(sandbox) -> None:
    program = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
               "q = libc.mq_open(b'/rlvr-probe', os.O_RDWR | os.O_CREAT, 0o666, None)\nprint(q, ctypes.get_errno())\n")
    result = sandbox.run(program)
    assert result.stdout.split()[0] == "-1", result


def test_f2_pid_numbers_start_afresh_in_every_run(sandbox) -> None:
    skip_without_namespaces(sandbox, "pid numbers private to a run")
    probe = "import os\nprint(os.getpid(), sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"
    first = sandbox.run(probe).stdout
    sandbox.run("import os\nfor _ in range(20):\n    if os.fork() == 0:\n        os._exit(0)\n    os.wait()\n")
    assert sandbox.run(probe).stdout == first == "2 [1, 2]\n"  # a tool's program runs under the namespace's init


def test_f2_tmpfs_inode_numbers_start_afresh_in_every_run(sandbox) -> None:
    skip_without_namespaces(sandbox, "a tmpfs private to a run")
    probe = "import os\nopen('/tmp/x', 'w').close()\nprint(os.stat('/tmp/x').st_ino)\n"
    first = sandbox.run(probe).stdout
    sandbox.run("for i in range(200):\n    open(f'/tmp/f{i}', 'w').close()\n")
    assert sandbox.run(probe).stdout == first


# --- F3: operations on a returned object -----------------------------------------------------------
@pytest.mark.parametrize(("method", "test"), [
    ("def __contains__(self, item):\n        return True", "assert 3 in f(1)"),
    ("def startswith(self, prefix):\n        return True", "assert f(1).startswith('ab')"),
    ("def __len__(self):\n        return 3", "assert len(f(1)) == 3"),
    ("def __iter__(self):\n        return iter([1, 2])", "assert list(f(1)) == [1, 2]"),
    ("def __getitem__(self, key):\n        return 7", "assert f(1)[0] == 7"),
    ("def __bool__(self):\n        return True", "assert f(1)"),
    ("def __eq__(self, other):\n        return True", "assert f(1) == [4, 5]"),
    ("def __lt__(self, other):\n        return True", "assert f(1) < 0"),
    ("def __index__(self):\n        return 4", "assert [0, 1, 2, 3, 4][f(1)] == 4"),
    ("def __hash__(self):\n        return hash(4)", "assert f(1) in {4}"),
], ids=["in", "method", "len", "iter", "getitem", "bool", "eq", "lt", "index", "hash"])
def test_f3_an_object_that_answers_operations_itself_fails_as_not_plain_data(sandbox, method: str, test: str) -> None:
    program = f"class Liar:\n    {method}\ndef f(x):\n    return Liar()\n"
    graded = verdict(sandbox, program, (test,), entry="f")
    assert graded.status == "failed" and "not plain data" in graded.detail, graded


def test_f3_the_same_operations_on_plain_values_still_work(sandbox) -> None:
    program = "def f(x):\n    return 'ab' + str(x)\n"
    assert verdict(sandbox, program, ("assert 'b1' in f(1)", "assert f(1).startswith('ab')", "assert len(f(1)) == 3"),
                   entry="f").status == "passed"


# --- F4: helper names ------------------------------------------------------------------------------
@pytest.mark.parametrize("prelude", ["", "try:\n    from math import isclose\nexcept ImportError:\n    pass"],
                         ids=["stdlib-name", "reference-import"])
def test_f4_a_program_defined_isclose_is_not_the_one_the_test_calls(sandbox, prelude: str) -> None:
    cheat = "def isclose(*a, **k):\n    return True\ndef circle_area(r):\n    return 0\n"
    tests = ("assert isclose(circle_area(2), 12.566, rel_tol=0.001)",)
    assert verdict(sandbox, cheat, tests, entry=("circle_area",), prelude=prelude).status == "failed"
    right = "import math\ndef circle_area(r):\n    return math.pi * r * r\n"
    assert verdict(sandbox, right, tests, entry=("circle_area",), prelude=prelude).status == "passed"


def test_f4_a_program_defined_counter_is_not_the_one_the_test_builds(sandbox) -> None:
    cheat = "Counter = lambda *a, **k: 0\ndef freq(s):\n    return 0\n"
    tests = ("assert freq('aab') == Counter({'a': 2, 'b': 1})",)
    assert verdict(sandbox, cheat, tests, entry="freq").status == "failed"
    assert verdict(sandbox, "from collections import Counter\ndef freq(s):\n    return Counter(s)\n", tests,
                   entry="freq").status == "passed"


def test_f4_names_the_tests_use_without_an_entry_declared_never_reach_the_program(sandbox) -> None:
    """Legacy answers (no entry): `isclose` and `Counter` still resolve to the standard library."""
    cheat = "def isclose(*a, **k):\n    return True\nCounter = lambda *a: 0\ndef area(r):\n    return 0\n"
    assert verdict(sandbox, cheat, ("assert isclose(area(1), 3.14, rel_tol=0.01)",)).status == "failed"
    assert verdict(sandbox, cheat, ("assert area(1) == Counter('a')",)).status == "failed"


# --- F5: entries named like builtins ---------------------------------------------------------------
def test_f5_a_wrong_function_named_like_a_builtin_is_called_and_fails(sandbox) -> None:
    tests = ("assert pow(2, 3) == 8", "assert pow(3, 2) == 9")
    assert verdict(sandbox, "def pow(a, b):\n    return 0\n", tests, entry=("pow",)).status == "failed"
    assert verdict(sandbox, "def pow(a, b):\n    return a ** b\n", tests, entry=("pow",)).status == "passed"


def test_f5_mbpp_126_is_solvable_and_its_lookup_table_is_not_enough(sandbox) -> None:
    problem = mbpp_offline.problems_with_hidden_tests()[-1]
    answer = mbpp_offline.answer(problem)
    assert answer["entry"] == ["sum"]
    assert verdict(sandbox, problem.extra["reference_code"], graded_tests(problem), entry=("sum",)).status == "passed"
    assert verdict(sandbox, "def sum(a, b):\n    return 0\n", graded_tests(problem), entry=("sum",)).status == "failed"


# --- F6: OrderedDict -------------------------------------------------------------------------------
ORDER_TESTS = ("assert f() == OrderedDict([('b', 2), ('a', 1)])",)


@pytest.mark.parametrize("program", [
    "from collections import OrderedDict\ndef f():\n    return OrderedDict([('a', 1), ('b', 2)])\n",
    "from collections import OrderedDict\ndef f():\n    d = OrderedDict([('b', 2), ('a', 1)])\n    d.move_to_end('b')\n    return d\n",
    "from collections import OrderedDict\nclass Fake(dict):\n    __class__ = OrderedDict\ndef f():\n    return Fake(a=1, b=2)\n",
], ids=["wrong-order", "moved-to-end", "spoofed-class"])
def test_f6_an_ordered_dict_in_the_wrong_order_fails(sandbox, program: str) -> None:
    assert verdict(sandbox, program, ORDER_TESTS, entry="f").status == "failed"


def test_f6_an_ordered_dict_in_the_right_order_passes(sandbox) -> None:
    program = "from collections import OrderedDict\ndef f():\n    return OrderedDict([('b', 2), ('a', 1)])\n"
    assert verdict(sandbox, program, ORDER_TESTS, entry="f").status == "passed"


# --- F7: reading the arguments ahead -----------------------------------------------------------------
RANK_TESTS = ("assert rank(5) == 1", "assert rank(2) == 0", "assert rank(9) == 2")
PEEKER = '''
import json, os
seen = []
def peek():
    """Every request queued on the grader's channel, without consuming what the harness still has to read."""
    os.set_blocking(3, False)
    try:
        data = os.read(3, 1 << 16)
    except OSError:
        data = b""
    os.set_blocking(3, True)
    return [int(t, 16) for t in data.replace(b'"', b' ').split() if t.startswith(b'0x')]
def rank(x):
    seen.extend([x] + peek())
    return sorted(set(seen)).index(x)
'''


def test_f7_a_program_sees_no_argument_before_the_call_it_answers(sandbox) -> None:
    assert verdict(sandbox, PEEKER, RANK_TESTS, entry="rank").status == "failed"


def test_f7_the_first_message_a_program_gets_is_its_first_call(sandbox) -> None:
    program = "import os\nos.set_blocking(3, False)\ntry:\n    AHEAD = os.read(3, 65536)\nexcept OSError:\n    AHEAD = b''\n" \
              "os.set_blocking(3, True)\ndef f(x):\n    return len(AHEAD)\n"
    assert verdict(sandbox, program, ("assert f(1) == 0",), entry="f").status == "passed"


# --- interference with the next item ---------------------------------------------------------------
FORGED_EXIT = ("import os, json, struct\ndef send(message):\n    data = json.dumps(message).encode()\n"
               "    os.write(4, struct.pack('>I', len(data)) + data)\n"
               "send({'ready': True, 'exiting': True})\nos.read(3, 1 << 16)\nsend({'value': ['i', '0x0']})\n")


def run_processes(sandbox) -> list[psutil.Process]:
    """The live processes of programs under the zygote (those of the sandbox uid; the next run's supervisor,
    forked ahead and waiting for its request, is root): none once a run is over."""
    launcher = psutil.Process(live_zygote(sandbox))
    family = [launcher, *launcher.children(recursive=True)]
    zygote = next(p for p in family if p.cmdline()[:1] and "python" in p.cmdline()[0])
    return [p for p in zygote.children(recursive=True)
            if p.status() != psutil.STATUS_ZOMBIE and (sandbox.uid < 0 or p.uids().real == sandbox.uid)]


@pytest.mark.parametrize("body", ["import time\ntime.sleep(60)\n", "while True:\n    pass\n"], ids=["sleeps", "spins"])
def test_a_forged_exiting_frame_does_not_keep_the_program_running_after_its_verdict(sandbox, body: str) -> None:
    program = FORGED_EXIT + body
    assert verdict(sandbox, program, ("assert add(1, 2) == 3",), entry="add", timeout_s=30).status != "passed"
    assert verdict(sandbox, "def add(a, b):\n    return a + b\n", ("assert add(1, 2) == 3",), entry="add").status == "passed"
    assert sandbox.run("pass").status == "ok"  # every run before it is reaped before it starts; it, before its reply
    assert run_processes(sandbox) == []


FLOOD = ("import os\nfor top in ('/tmp', '/dev/shm'):\n    try:\n        base = os.path.join(top, 'flood%d' % os.getpid())\n"
         "        os.mkdir(base)\n        for i in range(1500):\n            open(os.path.join(base, str(i)), 'w').close()\n"
         "    except OSError:\n        pass\n")


def test_a_directory_flood_is_cleared_before_its_verdict_returns(sandbox) -> None:
    """Its clean-up belongs to its own time, not to the next program's."""
    program = FLOOD + FORGED_EXIT
    assert verdict(sandbox, program, ("assert add(1, 2) == 3",), entry="add").status == "failed"
    if has_namespaces(sandbox):  # no process of the zygote still holds a tmpfs with the flood (the keeper is gone)
        for process in run_processes(sandbox):
            try:
                assert not [n for n in os.listdir(f"/proc/{process.pid}/root/tmp") if n.startswith("flood")]
            except OSError:
                pass  # exited meanwhile
    else:
        leftover = [f"/tmp/{n}" for n in os.listdir("/tmp") if n.startswith("flood")]
        assert [p for p in leftover if os.stat(p).st_uid == sandbox.uid] == []
    assert verdict(sandbox, "def add(a, b):\n    return a + b\n", ("assert add(1, 2) == 3",), entry="add").status == "passed"


NEST = ("import os\nos.chdir('/tmp')\nos.mkdir('NAME')\nos.chdir('NAME')\n"
        "for _ in range(3000):\n    os.mkdir('d')\n    os.chdir('d')\nopen('leaf', 'w').close()\n")


def live_zygote(sandbox) -> int:
    """The pid of the sandbox's zygote, started by a trivial run if the last one was retired with its uid."""
    if sandbox._res.zygote is None:
        assert sandbox.run("pass").status == "ok"
    return sandbox._res.zygote.proc.pid


def test_a_deep_directory_nest_does_not_disable_the_sandbox(sandbox) -> None:
    """On a host without namespaces the recursive clean-up raised RecursionError and every later reward was 0."""
    name = f"rlvr-nest-{os.getpid()}"
    zygote, uid = live_zygote(sandbox), sandbox.uid
    assert sandbox.run(NEST.replace("NAME", name), timeout_s=20).status == "ok"
    if sandbox.uid == uid:  # removed within the run's scrub budget, by the same zygote (not a restart after a crash)
        assert sandbox._res.zygote.proc.pid == zygote
    else:  # it outlasted the budget: the uid was retired, a background scrubber removes the nest
        assert sandbox._res.zygote is None and sandbox._res.scrubbers[-1].wait(timeout=60) == 0
    assert name not in os.listdir("/tmp")
    assert verdict(sandbox, "def add(a, b):\n    return a + b\n", ("assert add(1, 2) == 3",), entry="add").status == "passed"


def test_filling_shared_memory_cannot_get_the_zygote_killed(sandbox) -> None:
    zygote = live_zygote(sandbox)
    program = ("chunk = b'0' * (1 << 20)\ntry:\n    with open('/dev/shm/fill', 'wb') as f:\n        for _ in range(400):\n"
               "            f.write(chunk)\n            f.flush()\nexcept OSError:\n    pass\nx = bytearray(200 << 20)\n")
    assert sandbox.run(program, memory_mb=128, timeout_s=10).status in ("failed", "ok", "timeout")
    assert sandbox._res.zygote.proc.pid == zygote and sandbox._res.zygote.proc.poll() is None
    assert sandbox.run("print(1)").stdout == "1\n"


def host_allows_oom_protection() -> bool:
    try:
        with open("/proc/self/oom_score_adj", "r+") as fh:
            before = fh.read().strip()
            fh.seek(0)
            fh.write("-1000")
        with open("/proc/self/oom_score_adj", "w") as fh:
            fh.write(before)
        return True
    except OSError:
        return False


def test_the_oom_killer_picks_programs_before_the_zygote(sandbox) -> None:
    """-1000 for the zygote where the host allows it (else `lacks` says so, and it keeps 0); 1000 for programs."""
    launcher = psutil.Process(live_zygote(sandbox))
    zygote = next(p for p in [launcher, *launcher.children(recursive=True)] if "python" in (p.cmdline() or [""])[0])
    protected = sandbox.uid >= 0 and host_allows_oom_protection()
    assert open(f"/proc/{zygote.pid}/oom_score_adj").read().strip() == ("-1000" if protected else "0")
    assert any(item.startswith("no OOM protection") for item in sandbox.lacks) is not protected
    assert sandbox.run("print(open('/proc/self/oom_score_adj').read().strip())").stdout.strip() == "1000"


# --- what a wrong answer might still make the grader believe (beyond the red team's list) -----------
def forged_reply(value) -> str:
    """A program that answers every call with `value` written straight onto the reply channel."""
    return ("import os, json, struct, sys\ndef reply(v):\n    data = json.dumps({'value': v}).encode()\n"
            "    os.write(4, struct.pack('>I', len(data)) + data)\n"
            f"def f(*a):\n    reply({json.dumps(value)})\n    os.read(3, 4)\n    raise SystemExit\n")


@pytest.mark.parametrize(("value", "test"), [
    (["o", "Node", [["__class__", None]]], "assert f(1) == Node(1)"),
    (["o", "Node", [["data", ["i", "0x1"]], ["__eq__", None]]], "assert f(1) == Node(1)"),
    (["r", 5], "assert f(1) == [1]"),
    (["it", [["i", "0x1"]], False], "assert list(f(1)) == [1]"),
    (["o", "Stranger", [["x", ["i", "0x1"]]]], "assert f(1).x == 1"),
    (["i", "0x" + "f" * 200_001], "assert f(1) > 0"),
    (["dq", [], -1], "assert len(f(1)) == 0"),
    (["nt", "P", ["_x"], [["i", "0x1"]]], "assert f(1)[0] == 1"),
], ids=["dunder-attribute", "dunder-method", "dangling-reference", "truncated-iterator", "unknown-class", "huge-int",
        "bad-deque", "bad-namedtuple"])
def test_a_forged_wire_value_never_passes(sandbox, value, test: str) -> None:
    setup = "class Node:\n    def __init__(self, data):\n        self.data = data\n    def __eq__(self, other):\n" \
            "        return isinstance(other, Node) and self.data == other.data\n"
    assert verdict(sandbox, forged_reply(value), (test,), setup=setup, entry="f").status == "failed"


def test_a_record_of_a_trusted_class_rebuilds_with_the_trusted_methods(sandbox) -> None:
    """The program may name a setup class for its value: it gets that class's own `__eq__`, on its data."""
    setup = "class Node:\n    def __init__(self, data):\n        self.data = data\n    def __eq__(self, other):\n" \
            "        return isinstance(other, Node) and self.data == other.data\n"
    assert verdict(sandbox, "def f(x):\n    return Node(x)\n", ("assert f(1) == Node(1)",), setup=setup, entry="f").status == "passed"
    assert verdict(sandbox, "def f(x):\n    return Node(x + 1)\n", ("assert f(1) == Node(1)",), setup=setup, entry="f").status == "failed"


def test_an_iterator_with_a_right_prefix_and_no_end_fails(sandbox) -> None:
    program = "import itertools\ndef f():\n    return itertools.chain([1, 2], itertools.repeat(0))\n"
    assert verdict(sandbox, program, ("assert list(f()) == [1, 2]",), entry="f", timeout_s=3).status in ("failed", "timeout")


def test_arguments_sent_back_in_another_shape_fail(sandbox) -> None:
    program = ("import os, json, struct\ndef f(xs):\n    data = json.dumps({'value': None, 'after': ['l', [['l', []]]]}).encode()\n"
               "    os.write(4, struct.pack('>I', len(data)) + data)\n    os.read(3, 4)\n    raise SystemExit\n")
    assert verdict(sandbox, program, ("xs = [1]\nassert f(xs) is None and xs == []",), entry="f").status == "failed"


def test_a_program_that_mutates_an_argument_changes_only_that_argument(sandbox) -> None:
    program = "def f(xs):\n    xs.clear()\n    return 0\n"
    tests = ("xs = [1, 2]\nys = [1, 2]\nassert f(xs) == 0 and xs == [] and ys == [1, 2]",)
    assert verdict(sandbox, program, tests, entry="f").status == "passed"


@pytest.mark.parametrize("test", [
    "xs = []\nassert xs and f(xs)",
    "xs = []\nassert f(xs) if xs else xs",
    "xs = []\nassert len(xs) > 0 < f(xs)",
    "xs = []\nassert all(g() for g in (lambda: xs, lambda: f(xs))) or xs",
    "xs = []\nassert not any(g() for g in (lambda: [1], lambda: f(xs))) or xs",
], ids=["and", "if", "chain", "all", "any"])
def test_a_call_python_would_have_skipped_cannot_change_what_the_test_decides(sandbox, test: str) -> None:
    """Eager branches make every call; one Python would not have made must not write its changed argument
    back (here it would turn a falsy list truthy after the decision)."""
    program = "def f(xs):\n    xs.append(1)\n    return True\n"
    assert verdict(sandbox, program, (test,), entry="f").status == "failed"
