"""tests/integration/test_wakeup.py: the wakeup, wakeup_rt and wakeup_dl tracers (kernel/trace/trace_sched_wakeup.c)
on 2 CPUs. `rtwake US` (`dlwake US`) wakes a SCHED_FIFO (SCHED_DEADLINE) task from the timer tick while the shell
holds its CPU with preemption off for US microseconds (kernel/lab/wakeup_lab.c): the tracer must report the task's
wait, in Linux's latency format, and that wait must agree with the sched_waking, sched_wakeup and sched_switch
events of the same run, recorded in an instance of their own.

The agreement: the instance's events are attached before the tracer's probes, so the tracer reads its clock just
after the instance records sched_wakeup (the start) and just after it records sched_switch (the end). The reported
wait must equal switch - wakeup of the instance's stamps within 100 us, the instructions between an event's record
and the tracer's clock reading, and it can never pass switch - waking by more than that. The machine runs under
-icount (the TSC counts guest instructions, as `make bench` runs): without it a host that deschedules QEMU between
the event's record and the tracer's clock read stretched that gap to 256 us once under a load average of 20."""

import re

import pytest

SMP = 2
QEMU_ARGS = ["-icount", "shift=0,sleep=off"]
EINVAL = "echo: write error: Invalid argument"
EBUSY = "echo: write error: Device or resource busy"
LAT_LINE = re.compile(r"^# latency: (\d+) us, #(\d+)/(\d+), CPU#(\d) \| \(M:preempt VP:0, KP:0, SP:0 HP:0 #P:2\)$")
SECTION_US = 50000


def start(console, tracer):
    assert console.run("mkdir instances/ev") == ""
    for ev in ("sched_waking", "sched_wakeup", "sched_switch"):
        assert console.run("echo 1 > instances/ev/events/sched/%s/enable" % ev) == ""
    assert console.run("echo %s > current_tracer" % tracer) == ""
    assert console.run("echo 0 > tracing_max_latency") == ""


def stop(console):
    console.run("echo nop > current_tracer")
    console.run("rmdir instances/ev")


@pytest.fixture
def ev(console):
    yield
    stop(console)


def wake(console, cmd):
    out = console.run("%s %d" % (cmd, SECTION_US), timeout=120)
    m = re.match(r"^%s (\d+) woken behind preemption off for %d us, its CPU held (\d+) us$" % (cmd, SECTION_US),
                 out)
    assert m, out
    return int(m.group(1)), int(m.group(2))


def event_times(console, pid):
    """(waking, wakeup, switch) stamps in us of the task's first wake-up and its switch in, from the instance."""
    trace = console.run("cat instances/ev/trace", timeout=60)
    stamp = r"^\s*\S+-\d+\s+\[\d+\] \S+\s+(\d+)\.(\d+): "
    us = lambda m: int(m.group(1)) * 1000000 + int(m.group(2))
    waking = re.search(stamp + r"sched_waking: comm=\S+ pid=%d " % pid, trace, re.M)
    wakeup = re.search(stamp + r"sched_wakeup: comm=\S+ pid=%d " % pid, trace, re.M)
    assert waking and wakeup, trace
    switch = re.compile(stamp + r"sched_switch: .* ==> next_comm=\S+ next_pid=%d " % pid, re.M)
    sw = switch.search(trace, wakeup.end())
    assert sw, trace
    return us(waking), us(wakeup), us(sw)


def header(console):
    lines = console.run("cat trace", timeout=60).splitlines()
    m = next(LAT_LINE.match(l) for l in lines if l.startswith("# latency:"))
    assert m, lines
    return int(m.group(1)), lines


def check_agreement(console, pid, latency):
    waking, wakeup, switch = event_times(console, pid)
    assert abs(latency - (switch - wakeup)) <= 100, (waking, wakeup, switch, latency)
    assert latency <= switch - waking + 100, (waking, wakeup, switch, latency)


def test_tracers_are_listed(console):
    tracers = console.run("cat available_tracers").split()
    for t in ("wakeup", "wakeup_rt", "wakeup_dl"):
        assert t in tracers


def test_wakeup_rt_measures_an_rt_task_behind_preemption_off(console, ev):
    start(console, "wakeup_rt")
    pid, held = wake(console, "rtwake")
    latency = int(console.run("cat tracing_max_latency"))
    reported, lines = header(console)
    assert reported == latency
    assert 0 < latency <= held
    assert lines[0] == "# tracer: wakeup_rt"
    assert re.match(r"^# wakeup_rt latency trace v1\.1\.5 on \S+$", lines[2]), lines
    assert "#    | task: rtwake-%d (uid:0 nice:0 policy:1 rt_prio:50)" % pid in lines, lines
    # Linux's trace_ctxwake_print(): the shell (pid 1, prio 120) wakes prio 49 (99 - 50), then switches to it.
    assert any(re.search(r"\s+1:120:R   \+ \[000\]\s+%d: 49:R rtwake$" % pid, l) for l in lines), lines
    assert any(re.search(r"\s+1:120:R ==> \[000\]\s+%d: 49:R rtwake$" % pid, l) for l in lines), lines
    # function-trace (on by default, as Linux's wakeup_tracer_call()): the calls CPU 0 made while the task waited,
    # between the two entries, each a function event of CPU 0.
    woke = next(i for i, l in enumerate(lines) if re.search(r"  \+ \[000\]\s+%d: 49:R rtwake$" % pid, l))
    switched = next(i for i, l in enumerate(lines) if re.search(r"==> \[000\]\s+%d: 49:R rtwake$" % pid, l))
    calls = [l for l in lines[woke + 1:switched] if re.match(r"^ +\S+-\d+ +\d\S{5} +\d+us.: \w+ <-\w+$", l)]
    assert calls and all(re.match(r"^ +\S+-\d+ +0", l) for l in calls), lines
    check_agreement(console, pid, latency)


def test_wakeup_dl_measures_a_deadline_task(console, ev):
    start(console, "wakeup_dl")
    pid, held = wake(console, "dlwake")
    latency = int(console.run("cat tracing_max_latency"))
    reported, lines = header(console)
    assert reported == latency and 0 < latency <= held
    assert "#    | task: dlwake-%d (uid:0 nice:0 policy:6 rt_prio:0)" % pid in lines, lines
    # A deadline task's prio is -1: Linux's entry keeps it in an unsigned char, 255.
    assert any(re.search(r"\s+1:120:R ==> \[000\]\s+%d:255:R dlwake$" % pid, l) for l in lines), lines
    check_agreement(console, pid, latency)


def test_class_filters(console, ev):
    """wakeup_dl ignores an RT task, wakeup_rt a normal one; wakeup takes the RT one too."""
    start(console, "wakeup_dl")
    wake(console, "rtwake")
    assert console.run("cat tracing_max_latency") == "0"
    console.run("echo wakeup_rt > current_tracer")
    console.run("echo 0 > tracing_max_latency")
    console.run("run compute 0 1")
    console.run("sleep 2")
    assert console.run("cat tracing_max_latency") == "0"
    console.run("echo wakeup > current_tracer")
    console.run("echo 0 > tracing_max_latency")
    pid, _ = wake(console, "rtwake")
    _, lines = header(console)
    assert "#    | task: rtwake-%d (uid:0 nice:0 policy:1 rt_prio:50)" % pid in lines, lines


def test_max_kept_and_thresh(console, ev):
    start(console, "wakeup_rt")
    assert console.run("echo 900000000 > tracing_max_latency") == ""
    wake(console, "rtwake")
    assert console.run("cat tracing_max_latency") == "900000000"
    assert console.run("echo 1 > tracing_thresh") == ""
    try:
        pid, _ = wake(console, "rtwake")
        _, lines = header(console)
        assert "#    | task: rtwake-%d (uid:0 nice:0 policy:1 rt_prio:50)" % pid in lines, lines
    finally:
        console.run("echo 0 > tracing_thresh")


def test_bad_input_changes_nothing(console, ev):
    start(console, "wakeup_rt")
    console.run("echo 1234 > tracing_max_latency")
    for bad in ("abc", "-1", "12x"):
        assert console.run("echo '%s' > tracing_max_latency" % bad) == EINVAL, bad
    assert console.run("cat tracing_max_latency") == "1234"
    assert console.run("echo 1 > snapshot") == EBUSY
    assert console.run("cat current_tracer") == "wakeup_rt"
    assert console.run("echo wakeup_nope > current_tracer") == EINVAL
    assert console.run("cat current_tracer") == "wakeup_rt"


GRAPH_HEADER = [
    "#                                       _-----=> irqs-off        ",
    "#                                      / _----=> need-resched    ",
    "#                                     | / _---=> hardirq/softirq ",
    "#                                     || / _--=> preempt-depth   ",
    "#                                     ||| /                      ",
    "#   REL TIME      CPU  TASK/PID       ||||     DURATION                  FUNCTION CALLS",
    "#      |          |     |    |        ||||      |   |                     |   |   |   |"]
GRAPH_PREFIX = r"^ +\d+ us \|   0\) +\S+-\d+ +\|  \S{4}\. \| "


def test_wakeup_rt_display_graph(console, ev):
    """display-graph (Linux's wakeup_display_graph()): the worst wait in the graph layout, the calls the woken task's
    CPU made meanwhile as function_graph's, the `+` and `==>` entries as comments; switching it starts afresh;
    refused (EBUSY, option unchanged) while the function profiler holds fgraph."""
    start(console, "wakeup_rt")
    assert console.run("echo 900000 > tracing_max_latency") == ""
    assert console.run("echo 1 > options/display-graph") == ""
    assert console.run("cat tracing_max_latency") == "0"                   # a fresh start
    try:
        pid, held = wake(console, "rtwake")
        latency = int(console.run("cat tracing_max_latency"))
        assert 0 < latency <= held
        lines = console.run("cat trace", timeout=60).splitlines()
        assert lines[0] == "# tracer: wakeup_rt", lines[:3]
        assert "#    | task: rtwake-%d (uid:0 nice:0 policy:1 rt_prio:50)" % pid in lines, lines
        i = lines.index(GRAPH_HEADER[0])
        assert lines[i:i + len(GRAPH_HEADER)] == GRAPH_HEADER
        body = lines[i + len(GRAPH_HEADER):]
        comment = GRAPH_PREFIX + r" {14}\|  (?: *)/\* +1:120:R %s \[000\] +%d: 49:R rtwake \*/$"
        woke = [n for n, l in enumerate(body) if re.match(comment % (r"  \+", pid), l)]
        switched = [n for n, l in enumerate(body) if re.match(comment % ("==>", pid), l)]
        assert woke and switched and woke[0] < switched[0], body
        # Between them the woken task's CPU (0) ran code: graph lines, every one of CPU 0's.
        calls = [l for l in body[woke[0] + 1:switched[0]]
                 if not re.search(r"/\*.*\*/$|/\* <stack trace>$|^ =>|  ==========> \|$|  <========== \|$", l)]
        assert calls and all(re.match(GRAPH_PREFIX + r".*(\(\);|\) \{|\})( /\* \w+ \*/)?$", l) for l in calls), calls
        assert any(re.search(r"\w+\(\);$|\w+\(\) \{$", l) for l in calls), calls
        # The profiler takes fgraph: display-graph cannot be set, and stays as it was.
        assert console.run("echo 0 > options/display-graph") == ""
        assert console.run("echo 1 > function_profile_enabled") == ""
        assert console.run("echo 1 > options/display-graph") == EBUSY
        assert console.run("cat options/display-graph") == "0"
    finally:
        console.run("echo 0 > function_profile_enabled")
        console.run("echo 0 > options/display-graph")
    out = console.run("cat verify_sites", timeout=60)
    assert re.search(r"^ftrace sites: \d+ checked, \d+ calling ftrace: ok$", out, re.M), out


def test_wakeup_rt_in_an_instance(console):
    """Linux 6.1's allow_instances: wakeup_rt on an instance reports into the instance's max buffer, header and
    tracing_max_latency, the top level's untouched; one of the three at a time in all arrays (EBUSY, nothing
    changed); stopping it frees the instance's max buffer and lets the top level run one."""
    top_before = console.run("cat tracing_max_latency")
    assert console.run("mkdir instances/w") == ""
    try:
        listed = set(console.run("cat instances/w/available_tracers").split())
        assert {"wakeup", "wakeup_rt", "wakeup_dl"} <= listed, listed
        assert console.run("echo wakeup_rt > instances/w/current_tracer") == ""
        for name in ("wakeup", "wakeup_rt", "wakeup_dl"):
            assert console.run("echo %s > current_tracer" % name) == EBUSY, name
        assert console.run("cat current_tracer") == "nop"
        assert console.run("echo 0 > instances/w/tracing_max_latency") == ""
        pid, held = wake(console, "rtwake")
        latency = int(console.run("cat instances/w/tracing_max_latency"))
        assert 0 < latency <= held
        assert console.run("cat tracing_max_latency") == top_before
        lines = console.run("cat instances/w/trace", timeout=60).splitlines()
        assert lines[0] == "# tracer: wakeup_rt"
        m = next(LAT_LINE.match(l) for l in lines if l.startswith("# latency:"))
        assert int(m.group(1)) == latency
        assert "#    | task: rtwake-%d (uid:0 nice:0 policy:1 rt_prio:50)" % pid in lines, lines
        assert any(re.search(r"\s+1:120:R ==> \[000\]\s+%d: 49:R rtwake$" % pid, l) for l in lines), lines
        assert "latency trace" not in console.run("cat trace", timeout=60)
        assert console.run("echo nop > instances/w/current_tracer") == ""
        assert console.run("cat instances/w/snapshot").splitlines()[3] == "# * Snapshot is freed *"
        assert console.run("echo wakeup > current_tracer") == ""
        assert console.run("echo wakeup_dl > instances/w/current_tracer") == EBUSY
    finally:
        console.run("echo nop > current_tracer")
        console.run("echo nop > instances/w/current_tracer")
        console.run("rmdir instances/w")


def test_function_trace_switches_under_load(console, ev):
    """function-trace and display-graph switched back and forth while wakeup_rt runs and CPU 1 computes: each
    switch registers or drops the calls ops or fgraph's (sites patched on a running SMP machine); afterwards the
    tracer still reports a wait, and every call site is as ftrace wants it."""
    pids = re.findall(r"^\[(\d+)\]", console.run("run compute 1"), re.M)
    assert len(pids) == 1
    try:
        start(console, "wakeup_rt")
        for opt, val in [("function-trace", 0), ("display-graph", 1), ("function-trace", 1), ("display-graph", 0),
                         ("function-trace", 0), ("function-trace", 1), ("display-graph", 1), ("display-graph", 0)]:
            assert console.run("echo %d > options/%s" % (val, opt)) == "", (opt, val)
            assert console.run("cat options/%s" % opt) == str(val)
        pid, held = wake(console, "rtwake")
        latency = int(console.run("cat tracing_max_latency"))
        assert 0 < latency <= held
    finally:
        console.run("kill " + " ".join(pids))
        console.run("echo 1 > options/function-trace")
        console.run("echo 0 > options/display-graph")
    out = console.run("cat verify_sites", timeout=60)
    assert re.search(r"^ftrace sites: \d+ checked, \d+ calling ftrace: ok$", out, re.M), out
