"""tests/integration/test_events.py: trace events as a Linux user drives them: the events/ tree,
available_events, set_event's syntax, the enable files (0, 1, X, 0*), format and id, sched_switch
lines that agree with ps, events beside the function tracer, set_event_pid, triggers, and bad
writes that change nothing."""

import os
import re
import time

from tests.console import stress_rounds

SMP = 4
EINVAL = "echo: write error: Invalid argument"
LINE = (r"^(?P<comm>[ -~]{16})-(?P<pid>\d+) *(?<= )\[(?P<cpu>\d{3})\] "
        r"(?P<flags>[d.][N.][hzZ.][0-9a-f.][.]) +(?P<ts>\d+\.\d{6}): (?P<rest>.*)$")
SWITCH = (r"^sched_switch: prev_comm=(?P<prev_comm>\S+) prev_pid=(?P<prev_pid>\d+) prev_prio=120 "
          r"prev_state=(?P<prev_state>R\+?|S|X) ==> next_comm=(?P<next_comm>\S+) "
          r"next_pid=(?P<next_pid>\d+) next_prio=120$")

# Linux 6.1's own text (tests/data/linux-6.1/, as test_format_files.py holds it), its ID line ours.
SCHED_SWITCH_FORMAT = re.sub(r"^ID: \d+$", "ID: {id}", open(os.path.join(
    os.path.dirname(__file__), "..", "data", "linux-6.1", "sched.sched_switch.format")).read(), flags=re.M)[:-1]


def events(console):
    """(context, rest) of every line of `cat trace` after its header."""
    out = console.run("cat trace", timeout=60).splitlines()
    lines = [l for l in out if not l.startswith("#")]
    parsed = []
    for line in lines:
        m = re.match(LINE, line)
        assert m, "bad trace line: %r" % line
        parsed.append(m.groupdict())
    return parsed


def run_workload(console, cmd, timeout=60):
    """Starts `run ...`, waits for its tasks to end; returns their pids (as strings)."""
    pids = []
    for line in console.run(cmd).splitlines():
        m = re.match(r"^\[(\d+)\] (\w+) on CPU (\d+)$", line)
        assert m, line
        pids.append(m.group(1))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        live = set(re.findall(r"^\s*(\d+)\s", console.run("ps"), re.M))
        if not live & set(pids):
            return pids
        time.sleep(0.2)
    raise AssertionError("%s still running" % cmd)


def test_available_events_and_tree(console):
    avail = console.run("cat available_events").splitlines()
    for want in ("sched:sched_switch", "sched:sched_wakeup", "sched:sched_waking",
                 "sched:sched_process_exit"):
        assert want in avail
    assert avail == sorted(avail, key=lambda s: s.split(":"))
    systems = sorted({a.split(":")[0] for a in avail})
    # Beside the systems, as in Linux: the fixed types (ftrace/) and the page and event headers.
    assert sorted(console.run("ls events").split()) == sorted(
        ["enable", "header_event", "header_page", "ftrace/"] + ["%s/" % s for s in systems])
    listing = console.run("ls events/sched").split()
    assert listing[:2] == ["enable", "filter"]
    assert console.run("ls events/sched/sched_switch").split() == ["enable", "filter", "format",
                                                                    "hist", "id", "trigger"]


def test_format_and_id_match_linux_layout(console):
    ident = console.run("cat events/sched/sched_switch/id")
    assert ident.isdigit()
    assert console.run("cat events/sched/sched_switch/format") == SCHED_SWITCH_FORMAT.replace("{id}", ident)
    ids = [console.run("cat events/%s/id" % a.replace(":", "/"))
           for a in console.run("cat available_events").splitlines()]
    assert len(set(ids)) == len(ids)
    for path in ("format", "id"):
        assert (console.run("echo 1 > events/sched/sched_switch/%s" % path) ==
                "events/sched/sched_switch/%s: Permission denied" % path)
    assert console.run("echo x > available_events") == "available_events: Permission denied"


def test_enable_files_and_their_states(console):
    assert console.run("cat events/enable") == "0"
    assert console.run("cat events/sched/sched_switch/enable") == "0"
    assert console.run("echo 1 > events/sched/sched_switch/enable") == ""
    assert console.run("cat events/sched/sched_switch/enable") == "1"
    assert console.run("cat events/sched/enable") == "X"
    assert console.run("cat events/enable") == "X"
    assert console.run("cat set_event") == "sched:sched_switch"
    assert console.run("echo 1 > events/sched/enable") == ""
    assert console.run("cat events/sched/enable") == "1"
    assert console.run("echo 1 > events/enable") == ""
    assert console.run("cat events/enable") == "1"
    assert console.run("echo 0 > events/enable") == ""
    assert console.run("cat events/enable") == "0"
    assert console.run("cat set_event") == ""
    for bad in ("2", "-1", "on", "", "1 1", "0x1"):
        assert console.run("echo '%s' > events/sched/sched_switch/enable" % bad) == EINVAL
        assert console.run("echo '%s' > events/sched/enable" % bad) == EINVAL
    assert console.run("cat events/enable") == "0"


def test_set_event_syntax(console):
    sched = [a for a in console.run("cat available_events").splitlines() if a.startswith("sched:")]
    assert console.run("echo sched:sched_switch > set_event") == ""
    assert console.run("cat set_event") == "sched:sched_switch"
    assert console.run("echo sched:sched_wakeup >> set_event") == ""
    assert console.run("cat set_event").splitlines() == ["sched:sched_switch", "sched:sched_wakeup"]
    assert console.run("echo '!sched:sched_wakeup' >> set_event") == ""
    assert console.run("cat set_event") == "sched:sched_switch"
    assert console.run("echo 'sched:*' > set_event") == ""
    assert console.run("cat set_event").splitlines() == sched
    assert console.run("echo sched_waking > set_event") == ""      # `>` starts from nothing
    assert console.run("cat set_event") == "sched:sched_waking"
    assert console.run("echo sched > set_event") == ""             # a bare system name
    assert console.run("cat set_event").splitlines() == sched
    assert console.run("echo '*:*' > set_event") == ""
    assert console.run("cat events/enable") == "1"
    assert console.run("echo > set_event") == ""
    assert console.run("cat set_event") == ""
    # Bad tokens change nothing, even when good ones come first.
    console.run("echo sched:sched_switch > set_event")
    for bad in ("nosuch", "sched:nosuch", "nosys:sched_switch", "sched_switch:sched",
                "sched:sched_wakeup nosuch", "sched*", "!nosuch"):
        assert console.run("echo '%s' >> set_event" % bad) == EINVAL, bad
        assert console.run("cat set_event") == "sched:sched_switch"
    assert console.run("echo %s >> set_event" % ("x" * 200)) == EINVAL


def test_sched_switch_agrees_with_ps(console):
    console.run("echo > trace")
    assert console.run("echo 1 > events/sched/sched_switch/enable") == ""
    spin_pid, = run_workload(console, "run spin 1 1")
    console.run("echo 0 > events/sched/sched_switch/enable")
    lines = events(console)
    switches = [(l, re.match(SWITCH, l["rest"])) for l in lines]
    assert switches and all(m for _, m in switches), lines[:5]
    for ctx, m in switches:
        # The line's task is the one switching out, on its own CPU.
        assert int(ctx["pid"]) == int(m.group("prev_pid"))
        assert "d" == ctx["flags"][0]       # the scheduler runs with interrupts off
    on_cpu1 = [m for ctx, m in switches if ctx["cpu"] == "001"]
    assert any(m.group("next_comm") == "spin" and m.group("next_pid") == spin_pid for m in on_cpu1)
    # Consecutive switches on a CPU chain: who came in is who goes out next.
    for cpu in {ctx["cpu"] for ctx, _ in switches}:
        seq = [m for ctx, m in switches if ctx["cpu"] == cpu]
        for a, b in zip(seq, seq[1:]):
            assert a.group("next_pid") == b.group("prev_pid"), (cpu, a.group(0), b.group(0))
    idle = [m for _, m in switches if m.group("prev_pid") == "0"]
    assert all(re.match(r"swapper/\d", m.group("prev_comm")) for m in idle)


def test_events_interleave_with_function_tracer(console):
    console.run("echo schedule > set_ftrace_filter")
    console.run("echo '__schedule' >> set_ftrace_filter")
    assert console.run("echo function > current_tracer") == ""
    assert console.run("echo 1 > events/sched/sched_switch/enable") == ""
    run_workload(console, "run spin 1 1")
    console.run("echo 0 > tracing_on")
    rest = [l["rest"] for l in events(console)]
    assert any(r.startswith("sched_switch: ") for r in rest)
    assert any(re.match(r"^_*schedule <-", r) for r in rest)
    # With the nop tracer, events alone.
    console.run("echo nop > current_tracer")
    console.run("echo 1 > tracing_on")
    run_workload(console, "run spin 1 1")
    rest = [l["rest"] for l in events(console)]
    assert rest and all(r.startswith("sched_switch: ") for r in rest)


def test_set_event_pid_keeps_only_listed_tasks(console):
    # Two tasks on CPU 2, so it switches between them; only one of them is listed.
    pid = console.run("run spin 2 2").split()[0].strip("[]")
    console.run("run compute 2 2")
    assert console.run("echo %s > set_event_pid" % pid) == ""
    assert console.run("cat set_event_pid") == pid
    console.run("echo > trace")
    console.run("echo 1 > events/sched/sched_switch/enable")
    # Until another task switches to the listed one (the switch the pid filter must keep).
    console.poll("cat trace", lambda out: re.search(r"prev_pid=(?!%s )\d+ .*next_pid=%s " % (pid, pid), out),
                 timeout=60)
    console.run("echo 0 > events/sched/sched_switch/enable")
    switches = [re.match(SWITCH, l["rest"]) for l in events(console)]
    assert switches
    assert all(pid in (m.group("prev_pid"), m.group("next_pid")) for m in switches)
    # As Linux: the switch *to* the listed task is kept too, though another task makes it.
    assert any(m.group("next_pid") == pid and m.group("prev_pid") != pid for m in switches)
    for bad in ("abc", "-1", "99999", "1 x"):
        assert console.run("echo '%s' > set_event_pid" % bad) == EINVAL
        assert console.run("cat set_event_pid") == pid
    run_workload(console, "run compute 3 1")
    assert console.run("echo > set_event_pid") == ""
    assert console.run("cat set_event_pid") == ""


def tracing_turns_off(console, polls=50):
    """True once tracing_on reads 0. A sched_switch trigger needs some switch to fire: between polls
    the shell waits for input with none typed, so it sleeps, and that is a switch of its own (typed
    ahead, the next command could be read without one)."""
    for _ in range(polls):
        if console.run("cat tracing_on") == "0":
            return True
        time.sleep(0.05)
    return False


def test_triggers_traceoff_count_and_removal(console):
    trig = "events/sched/sched_switch/trigger"
    assert console.run("cat %s" % trig) == ("# Available triggers:\n# traceon traceoff snapshot stacktrace"
                                            " enable_event disable_event enable_hist"
                                            " disable_hist hist")
    assert console.run("echo traceoff:2 > %s" % trig) == ""
    # The trigger alone attaches the probe: the event is off but "soft" enabled. The shell's own
    # next switch (it sleeps for input) fires it at once.
    assert console.run("cat events/sched/sched_switch/enable") == "0*"
    assert tracing_turns_off(console)
    assert console.run("cat %s" % trig) == "traceoff:count=1"
    # A count is spent only when tracing is turned off: with tracing off it waits.
    run_workload(console, "run spin 1 1")
    assert console.run("cat %s" % trig) == "traceoff:count=1"
    console.run("echo 1 > tracing_on")
    assert tracing_turns_off(console)
    assert console.run("cat %s" % trig) == "traceoff:count=0"
    console.run("echo 1 > tracing_on")
    run_workload(console, "run spin 1 1")
    assert console.run("cat tracing_on") == "1"
    assert console.run("echo 'traceon if prev_pid == 0' >> %s" % trig) == ""
    # Newest first, as Linux lists (and runs) them.
    assert console.run("cat %s" % trig).splitlines() == ["traceon:unlimited if prev_pid == 0",
                                                         "traceoff:count=0"]
    assert console.run("echo traceoff >> %s" % trig) == "echo: write error: File exists"
    assert console.run("echo '!traceoff' >> %s" % trig) == ""
    assert console.run("cat %s" % trig) == "traceon:unlimited if prev_pid == 0"
    assert console.run("cat events/sched/sched_switch/enable") == "0*"
    assert console.run("echo '!traceon' >> %s" % trig) == ""
    assert console.run("cat events/sched/sched_switch/enable") == "0"
    assert console.run("cat %s" % trig).startswith("# Available triggers:")
    for bad in ("nosuch", "traceoff:x", "traceoff:-1", "traceoff if", "stacktrace if nosuch == 1",
                "!nosuch"):
        assert console.run("echo '%s' >> %s" % (bad, trig)) == EINVAL, bad
        assert console.run("cat %s" % trig).startswith("# Available triggers:")


def test_stacktrace_trigger_records_the_callers(console):
    console.run("echo > trace")
    assert console.run("echo 'stacktrace:1' > events/sched/sched_switch/trigger") == ""
    console.run("echo 1 > events/sched/sched_switch/enable")
    run_workload(console, "run spin 1 1")
    console.run("echo 0 > events/sched/sched_switch/enable")
    out = console.run("cat trace", timeout=60)
    assert "<stack trace>" in out, out
    after = out.split("<stack trace>", 1)[1].splitlines()[1:4]
    assert after[0] == " => __traceiter_sched_switch", after
    assert re.match(r"^ => \w+$", after[1]), after
    assert console.run("cat events/sched/sched_switch/trigger") == "stacktrace:count=0"


GOOD_FILTERS = [
    "prev_pid == 1",
    "prev_pid != 0 && next_pid == 0",
    "next_comm ~ \"swapper*\"",
    "(prev_pid == 1 || prev_pid == 0) && !(next_prio > 120)",
    "prev_state & 1",
    "common_pid >= 0",
    'prev_comm == "sh"',
]
# (filter, the error_log line, the caret's column within the command: Linux 6.1's positions, one past
# the offending byte for most errors, as its own tracing-error-log selftest expects)
BAD_FILTERS = [
    ("prev_pd == 1", "Field not found", 8),
    ("prev_pid == abc", "Invalid value (did you forget quotes)?", 13),
    ("prev_comm > 3", "Expecting string field", 13),
    ("(prev_pid == 1", "Too many '('", 0),
    ("prev_pid == 1)", "Too few '('", 13),
    ("next_comm == \"sw", "Missing matching quote", 13),
    ("prev_pid ~ 1", "Illegal operation for field type", 12),
]


def test_event_filter_grammar_and_error_log(console):
    flt = "events/sched/sched_switch/filter"
    assert console.run("cat %s" % flt) == "none"
    for good in GOOD_FILTERS:
        assert console.run("echo '%s' > %s" % (good, flt)) == "", good
        assert console.run("cat %s" % flt) == good
    console.run("echo 'prev_pid == 1' > %s" % flt)
    console.run("echo > error_log")
    for bad, text, col in BAD_FILTERS:
        console.run("echo 'prev_pid == 1' > %s" % flt)
        assert console.run("echo '%s' > %s" % (bad, flt)) == EINVAL, bad
        # As Linux 6.1 (issue 26): the refused text replaces the old filter, disabled, and the file
        # shows it with a caret (at most at its end) and the message.
        shown = console.run("cat %s" % flt).splitlines()
        stripped = bad.rstrip()
        assert shown == [stripped, " " * min(col, len(stripped)) + "^", "parse_error: " + text], (bad, shown)
        log = console.run("cat error_log").splitlines()[-3:]
        assert re.match(r"^\[ *\d+\.\d{6}\] event filter parse error: error: (.*)$", log[0]), log
        assert log[0].endswith(": error: " + text), (bad, log)
        assert log[1] == "  Command: " + bad
        assert log[2] == " " * (len("  Command: ") + col) + "^", (bad, log)
    assert console.run("echo > error_log") == ""
    assert console.run("cat error_log") == ""
    assert console.run("echo 0 > %s" % flt) == ""
    assert console.run("cat %s" % flt) == "none"


def test_filter_keeps_only_matching_records(console):
    console.run("echo > trace")
    assert console.run("echo 'next_pid == 0' > events/sched/sched_switch/filter") == ""
    console.run("echo 1 > events/sched/sched_switch/enable")
    run_workload(console, "run spin 1-3 1")
    console.run("echo 0 > events/sched/sched_switch/enable")
    switches = [re.match(SWITCH, l["rest"]) for l in events(console)]
    assert switches and all(m and m.group("next_pid") == "0" for m in switches)
    # A system-wide filter lands on each of its events that has the field...
    assert console.run("echo 'prev_pid == 1' > events/sched/filter") == "echo: write error: Invalid argument"
    assert console.run("cat events/sched/sched_switch/filter") == "next_pid == 0"
    assert console.run("echo 'common_pid == 1' > events/sched/filter") == ""
    for ev in ("sched_switch", "sched_wakeup", "sched_waking", "sched_process_exit"):
        assert console.run("cat events/sched/%s/filter" % ev) == "common_pid == 1"
    assert console.run("cat events/sched/filter") == "common_pid == 1"
    assert console.run("echo 0 > events/sched/filter") == ""
    assert console.run("cat events/sched/sched_switch/filter") == "none"


FLIPS = stress_rounds(2, 40)                # with each method; 40 in `make stress`


def test_event_flips_under_load_with_both_methods(console):
    """Events switched on and off FLIPS times with each patch method while every CPU runs the code
    that hits them (the scheduler, the timer and IPI handlers, kmalloc); then every jump-label
    site must hold the form its key wants, and every tracepoint key must be off again."""
    from tests.integration.test_jump_label import keys
    console.run("echo > trace")
    console.run("run spin 1-3 60")
    console.run("run fs 1-3 60")
    try:
        for method in ("breakpoint", "stop_machine"):
            assert console.run("echo %s > patch_method" % method) == ""
            for i in range(FLIPS):
                assert console.run("echo 'sched irq_vectors kmem' > set_event") == ""
                assert console.run("echo > set_event") == ""
    finally:
        console.run("echo breakpoint > patch_method")
        console.run("kill all")
    ks = keys(console)
    tps = {k: v for k, v in ks.items() if k.startswith("__tracepoint_")}
    assert tps and all(v["state"] == "off" and v["count"] == 0 for v in tps.values()), tps
    assert all(s["form"] == "nop" for v in tps.values() for s in v["sites"])
    assert "ok 1 jump_label_sites_match_keys" in console.run("selftest jump_label_sites_match_keys",
                                                             timeout=120)
    assert "MISMATCHES" in console.run("cat /proc/workloads")
    rows = [l.split() for l in console.run("cat /proc/workloads").splitlines()[1:]]
    assert rows and all(r[-1] == "0" for r in rows if r[1] == "spin"), rows
    # What was recorded in between is well-formed and names real events.
    out = console.run("cat trace", timeout=120).splitlines()
    assert any("sched_switch: " in l for l in out)


def test_function_graph_prints_events_as_comments(console):
    console.run("echo __schedule > set_ftrace_filter")
    assert console.run("echo function_graph > current_tracer") == ""
    console.run("echo 1 > events/sched/sched_switch/enable")
    run_workload(console, "run spin 1 1")
    console.run("echo 0 > tracing_on")
    out = console.run("cat trace", timeout=60).splitlines()
    comments = [l for l in out if "/* sched_switch: " in l]
    assert comments, out[:20]
    for line in comments:
        # Linux's print_graph_comment(): the CPU column, an empty duration, the event in /* */.
        assert re.match(r"^ \d\)  +\|  +/\* sched_switch: prev_comm=\S+ prev_pid=\d+ .* next_prio=120 \*/$",
                        line), line
    assert any(re.match(r"^ \d\) .*__schedule\(\) \{$", l) for l in out)


def test_filter_on_a_string_pointer_field(console):
    """ipi's `const char *reason` is a string to filters, as Linux's FILTER_PTR_STRING."""
    flt = "events/ipi/ipi_raise/filter"
    assert console.run("echo 'reason == \"Function call interrupts\"' > %s" % flt) == ""
    console.run("echo > trace")
    console.run("echo 1 > events/ipi/ipi_raise/enable")
    run_workload(console, "run spin 1-3 1")
    console.run("echo 1 > events/bench/bench_event/enable")   # a patch batch: IPIs of both kinds
    console.run("echo 0 > events/enable")
    raises = [l["rest"] for l in events(console)]
    assert raises and all(r.endswith("(Function call interrupts)") for r in raises), raises[:5]
    assert console.run("echo 'reason > 3' > %s" % flt) == EINVAL
    assert console.run("echo 0 > %s" % flt) == ""


def test_refused_filter_leaves_the_event_unfiltered(console):
    """Linux 6.1 swaps a refused filter in disabled: the event records everything until the next write."""
    flt = "events/sched/sched_switch/filter"
    assert console.run("echo 'next_pid == 99999' > %s" % flt) == ""
    assert console.run("echo 1 > events/sched/sched_switch/enable") == ""
    try:
        console.run("echo > trace")
        run_workload(console, "run compute 0 1")
        assert "sched_switch:" not in console.run("cat trace")
        assert console.run("echo 'next_pid == ' > %s" % flt) == EINVAL
        console.run("echo > trace")
        run_workload(console, "run compute 0 1")
        assert "sched_switch:" in console.run("cat trace")
        assert console.run("cat %s" % flt).splitlines()[0] == "next_pid =="
        # CPU and COMM on an event that has neither field
        assert console.run("echo 'CPU == 0 && COMM ~ \"comp*\"' > %s" % flt) == ""
        assert console.run("cat %s" % flt) == 'CPU == 0 && COMM ~ "comp*"'
        console.run("echo > trace")
        run_workload(console, "run compute 0 1")
        lines = [l for l in console.run("cat trace").splitlines() if "sched_switch:" in l]
        assert lines and all(re.match(r"^ *compute-\d+ +\[000\]", l) for l in lines), lines[:5]
    finally:
        console.run("echo 0 > events/sched/sched_switch/enable")
        console.run("echo 0 > %s" % flt)
