"""tests/integration/test_bpf_trampoline.py: fentry and fexit programs on a BPF trampoline (docs/23, the last part).

readtramp.bpf.c (built for Linux) is loaded by tests/bpfload with Debian's unmodified libbpf 1.1: libbpf finds
file_read's BTF id in /sys/kernel/btf/vmlinux, loads both programs with it (BPF_PROG_TYPE_TRACING), attaches each
with BPF_RAW_TRACEPOINT_OPEN and no name. The kernel builds one trampoline for both and points file_read's __fentry__
site at it as an ftrace direct call. A kprobe event on the same function counts the same calls in the same run.
"""

import re

from tests.integration.test_libbpf import load, task_pid, window

SMP = 2
QEMU_ARGS = ["-cpu", "max"]


def site(console, func):
    """The enabled_functions line of func, or None."""
    lines = [line for line in console.run("cat enabled_functions").split("\n") if line.startswith(func + " ")]
    return lines[0] if lines else None


def test_fentry_fexit_see_arguments_and_returns(console):
    """Both programs on file_read(): every call seen on entry and on return, the count argument on both sides (fexit
    reads it after the function ran), the bytes returned. A kprobe and a kretprobe event on the same function (sharing
    its site with the trampoline: ftrace_regs_caller runs them, then leaves into it) count the same calls and returns."""
    console.run("echo 'p:lbtramp/file_read file_read' >> kprobe_events")
    console.run("echo 'r:lbtramp/file_read_ret file_read ret=$retval:s64' >> kprobe_events")
    console.run("echo 1 > events/lbtramp/enable")
    n = 12
    pid, maps, out = load(console, "readtramp.bpf.o", "read", n)
    lines = [line for line in window(console) if task_pid(line) == pid]
    console.run("echo 0 > events/lbtramp/enable")
    console.run("echo '-:lbtramp/file_read' >> kprobe_events")
    console.run("echo '-:lbtramp/file_read_ret' >> kprobe_events")
    calls = [line for line in lines if " file_read:" in line]
    rets = [int(re.search(r" ret=(-?\d+)", line).group(1)) for line in lines if " file_read_ret:" in line]
    assert len(calls) == len(rets) >= 2 * n, lines      # each of n opens read to its end, the last read empty
    assert rets.count(0) == n, lines
    assert maps["entries"][pid] == maps["exits"][pid] == len(calls), out
    assert maps["kernel_file"][pid] == len(calls), out  # the first argument: a struct file * in the kernel
    assert maps["entry_count"][pid] == maps["exit_count"][pid] == 256, out
    assert maps["bytes"][pid] == sum(rets) > 0, out     # what read() returned, as fexit saw it in rax
    assert site(console, "file_read") is None           # detached: the site is a NOP again


def test_tp_btf_sees_the_tracepoint_arguments(console):
    """switchbtf.bpf.c: SEC("tp_btf/sched_switch"), whose BTF id libbpf finds as the typedef btf_trace_sched_switch;
    attached with BPF_RAW_TRACEPOINT_OPEN and no name, it runs on the tracepoint with (preempt, prev, next). The
    ftrace event counts the switches out of the loader in the same window."""
    console.run("echo 1 > events/sched/sched_switch/enable")
    pid, maps, out = load(console, "switchbtf.bpf.o", "sleep", 10)
    seen = [line for line in window(console) if "sched_switch:" in line and " prev_pid=%d " % pid in line]
    console.run("echo 0 > events/sched/sched_switch/enable")
    n = maps["switched_out"][pid]
    assert n >= 10, out                                   # out for each of 10 sleeps
    # the program also saw the switches between attaching and the first marker, and after the last
    assert len(seen) <= n <= len(seen) + 2, (len(seen), out)
    assert maps["task_args"][pid] == maps["preempt_args"][pid] == n, out
