"""Hostile programs against the code verifier, through `VerifierPool`, in bwrap and host mode.

Each attack defines a correct `add` only if the attack *worked*, so reward 1
would reveal a breach; destructive ones (bombs, kills) define a wrong one.
After every attack: reward 0 within the time limit, the host sentinel file is
untouched, no process of a sandbox uid is left, and the same pool still
verifies a correct program. The pool's workers pick their mode from
RLVR_SANDBOX; a mode this host cannot provide is skipped with the reason.
Narrower suites: test_reward_forgery.py, test_containment.py.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import psutil
import pytest

from rlvr_core.problem import Problem
from rlvr_core.verifiers import VerifierPool
from rlvr_core.sandbox import host
from rlvr_core.sandbox.runner import SANDBOX_UID_BASE, Sandbox
from tests.sandbox.modes import open_sandbox

TIME_LIMIT_S = 2.0
SECRET = "fake-secret-do-not-leak-123"
GOOD = "def add(a, b):\n    return a + b"
WRONG = "def add(a, b):\n    return 0"
ON_SUCCESS = "\n" + GOOD.replace("\n", "\n    ").join(["if ok:\n    ", ""]) + "\n"


def breach(attempt: str) -> str:
    """`attempt` sets `ok = True` only if the attack got through; then `add` is correct."""
    return "ok = False\ntry:\n" + "\n".join("    " + line for line in attempt.splitlines()) + "\nexcept BaseException:\n    pass\n" + ON_SUCCESS


ATTACKS: dict[str, str] = {
    "fork_bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n" + WRONG,
    "multiprocessing_bomb": "import multiprocessing as mp, time\nps = [mp.Process(target=time.sleep, args=(60,)) for _ in range(500)]\n[p.start() for p in ps]\n" + WRONG,
    "memory_bomb_bytes": "x = bytearray(8 << 30)\n" + GOOD,
    "memory_bomb_list": "x = []\nwhile True:\n    x.append('y' * 10**6)\n" + GOOD,
    "infinite_loop": "while True:\n    pass\n" + GOOD,
    "busy_threads": "import threading\ndef spin():\n    while True:\n        pass\nfor _ in range(16):\n    threading.Thread(target=spin, daemon=True).start()\nspin()\n" + GOOD,
    "sleep_forever": "import time\ntime.sleep(1000)\n" + GOOD,
    "kill_parent": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + WRONG,
    "kill_pid_1": "import os, signal\nos.kill(1, signal.SIGKILL)\n" + WRONG,
    "kill_everything": "import os, signal\nos.kill(-1, signal.SIGKILL)\n" + WRONG,
    "kill_own_group": "import os, signal\nos.killpg(0, signal.SIGKILL)\n" + WRONG,
    "sys_exit_zero": GOOD + "\nimport sys\nsys.exit(0)\n" + "def add(a, b):\n    return 0",
    "os_exit_zero": "import os\nos._exit(0)\n" + GOOD,
    "exit_inside_function": "def add(a, b):\n    raise SystemExit(0)",
    "atexit_exit_zero": "import atexit, os\natexit.register(lambda: os._exit(0))\n" + WRONG,
    "forge_result_pipe": "import os\nfor fd in range(3, 64):\n    try:\n        os.write(fd, b'0' * 32)\n    except OSError:\n        pass\nos._exit(0)\n",
    "replace_assertion_error": "import builtins\nbuiltins.AssertionError = type('X', (Exception,), {})\n" + WRONG,
    "write_usr": breach("open('/usr/lib/evil.txt', 'w').write('x')\nok = True"),
    "write_etc": breach("open('/etc/evil.conf', 'w').write('x')\nok = True"),
    "delete_host_sentinel": breach("import os\nos.remove(os.environ.get('SENTINEL', '/nonexistent'))\nok = True"),
    "find_host_sentinel": breach("import glob\nok = bool(glob.glob('/tmp/rlvr-sentinel-*'))"),
    "write_project_dir": breach("open('/work/main/EVIL', 'w').write('x')\nok = True"),
    "write_stdlib": breach("import os\nopen(os.__file__, 'a').write('#')\nok = True"),
    "read_root_home": breach("open('/root/.bashrc').read()\nok = True"),
    "read_aws_dir": breach("import os\nok = os.path.exists(os.path.expanduser('~/.aws')) or os.path.exists('/root/.aws')"),
    "read_env_secret": breach("import os\nok = 'AWS_SECRET_ACCESS_KEY' in os.environ"),
    "read_proc_environ": breach("ok = any(b'AWS_SECRET' in open(f'/proc/{p}/environ', 'rb').read() for p in ['1', '2', 'self'])"),
    "read_shadow": breach("open('/etc/shadow').read()\nok = True"),
    "socket_to_host_server": breach("import socket, os\ns = socket.create_connection(('127.0.0.1', int(os.environ.get('PORT', PORT))), timeout=1)\nok = s.recv(16) == b'TOKEN'"),
    "udp_out": breach("import socket\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\ns.sendto(b'x', ('8.8.8.8', 53))\nok = True"),
    "dns_lookup": breach("import socket\nsocket.getaddrinfo('pypi.org', 443)\nok = True"),
    "subprocess_env_leak": breach("import subprocess\nout = subprocess.run(['sh', '-c', 'echo $AWS_SECRET_ACCESS_KEY; cat /root/.bashrc'], capture_output=True, text=True).stdout\nok = bool(out.strip())"),
    "os_system_id_root": breach("import os\nok = os.system('test $(id -u) -eq 0') == 0"),
    "setuid_root": breach("import os\nos.setuid(0)\nok = True"),
    "raise_nproc_limit": breach("import resource\nresource.setrlimit(resource.RLIMIT_NPROC, (10**6, 10**6))\nok = True"),
    "chroot": breach("import os\nos.chroot('/')\nok = True"),
    "userns_escape": breach("import ctypes\nassert ctypes.CDLL(None).unshare(0x10000000) == 0\nopen('/root/.bashrc').read()\nok = True"),
    "zygote_memory": breach("ok = bool(open('/proc/2/mem', 'rb').read(1))"),
    "daemonize": "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(60)\n    os._exit(0)\n" + WRONG,
    "huge_stdout": "print('x' * (200 << 20))\n" + GOOD,
    "huge_stderr": "import sys\nwhile True:\n    sys.stderr.write('e' * 65536)\n" + GOOD,
    "file_size_bomb": "with open('big', 'wb') as f:\n    while True:\n        f.write(b'0' * (1 << 20))\n" + GOOD,
    "fd_exhaustion": "fs = [open('/dev/null') for _ in range(100000)]\n" + GOOD,
    "deep_recursion": "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1)\nf(0)\n" + GOOD,
    "ignore_signals": "import signal\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU):\n    signal.signal(s, signal.SIG_IGN)\nwhile True:\n    pass\n" + GOOD,
    "alarm_handler": "import signal\nsignal.signal(signal.SIGALRM, lambda *a: None)\nsignal.alarm(1)\nwhile True:\n    pass\n" + GOOD,
    "ctypes_fork_loop": "import ctypes\nlibc = ctypes.CDLL(None)\nwhile True:\n    libc.fork()\n" + WRONG,
}


@pytest.fixture(scope="module", params=["bwrap", "host"])
def pool(request, host_server, tmp_path_factory):
    """A pool in one mode, started with a fake secret in its environment, as a careless host would have."""
    open_sandbox(request.param).close()  # skips, with the reason, where this host cannot provide the mode
    sentinel = Path(tmp_path_factory.mktemp("rlvr-sentinel-")) / "keep.txt"
    sentinel.write_text("intact")
    old = {k: os.environ.get(k) for k in ("AWS_SECRET_ACCESS_KEY", "SENTINEL", "PORT", "RLVR_SANDBOX")}
    os.environ.update(AWS_SECRET_ACCESS_KEY=SECRET, SENTINEL=str(sentinel), PORT=str(host_server), RLVR_SANDBOX=request.param)
    with VerifierPool(workers=2, timeout_s=TIME_LIMIT_S + 4) as verifier_pool:
        yield verifier_pool, sentinel, host_server
    for key, value in old.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _problem(pid: str) -> Problem:
    answer = json.dumps({"tests": ["assert add(1, 2) == 3", "assert add(2, 2) == 4"], "setup": ""})
    return Problem(pid, "attack", "", answer, "code", extra={"timeout_s": TIME_LIMIT_S})


def _sandbox_processes() -> list[psutil.Process]:
    """Live processes of a sandbox uid under this test process (other sandboxes on a shared machine are not
    this pool's)."""
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            uid, status = proc.uids().real, proc.status()
        except psutil.NoSuchProcess:
            continue
        if SANDBOX_UID_BASE <= uid < SANDBOX_UID_BASE + 4096 and status != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_scores_zero_and_leaves_host_intact(pool, name: str) -> None:
    verifier_pool, sentinel, port = pool
    program = ATTACKS[name].replace("PORT", str(port)) if "PORT" in ATTACKS[name] else ATTACKS[name]
    start = time.monotonic()
    score = verifier_pool.verify_batch([(f"```python\n{program}\n```", _problem(name))])[0]
    elapsed = time.monotonic() - start
    assert score.reward == 0.0, f"{name} got through: {score}"
    assert elapsed < TIME_LIMIT_S + 20.0  # every timed attack runs 60 s or forever; the margin is for a busy host
    assert sentinel.read_text() == "intact"
    assert not Path("/work/main/EVIL").exists() and not Path("/usr/lib/evil.txt").exists()
    deadline = time.monotonic() + 2.0
    while _sandbox_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _sandbox_processes() == []
    after = verifier_pool.verify_batch([(f"```python\n{GOOD}\n```", _problem("after-" + name))])[0]
    assert after.status == "correct", f"pool broken after {name}: {after}"


def test_suite_has_at_least_forty_attacks() -> None:
    assert len(ATTACKS) >= 40


def test_auto_picks_bwrap_where_its_probe_passes() -> None:
    probe = Sandbox("bwrap")
    try:
        if probe.refusal is not None:
            pytest.skip(f"bwrap is not usable here: {probe.refusal}")
    finally:
        probe.close()
    sandbox = Sandbox("auto")
    try:
        assert sandbox.mode == "bwrap"
    finally:
        sandbox.close()


def test_host_mode_blocks_network() -> None:
    sandbox = open_sandbox("host")
    try:
        result = sandbox.run("import socket\nsocket.socket()", timeout_s=5)
    finally:
        sandbox.close()
    assert result.status == "failed" and "PermissionError" in result.stderr


@pytest.mark.parametrize("target", ["os.getppid()", "1"], ids=["parent", "init"])
def test_host_mode_keeps_the_zygote_out_of_the_programs_reach(target: str) -> None:
    """With namespaces per run the program's parent is pid 1 of the run's PID namespace, the run's supervisor
    (root, and the namespace's init, which the kernel shields from its own namespace); without them both the
    supervisor and the zygote are another uid's. Either way the zygote survives."""
    sandbox = open_sandbox("host")
    try:
        zygote = sandbox._res.zygote.proc.pid if sandbox._res.zygote else None
        sandbox.run(f"import os, signal\ntry:\n    os.kill({target}, signal.SIGKILL)\nexcept OSError:\n    pass\n")
        assert sandbox._res.zygote.proc.pid == zygote and sandbox._res.zygote.proc.poll() is None
        assert sandbox.run("print(1)").stdout == "1\n"
    finally:
        sandbox.close()


def test_breach_detector_fires_when_an_attempt_succeeds(pool) -> None:
    """Guards the suite itself: a harmless 'attack' that works must score 1."""
    verifier_pool, _, _ = pool
    score = verifier_pool.verify_batch([(f"```python\n{breach('ok = True')}\n```", _problem("canary"))])[0]
    assert score.status == "correct"


@pytest.mark.skipif(os.geteuid() != 0, reason="the uid switch only exists when the verifier runs as root")
def test_host_mode_as_root_never_runs_the_program_as_root() -> None:
    """Without bwrap, root's programs still drop to the sandbox uid (else `os.kill(-1, 9)` ends the machine)."""
    sandbox = open_sandbox("host")
    try:
        result = sandbox.run("import os\nassert os.getuid() >= %d and os.getgid() >= %d" % (SANDBOX_UID_BASE, SANDBOX_UID_BASE))
    finally:
        sandbox.close()
    assert result.status == "ok", result


@pytest.mark.skipif(os.geteuid() != 0, reason="the refusal only applies when the verifier runs as root")
def test_host_mode_as_root_refuses_when_no_interpreter_can_drop_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail closed: without namespaces and with no interpreter the sandbox uid can run, programs are refused, not run as root."""
    real = host.find_tool
    monkeypatch.setattr(host, "find_tool", lambda paths, name: None if name == "unshare" else real(paths, name))
    monkeypatch.setattr(host, "shared_interpreter", lambda: None)
    sandbox = Sandbox("host")
    result = sandbox.run(GOOD + "\nassert add(1, 2) == 3")
    sandbox.close()
    assert result.status == "error" and "apt-get install bubblewrap" in result.detail
