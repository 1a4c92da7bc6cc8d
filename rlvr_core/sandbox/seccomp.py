"""The seccomp filter every sandboxed program runs under, built here and installed by the zygote.

Denied with EPERM: new sockets (no network even without a network namespace;
`socketpair` stays, asyncio needs it), tracing and reading other processes
(ptrace, process_vm_*), pidfds, namespaces and mounts (unshare, setns, mount
and the new mount API, pivot_root, chroot), io_uring (it would bypass this
filter), kernel keyrings, BPF, perf events, userfaultfd, module and kexec
loading, open_by_handle_at, POSIX message queues (mq_*: on a host without
namespaces their queues would outlive the run), and the calls that tell
without timing whether a file's pages are in the page cache, which every run
shares (a note one run could leave for the next): cachestat, mincore, Linux
AIO (io_setup; its requests carry RWF_NOWAIT out of a filter's sight).
`clone` with a namespace flag is denied; `clone3` gets ENOSYS so libc falls
back to `clone`, whose flags a filter can read; so do preadv2 and pwritev2
(their RWF_NOWAIT is the page-cache probe; glibc's preadv/pwritev stay).
Another architecture's syscalls (i386 on x86_64) kill the process; so does
the x32 ABI. Everything else is allowed: the uid, namespaces and cgroup are
the boundary, this filter narrows the kernel surface behind them.
"""

from __future__ import annotations

import struct

DENIED = ("socket", "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_send_signal",
          "pidfd_getfd", "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount",
          "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "bpf", "perf_event_open", "userfaultfd",
          "io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key", "request_key", "kexec_load",
          "kexec_file_load", "init_module", "finit_module", "delete_module", "open_by_handle_at", "mq_open", "mq_unlink",
          "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr", "cachestat", "mincore", "io_setup")
UNAVAILABLE = ("clone3", "preadv2", "pwritev2")  # ENOSYS: callers fall back to calls the filter allows

# (AUDIT_ARCH, syscall numbers), from asm/unistd_64.h (x86_64) and asm-generic/unistd.h (aarch64).
SYSCALLS: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, dict(
        socket=41, ptrace=101, process_vm_readv=310, process_vm_writev=311, pidfd_open=434, pidfd_send_signal=424,
        pidfd_getfd=438, unshare=272, setns=308, mount=165, umount2=166, pivot_root=155, chroot=161, open_tree=428,
        move_mount=429, fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442, bpf=321,
        perf_event_open=298, userfaultfd=323, io_uring_setup=425, io_uring_enter=426, io_uring_register=427,
        keyctl=250, add_key=248, request_key=249, kexec_load=246, kexec_file_load=320, init_module=175,
        finit_module=313, delete_module=176, open_by_handle_at=304, mq_open=240, mq_unlink=241, mq_timedsend=242,
        mq_timedreceive=243, mq_notify=244, mq_getsetattr=245, cachestat=451, mincore=27, io_setup=206, clone=56,
        clone3=435, preadv2=327, pwritev2=328)),
    "aarch64": (0xC00000B7, dict(
        socket=198, ptrace=117, process_vm_readv=270, process_vm_writev=271, pidfd_open=434, pidfd_send_signal=424,
        pidfd_getfd=438, unshare=97, setns=268, mount=40, umount2=39, pivot_root=41, chroot=51, open_tree=428,
        move_mount=429, fsopen=430, fsconfig=431, fsmount=432, fspick=433, mount_setattr=442, bpf=280,
        perf_event_open=241, userfaultfd=282, io_uring_setup=425, io_uring_enter=426, io_uring_register=427,
        keyctl=219, add_key=217, request_key=218, kexec_load=104, kexec_file_load=294, init_module=105,
        finit_module=273, delete_module=106, open_by_handle_at=265, mq_open=180, mq_unlink=181, mq_timedsend=182,
        mq_timedreceive=183, mq_notify=184, mq_getsetattr=185, cachestat=451, mincore=232, io_setup=0, clone=220,
        clone3=435, preadv2=286, pwritev2=287)),
}
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
_LD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ/JGE/JSET|K, BPF_RET|K
_ALLOW, _EPERM, _ENOSYS, _KILL = 0x7FFF0000, 0x00050001, 0x00050026, 0x80000000


def filter_program(arch: str) -> bytes | None:
    """The classic-BPF program (struct sock_filter[]) for `arch`, or None where there is no table."""
    if arch not in SYSCALLS:
        return None
    audit_arch, nr = SYSCALLS[arch]
    code: list[tuple] = [(_LD, 0, 0, 4), (_JEQ, 1, 0, audit_arch), (_RET, 0, 0, _KILL), (_LD, 0, 0, 0)]
    if arch == "x86_64":
        code.append((_JGE, "EPERM", 0, 0x40000000))  # the x32 ABI
    code += [(_JEQ, "EPERM", 0, nr[name]) for name in DENIED]
    code += [(_JEQ, "ENOSYS", 0, nr[name]) for name in UNAVAILABLE]
    code += [(_JEQ, 0, "ALLOW", nr["clone"]),
             (_LD, 0, 0, 16), (_JSET, "EPERM", "ALLOW", CLONE_NAMESPACES)]  # clone's flags (low 32 bits)
    labels = {"ALLOW": len(code), "EPERM": len(code) + 1, "ENOSYS": len(code) + 2}
    code += [(_RET, 0, 0, _ALLOW), (_RET, 0, 0, _EPERM), (_RET, 0, 0, _ENOSYS)]
    out = b""
    for i, (op, jt, jf, k) in enumerate(code):
        jt = labels[jt] - i - 1 if isinstance(jt, str) else jt
        jf = labels[jf] - i - 1 if isinstance(jf, str) else jf
        out += struct.pack("=HBBI", op, jt, jf, k)
    return out
