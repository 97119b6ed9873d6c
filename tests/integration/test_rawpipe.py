"""tests/integration/test_rawpipe.py: per_cpu/cpuN/trace_pipe_raw read by a program (tests/user/rawpipe.c) as
Linux's tracing_buffers_read() serves it, buffer_percent, and readers woken by the writers' irq_work instead of a
tick (kernel/trace/trace_pipe_raw.c, ring_buffer_wait.c; docs/25, section "trace_pipe_raw for programs"). One CPU:
every event is CPU 0's, and a child that sleeps is seen asleep in /proc/PID/status, never waited for."""

import re

T = "/sys/kernel/tracing/"
PASS = re.compile(r"^PASS (\d+)/\1$", re.M)


def prepare(console):
    console.run("echo 0 > tracing_on")
    console.run("echo > trace")
    console.run("echo 1 > tracing_on")


def test_page_header_matches_the_trace(console):
    """Three markers; `trace` (clock x86-tsc: the stamps as the ring holds them) lists them; the program reads
    the same events from one raw page: the same stamps and texts, commit the sum of their lengths, EAGAIN before
    the markers and after the read."""
    try:
        console.run("echo x86-tsc > trace_clock")
        prepare(console)
        empty = console.run("/tests/rawpipe page")
        assert "not ok 2 a full page in two reads: got -11, want 4096" in empty
        for word in ("first", "second", "third"):
            console.run("echo raw %s > trace_marker" % word)
        trace = console.run("cat per_cpu/cpu0/trace")
        want = re.findall(r"\s(\d+): tracing_mark_write: (raw \w+)$", trace, re.M)
        assert [w[1] for w in want] == ["raw first", "raw second", "raw third"], trace
        out = console.run("/tests/rawpipe page")
        assert PASS.search(out), out
        assert re.search(r"^page commit (\d+) events 3$", out, re.M), out
        got = re.findall(r"^(\d+): (raw \w+)$", out, re.M)
        assert got == want, (out, trace)
    finally:
        console.run("echo local > trace_clock")


def test_blocking_read_wakes_for_one_event(console):
    prepare(console)
    out = console.run("/tests/rawpipe block", timeout=60)
    assert PASS.search(out), out


def test_epoll_on_trace_pipe_wakes_at_the_event(console):
    prepare(console)
    out = console.run("/tests/rawpipe epoll", timeout=60)
    assert PASS.search(out), out


def test_buffer_percent_zero_wakes_at_one_event(console):
    try:
        prepare(console)
        out = console.run("/tests/rawpipe percent 0", timeout=60)
        assert PASS.search(out), out
        assert "woke after 1 markers" in out, out
    finally:
        console.run("echo 50 > buffer_percent")


def test_buffer_percent_fifty_waits_for_half_the_pages(console):
    try:
        console.run("echo 32 > buffer_size_kb")
        prepare(console)
        out = console.run("/tests/rawpipe percent 50", timeout=120)
        assert PASS.search(out), out
        assert re.search(r"^woke after \d+ markers, 4 pages of 8$", out, re.M), out
    finally:
        console.run("echo 50 > buffer_percent")
        console.run("echo %s > buffer_size_kb" % console.boot_state["buffer_size_kb"])


def test_buffer_percent_file(console):
    """Linux's buffer_percent_write(): 0 to 100, 50 at first, in every instance; anything else EINVAL."""
    assert console.run("cat buffer_percent") == "50"
    console.run("mkdir instances/bp")
    try:
        assert console.run("cat instances/bp/buffer_percent") == "50"
        console.run("echo 0 > instances/bp/buffer_percent")
        assert console.run("cat instances/bp/buffer_percent") == "0"
        for bad in ("101", "-1", "abc"):
            out = console.run("echo %s > buffer_percent" % bad)
            assert "Invalid argument" in out, out
        assert console.run("cat buffer_percent") == "50"
        console.run("echo 100 > buffer_percent")
        assert console.run("cat buffer_percent") == "100"
    finally:
        console.run("echo 50 > buffer_percent")
        console.run("rmdir instances/bp")
