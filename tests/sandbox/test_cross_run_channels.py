"""Nothing of one run reaches a later one (issue 41): memory, /proc counters, pids, the page cache, a flood.

The red team's program scanned its own address space with `ctypes.string_at`
for an earlier sample's source, found one that passed the prompt's asserts
and ran it: every run was a fork of a zygote whose heap still held earlier
requests and outputs. Here a scanner looks for markers planted in earlier
runs' sources, arguments and output, in every mode; it must find the one it
plants in itself (the scan works) and none of the others. docs/SECURITY.md
("Code rewards") lists the channels that stay open and their capacity.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time

import psutil
import pytest

from rlvr_core.sandbox.host import UidLease
from rlvr_core.verifiers.code.grader import grade, plan_tests
from tests.sandbox.modes import REPO_ROOT, open_sandbox, root_only, skip_without_namespaces

SCANNER = '''
import ctypes
HALVES = {halves}
PLANTED = "".join(bytes.fromhex(h).decode() for h in HALVES["self"])  # contiguous in this process only now
found = set()
for line in open("/proc/self/maps"):
    fields = line.split()
    if fields[1][0] != "r" or len(fields) > 5 and (fields[5].startswith("/") or fields[5] in ("[vvar]", "[vsyscall]", "[vvar_vclock]")):
        continue
    start, end = (int(x, 16) for x in fields[0].split("-"))
    memory = ctypes.string_at(start, end - start)
    for name, (head, tail) in HALVES.items():
        head, tail = bytes.fromhex(head), bytes.fromhex(tail)
        at = memory.find(head)
        while at >= 0:
            if memory[at + len(head):at + len(head) + len(tail)] == tail:
                found.add(name)
            at = memory.find(head, at + 1)
print(sorted(found))
'''


def marker(mode: str, where: str) -> str:
    """A string no source, interpreter or test holds but the run it is planted in."""
    return "rlvr" + hashlib.sha256(f"issue-41 {mode} {where}".encode()).hexdigest()[:28]


def test_a_program_finds_nothing_of_an_earlier_run_in_its_own_memory(sandbox) -> None:
    """Markers in a served run's source, call argument and stdout, and in an exec run's source and stdout; the
    scanner (its needles split in halves, so only memory that held a marker whole matches) finds only its own."""
    mode = sandbox.mode + ("-plain" if any(item.startswith("no mount namespace") for item in sandbox.lacks) else "")
    names = ("served source", "argument", "served stdout", "run source", "run stdout", "self")
    marks = {name: marker(mode, name) for name in names}
    served = (f"KEPT = {marks['served source']!r}\ndef f(x):\n    print({marks['served stdout']!r}, flush=True)\n"
              "    return len(x)\n")
    plan = plan_tests((f"assert f({marks['argument']!r}) == {len(marks['argument'])}",), "", "f")
    assert grade(sandbox, served, plan).status == "passed"
    ran = sandbox.run(f"KEPT = {marks['run source']!r}\nprint({marks['run stdout']!r})\n")
    assert ran.stdout.strip() == marks["run stdout"]
    halves = {name: (m[:16].encode().hex(), m[16:].encode().hex()) for name, m in marks.items()}
    scan = sandbox.run(SCANNER.format(halves=halves), timeout_s=30)
    assert scan.status == "ok", scan
    assert scan.stdout.strip() == "['self']"


def test_the_runs_proc_shows_its_own_processes_and_no_host_wide_counter(sandbox) -> None:
    """/proc/stat counted every fork on the host (a later run could read how many an earlier one made)."""
    skip_without_namespaces(sandbox, "a /proc of the run's own")
    if any(item.startswith("no private /proc") for item in sandbox.lacks):
        pytest.skip("this kernel mounts no subset=pid /proc, as `Sandbox.lacks` says")
    program = ("import os\nprint(sorted(os.listdir('/proc')), [os.path.exists(f'/proc/{n}') for n in ('stat', 'loadavg', "
               "'sys', 'meminfo', 'vmstat')], os.cpu_count() >= 1, open('/proc/self/status').read().startswith('Name'))")
    assert sandbox.run(program).stdout.strip() == "['1', '2', 'self', 'thread-self'] [False, False, False, False, False] True True"


def test_the_sandbox_hands_out_the_same_pids_in_every_run(sandbox) -> None:
    """The zygote's memory, which each run inherits, holds the pid of the last run it forked: with the same pid
    every time it counts nothing (a run that forked 40 processes shifts nothing)."""
    skip_without_namespaces(sandbox, "pid numbers private to the sandbox")
    root_only()
    def pids_in_every_namespace() -> str:
        with sandbox.serve("def f():\n    return 0\n") as session:  # alive until the block ends
            session.receive()
            zygote = psutil.Process(sandbox._res.zygote.proc.pid)
            live = [p for p in zygote.children(recursive=True)
                    if p.uids().real == sandbox.uid and p.status() != psutil.STATUS_ZOMBIE]
            assert len(live) == 1
            line = next(row for row in open(f"/proc/{live[0].pid}/status") if row.startswith("NSpid:"))
        return " ".join(line.split()[2:])  # as the sandbox's namespace, then the run's, number it

    first = pids_in_every_namespace()
    sandbox.run("import os\nfor _ in range(40):\n    if os.fork() == 0:\n        os._exit(0)\n    os.wait()\n")
    assert pids_in_every_namespace() == first == "1001 1"


@pytest.mark.parametrize(("call", "refused"), [
    ("libc.syscall(451, 0, 0, 0, 0)", "cachestat"),  # page-cache statistics of any file it can open
    ("libc.mincore(ctypes.c_void_p(mm), 4096, buf)", "mincore"),  # residency of a mapped file's pages
    ("libc.syscall(SYS_IO_SETUP, 8, ctypes.byref(ctypes.c_ulong()))", "io_setup"),  # AIO reads with RWF_NOWAIT
    ("os.preadv(fd, [bytearray(16)], 0, os.RWF_NOWAIT)", "preadv2"),  # EAGAIN unless the page is cached
], ids=["cachestat", "mincore", "aio", "preadv2-nowait"])
def test_a_program_cannot_probe_the_page_cache_without_timing_it(sandbox, call: str, refused: str) -> None:
    """A run could leave a note for the next one by reading chosen pages of a shared file; these calls would
    read it back exactly. (Timing a read stays possible: docs/SECURITY.md.)"""
    program = ("import ctypes, mmap, os, platform\nlibc = ctypes.CDLL(None, use_errno=True)\n"
               "SYS_IO_SETUP = {'x86_64': 206, 'aarch64': 0}[platform.machine()]\n"
               "fd = os.open(os.__file__, os.O_RDONLY)\nmm = ctypes.addressof(ctypes.c_char.from_buffer(mmap.mmap(fd, 4096, "
               "prot=mmap.PROT_READ | mmap.PROT_WRITE, flags=mmap.MAP_PRIVATE)))\nbuf = ctypes.create_string_buffer(1)\n"
               f"try:\n    print('result', {call}, ctypes.get_errno())\nexcept OSError as exc:\n    print('raised', exc.errno)\n")
    out = sandbox.run(program).stdout.split()
    assert out[0] in ("result", "raised") and out[-1] in ("1", "38", "95"), out  # EPERM, ENOSYS, glibc: EOPNOTSUPP
    if out[0] == "result":
        assert out[1] == "-1", out


def test_what_outlasts_a_runs_scrub_budget_is_removed_in_the_background_under_a_retired_uid() -> None:
    """On a host without namespaces one flood left 600k files that every later run spent its scrub budget on.
    Now a run that leaves more than its budget removes retires its uid: the next run gets a clean one, and a
    background scrubber, holding the old uid's lease, removes the rest."""
    root_only()
    sandbox = open_sandbox("host-plain", scrub_budget_s=0.0)  # any file left over outlasts the budget
    try:
        assert sandbox.run("print('clean')").stdout == "clean\n"
        first = sandbox.uid  # a run that leaves nothing keeps its uid
        flood = ("import os\nfor top in ('/tmp', '/var/tmp'):\n    for i in range(20):\n"
                 "        open(os.path.join(top, f'rlvr-flood-{os.getpid()}-{i}'), 'w').close()\n")
        assert sandbox.run(flood).status == "ok"
        assert sandbox.uid != first
        assert sandbox.run("import os\nprint(os.getuid())").stdout.strip() == str(sandbox.uid)
        assert sandbox._res.scrubbers[-1].wait(timeout=120) == 0
        for top in ("/tmp", "/var/tmp"):
            assert [n for n in os.listdir(top) if os.lstat(os.path.join(top, n)).st_uid == first] == []
    finally:
        sandbox.close()


def test_a_killed_sandboxs_leftovers_retire_its_uid_before_any_run() -> None:
    """A sandbox killed mid-flood leaves files under its uid; the next sandbox to lease that uid finds them at
    start, retires the uid to a background scrubber and runs on a clean one."""
    root_only()
    probe = UidLease()  # the uid the next sandbox of this process leases first
    uid = probe.uid
    probe.release()
    planted = [f"/var/tmp/rlvr-left-{os.getpid()}-{i}" for i in range(5)]
    for path in planted:
        open(path, "w").close()
        os.chown(path, uid, uid)
    sandbox = open_sandbox("host-plain", scrub_budget_s=0.0)
    try:
        assert sandbox.uid != uid
        assert sandbox.run("print(1)").stdout == "1\n"
        assert sandbox._res.scrubbers[-1].wait(timeout=120) == 0
        assert not any(os.path.exists(path) for path in planted)
    finally:
        sandbox.close()
        for path in planted:
            if os.path.exists(path):
                os.unlink(path)


OWNER = """
import sys
sys.path.insert(0, sys.argv[1])
from tests.sandbox.modes import open_sandbox
sandbox = open_sandbox("host-plain")
print(sandbox.uid, flush=True)
sandbox.run("import os\\nwhile True:\\n    try:\\n        os.fork()\\n    except OSError:\\n        pass\\n", timeout_s=120)
"""


def test_a_fork_bomb_whose_sandbox_was_killed_is_ended_by_the_next_sandbox() -> None:
    """Without a pid namespace nothing ends a running program when its sandbox's process is killed (a verifier
    worker past its item timeout, the OOM killer): a fork bomb lived on, refilling its cgroup, after the suite
    that started it had exited. The next sandbox on the machine ends what a dead owner's cgroup still holds."""
    root_only()
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(REPO_ROOT)], stdout=subprocess.PIPE, text=True)
    uid = int(owner.stdout.readline())
    deadline = time.monotonic() + 60
    while len(processes_of(uid)) < 2:  # the bomb is forking
        assert owner.poll() is None and time.monotonic() < deadline, "the fork bomb did not start"
        time.sleep(0.1)
    owner.kill()
    owner.wait()
    sandbox = open_sandbox("host-plain")
    try:
        deadline = time.monotonic() + 30
        while processes_of(uid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert processes_of(uid) == []
        assert sandbox.run("print(1)").stdout == "1\n"
    finally:
        sandbox.close()
        for proc in processes_of(uid):  # a failure above must not leave the bomb running
            proc.kill()


def processes_of(uid: int) -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == uid]
