"""tests/integration/test_options_buffer.py: the options that change what the buffer keeps or how a record is
written out, each against Linux 6.1's format (kernel/trace/trace.c, trace_output.c): hex and bin (print_hex_fmt,
print_bin_fmt), annotate ("##### CPU N buffer started ####"), record-tgid with saved_tgids and the TGID columns,
overwrite (a full buffer refuses new events and per_cpu/cpuN/stats counts them dropped), and free_buffer with
disable_on_free (docs/25, section 8)."""

import re

from tests.integration.test_options import addr, recorded
from tests.tracing_state import _LIVE_WORKLOAD

SMP = 2

FN_LINE = re.compile(r"^ *(?P<comm>\S.*)-(?P<pid>\d+) +\[(?P<cpu>\d+)\] \S{5} +[\d.]+: (?P<fn>\S+) <-(?P<parent>\S+)$")


def run_to_end(console, cmd="run fs 1 2"):
    """A workload run to its end (`run` returns as it starts): the buffer then holds all it will write. Two
    seconds of fs write about 600 vfs_read events, twice what an 8 kB ring holds."""
    pid = re.match(r"^\[(\d+)\]", console.run(cmd)).group(1)
    console.poll("cat /proc/workloads", lambda out: pid not in _LIVE_WORKLOAD.findall(out), timeout=60)


def body(text):
    """The lines after the header (annotate's "#####" lines are not header)."""
    return [line for line in text.split("\n") if line and (line[0] != "#" or line.startswith("#####"))]


def test_hex_prints_the_record_as_hex_fields(console):
    """Linux's print_hex_fmt(): pid, CPU (4 bytes each) and time (8), then a function's ip and parent ip (8
    each), every field as hex digits and a space; the line ends after them."""
    try:
        recorded(console)
        plain = [FN_LINE.match(line) for line in body(console.run("cat trace", timeout=60))]
        assert plain and all(plain), plain
        console.run("echo hex > trace_options")
        assert console.run("cat options/hex") == "1"
        lines = body(console.run("cat trace", timeout=60))
        assert len(lines) == len(plain)
        vfs_read = addr(console, "vfs_read")
        for line, p in zip(lines, plain):
            m = re.match(r"^([0-9a-f]{8}) ([0-9a-f]{8}) ([0-9a-f]{16}) ([0-9a-f]{16}) ([0-9a-f]{16}) $", line)
            assert m, line
            assert int(m.group(1), 16) == int(p.group("pid"))
            assert int(m.group(2), 16) == int(p.group("cpu"))
            assert int(m.group(4), 16) == vfs_read
            assert 0 < int(m.group(5), 16) - addr(console, p.group("parent")) < 0x1000  # a return address
        # A trace_marker record has no hex form in Linux 6.1: its type (TRACE_PRINT, 5) and an empty line.
        console.run("echo 1 > tracing_on")
        console.run("echo ready > trace_marker")
        console.run("echo 0 > tracing_on")
        out = console.run("cat trace") + "\n"  # the console gives the text without its last newline
        assert re.search(r"^[0-9a-f]{8} [0-9a-f]{8} [0-9a-f]{16} type: 5\n\n", out, re.M), out[-300:]
        console.run("echo nocontext-info > trace_options")
        assert all(re.match(r"^([0-9a-f]{16} [0-9a-f]{16} |type: 5)$", line) for line in body(console.run("cat trace")))
    finally:
        console.run("echo nohex > trace_options")
        console.run("echo context-info > trace_options")


def test_bin_writes_the_record_bytes(console):
    """Linux's print_bin_fmt(): the same fields as raw bytes in the CPU's order, no newline. Without
    context-info the header is the tracer's two lines (21 bytes), then 16 bytes a function entry."""
    try:
        recorded(console)
        n = len(body(console.run("cat trace", timeout=60)))
        console.run("echo nocontext-info > trace_options")
        console.run("echo bin > trace_options")
        out = console.run("/bin/sh -c '/bin/busybox tail -c +22 /sys/kernel/tracing/trace | "
                          "/bin/busybox od -A n -v -t x8'", timeout=60)
        words = [int(w, 16) for w in out.split()]
        assert len(words) == 2 * n, out
        vfs_read = addr(console, "vfs_read")
        assert all(ip == vfs_read for ip in words[0::2]), words[:8]
        head = console.run("/bin/busybox head -c 21 /sys/kernel/tracing/trace")
        assert head.split("\n") == ["# tracer: function", "#"]
    finally:
        console.run("echo nobin > trace_options")
        console.run("echo context-info > trace_options")


def test_annotate_marks_where_a_cpu_buffer_starts(console):
    """After an overrun (the smallest buffer, overfilled with vfs_read on CPU 1), a marker written later on the
    shell's CPU is the first line of its CPU after the first two lines: Linux announces it with a line of its
    own. noannotate leaves the line out; with no overrun there is none either."""
    try:
        console.run("echo 8 > buffer_size_kb")
        console.run("echo vfs_read > set_ftrace_filter")
        console.run("echo function > current_tracer")
        run_to_end(console)
        console.run("echo later > trace_marker")
        console.run("echo 0 > tracing_on")
        stats = console.run("cat per_cpu/cpu1/stats")
        assert int(re.search(r"^overrun: (\d+)", stats, re.M).group(1)) > 0, stats
        lines = body(console.run("cat trace", timeout=120))
        marks = [i for i, line in enumerate(lines) if line.startswith("#####")]
        assert len(marks) == 1 and marks[0] >= 2, lines
        cpu = int(re.match(r"^##### CPU (\d+) buffer started ####$", lines[marks[0]]).group(1))
        assert re.search(r"\[%03d\] .*: later$" % cpu, lines[marks[0] + 1]), lines[marks[0]:]
        console.run("echo noannotate > trace_options")
        assert not [line for line in body(console.run("cat trace", timeout=120)) if line.startswith("#####")]
        console.run("echo annotate > trace_options")
        console.run("echo %s > buffer_size_kb" % console.boot_state["buffer_size_kb"])
        console.run("echo > trace")
        console.run("echo 1 > tracing_on")
        console.run("echo a > trace_marker")
        run_to_end(console)
        console.run("echo b > trace_marker")
        console.run("echo 0 > tracing_on")
        assert not [line for line in body(console.run("cat trace", timeout=120)) if line.startswith("#####")]
    finally:
        console.run("echo annotate > trace_options")
        console.run("echo nop > current_tracer")
        console.run("echo > set_ftrace_filter")
        console.run("echo 1 > tracing_on")
        console.run("echo %s > buffer_size_kb" % console.boot_state["buffer_size_kb"])


def test_record_tgid_saves_and_prints_each_thread_process(console):
    """saved_tgids and the TGID column: both threads of /tests/threads belong to its main thread's process."""
    try:
        console.run("echo record-tgid > trace_options")
        console.run("echo 1 > events/sched/sched_switch/enable")
        out = console.run("/tests/threads trace", timeout=120)
        tids = [int(t) for t in re.search(r"^threads (\d+) (\d+)$", out, re.M).groups()]
        console.run("echo 0 > events/enable")
        saved = dict(tuple(int(x) for x in line.split()) for line in console.run("cat saved_tgids").split("\n"))
        tgid = saved[tids[0]]
        assert saved[tids[1]] == tgid and tgid not in tids and saved[tgid] == tgid
        text = console.run("cat trace", timeout=60).split("\n")
        assert text[4:12] == [
            "#                                          _-----=> irqs-off/BH-disabled",
            "#                                         / _----=> need-resched",
            "#                                        | / _---=> hardirq/softirq",
            "#                                        || / _--=> preempt-depth",
            "#                                        ||| / _-=> migrate-disable",
            "#                                        |||| /     delay",
            "#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION",
            "#              | |           |       |   |||||     |         |"]
        for tid in tids:
            assert any(re.match(r"^ +threads-%d +\( *%d\) \[\d{3}\] " % (tid, tgid), line) for line in text), tid
        assert any(re.match(r"^ +<idle>-0 +\(-------\) \[\d{3}\] ", line) for line in text)
        console.run("echo noirq-info > trace_options")
        assert console.run("cat trace").split("\n")[4:6] == [
            "#           TASK-PID       TGID    CPU#     TIMESTAMP  FUNCTION",
            "#              | |           |       |         |         |"]
    finally:
        console.run("echo irq-info > trace_options")
        console.run("echo norecord-tgid > trace_options")
        console.run("echo 0 > events/enable")


def test_nooverwrite_keeps_the_oldest_and_counts_the_dropped(console):
    """overwrite off: once CPU 1's ring is full it refuses every new event (its trace stays as it was through
    a second run), counted in stats' dropped events, and overrun stays 0. Back on (the default), a run
    overwrites the oldest pages: overrun grows, nothing is dropped."""
    try:
        console.run("echo 8 > buffer_size_kb")
        console.run("echo vfs_read > set_ftrace_filter")
        console.run("echo nooverwrite > trace_options")
        assert console.run("cat options/overwrite") == "0"
        console.run("echo function > current_tracer")
        run_to_end(console)
        full = console.run("cat per_cpu/cpu1/trace", timeout=60)
        stats = console.run("cat per_cpu/cpu1/stats")
        assert re.search(r"^overrun: 0$", stats, re.M), stats
        dropped = int(re.search(r"^dropped events: (\d+)$", stats, re.M).group(1))
        assert dropped > 0, stats
        run_to_end(console)
        assert console.run("cat per_cpu/cpu1/trace", timeout=60) == full
        stats = console.run("cat per_cpu/cpu1/stats")
        assert int(re.search(r"^dropped events: (\d+)$", stats, re.M).group(1)) > dropped, stats
        console.run("echo > trace")
        console.run("echo overwrite > trace_options")
        run_to_end(console)
        console.run("echo 0 > tracing_on")
        stats = console.run("cat per_cpu/cpu1/stats")
        assert int(re.search(r"^overrun: (\d+)$", stats, re.M).group(1)) > 0, stats
        assert re.search(r"^dropped events: 0$", stats, re.M), stats
    finally:
        console.run("echo overwrite > trace_options")
        console.run("echo nop > current_tracer")
        console.run("echo > set_ftrace_filter")
        console.run("echo 1 > tracing_on")
        console.run("echo %s > buffer_size_kb" % console.boot_state["buffer_size_kb"])


def test_free_buffer_shrinks_and_disable_on_free_stops(console):
    """Closing free_buffer shrinks the array's buffer to two pages a CPU; with disable_on_free it also turns
    tracing_on off. In an instance, only that instance's."""
    try:
        console.run("mkdir instances/fb")
        console.run("echo 64 > instances/fb/buffer_size_kb")
        console.run("echo > instances/fb/free_buffer")
        assert console.run("cat instances/fb/buffer_size_kb") == "8"
        assert console.run("cat instances/fb/tracing_on") == "1"
        console.run("echo 64 > instances/fb/buffer_size_kb")
        console.run("echo 1 > instances/fb/options/disable_on_free")
        console.run("/bin/sh -c 'echo > /sys/kernel/tracing/instances/fb/free_buffer'")
        assert console.run("cat instances/fb/buffer_size_kb") == "8"
        assert console.run("cat instances/fb/tracing_on") == "0"
        assert console.run("cat tracing_on") == "1"
        assert console.run("cat buffer_size_kb") == console.boot_state["buffer_size_kb"]
    finally:
        console.run("rmdir instances/fb")


def test_block_makes_trace_pipe_always_readable(console):
    """Linux's tracing_poll_pipe(): an empty trace_pipe is not readable, one with an event is; with the block
    option a poll always says readable (POLLIN | POLLRDNORM, 0x41). The same for per_cpu/cpuN/trace_pipe."""
    try:
        console.run("echo > trace")
        for path in ("trace_pipe", "per_cpu/cpu1/trace_pipe"):
            poll = "/tests/pollfile /sys/kernel/tracing/" + path
            assert console.run(poll) == "poll 0 revents 0x0", path
            console.run("echo block > trace_options")
            assert console.run(poll) == "poll 1 revents 0x41", path
            console.run("echo noblock > trace_options")
        console.run("echo ready > trace_marker")
        assert console.run("/tests/pollfile /sys/kernel/tracing/trace_pipe") == "poll 1 revents 0x41"
    finally:
        console.run("echo noblock > trace_options")
        console.run("echo > trace")


def test_record_tgid_of_a_removed_instance_stops_recording(console):
    """An instance's record-tgid records while the instance exists; after its rmdir nothing does (the top level
    has the option off), so a program run afterwards is not in saved_tgids, while one run before is."""
    console.run("mkdir instances/tg")
    try:
        console.run("echo 1 > instances/tg/options/record-tgid")
        before = console.run("/bin/sh -c 'echo $$'")
    finally:
        console.run("rmdir instances/tg")
    after = console.run("/bin/sh -c 'echo $$'")
    saved = [line.split()[0] for line in console.run("cat saved_tgids").split("\n") if line]
    assert before in saved and after not in saved, (before, after, saved)


def test_a_latency_tracer_keeps_overwrite_on(console):
    """irqsoff swaps its max buffer with the live one and needs overwrite (Linux's trace_keep_overwrite()):
    while it runs, turning overwrite off is EINVAL and changes nothing; under nop it is allowed."""
    try:
        console.run("echo irqsoff > current_tracer")
        assert console.run("echo nooverwrite > trace_options") == "echo: write error: Invalid argument"
        assert console.run("echo 0 > options/overwrite") == "echo: write error: Invalid argument"
        assert console.run("cat options/overwrite") == "1"
        console.run("echo nop > current_tracer")
        assert console.run("echo nooverwrite > trace_options") == ""
        assert console.run("cat options/overwrite") == "0"
    finally:
        console.run("echo nop > current_tracer")
        console.run("echo overwrite > trace_options")
