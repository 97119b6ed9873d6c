"""tests/integration/test_bpf_verifier.py: loops, bpf-to-bpf calls and bounds (docs/23-bpf.md, "Loops, calls and bounds").

Programs built for Linux with clang -target bpf and loaded by Debian's unmodified libbpf (tests/bpf/bpfload): a
bounded loop calling a subprogram on each step and a checked index into a map value, which loads and counts what
the syscall event counts; an unchecked index and a chain of nine frames, each refused with Linux's log line. Then
tests/user/bpfcalls.c through bpf(2) raw: calls and loops run interpreted and JITed, and a corpus of bad programs.
"""

import re

from tests.console import LOG_LINE
from tests.integration.test_libbpf import load, task_pid, window

SMP = 1
QEMU_ARGS = ["-cpu", "max"]

SQUARES_0_TO_30 = sum(i * i for i in range(31))


def lines_of(text):
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


def test_loop_and_subprogram_count_with_the_syscall_event(console):
    """loopcall.bpf.c: 31 steps of a loop, each a bpf-to-bpf call; the syscall event counts the same calls."""
    console.run("echo 1 > events/syscalls/sys_enter_getppid/enable")
    pid, maps, out = load(console, "loopcall.bpf.o", "getppid", 10)
    seen = [line for line in window(console) if "sys_getppid()" in line]
    console.run("echo 0 > events/syscalls/sys_enter_getppid/enable")
    results = maps["results"]
    assert all(task_pid(line) == pid for line in seen), seen
    assert results[0] == len(seen) == 10, out
    assert results[1] == SQUARES_0_TO_30 * results[0], out    # the loop ran to its end every time
    assert results[2] == results[0], out                       # CPU 0 passed the index check each time


def refused(console, obj):
    out = lines_of(console.run("/tests/bpfload /tests/%s getppid 1" % obj, timeout=180))
    assert "bpfload: cannot load /tests/%s" % obj in out, out
    return out


def test_unbounded_index_refused(console):
    out = refused(console, "unbounded.bpf.o")
    assert any(re.match(r"^R\d unbounded memory access, make sure to bounds check any such access$", line)
               for line in out), out


def test_nine_frames_refused(console):
    out = refused(console, "deepcalls.bpf.o")
    assert "the call stack of 9 frames is too deep" in out, out


def test_bpf_calls_and_bad_programs(console):
    """tests/user/bpfcalls.c: a loop calling a function run interpreted and JITed; bad programs refused."""
    out = lines_of(console.run("/tests/bpfcalls test", timeout=180))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 30, out
