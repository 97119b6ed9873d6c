"""tests/integration/test_latency.py: irqsoff, preemptoff and preemptirqsoff on 4 CPUs with three of them busy:
sections of known length (noirq, nopreempt) reported within stated bounds and named by their start
and end functions, tracing_max_latency growing only with a longer section, tracing_thresh mode, Linux's
latency output, the preemptirq events, bad input refused with state unchanged, every site intact after.

The bound: a section of US microseconds is reported as at least US and at most what the spin command measured
around it (the tracer's own clock readings sit inside that interval), so the check holds however slow QEMU
runs.  Sections the tests do not make (an interrupt handler stalled by the host) can be long under load, so
the lengths used are tens of milliseconds, far above any the kernel makes by itself."""

import re

import pytest

SMP = 4
EINVAL = "echo: write error: Invalid argument"
EBUSY = "echo: write error: Device or resource busy"
LAT_LINE = re.compile(r"^# latency: (\d+) us, #(\d+)/(\d+), CPU#(\d) \| \(M:preempt VP:0, KP:0, SP:0 HP:0 #P:4\)$")
CONTEXT = re.compile(r"^ {0,8}\S{1,8}-\d+ +\d+[d.][N.][hzZ.][0-9a-f.]\. +\d+us.: ")


@pytest.fixture
def load(console):
    pids = re.findall(r"^\[(\d+)\]", console.run("run compute 1-3"), re.M)
    assert len(pids) == 3
    yield
    console.run("kill " + " ".join(pids))


def spin(console, cmd, us):
    out = console.run("%s %d" % (cmd, us), timeout=120)
    m = re.match(r"^(irqs|preemption) off for (\d+) us$", out)
    assert m, out
    return int(m.group(2))


def max_latency(console):
    return int(console.run("cat tracing_max_latency"))


def start_tracer(console, name):
    """Switch to a latency tracer with the worst so far at 10 ms: from 0, a short section of a loaded CPU could
    become the worst during a spin and, by max_sequence as in Linux, make check_critical_timing() drop the
    spin's own section."""
    assert console.run("echo %s > current_tracer" % name) == ""
    assert console.run("echo 10000 > tracing_max_latency") == ""


def header(console):
    """(latency, started at, ended at) of the trace's header, and its lines."""
    lines = console.run("cat trace", timeout=60).splitlines()
    m = next(LAT_LINE.match(l) for l in lines if l.startswith("# latency:"))
    start = [l.split(": ", 1)[1] for l in lines if l.startswith("#  => started at:")]
    end = [l.split(": ", 1)[1].strip() for l in lines if l.startswith("#  => ended at:")]
    return int(m.group(1)), start, end, lines


def verify_sites(console):
    out = console.run("cat verify_sites", timeout=60)
    assert re.search(r"^ftrace sites: \d+ checked, \d+ calling ftrace: ok$", out, re.M), out
    assert re.search(r"^jump label sites: \d+ checked: ok$", out, re.M), out
    assert "ftrace_bug reports: 0, jump label bugs: 0" in out, out


def test_tracers_are_listed(console):
    tracers = console.run("cat available_tracers").split()
    assert {"irqsoff", "preemptoff", "preemptirqsoff"} <= set(tracers)


def test_irqsoff_measures_a_known_section(console, load):
    start_tracer(console, "irqsoff")
    measured = spin(console, "noirq", 30000)
    lat = max_latency(console)
    assert 30000 <= lat <= measured, (lat, measured)
    reported, start, end, lines = header(console)
    assert reported == lat
    assert lines[:4] == ["# tracer: irqsoff", "#", "# irqsoff latency trace v1.1.5 on 0.1.0",
                         "# " + "-" * 68]
    assert start == ["spin_cmd"] and end == ["spin_cmd"], lines[:12]
    assert "#    | task: sh-1 (uid:0 nice:0 policy:0 rt_prio:0)" in lines
    body = [l for l in lines if not l.startswith("#")]
    # The section's first event (at its start, give or take the cost of writing it), its end, the hook that ended it, then where interrupts came on.
    assert CONTEXT.match(body[0]) and body[0].endswith("latency_spin_irqs_off <-spin_cmd"), body[:3]
    assert any(l.endswith(": trace_hardirqs_on <-spin_cmd") for l in body), body
    stack = body[body.index(next(l for l in body if l.endswith("<stack trace>"))) + 1:]
    assert stack[:2] == [" => latency_spin_irqs_off", " => spin_cmd"], stack
    for l in body:
        assert CONTEXT.match(l) or l.startswith(" => "), l
        if CONTEXT.match(l):
            assert re.match(r"^ {0,8}\S+-\d+ +0d", l), l   # the shell's CPU, interrupts off throughout


def test_max_grows_only_with_a_longer_section(console, load):
    start_tracer(console, "irqsoff")
    spin(console, "noirq", 30000)
    first = max_latency(console)
    spin(console, "noirq", 5000)
    assert max_latency(console) >= first
    reported, _, _, lines = header(console)
    assert reported >= first       # the shorter section did not replace the worst one
    measured = spin(console, "noirq", 2 * first)
    second = max_latency(console)
    assert 2 * first <= second <= measured
    assert header(console)[0] == second
    # Down to 10 ms, not 0: at 0 a sub-millisecond section of another busy CPU could become the worst
    # during the spin and, by max_sequence as Linux's, make check_critical_timing() drop the spin's.
    assert console.run("echo 10000 > tracing_max_latency") == ""
    measured = spin(console, "noirq", 20000)
    assert 20000 <= max_latency(console) <= measured   # reset: a shorter one is the worst again


THRESH = 20000
WORST = 1000000       # a worst so far of 1 s: in threshold mode every section above THRESH is recorded all the same


def thresh_record(console):
    """What threshold mode recorded since tracing_max_latency was set to WORST: None, or (latency, ours). Every
    recorded section is above the threshold, whoever made it; ours started and ended in spin_cmd."""
    lat = max_latency(console)
    if lat == WORST:
        return None
    reported, start, end, lines = header(console)
    assert reported == lat and lat >= THRESH, (lat, lines[:12])
    return lat, start == ["spin_cmd"] and end == ["spin_cmd"]


def thresh_spin(console, us):
    """Spin for us with interrupts off and return (measured, what was recorded). The worst so far is set to WORST
    first: no section is longer, so without threshold mode none would be recorded, and nothing older can be read
    for this spin's record."""
    assert console.run("echo %d > tracing_max_latency" % WORST) == ""
    measured = spin(console, "noirq", us)
    return measured, thresh_record(console)


def spin_recorded(console, us):
    """A section of us above the threshold is recorded, whatever the worst so far: its record, in [us, measured].
    A section the test did not make (an interrupt handler the loaded host stalled past the threshold) may be
    recorded instead: on another CPU during the spin it ends the spin's own by max_sequence, as in Linux, and it
    is above the threshold like every record. Such a spin is done again, at most twice more."""
    for _ in range(3):
        measured, rec = thresh_spin(console, us)
        assert rec, "a %d us section above the %d us threshold was not recorded" % (us, THRESH)
        if rec[1]:
            assert us <= rec[0] <= measured, (rec, measured)
            return rec[0]
    raise AssertionError("three spins of %d us, each record someone else's" % us)


def test_tracing_thresh_records_every_section_above_it(console, load):
    console.run("echo irqsoff > current_tracer")
    assert console.run("echo %d > tracing_thresh" % THRESH) == ""
    spin_recorded(console, 40000)
    # Below the threshold: not recorded, unless the host stretched the spin itself past it (measured says so).
    measured, rec = thresh_spin(console, 10000)
    if rec and rec[1]:
        assert THRESH <= rec[0] <= measured, (rec, measured)
    spin_recorded(console, 25000)                 # shorter than the first, recorded as well
    console.run("echo 0 > tracing_thresh")


def test_preemptoff_measures_preemption_off(console, load):
    start_tracer(console, "preemptoff")
    measured = spin(console, "nopreempt", 30000)
    lat = max_latency(console)
    assert 30000 <= lat <= measured
    reported, start, end, lines = header(console)
    assert lines[2] == "# preemptoff latency trace v1.1.5 on 0.1.0"
    assert start == ["spin_cmd"] and end == ["spin_cmd"]
    body = [l for l in lines if not l.startswith("#")]
    assert re.match(r"^ {0,8}sh-1 +0\.\.\.1\. +\d+us.: latency_spin_preempt_off <-spin_cmd$", body[0]), body[0]
    assert any(l.endswith(": trace_preempt_on <-spin_cmd") for l in body)
    # Interrupts stay on while preemption is off: irqsoff would not see this section at all.
    console.run("echo irqsoff > current_tracer")
    spin(console, "nopreempt", 30000)
    assert max_latency(console) < 30000


def test_preemptirqsoff_sees_both(console, load):
    start_tracer(console, "preemptirqsoff")
    measured = spin(console, "nopreempt", 30000)
    assert 30000 <= max_latency(console) <= measured
    measured = spin(console, "noirq", 60000)
    assert 60000 <= max_latency(console) <= measured


def test_function_trace_records_functions_inside(console):
    start_tracer(console, "irqsoff")
    spin(console, "noirq", 30000)
    with_funcs = header(console)[3]
    console.run("echo 10000 > tracing_max_latency")   # above the other CPUs' short sections
    assert console.run("echo nofunction-trace > trace_options") == ""
    spin(console, "noirq", 30000)
    without = [l for l in header(console)[3] if not l.startswith("#")]
    # Only the start, the end, the hook's own line and the stack: nothing called in between.
    assert [l.rsplit(": ", 1)[1] for l in without if CONTEXT.match(l)] == [
        "latency_spin_irqs_off <-spin_cmd", "latency_spin_irqs_off <-spin_cmd", "trace_hardirqs_on <-spin_cmd",
        "<stack trace>"], without
    console.run("echo function-trace > trace_options")
    assert "latency-format" in console.run("cat trace_options").splitlines()
    console.run("echo nop > current_tracer")
    assert "nolatency-format" in console.run("cat trace_options").splitlines()
    assert len(with_funcs) > 0


def test_bad_input_changes_nothing(console):
    console.run("echo irqsoff > current_tracer")
    spin(console, "noirq", 30000)
    before = max_latency(console)
    for bad in ["abc", "-5", "12x", ""]:
        assert console.run("echo '%s' > tracing_max_latency" % bad) == EINVAL, bad
    # The tracer stays live: a longer section elsewhere (an idle CPU under TCG) may become the worst meanwhile
    # (313 us after 309 once, on a fresh clone), so a refused write must not lower the worst, and the header
    # must show it after the refused snapshot commands.
    assert max_latency(console) >= before
    # The max buffer is the tracer's: the user's snapshot commands are refused, as Linux's.
    for v in ["0", "1", "2"]:
        assert console.run("echo %s > snapshot" % v) == EBUSY, v
        assert console.run("echo %s > per_cpu/cpu1/snapshot" % v) == EBUSY, v
    first = max_latency(console)
    shown = header(console)[0]
    assert before <= first <= shown <= max_latency(console)
    assert console.run("noirq lots") == "usage: noirq US (at most 1000000)"
    assert console.run("noirq 1000001") == "usage: noirq US (at most 1000000)"


def test_switching_away_frees_the_max_buffer(console):
    console.run("echo irqsoff > current_tracer")
    spin(console, "noirq", 20000)
    console.run("echo nop > current_tracer")
    assert console.run("cat snapshot").splitlines()[3] == "# * Snapshot is freed *"


def test_preemptirq_events(console):
    assert console.run("cat events/preemptirq/irq_disable/format").splitlines()[:2] == [
        "name: irq_disable", "ID: " + console.run("cat events/preemptirq/irq_disable/id")]
    console.run("echo 1 > events/preemptirq/irq_disable/enable")
    console.run("echo 1 > events/preemptirq/irq_enable/enable")
    spin(console, "noirq", 1000)
    console.run("echo 0 > events/preemptirq/enable")
    trace = console.run("cat trace", timeout=60)
    assert re.search(r"irq_disable: caller=latency_spin_irqs_off\+0x[0-9a-f]+/0x[0-9a-f]+ "
                     r"parent=spin_cmd\+0x[0-9a-f]+/0x[0-9a-f]+$", trace, re.M), trace[-3000:]
    assert re.search(r"irq_enable: caller=latency_spin_irqs_off\+0x[0-9a-f]+/0x[0-9a-f]+ ", trace, re.M)
    console.run("echo 1 > events/preemptirq/preempt_disable/enable")
    spin(console, "nopreempt", 1000)
    console.run("echo 0 > events/preemptirq/enable")
    assert re.search(r"preempt_disable: caller=latency_spin_preempt_off\+", console.run("cat trace", timeout=60))
    verify_sites(console)


def test_tracers_under_load_leave_every_site_intact(console, load):
    for tracer in ["irqsoff", "preemptoff", "preemptirqsoff", "irqsoff"]:
        assert console.run("echo %s > current_tracer" % tracer) == ""
        console.run("run fs 1-3 1")
        console.run("selftest timer_ticks")
        header(console)
    console.run("echo nop > current_tracer")
    verify_sites(console)


def test_ftracetest_irqsoff_checks_hold(console):
    """What Linux's test.d/preemptirq/irqsoff_tracer.tc checks after its module (preemptirq_delay_test) spun 500 ms
    with preemption, then interrupts, off: the case itself is UNRESOLVED here, as we load no modules (docs/21,
    section 15); nopreempt/noirq are the same sections, and the case's own three patterns must match. A run the
    host stretched to 600 ms or more cannot match `5.....` by construction (on Linux neither): tried again."""
    for tracer, cmd in (("preemptoff", "nopreempt"), ("irqsoff", "noirq")):
        for _ in range(3):
            start_tracer(console, tracer)
            if spin(console, cmd, 500000) < 600000:
                break
        else:
            pytest.fail("three %s 500000 runs all measured 600 ms or more" % cmd)
        trace = console.run("cat trace", timeout=60)
        assert re.search(r"tracer: %s" % tracer, trace), trace[:300]
        assert re.search(r"5.....us : <stack trace>", trace), trace
        assert re.search(r"latency: 5..... us", trace), trace[:600]


# display-graph's header (Linux's print_lat_header() and __print_graph_headers_flags() with the irqsoff tracers'
# flags: relative time, CPU, task, duration, latency-format), after the latency header.
GRAPH_HEADER = [
    "#                                       _-----=> irqs-off        ",
    "#                                      / _----=> need-resched    ",
    "#                                     | / _---=> hardirq/softirq ",
    "#                                     || / _--=> preempt-depth   ",
    "#                                     ||| /                      ",
    "#   REL TIME      CPU  TASK/PID       ||||     DURATION                  FUNCTION CALLS",
    "#      |          |     |    |        ||||      |   |                     |   |   |   |"]
GRAPH_CALL = re.compile(r"^ +(\d+) us \|   0\)      sh-1      \|  d\.\.\.\. \|   0\.000 us    \|  (\w+)\(\);$")


def test_display_graph_shows_the_section_as_a_graph(console, load):
    """display-graph: the same section in the graph layout, time from its start; switching it resets the worst;
    refused (EBUSY, option unchanged) while the function profiler holds fgraph."""
    start_tracer(console, "irqsoff")
    assert console.run("echo 900000 > tracing_max_latency") == ""
    assert console.run("echo 1 > options/display-graph") == ""
    # A fresh start, as Linux's irqsoff_display_graph(): the worst goes to 0 (and on the loaded CPUs a short
    # section may already have become the new worst: never anything near 0.9 s).
    assert max_latency(console) < 900000
    assert console.run("echo 10000 > tracing_max_latency") == ""
    try:
        measured = spin(console, "noirq", 30000)
        lat = max_latency(console)
        assert 30000 <= lat <= measured, (lat, measured)
        lines = console.run("cat trace", timeout=60).splitlines()
        assert "#  => started at: spin_cmd" in lines and "#  => ended at:   spin_cmd" in lines, lines[:12]
        i = lines.index(GRAPH_HEADER[0])
        assert lines[i:i + len(GRAPH_HEADER)] == GRAPH_HEADER
        body = lines[i + len(GRAPH_HEADER):]
        calls = [GRAPH_CALL.match(l) for l in body[:3]]
        assert all(calls), body[:4]
        # Start and end: calls of no length (Linux's trace_graph_function()), the end at the reported latency.
        assert [m.group(2) for m in calls] == ["latency_spin_irqs_off", "latency_spin_irqs_off",
                                               "trace_hardirqs_on"], body[:3]
        assert int(calls[0].group(1)) <= 30000 <= int(calls[1].group(1)) <= lat
        assert re.match(r"^ +\d+ us \|   0\)      sh-1      \|  d\.\.\.\. \|               \|  /\* <stack trace>$",
                        body[3]), body[3]
        assert body[4:6] == [" => latency_spin_irqs_off", " => spin_cmd"], body[4:6]
        assert body[-1].endswith(" */"), body[-1]
        # The profiler is fgraph's user: display-graph cannot take it, and stays as it was.
        assert console.run("echo 0 > options/display-graph") == ""
        assert console.run("echo 1 > function_profile_enabled") == ""
        worst = max_latency(console)
        assert console.run("echo 1 > options/display-graph") == EBUSY
        assert console.run("cat options/display-graph") == "0"
        assert max_latency(console) >= worst                 # refused: the worst is not forgotten
    finally:
        console.run("echo 0 > function_profile_enabled")
        console.run("echo 0 > options/display-graph")
    verify_sites(console)


def test_irqsoff_family_in_an_instance(console, load):
    """Linux 6.1's allow_instances: irqsoff on an instance times into the instance's own buffer, max buffer and
    tracing_max_latency and leaves the top level's alone; one of the three runs at a time in all arrays, any
    other start is refused with EBUSY and changes nothing; switching away frees the instance's max buffer."""
    top_before = max_latency(console)
    assert console.run("mkdir instances/lat") == ""
    assert console.run("mkdir instances/other") == ""
    try:
        listed = set(console.run("cat instances/lat/available_tracers").split())
        assert {"irqsoff", "preemptoff", "preemptirqsoff"} <= listed, listed
        assert console.run("echo irqsoff > instances/lat/current_tracer") == ""
        assert console.run("cat instances/lat/current_tracer") == "irqsoff"
        assert console.run("echo 10000 > instances/lat/tracing_max_latency") == ""
        for name in ("irqsoff", "preemptoff", "preemptirqsoff"):
            assert console.run("echo %s > instances/other/current_tracer" % name) == EBUSY, name
            assert console.run("echo %s > current_tracer" % name) == EBUSY, name
        assert console.run("cat instances/other/current_tracer") == "nop"
        assert console.run("cat current_tracer") == "nop"
        assert console.run("echo 1 > instances/lat/snapshot") == EBUSY
        measured = spin(console, "noirq", 30000)
        lat = int(console.run("cat instances/lat/tracing_max_latency"))
        assert 30000 <= lat <= measured, (lat, measured)
        assert max_latency(console) == top_before
        lines = console.run("cat instances/lat/trace", timeout=60).splitlines()
        assert lines[:3] == ["# tracer: irqsoff", "#", "# irqsoff latency trace v1.1.5 on 0.1.0"], lines[:4]
        m = next(LAT_LINE.match(l) for l in lines if l.startswith("# latency:"))
        assert int(m.group(1)) == lat
        assert "#  => started at: spin_cmd" in lines and "#  => ended at:   spin_cmd" in lines, lines[:12]
        body = [l for l in lines if not l.startswith("#")]
        assert any(l.endswith("latency_spin_irqs_off <-spin_cmd") for l in body), body[:4]
        assert "latency trace" not in console.run("cat trace", timeout=60)
        # Released: the top level may run one now, and the instance's max buffer is gone.
        assert console.run("echo nop > instances/lat/current_tracer") == ""
        assert console.run("cat instances/lat/snapshot").splitlines()[3] == "# * Snapshot is freed *"
        assert console.run("echo preemptoff > current_tracer") == ""
        assert console.run("echo irqsoff > instances/lat/current_tracer") == EBUSY
        assert console.run("echo nop > current_tracer") == ""
        # rmdir of an instance that runs one stops it first: the next start anywhere is not refused.
        assert console.run("echo preemptirqsoff > instances/other/current_tracer") == ""
        assert console.run("rmdir instances/other") == ""
        assert console.run("echo preemptirqsoff > instances/lat/current_tracer") == ""
        spin(console, "noirq", 2000)
        assert console.run("echo nop > instances/lat/current_tracer") == ""
    finally:
        console.run("echo nop > instances/lat/current_tracer")
        console.run("rmdir instances/lat")
        console.run("rmdir instances/other")
