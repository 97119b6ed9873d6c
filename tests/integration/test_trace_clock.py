"""tests/integration/test_trace_clock.py: trace_clock with Linux 6.1's clocks (local, global, counter, uptime, perf,
mono, mono_raw, boot, tai, x86-tsc), each stamping the buffer and printed as Linux prints it (seconds.microseconds
for the clocks in ns, a raw count for counter, uptime and x86-tsc); a change empties the buffer; instances have
their own; timestamp_mode; a bad name refused with nothing changed."""

import re

SMP = 2
T = "/sys/kernel/tracing"
EINVAL = "echo: write error: Invalid argument"
CLOCKS = ["local", "global", "counter", "uptime", "perf", "mono", "mono_raw", "boot", "tai", "x86-tsc"]
# "              sh-1       [000] .....    12.345678: tracing_mark_write: hello" or, for a count, "  1234567890: "
LINE = re.compile(r"^ *(?P<comm>.+?)-(?P<pid>\d+) +\[(?P<cpu>\d{3})\] (?P<flags>\S{5}) +(?P<ts>\d+(\.\d{6})?): "
                  r"tracing_mark_write: (?P<msg>.*)$")


def listing(cur):
    return " ".join("[%s]" % c if c == cur else c for c in CLOCKS)


def marks(console, path=T):
    got = []
    for line in console.run("cat %s/trace" % path).splitlines():
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        assert m, line
        got.append((m.group("ts"), m.group("msg")))
    return got


def test_clock_list_default_local(console):
    assert console.run("cat %s/trace_clock" % T) == listing("local")
    assert console.run("cat %s/timestamp_mode" % T) == "[delta] absolute"


def test_each_clock_stamps_and_prints_as_linux(console):
    for clock in CLOCKS:
        assert console.run("echo %s > %s/trace_clock" % (clock, T)) == ""
        assert console.run("cat %s/trace_clock" % T) == listing(clock)
        # Changing the clock empties the buffer: stamps of two clocks cannot be ordered.
        assert marks(console) == []
        for i in range(3):
            console.run("echo %s-%d > %s/trace_marker" % (clock, i, T))
        got = marks(console)
        assert [m for _, m in got] == ["%s-%d" % (clock, i) for i in range(3)], got
        stamps = [ts for ts, _ in got]
        if clock in ("counter", "uptime", "x86-tsc"):
            assert all("." not in ts for ts in stamps), (clock, stamps)
            values = [int(ts) for ts in stamps]
        else:
            assert all(re.match(r"^\d+\.\d{6}$", ts) for ts in stamps), (clock, stamps)
            values = [float(ts) for ts in stamps]
        assert values == sorted(values), (clock, values)
        if clock == "counter":  # one count per event written, nothing else counts on this buffer
            assert values[2] - values[0] == 2, values
        if clock == "uptime":  # jiffies at 100 Hz: a few seconds since boot at most a few thousand
            assert 0 < values[0] < 100 * 3600, values
        if clock == "x86-tsc":  # raw TSC: far more than ns since boot on any clock over 1 GHz...
            assert values[0] > 10 ** 6, values
    assert console.run("echo local > %s/trace_clock" % T) == ""


def test_per_cpu_stats_follow_the_clock(console):
    assert console.run("echo counter > %s/trace_clock" % T) == ""
    console.run("echo one > %s/trace_marker" % T)
    stats = console.run("cat %s/per_cpu/cpu0/stats %s/per_cpu/cpu1/stats" % (T, T))
    assert re.search(r"^now ts: \d+$", stats, re.M), stats
    assert console.run("echo local > %s/trace_clock" % T) == ""
    stats = console.run("cat %s/per_cpu/cpu0/stats" % T)
    assert re.search(r"^now ts: +\d+\.\d{6}$", stats, re.M), stats


def test_bad_clock_refused_unchanged(console):
    assert console.run("echo global > %s/trace_clock" % T) == ""
    console.run("echo kept > %s/trace_marker" % T)
    for bad in ("foo", "", "loca", "local global", "LOCAL"):
        assert console.run("echo '%s' > %s/trace_clock" % (bad, T)) == EINVAL, bad
        assert console.run("cat %s/trace_clock" % T) == listing("global")
    assert [m for _, m in marks(console)] == ["kept"]
    assert console.run("echo local > %s/trace_clock" % T) == ""


def test_instance_has_its_own_clock(console):
    assert console.run("mkdir %s/instances/clk" % T) == ""
    try:
        assert console.run("echo counter > %s/instances/clk/trace_clock" % T) == ""
        assert console.run("cat %s/instances/clk/trace_clock" % T) == listing("counter")
        assert console.run("cat %s/trace_clock" % T) == listing("local")
        assert console.run("cat %s/instances/clk/timestamp_mode" % T) == "[delta] absolute"
        console.run("echo in-instance > %s/instances/clk/trace_marker" % T)
        got = marks(console, T + "/instances/clk")
        assert [m for _, m in got] == ["in-instance"] and "." not in got[0][0], got
    finally:
        console.run("rmdir %s/instances/clk" % T)
