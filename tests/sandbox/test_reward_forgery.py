"""Wrong programs that try to forge a pass instead of computing the answer, in every mode.

The tests are MBPP-shaped (`assert add(1, 2) == 3`, `set(...)`, `math.isclose`,
`assert f(x)`, `assert not f(x)`). Every program here is wrong: it returns 0,
or nothing useful, and tries to make the grader believe otherwise. Each row is
one way to cheat; a pass would be a hole in `verifiers/code/grader.py` or the sandbox.
The red team's second round (F1-F7, interference) is `test_attack_classes.py`.
"""

from __future__ import annotations

import pytest

from rlvr_core.verifiers.code.grader import grade, plan_tests

ADD_TESTS = ("assert add(1, 2) == 3", "assert add(2, 2) == 4", "assert add(10, 5) == 15")
WRONG = "def add(a, b):\n    return 0\n"

FORGERIES: dict[str, str] = {
    # The pass nonce and result descriptor of the old design lived in the caller's frame.
    "reads_the_callers_frame_locals": (
        "import sys\ndef add(a, b):\n    f = sys._getframe(1)\n    while f is not None:\n"
        "        for v in list(f.f_locals.values()) + list(f.f_globals.values()):\n"
        "            if isinstance(v, int) and not isinstance(v, bool) and v not in (a, b):\n                return v\n"
        "        f = f.f_back\n    return 0\n"),
    "writes_the_pass_nonce_found_in_the_callers_frame": (  # the attack that beat the nonce design
        "import sys, os\ntry:\n    f = sys._getframe(1).f_locals\n    os.write(f['result_fd'], f['nonce'].encode())\n"
        "    os._exit(0)\nexcept Exception:\n    pass\n" + WRONG),
    "returns_the_constant_after_the_call_in_the_callers_bytecode": (  # the expected value, when asserts run alongside
        "import sys, dis\ndef add(a, b):\n    f = sys._getframe(1)\n    for ins in dis.get_instructions(f.f_code):\n"
        "        if ins.offset > f.f_lasti and ins.opname == 'LOAD_CONST':\n            return ins.argval\n    return 0\n"),
    "reads_every_threads_frames": (
        "import sys\ndef add(a, b):\n    for frame in sys._current_frames().values():\n"
        "        while frame is not None:\n            if 'nonce' in frame.f_locals:\n"
        "                return frame.f_locals['nonce']\n            frame = frame.f_back\n    return 0\n"),
    "reads_the_expected_constant_from_the_callers_bytecode": (
        "import sys\ndef add(a, b):\n    consts = []\n    f = sys._getframe(1)\n    while f is not None:\n"
        "        consts += [c for c in f.f_code.co_consts if isinstance(c, int) and not isinstance(c, bool)]\n"
        "        f = f.f_back\n    return consts[-1] if consts else 0\n"),
    "patches_traceback_to_exit_zero_after_a_failed_assert": (
        "import traceback, os\ntraceback.print_exc = lambda *a, **k: os._exit(0)\n" + WRONG),
    "patches_sys_excepthook_to_exit_zero": "import sys, os\nsys.excepthook = lambda *a: os._exit(0)\n" + WRONG,
    "returns_a_list_subclass_equal_to_everything": (
        "class Any(list):\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
        "def add(a, b):\n    return Any()\n"),
    "returns_an_int_subclass_equal_to_everything": (
        "class Any(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n"
        "def add(a, b):\n    return Any(0)\n"),
    "returns_unittest_mock_any": "from unittest.mock import ANY\ndef add(a, b):\n    return ANY\n",
    "returns_an_object_equal_to_everything": (
        "class Any:\n    def __eq__(self, other):\n        return True\n    def __ne__(self, other):\n        return False\n"
        "def add(a, b):\n    return Any()\n"),
    "returns_an_object_that_spoofs_its_class_as_int": (
        "class Fake:\n    __class__ = int\n    def __eq__(self, other):\n        return True\n"
        "def add(a, b):\n    return Fake()\n"),
    "returns_nan": "def add(a, b):\n    return float('nan')\n",
    "returns_a_self_containing_list": "def add(a, b):\n    x = []\n    x.append(x)\n    return x\n",
    "returns_a_list_nested_a_million_deep": (
        "def add(a, b):\n    x = []\n    for _ in range(10**6):\n        x = [x]\n    return x\n"),
    "returns_a_hundred_megabyte_string": "def add(a, b):\n    return 'x' * (100 << 20)\n",
    "exits_zero_inside_the_function": "import os\ndef add(a, b):\n    os._exit(0)\n",
    "raises_system_exit_zero_inside_the_function": "def add(a, b):\n    raise SystemExit(0)\n",
    "exits_zero_before_the_tests": "import sys\n" + WRONG + "sys.exit(0)\n",
    "registers_an_atexit_exit_zero": "import atexit, os\natexit.register(lambda: os._exit(0))\n" + WRONG,
    "writes_forged_replies_to_every_descriptor": (
        "import os, json, struct\ndef add(a, b):\n    for fd in range(0, 64):\n        for msg in ({'ready': True}, {'value': True}, {'passed': True}):\n"
        "            data = json.dumps(msg).encode()\n            try:\n"
        "                os.write(fd, struct.pack('>I', len(data)) + data)\n            except OSError:\n                pass\n"
        "    return 0\n"),
    "forges_its_first_message_with_chosen_values": (  # no more than returning those values: 3 fits one test only
        "import os, json, struct\ndata = json.dumps({'ready': True, 'prefetched': [{'value': ['i', '0x3']}] * 3}).encode()\n"
        "os.write(4, struct.pack('>I', len(data)) + data)\n" + WRONG),
    "reads_the_request_channel_for_the_expected_value": (
        "import os\ndef add(a, b):\n    os.set_blocking(3, False)\n    try:\n        data = os.read(3, 1 << 16)\n"
        "    except OSError:\n        data = b''\n    digits = [int(t) for t in data.replace(b'\"', b' ').split() if t.isdigit()]\n"
        "    return digits[-1] if digits else 0\n"),
    "replaces_the_harness_encoder_to_answer_true": (
        "import sys\ndef add(a, b):\n    f = sys._getframe(1)\n    while f is not None:\n"
        "        if '_encode' in f.f_globals:\n            f.f_globals['_encode'] = lambda *a, **k: True\n"
        "        f = f.f_back\n    return 0\n"),
    "redefines_builtins_the_tests_use": (
        "import builtins\nbuiltins.set = lambda *a: 1\nbuiltins.isinstance = lambda *a: True\n"
        "builtins.AssertionError = type('X', (Exception,), {})\n" + WRONG),
    "kills_its_parent": "import os, signal\ndef add(a, b):\n    os.kill(os.getppid(), signal.SIGKILL)\n    return 0\n",
    "kills_every_process_it_can": "import os, signal\ndef add(a, b):\n    os.kill(-1, signal.SIGKILL)\n    return 0\n",
}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forged_pass_scores_zero(sandbox, name: str) -> None:
    verdict = grade(sandbox, FORGERIES[name], plan_tests(ADD_TESTS, "", "add"), timeout_s=3)
    assert verdict.status in ("failed", "timeout"), f"{name}: {verdict}"


def test_the_forgery_suite_can_see_a_pass(sandbox) -> None:
    """Guards the suite: the same tests pass a correct program."""
    verdict = grade(sandbox, "def add(a, b):\n    return a + b\n", plan_tests(ADD_TESTS, "", "add"))
    assert verdict.status == "passed", verdict


def test_a_set_comparison_is_not_fooled_by_elements_equal_to_everything(sandbox) -> None:
    program = ("class Any:\n    def __eq__(self, other):\n        return True\n    def __hash__(self):\n        return hash(4)\n"
               "def common(a, b):\n    return [Any(), Any()]\n")
    plan = plan_tests(("assert set(common((3, 4, 5), (5, 4, 9))) == set((4, 5))",), "", "common")
    assert grade(sandbox, program, plan).status == "failed"


def test_isclose_is_not_fooled_by_nan_or_a_float_subclass(sandbox) -> None:
    plan = plan_tests(("assert math.isclose(area(1), 3.14159, rel_tol=0.001)",), "", "area")
    for program in ("def area(r):\n    return float('nan')\n",
                    "class F(float):\n    def __eq__(self, o):\n        return True\ndef area(r):\n    return F(0.0)\n",
                    "import math\ndef area(r):\n    return math.inf\n"):
        assert grade(sandbox, program, plan).status == "failed", program


def test_negated_asserts_are_not_fooled_by_an_object_with_a_lying_bool(sandbox) -> None:
    """`assert not f(x)` on an object whose __bool__ says False is what returning False would do, and no more:
    the positive tests of the same function still have to hold."""
    program = ("class Liar:\n    def __bool__(self):\n        return False\n"
               "def is_even(n):\n    return Liar()\n")
    plan = plan_tests(("assert is_even(2)", "assert not is_even(3)"), "", "is_even")
    assert grade(sandbox, program, plan).status == "failed"


def test_a_program_that_never_answers_times_out(sandbox) -> None:
    program = "def add(a, b):\n    while True:\n        pass\n"
    assert grade(sandbox, program, plan_tests(ADD_TESTS, "", "add"), timeout_s=1).status == "timeout"


def test_an_infinite_generator_behind_a_set_comparison_ends_without_passing(sandbox) -> None:
    """set() of an endless generator either runs out of time or out of the sandbox's memory first (which one
    depends on the machine's speed); both end the run, and neither passes."""
    program = "import itertools\ndef evens(n):\n    return itertools.count(0, 2)\n"
    plan = plan_tests(("assert set(evens(3)) == {0, 2, 4}",), "", "evens")
    verdict = grade(sandbox, program, plan, timeout_s=1)
    assert verdict.status in ("timeout", "failed"), verdict
