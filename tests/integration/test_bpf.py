"""tests/integration/test_bpf.py: bpf(2) from user space (docs/23-bpf.md).

tests/user/bpf.c calls bpf() raw: maps and their errors, a corpus of bad programs each refused with its errno and
the verifier's log line, good programs attached to raw tracepoints and run in the interpreter and the JIT, and
uid 1000 refused. Here also: the sysctls' defaults, and bpf_trace_printk's line in trace.
"""

import hashlib
import re
import struct

from tests.console import LOG_LINE

SMP = 2


def program_lines(text):
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


def run_checks(console, cmd, at_least):
    """A test program of one check a line: none failed, and at least so many ran. Its lines."""
    out = program_lines(console.run(cmd, timeout=180))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= at_least, out
    return out


def test_bpf_program(console):
    console.run("echo > trace")
    run_checks(console, "/tests/bpf", 100)
    # the trace_printk program ran once, on a getppid of the test's own process
    lines = [line for line in console.run("cat trace").split("\n") if "bpf_trace_printk:" in line]
    assert lines, "no bpf_trace_printk line in trace"
    said = [re.match(r"^\s*bpf-(\d+)\s+\[\d+\] \S+\s+[\d.]+: bpf_trace_printk: bpf says (\d+)$", line)
            for line in lines]
    assert any(m and m.group(1) == m.group(2) for m in said), lines
    assert console.run("cat events/bpf_trace/bpf_trace_printk/enable") == "1"


def test_sysctls(console):
    assert console.run("cat /proc/sys/kernel/unprivileged_bpf_disabled") == "2"
    assert console.run("cat /proc/sys/net/core/bpf_jit_enable") == "1"
    out = console.run("echo 3 > /proc/sys/kernel/unprivileged_bpf_disabled")
    assert "Invalid argument" in out
    assert console.run("cat /proc/sys/kernel/unprivileged_bpf_disabled") == "2"


def test_lab_program_and_bpfprog(console):
    """tests/user/bpf_lab.c: a refused program's log; a counting program; bpfprog while one is attached."""
    out = program_lines(console.run("/tests/bpf_lab refuse"))
    assert out[0] == "bpf(BPF_PROG_LOAD) = -13", out
    assert "5: (85) call bpf_map_lookup_elem#1" in out
    assert "R0 invalid mem access 'map_value_or_null'" in out
    assert re.match(r"^processed 6 insns \(limit 1000000\) ", out[-1]), out
    out = program_lines(console.run("/tests/bpf_lab count"))
    m = re.match(r"^system calls counted around ten getppid calls: (\d+)$", out[0])
    assert m and int(m.group(1)) >= 10, out
    console.run("/tests/bpf_lab hold 3")
    listing = console.run("bpfprog")
    m = re.search(r"^(\d+): raw_tracepoint  name count_syscalls  insns 11  verified 11  jited (\d+)B", listing,
                  re.M)
    assert m and int(m.group(2)) > 0, listing
    dump = console.run(f"bpfprog {m.group(1)}")
    assert "call bpf_map_lookup_elem" in dump
    assert re.search(r"^   0:  55 48 89 e5 48 81 ec ", dump, re.M), dump
    assert "bpfprog: 999: no such program" in console.run("bpfprog 999")


def test_ids_walked_as_bpftool_walks_them(console):
    """tests/user/bpfids.c: PROG/MAP GET_NEXT_ID from 0 to ENOENT, GET_FD_BY_ID and OBJ_GET_INFO_BY_FD on each id
    (the program's map ids, gpl, tag), read-only and write-only map fds, ids never reused, Linux's errnos, and uid
    1000 refused with unprivileged bpf() allowed; `bpfids show` lists what the walk met as bpftool prints it."""
    run_checks(console, "/tests/bpfids", 40)
    out = program_lines(console.run("/tests/bpfids show"))
    # Linux's tag: the first 8 bytes of the SHA-1 of the instructions as loaded, the map's fd zeroed
    insns = [(0x62, 10, 0, -4, 0), (0xbf, 2, 10, 0, 0), (0x07, 2, 0, 0, -4), (0x18, 1, 1, 0, 0), (0, 0, 0, 0, 0),
             (0x85, 0, 0, 0, 1), (0xb7, 0, 0, 0, 0), (0x95, 0, 0, 0, 0)]
    raw = b"".join(struct.pack("<BBhi", c, d | s << 4, o, i) for c, d, s, o, i in insns)
    tag = hashlib.sha1(raw).hexdigest()[:16]
    prog = [i for i, line in enumerate(out) if line.endswith(f": kprobe  name ids_prog  tag {tag}  gpl")]
    assert len(prog) == 1, (tag, out)
    m = re.match(r"^\txlated 64B  (jited \d+B|not jited)  map_ids (\d+)$", out[prog[0] + 2])
    assert m, out
    assert any(re.match(rf"^{m.group(2)}: array  name ids_map  flags 0x0$", line) for line in out), out


def test_unprivileged_bpf_disabled_one_is_for_good(console):
    """Linux's rule: 0 and 2 switch freely; once 1, only a reboot clears it (so this test runs last)."""
    f = "/proc/sys/kernel/unprivileged_bpf_disabled"
    console.run(f"echo 0 > {f}")
    assert console.run(f"cat {f}") == "0"
    console.run(f"echo 2 > {f}")
    assert console.run(f"cat {f}") == "2"
    console.run(f"echo 1 > {f}")
    assert "Operation not permitted" in console.run(f"echo 0 > {f}")
    assert console.run(f"cat {f}") == "1"


def test_ringbuf_program(console):
    """tests/user/ringbuf.c: a BPF ring buffer read through mmap and epoll, in the JIT and the interpreter; the
    map's, mmap's, the verifier's and epoll's refusals; epoll on pipes and perf events."""
    before = trace_buffers_kb(console)
    out = run_checks(console, "/tests/ringbuf", 100)
    assert "# JIT" in out and "# interpreter" in out
    # the ring's frames are the trace buffers' in meminfo: closed and unmapped, they are free again
    assert trace_buffers_kb(console) == before


TRACE_LINE = re.compile(r"^\s*\S+-(\d+)\s+\[(\d{3})\]\s+\S+\s+[\d.]+: (\w+):? (.*)$")  # a sys_exit has no colon
WAKE_EVENTS = ("sched/sched_switch", "sched/sched_wakeup", "irq_vectors/irq_work_entry", "irq_vectors/irq_work_exit",
               "irq_vectors/local_timer_entry", "syscalls/sys_exit_getppid")


def test_ringbuf_wakeup_comes_from_the_arrival(console):
    """A reader asleep in epoll_wait on a ring is woken by the record's submit through irq_work, not by a tick: on
    the producer's CPU the reader's sched_wakeup sits inside the self-IPI (irq_work_entry just before it, exit just
    after), which interrupted the producer itself before its getppid returned. Before irq_work the reader looked
    again at each 10 ms tick, and its wake-up sat inside a local_timer_entry."""
    console.run("echo > trace")
    console.run("echo 'prev_comm == \"ringbuf\"' > events/sched/sched_switch/filter")
    for e in WAKE_EVENTS:
        console.run(f"echo 1 > events/{e}/enable")
    out = console.run("/tests/ringbuf wake", timeout=60)
    for e in WAKE_EVENTS:
        console.run(f"echo 0 > events/{e}/enable")
    console.run("echo 0 > events/sched/sched_switch/filter")
    m = re.search(r"^reader (\d+) of (\d+) woke for the record: 1$", out, re.M)
    assert m, out
    reader, producer = m.group(1), m.group(2)
    lines = [t.groups() for t in map(TRACE_LINE.match, out.split("\n")) if t]  # its trace_pipe
    wakes = [i for i, (_, _, ev, rest) in enumerate(lines) if ev == "sched_wakeup" and f" pid={reader} " in rest]
    assert len(wakes) == 1, lines
    cpu = lines[wakes[0]][1]
    mine = [l for l in lines if l[1] == cpu]
    w = mine.index(lines[wakes[0]])
    assert w > 0 and mine[w - 1][2] == "irq_work_entry" and mine[w - 1][0] == producer, mine[max(0, w - 3):w + 3]
    assert w + 1 < len(mine) and mine[w + 1][2] == "irq_work_exit", mine[w:w + 3]
    exits = [i for i, l in enumerate(lines) if l[2] == "sys_getppid" and l[0] == producer]
    assert len(exits) == 1 and exits[0] > wakes[0], lines


def trace_buffers_kb(console):
    m = re.search(r"^TraceBuffers:\s+(\d+) kB$", console.run("cat /proc/meminfo"), re.M)
    assert m
    return int(m.group(1))


def test_btf_load(console):
    """tests/user/btf.c: BPF_BTF_LOAD of a small blob (its log as Linux writes it), a map naming its types, the blob
    read back by BPF_OBJ_GET_INFO_BY_FD, and each field broken in turn refused with Linux's errno and log line."""
    run_checks(console, "/tests/btf", 50)

