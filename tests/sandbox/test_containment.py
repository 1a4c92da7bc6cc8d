"""Programs that try to reach outside the sandbox, through `Sandbox.run`, in every mode.

A program prints ESCAPED only if its attempt worked. Each test is one
property. Where a mode documents the gap (host mode on a host that forbids
namespaces: host files readable, other processes visible) the test is
skipped with that reason, never weakened.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from rlvr_core.sandbox.host import SANDBOX_UID_BASE, SANDBOX_UID_COUNT
from tests.sandbox.modes import REPO_ROOT, root_only, skip_without_namespaces


def attempt(body: str) -> str:
    """`body` runs in a try block; ESCAPED is printed only if it completes."""
    indented = "\n".join("    " + line for line in body.splitlines())
    return f"try:\n{indented}\n    print('ESCAPED')\nexcept BaseException as exc:\n    print('blocked', type(exc).__name__)\n"


def escaped(sandbox, body: str, timeout_s: float = 5.0) -> bool:
    result = sandbox.run(attempt(body), timeout_s=timeout_s)
    assert result.status != "error", result
    return "ESCAPED" in result.stdout


def sandbox_processes(sandbox) -> list[psutil.Process]:
    """Processes running as this sandbox's uid (leased: no other sandbox on the machine has it)."""
    uid = sandbox.uid if sandbox.uid >= 0 else None
    found = []
    for proc in psutil.process_iter(["uids"]):
        uids = proc.info["uids"]
        if uids and (uids.real == uid if uid is not None else SANDBOX_UID_BASE <= uids.real < SANDBOX_UID_BASE + SANDBOX_UID_COUNT):
            found.append(proc)
    return found


# --- files ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/usr/lib/rlvr-evil", "/etc/rlvr-evil", str(REPO_ROOT / "EVIL"), os.__file__])
def test_cannot_write_system_or_project_files(sandbox, path: str) -> None:
    assert not escaped(sandbox, f"open({path!r}, 'a').write('x')")
    assert not Path(path).exists() or path == os.__file__


def test_cannot_read_root_only_files(sandbox) -> None:
    assert not escaped(sandbox, "open('/etc/shadow').read()")
    assert not escaped(sandbox, "open('/root/.bashrc').read()")


def test_cannot_read_the_project_checkout_or_its_answers(sandbox) -> None:
    skip_without_namespaces(sandbox, "hiding world-readable host files")
    assert not escaped(sandbox, f"open({str(REPO_ROOT / 'tests' / 'golden' / 'code.jsonl')!r}).read()")


def test_cannot_write_into_a_world_writable_host_directory(sandbox) -> None:
    skip_without_namespaces(sandbox, "a read-only view of world-writable host directories")
    folder = tempfile.mkdtemp(prefix="rlvr-world-writable-", dir="/var/tmp")
    os.chmod(folder, 0o1777)
    try:
        assert not escaped(sandbox, f"open({folder + '/planted'!r}, 'w').write('x')")
        assert os.listdir(folder) == []
    finally:
        subprocess.run(["rm", "-rf", folder], check=True)


def test_a_symlink_or_fifo_in_its_folder_does_not_reach_the_zygote(sandbox) -> None:
    """The old zygote read `.output` by path: a symlink leaked root-only files, a FIFO hung it."""
    program = ("import os\nfor name in ('.output', 'out', 'stdout'):\n    os.symlink('/etc/shadow', name)\n"
               "os.mkfifo('fifo')\nos.mkfifo('/tmp/fifo')\nos.rmdir(os.getcwd()) if False else None\nprint('done')\n")
    result = sandbox.run(program)
    assert result.status == "ok" and "root:" not in result.stdout + result.stderr
    assert sandbox.run("print(2 + 2)").stdout == "4\n"


def test_deleting_its_own_folder_does_not_break_the_next_run(sandbox) -> None:
    result = sandbox.run("import os, shutil\nshutil.rmtree(os.getcwd())\nprint('gone')\n")
    assert result.status == "ok"
    assert sandbox.run("print(2 + 2)").stdout == "4\n"


# --- persistence across runs ---------------------------------------------------------------------
@pytest.mark.parametrize("folder", ["/tmp", "/dev/shm", "/var/tmp", "/dev/mqueue", "."])
def test_files_do_not_survive_to_the_next_run(sandbox, folder: str) -> None:
    name = f"rlvr-persist-{os.getpid()}"
    first = sandbox.run(f"import os\npath = os.path.abspath(os.path.join({folder!r}, {name!r}))\n"
                        "try:\n    open(path, 'w').write('x')\nexcept OSError:\n    pass\nprint(path)\n")
    path = first.stdout.strip()
    assert path.endswith(name)
    assert sandbox.run(f"import os\nprint(os.path.exists({path!r}))").stdout.strip() == "False"
    assert not Path(path).exists()  # nor on the host


def test_shared_memory_written_in_a_run_is_freed(sandbox) -> None:
    """240 MB in /dev/shm used to survive the run; now the tmpfs is size-capped and wiped."""
    result = sandbox.run("n = 0\ntry:\n    with open('/dev/shm/big', 'wb') as f:\n        for _ in range(240):\n"
                         "            f.write(b'0' * (1 << 20))\n            n += 1\nexcept OSError:\n    pass\nprint(n)\n")
    assert result.status in ("ok", "failed")
    assert sandbox.run("import os\nprint(os.path.exists('/dev/shm/big'))").stdout.strip() == "False"
    assert not Path("/dev/shm/big").exists()


def test_sysv_shared_memory_does_not_survive_the_run(sandbox) -> None:
    create = ("import ctypes\nlibc = ctypes.CDLL(None)\nprint(libc.shmget(0x524c5652, 1 << 20, 0o1666))\n")
    assert sandbox.run(create).status == "ok"
    check = "import ctypes\nlibc = ctypes.CDLL(None)\nprint(libc.shmget(0x524c5652, 0, 0))\n"
    assert sandbox.run(check).stdout.strip() == "-1"


def test_state_changed_in_the_interpreter_does_not_reach_the_next_run(sandbox) -> None:
    sandbox.run("import builtins, json, sys\nbuiltins.PLANTED = 1\njson.dumps = None\nsys.path.insert(0, '/evil')\n")
    result = sandbox.run("import builtins, json, sys\nprint(hasattr(builtins, 'PLANTED'), json.dumps is None, '/evil' in sys.path)")
    assert result.stdout.strip() == "False False False"


def test_a_daemon_is_killed_with_the_run(sandbox) -> None:
    program = ("import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        while True:\n"
               "            open('/tmp/daemon-alive', 'w').write('x')\n            time.sleep(0.01)\n    os._exit(0)\n"
               "time.sleep(0.1)\nprint('parent done')\n")
    assert sandbox.run(program).status == "ok"
    time.sleep(0.1)
    assert sandbox.run("import os\nprint(os.path.exists('/tmp/daemon-alive'))").stdout.strip() == "False"
    assert sandbox_processes(sandbox) == []


# --- network ----------------------------------------------------------------------------------------
def test_cannot_connect_to_a_tcp_server_on_the_host(sandbox, host_server: int) -> None:
    body = f"import socket\ns = socket.create_connection(('127.0.0.1', {host_server}), timeout=1)\nassert s.recv(5) == b'TOKEN'"
    assert not escaped(sandbox, body)


def test_cannot_send_udp_to_the_host(sandbox, host_udp_server) -> None:
    port, received = host_udp_server
    escaped(sandbox, f"import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'leak', ('127.0.0.1', {port}))")
    time.sleep(0.3)
    assert b"leak" not in received


def test_cannot_connect_to_a_unix_socket_on_the_host(sandbox, host_unix_server: str) -> None:
    body = f"import socket\ns = socket.socket(socket.AF_UNIX)\ns.connect({host_unix_server!r})\nassert s.recv(5) == b'TOKEN'"
    assert not escaped(sandbox, body)


def test_cannot_open_sockets_through_ctypes(sandbox) -> None:
    assert not escaped(sandbox, "import ctypes\nassert ctypes.CDLL(None).socket(2, 1, 0) >= 0")


def test_replacing_python_hooks_does_not_open_the_network(sandbox, host_server: int) -> None:
    """The old host mode relied on an audit hook that one line disabled; nothing in Python is load-bearing now."""
    body = ("import sys, builtins\nsys.audit = lambda *a: None\nsys.addaudithook = lambda *a: None\n"
            "builtins.__import__ = builtins.__import__\nimport socket\n"
            f"s = socket.create_connection(('127.0.0.1', {host_server}), timeout=1)\nassert s.recv(5) == b'TOKEN'")
    assert not escaped(sandbox, body)


def test_cannot_resolve_names(sandbox) -> None:
    assert not escaped(sandbox, "import socket\nsocket.getaddrinfo('pypi.org', 443)")


# --- other processes -------------------------------------------------------------------------------
@pytest.fixture
def bystander():
    """A process on the host that the program should not be able to touch."""
    proc = subprocess.Popen(["sleep", "60"])
    yield proc
    proc.kill()
    proc.wait()


@pytest.mark.parametrize("how", ["os.kill({pid}, signal.SIGKILL)", "os.kill(-1, signal.SIGKILL)",
                                 "signal.pidfd_send_signal(os.pidfd_open({pid}), signal.SIGSTOP)",
                                 "os.killpg(os.getpgid({pid}), signal.SIGKILL)"])
def test_cannot_signal_a_host_process(sandbox, bystander, how: str) -> None:
    escaped(sandbox, "import os, signal\n" + how.format(pid=bystander.pid))
    assert bystander.poll() is None and psutil.Process(bystander.pid).status() != psutil.STATUS_STOPPED


def test_cannot_ptrace_a_host_process(sandbox, bystander) -> None:
    assert not escaped(sandbox, f"import ctypes\nassert ctypes.CDLL(None).ptrace(16, {bystander.pid}, 0, 0) == 0")


def test_cannot_read_another_process_memory(sandbox, bystander) -> None:
    assert not escaped(sandbox, f"open('/proc/{bystander.pid}/mem', 'rb').read(1)")
    body = ("import ctypes\nbuf = ctypes.create_string_buffer(8)\n"
            "local = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)\nremote = (ctypes.c_void_p * 2)(0x400000, 8)\n"
            f"assert ctypes.CDLL(None).process_vm_readv({bystander.pid}, local, 1, remote, 1, 0) > 0")
    assert not escaped(sandbox, body)


def test_sees_no_host_processes(sandbox, bystander) -> None:
    skip_without_namespaces(sandbox, "hiding host processes")
    assert not escaped(sandbox, f"import os\nassert os.path.exists('/proc/{bystander.pid}')")


# --- secrets and privileges ------------------------------------------------------------------------
def test_the_environment_holds_no_secrets(sandbox, monkeypatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake-secret-123")
    result = sandbox.run("import os\nprint(sorted(os.environ))")
    assert result.stdout.strip() == "['LANG', 'PATH', 'TMPDIR']"


def test_cannot_read_the_environment_of_other_processes(sandbox) -> None:
    assert not escaped(sandbox, "assert any(b'AWS' in open(f'/proc/{p}/environ', 'rb').read() for p in ('1', str(__import__('os').getppid())))")


def test_runs_as_an_unprivileged_uid_with_no_new_privs_and_seccomp(sandbox) -> None:
    root_only()
    result = sandbox.run("import os\nstatus = open('/proc/self/status').read()\n"
                         "print(os.getuid(), 'NoNewPrivs:\\t1' in status, 'Seccomp:\\t2' in status)")
    assert result.stdout.split() == [str(sandbox.uid), "True", "True"]


@pytest.mark.parametrize("body", [
    "import os\nos.setuid(0)",
    "import resource\nresource.setrlimit(resource.RLIMIT_NPROC, (10**6, 10**6))",
    "import os\nos.chroot('/')",
    "import ctypes\nassert ctypes.CDLL(None).unshare(0x10000000) == 0",  # a user namespace, to regain capabilities
    "import ctypes\nassert ctypes.CDLL(None).syscall(425, 8, ctypes.create_string_buffer(120)) >= 0",  # io_uring_setup
    "import ctypes\nassert ctypes.CDLL(None).mount(b'none', b'/tmp', b'tmpfs', 0, None) == 0",
    "import ctypes\nassert ctypes.CDLL(None).syscall(321, 0, 0, 0) >= 0",  # bpf
    "import subprocess\nassert subprocess.run(['sh', '-c', 'test $(id -u) -eq 0']).returncode == 0",
], ids=["setuid-root", "raise-nproc", "chroot", "user-namespace", "io-uring", "mount", "bpf", "shell-as-root"])
def test_cannot_gain_privileges(sandbox, body: str) -> None:
    root_only()
    assert not escaped(sandbox, body)


# --- resources ---------------------------------------------------------------------------------------
def test_a_fork_bomb_is_contained_and_cleaned_up(sandbox) -> None:
    program = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n"
    start = time.monotonic()
    result = sandbox.run(program, timeout_s=2)
    assert result.status in ("timeout", "failed") and time.monotonic() - start < 10
    assert sandbox_processes(sandbox) == []
    assert sandbox.run("print(1)").stdout == "1\n"


def test_memory_is_limited_for_the_whole_process_tree(sandbox) -> None:
    """Eight processes of 100 MB each exceed 256 MB together, though each is under its own limit."""
    program = ("import os, time\npids = []\nfor _ in range(8):\n    pid = os.fork()\n    if pid == 0:\n        try:\n"
               "            x = bytearray(100 << 20)\n            for i in range(0, len(x), 4096):\n                x[i] = 1\n"
               "            time.sleep(5)\n        finally:\n            os._exit(0)\n    pids.append(pid)\n"
               "time.sleep(3)\nprint('alive', sum(os.waitpid(p, os.WNOHANG) == (0, 0) for p in pids))\n")
    result = sandbox.run(program, timeout_s=10, memory_mb=256)
    assert "alive 8" not in result.stdout
    assert result.status == "failed" and "memory limit" in result.detail, result


def test_a_memory_bomb_fails_without_hurting_the_sandbox(sandbox) -> None:
    assert sandbox.run("x = bytearray(8 << 30)", memory_mb=512).status == "failed"
    assert sandbox.run("x = []\nwhile True:\n    x.append('y' * 10**6)", memory_mb=256, timeout_s=5).status == "failed"
    assert sandbox.run("print(1)").stdout == "1\n"


def test_disk_writes_are_bounded(sandbox) -> None:
    program = ("n = 0\ntry:\n    for i in range(100):\n        with open(f'/tmp/f{i}', 'wb') as f:\n"
               "            for _ in range(32):\n                f.write(b'0' * (1 << 20))\n                n += 1\n"
               "except OSError:\n    pass\nprint(n)\n")
    written_mb = int(sandbox.run(program, timeout_s=10).stdout.strip() or 0)
    assert written_mb <= 17 if "no disk quota" in " ".join(sandbox.lacks) else written_mb <= 64


@pytest.mark.parametrize("program", ["print('x' * (200 << 20))", "import sys\nwhile True:\n    sys.stderr.write('e' * 65536)"],
                         ids=["stdout", "stderr"])
def test_an_output_flood_is_capped(sandbox, program: str) -> None:
    result = sandbox.run(program, timeout_s=3)
    assert len(result.stdout) <= 4096 and len(result.stderr) <= 4096


def test_descriptor_exhaustion_fails_cleanly(sandbox) -> None:
    result = sandbox.run("fs = [open('/dev/null') for _ in range(100000)]")
    assert result.status == "failed" and "Too many open files" in result.stderr


@pytest.mark.parametrize("program", [
    "while True:\n    pass",
    "import time\ntime.sleep(1000)",
    "import signal\nfor s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGXCPU):\n    signal.signal(s, signal.SIG_IGN)\nwhile True:\n    pass",
    "import threading\ndef spin():\n    while True:\n        pass\nfor _ in range(16):\n    threading.Thread(target=spin, daemon=True).start()\nspin()",
], ids=["busy-loop", "sleep", "ignores-signals", "busy-threads"])
def test_the_wall_clock_limit_holds(sandbox, program: str) -> None:
    start = time.monotonic()
    result = sandbox.run(program, timeout_s=1)
    assert result.status in ("timeout", "failed") and time.monotonic() - start < 6


def test_killing_the_zygote_mid_run_is_an_error_and_the_program_is_not_rerun(sandbox) -> None:
    """A program sent once runs at most once: a zygote that dies mid-run is reported, not retried."""
    root_only()
    import threading

    zygote = sandbox._res.zygote
    assert zygote is not None
    timer = threading.Timer(0.5, lambda: os.killpg(zygote.proc.pid, signal.SIGKILL))
    timer.start()
    result = sandbox.run("import time\ntime.sleep(2)\nprint('ran to the end')", timeout_s=5)
    timer.join()
    assert result.status == "error" and "ran to the end" not in result.stdout
    assert sandbox.run("print(1)").stdout == "1\n"  # the next program gets a fresh zygote
