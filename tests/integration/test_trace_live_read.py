"""tests/integration/test_trace_live_read.py: reading `trace` while the writers run (Linux 6.1's default), and the
pause-on-trace option that brings back the pause.

Three CPUs run the compute workload under the function tracer (compute_* only) into a buffer of 8 KiB per CPU,
which they fill and wrap many times while `cat trace` reads it: every line must parse (no torn event), the time
must never go back within a CPU, and a loss shows as Linux's iterator shows it, `CPU:N [LOST EVENTS]`, right
before that CPU's next event. The same for an instance and for per_cpu/cpuN/trace. With the option on, the read
holds the writers off: what it prints is exactly what the header counts, and the writers' refusals
(per_cpu/cpuN/stats' dropped events) stop growing after it."""

import re

SMP = 4

EVENT = re.compile(r"^ +(\S.*)-(\d+) +\[(\d{3})\] (\S{5}) +(\d+)\.(\d{6}): (\w+) <-(\S+)$")
LOST = re.compile(r"^CPU:(\d+) \[LOST EVENTS\]$")
FUNCS = {"compute_fib", "compute_square", "compute_sum_squares", "compute_iteration"}
READS = 6


def check_read(out, only_cpu=None):
    """Parses one `cat trace`; returns (event lines, LOST lines). Fails on any line that is not a header, an event
    of the filter or a LOST line, on time going back within a CPU, and on a LOST line not followed by its CPU's
    event."""
    last, events, lost, pending = {}, 0, 0, None
    for line in out.splitlines():
        if line.startswith("#"):
            continue
        m = LOST.match(line)
        if m:
            assert pending is None, out
            pending, lost = int(m.group(1)), lost + 1
            continue
        m = EVENT.match(line)
        assert m, "unparsable line %r" % line
        cpu, ts = int(m.group(3)), int(m.group(5)) * 1000000 + int(m.group(6))
        assert pending is None or pending == cpu, "LOST for CPU %s, then %r" % (pending, line)
        pending = None
        assert m.group(7) in FUNCS, line
        assert only_cpu is None or cpu == only_cpu, line
        assert ts >= last.get(cpu, 0), "time went back on CPU %d: %r" % (cpu, line)
        last[cpu], events = ts, events + 1
    return events, lost


def start_writers(console, prefix=""):
    assert console.run("echo 8 > %sbuffer_size_kb" % prefix) == ""
    assert console.run("echo 'compute_*' > %sset_ftrace_filter" % prefix) == ""
    assert console.run("echo function > %scurrent_tracer" % prefix) == ""
    return re.findall(r"^\[(\d+)\]", console.run("run compute 1-3"), re.M)


def stop_writers(console, pids, prefix=""):
    if pids:
        console.run("kill " + " ".join(pids))
    console.run("echo nop > %scurrent_tracer" % prefix)
    console.run("echo > %sset_ftrace_filter" % prefix)


def test_trace_read_with_writers_running(console):
    pids = start_writers(console)
    try:
        assert len(pids) == 3
        assert console.run("cat options/pause-on-trace") == "0"
        totals = [check_read(console.run("cat trace", timeout=120)) for _ in range(READS)]
        # Whether a writer laps the reader, and how early, is a race between vCPU threads the host
        # schedules: a reader overtaken prints fewer events and says so (check_read holds every
        # LOST line to its place); that it is overtaken at all is the self-test's to show
        # (tests/kernel/ring_buffer_iter_test.c forces the lap), not this one's.
        assert sum(events for events, _ in totals) > 0, totals
        events, _ = check_read(console.run("cat per_cpu/cpu2/trace", timeout=120), only_cpu=2)
        assert events > 0
        # The read did not stop them: with overwrite on, nothing was refused.
        assert re.search(r"^dropped events: 0$", console.run("cat per_cpu/cpu1/stats"), re.M)
    finally:
        stop_writers(console, pids)


def test_instance_trace_read_with_writers_running(console):
    assert console.run("mkdir instances/live") == ""
    pids = []
    try:
        pids = start_writers(console, "instances/live/")
        totals = [check_read(console.run("cat instances/live/trace", timeout=120)) for _ in range(3)]
        assert all(events > 0 for events, _ in totals), totals
    finally:
        stop_writers(console, pids, "instances/live/")
        console.run("rmdir instances/live")


def dropped(console):
    return sum(int(re.search(r"^dropped events: (\d+)$", console.run("cat per_cpu/cpu%d/stats" % c), re.M).group(1))
               for c in (1, 2, 3))


def test_pause_on_trace_holds_the_writers_off(console):
    assert console.run("echo pause-on-trace > trace_options") == ""
    pids = start_writers(console)
    try:
        assert console.run("cat options/pause-on-trace") == "1"
        before = dropped(console)
        out = console.run("cat trace", timeout=120)
        during = dropped(console)
        events, lost = check_read(out)
        in_buffer = int(re.search(r"entries-in-buffer/entries-written: (\d+)/", out).group(1))
        # Nothing moved while it printed: every event the header counts, and no loss.
        assert events == in_buffer > 0 and lost == 0
        # The writers refused meanwhile are counted (how many tried in that window is the host's
        # scheduling of vCPU threads: maybe none); reading stats holds them off too, for a
        # moment, without counting, so once the read is over the count stands still.
        assert during >= before
        assert dropped(console) == during
        assert console.run("echo nopause-on-trace > trace_options") == ""
        assert console.run("cat options/pause-on-trace") == "0"
    finally:
        console.run("echo nopause-on-trace > trace_options")
        stop_writers(console, pids)
