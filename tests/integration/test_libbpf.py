"""tests/integration/test_libbpf.py: BPF programs built for Linux, loaded by Debian's unmodified libbpf (docs/24).

tests/bpf/bpfload (libbpf 1.1, linked statically) loads each object, attaches it the way libbpf chooses here (as on
Linux 6.1: perf_event_open with the kprobe PMU, then BPF_LINK_CREATE; no kprobe_events probe of libbpf's), runs a workload between two trace_marker lines and
prints its maps. Each test has the ftrace side count the same thing in the same run, and compares.
"""

import re

from tests.console import LOG_LINE

SMP = 1
QEMU_ARGS = ["-cpu", "max"]


def load(console, obj, workload, n, timeout=180):
    """bpfload's run of obj over the workload: (its pid, {map: {key: value}}, its lines)."""
    out = [line for line in console.run("/tests/bpfload /tests/%s %s %d" % (obj, workload, n), timeout=timeout)
           .split("\n") if not re.match(LOG_LINE, line)]
    pid = int([line for line in out if line.startswith("pid ")][0].split()[1])
    maps = {}
    for line in out:
        m = re.match(r"^map (\S+) (\d+) (\d+)$", line)
        if m:
            maps.setdefault(m.group(1), {})[int(m.group(2))] = int(m.group(3))
    return pid, maps, out


def early_reads(out):
    """The read() calls bpfload made attached but before its first marker (reading kprobe_events)."""
    return int([line for line in out if line.startswith("kprobe_events_reads ")][0].split()[1])


def window(console):
    """The trace lines between bpfload's two markers (the program was attached for exactly these)."""
    lines = console.run("cat trace", timeout=120).split("\n")
    start = [i for i, line in enumerate(lines) if "bpfload: attached" in line][-1]
    end = [i for i, line in enumerate(lines) if "bpfload: detaching" in line][-1]
    return lines[start + 1:end]


def task_pid(line):
    m = re.match(r"^\s*(.+)-(\d+)\s+\[\d+\]", line)
    return int(m.group(2)) if m else None


def probe_run(console, spec, obj, n):
    """obj's reads of /proc/version with a kprobe event (spec, group lbref) on the same function enabled: the
    loader's output, and the event's lines of the loader's own task inside the window."""
    name = spec.split()[0].split("/")[1]
    console.run("echo '%s' >> kprobe_events" % spec)
    console.run("echo 1 > events/lbref/%s/enable" % name)
    pid, maps, out = load(console, obj, "read", n)
    seen = [line for line in window(console) if " %s:" % name in line and task_pid(line) == pid]
    console.run("echo 0 > events/lbref/%s/enable" % name)
    console.run("echo '-:lbref/%s' >> kprobe_events" % name)
    return pid, maps, out, seen


def test_kprobe_counts_reads_per_pid(console):
    """readcount.bpf.c: a kprobe on file_read() counting per process; a kprobe event on the same function."""
    pid, maps, out, seen = probe_run(console, "p:lbref/file_read file_read", "readcount.bpf.o", 20)
    assert len(seen) == 40, out                           # 20 opens, each read to its end: 2 reads
    assert maps["counts"][pid] == len(seen) + early_reads(out), out
    # libbpf took the kprobe PMU: kprobe_events held only our reference probe while it was attached
    assert [line for line in out if line.startswith("kprobe_events ")] == [
        "kprobe_events p:lbref/file_read file_read"], out


def test_kretprobe_latency_histogram(console):
    """readlat.bpf.c: entry and return of file_read(), a log2 histogram; a kretprobe event counts the returns."""
    pid, maps, out, seen = probe_run(console, "r:lbref/file_read_ret file_read", "readlat.bpf.o", 15)
    assert not [line for line in out if "libbpf_" in line], out   # a kretprobe through the PMU too
    hist = maps["hist"]
    assert len(seen) == 30 and sum(hist.values()) == len(seen) + early_reads(out), out
    assert all(0 < b < 32 for b in hist)                  # a read takes more than 1 ns and less than 4 s


def test_tracepoint_counts_switches(console):
    """switchcount.bpf.c: sched_switch counted per next_pid; the ftrace event in the same window."""
    console.run("echo 1 > events/sched/sched_switch/enable")
    pid, maps, out = load(console, "switchcount.bpf.o", "sleep", 10)
    seen = [line for line in window(console) if "sched_switch:" in line and "next_pid=%d " % pid in line]
    console.run("echo 0 > events/sched/sched_switch/enable")
    assert maps["switches"][pid] >= 10, out                # back from each of 10 sleeps
    # the program also saw the switches between attaching and the first marker, and after the last
    assert len(seen) <= maps["switches"][pid] <= len(seen) + 2, (len(seen), out)


def test_bpf_printk_to_trace(console):
    """printk.bpf.c: one bpf_trace_printk line per getppid, beside the syscall event's own record."""
    console.run("echo 1 > events/syscalls/sys_enter_getppid/enable")
    pid, maps, out = load(console, "printk.bpf.o", "getppid", 6)
    lines = window(console)
    console.run("echo 0 > events/syscalls/sys_enter_getppid/enable")
    printk = [line for line in lines if line.endswith("bpf_trace_printk: getppid from %d" % pid)]
    ftrace = [line for line in lines if "sys_getppid()" in line and task_pid(line) == pid]
    assert len(printk) == len(ftrace) == 6, lines


def test_uprobe_reads_arguments_ip_and_return(console):
    """uprobeargs.bpf.c: SEC("uprobe//tests/bpfload:probe_target") and its uretprobe, attached by libbpf through the
    uprobe PMU (it finds the function's offset in the file), read PT_REGS_PARM1/2, PT_REGS_IP and PT_REGS_RC."""
    n = 10
    pid, maps, out = load(console, "uprobeargs.bpf.o", "probe", n)
    target = int([line for line in out if line.startswith("probe_target 0x")][0].split()[1], 16)
    returned = int([line for line in out if line.startswith("probe_target returned ")][0].split()[2])
    args = maps["args"]
    assert args[0] == n, out                                   # one hit per call
    assert args[1] == n * (n + 1) // 2 and args[2] == 1000 * n, out   # the two arguments, summed
    assert args[3] == target, out                              # PT_REGS_IP: the probed function itself
    assert args[4] == returned == args[1] + args[2], out       # PT_REGS_RC at each return
    assert console.run("cat uprobe_events") == ""              # libbpf made no uprobe_events line


def test_tracepoint_streams_switches_through_a_ring_buffer(console):
    """switchring.bpf.c: a record per sched_switch through a BPF_MAP_TYPE_RINGBUF, read by libbpf's ring_buffer__poll()
    (mmap of the map fd, epoll_wait on it); the ftrace event on the same tracepoint in the same run."""
    console.run("echo 1 > events/sched/sched_switch/enable")
    pid, maps, out = load(console, "switchring.bpf.o", "sleep", 10)
    lines = window(console)
    console.run("echo 0 > events/sched/sched_switch/enable")
    records = [tuple(line.split()[2:]) for line in out if re.match(r"^ring switches -?\d+ -?\d+ ", line)]
    m = [re.match(r"^ring switches polls (\d+) records (\d+)$", line) for line in out if " polls " in line]
    assert m and m[0] and int(m[0].group(2)) == len(records) and int(m[0].group(1)) >= 1, out
    to_us = [r for r in records if int(r[1]) == pid]
    assert len(to_us) >= 10 and all(r[2] == "bpfload" for r in to_us), out   # back from each of 10 sleeps
    assert "btf loaded" in out, out                  # libbpf took BPF_BTF_LOAD for the object's types too
    # every switch the event saw between the markers, in its order, is a run of the ring's records (which also
    # has the switches from attaching to the first marker and from the last marker to detaching)
    seen = []
    for line in lines:
        e = re.search(r"sched_switch: .*prev_pid=(\d+) .* ==> next_comm=(.+) next_pid=(\d+) ", line)
        if e:
            seen.append((e.group(1), e.group(3), e.group(2)[:15]))
    assert len(seen) >= 10, lines
    starts = [i for i in range(len(records) - len(seen) + 1) if records[i:i + len(seen)] == seen]
    assert starts, (seen, records)


def test_tracepoint_tail_calls_through_a_prog_array(console):
    """tailcall.bpf.c: the getppid program tail-calls through a BPF_MAP_TYPE_PROG_ARRAY that libbpf fills from the
    object (odd calls to one program, even to another, which tail-calls an empty slot and falls through); the
    syscall event counts the same calls in the same run."""
    console.run("echo 1 > events/syscalls/sys_enter_getppid/enable")
    pid, maps, out = load(console, "tailcall.bpf.o", "getppid", 7)
    lines = window(console)
    console.run("echo 0 > events/syscalls/sys_enter_getppid/enable")
    calls = len([line for line in lines if "sys_getppid()" in line and task_pid(line) == pid])
    counts = maps.get("tailcounts", {})
    assert calls == 7, lines
    assert counts.get(0) == calls, out                               # every call entered
    assert counts.get(2) == (calls + 1) // 2 and counts.get(1) == calls // 2, out   # odd and even slots
    assert counts.get(4) == counts.get(1), out                       # the empty slot fell through
    assert 3 not in counts, out                                      # the entry never fell through
