"""tests/integration/test_instance_triggers.py: an event's filter and triggers belong to one trace array, as Linux's
trace_event_file does: two instances filter and trigger the same event differently, each keeping and firing only
for itself, beside a global array that has neither; trace_marker's ftrace/print with hist and snapshot triggers in an
instance; a histogram named with name= shared between arrays, and rmdir refused while another array shares it."""

import re

SMP = 1
EXEC = "events/sched/sched_process_exec"
EINVAL = "echo: write error: Invalid argument"
TOTALS = re.compile(r"\nTotals:\n    Hits: (\d+)\n    Entries: (\d+)\n    Dropped: (\d+)$")
AVAILABLE = ("# Available triggers:\n"
             "# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist")


def execs(console, trace):
    """The filename= of every sched_process_exec line of a trace file."""
    out = console.run("cat " + trace, timeout=120)
    return re.findall(r" sched_process_exec: filename=(\S+) ", out)


def hist_totals(console, path):
    out = console.run("cat " + path, timeout=60)
    m = TOTALS.search(out)
    assert m, out[-500:]
    return out, int(m.group(1)), int(m.group(2))


def run_programs(console):
    """/tests/hello twice and busybox's true once: three execs, two of one file."""
    for _ in range(2):
        assert console.run("/tests/hello", timeout=60).startswith("hello from ring 3")
    assert console.run("/bin/busybox true", timeout=60) == ""


def test_two_instances_filter_one_event_differently(console):
    console.run("mkdir instances/a")
    console.run("mkdir instances/b")
    console.run("echo 'filename ~ \"*hello\"' > instances/a/%s/filter" % EXEC)
    console.run("echo 'filename == \"/bin/busybox\"' > instances/b/%s/filter" % EXEC)
    for d in ("", "instances/a/", "instances/b/"):
        console.run("echo 1 > %s%s/enable" % (d, EXEC))
    run_programs(console)
    for d in ("", "instances/a/", "instances/b/"):
        console.run("echo 0 > %s%s/enable" % (d, EXEC))
    # Each array kept what its own filter passes; the global one, with no filter, all three.
    assert execs(console, "instances/a/trace") == ["/tests/hello", "/tests/hello"]
    assert execs(console, "instances/b/trace") == ["/bin/busybox"]
    assert execs(console, "trace") == ["/tests/hello", "/tests/hello", "/bin/busybox"]
    assert console.run("cat instances/a/%s/filter" % EXEC) == 'filename ~ "*hello"'
    assert console.run("cat instances/b/%s/filter" % EXEC) == 'filename == "/bin/busybox"'
    assert console.run("cat %s/filter" % EXEC) == "none"
    # A refused filter is shown in its array's file only, with Linux's caret, and the event records unfiltered.
    assert console.run("echo 'filename ~' > instances/a/%s/filter" % EXEC) == EINVAL
    assert console.run("cat instances/a/%s/filter" % EXEC).startswith("filename ~\n")
    assert console.run("cat instances/b/%s/filter" % EXEC) == 'filename == "/bin/busybox"'
    assert console.run("echo 0 > instances/a/%s/filter" % EXEC) == ""
    assert console.run("cat instances/a/%s/filter" % EXEC) == "none"
    # rmdir with a filter still set frees it.
    assert console.run("rmdir instances/a instances/b") == ""


def test_two_instances_trigger_one_event_differently(console):
    console.run("mkdir instances/a")
    console.run("mkdir instances/b")
    console.run("echo 'hist:keys=filename' > instances/a/%s/trigger" % EXEC)
    console.run("echo 'enable_event:sched:sched_process_exit' >> instances/a/%s/trigger" % EXEC)
    console.run("echo 'traceoff if filename ~ \"*hello\"' > instances/b/%s/trigger" % EXEC)
    console.run("echo stacktrace >> instances/b/%s/trigger" % EXEC)
    console.run("echo 'sched:sched_process_exec' > instances/b/set_event")
    assert console.run("cat instances/a/%s/enable instances/b/%s/enable %s/enable" % (EXEC, EXEC, EXEC)) \
        == "0*\n1*\n0"
    console.run("echo > trace")
    run_programs(console)
    # a: its histogram counted all three, and its enable_event switched its own sched_process_exit on.
    out, hits, entries = hist_totals(console, "instances/a/%s/hist" % EXEC)
    assert (hits, entries) == (3, 2), out
    assert re.search(r"^\{ filename: /tests/hello +\} hitcount: +2$", out, re.M), out
    assert re.search(r"^\{ filename: /bin/busybox +\} hitcount: +1$", out, re.M), out
    assert console.run("cat instances/a/events/sched/sched_process_exit/enable") == "1*"
    assert console.run("cat instances/b/events/sched/sched_process_exit/enable "
                       "events/sched/sched_process_exit/enable") == "0\n0"
    # b: the first hello stopped b alone, after its stacktrace was recorded into b's buffer (newest runs first).
    assert console.run("cat instances/b/tracing_on instances/a/tracing_on tracing_on") == "0\n1\n1"
    b = console.run("cat instances/b/trace", timeout=120)
    assert b.count(" sched_process_exec: ") == 1 and "<stack trace>" in b, b[-1500:]
    g = console.run("cat trace", timeout=120)
    assert "<stack trace>" not in g and " sched_process_exec: " not in g
    # Each array lists its own triggers; the global event has none.
    assert console.run("cat instances/b/%s/trigger" % EXEC) == \
        "stacktrace:unlimited\ntraceoff:unlimited if filename ~ \"*hello\""
    assert console.run("cat instances/a/%s/trigger" % EXEC).splitlines() == [
        "enable_event:sched:sched_process_exit:unlimited",
        "hist:keys=filename:vals=hitcount:sort=hitcount:size=2048 [active]"]
    assert console.run("cat %s/trigger" % EXEC) == AVAILABLE
    # An enable_event naming an event the instance does not have is refused, as Linux refuses it.
    assert console.run("echo 'enable_event:nosuch:event' > instances/a/%s/trigger" % EXEC) == EINVAL
    # rmdir with triggers set takes them off: the global event leaves nothing behind.
    assert console.run("rmdir instances/a instances/b") == ""
    assert console.run("cat %s/enable events/sched/sched_process_exit/enable" % EXEC) == "0\n0"


def test_trace_marker_triggers_in_an_instance(console):
    console.run("mkdir instances/m")
    console.run("echo 'hist:keys=common_pid' > instances/m/events/ftrace/print/trigger")
    console.run("echo snapshot >> instances/m/events/ftrace/print/trigger")
    for i in range(1, 5):
        console.run("echo 'mark >%d<' > instances/m/trace_marker" % i)
    console.run("echo 'global' > trace_marker")
    out, hits, entries = hist_totals(console, "instances/m/events/ftrace/print/hist")
    assert (hits, entries) == (4, 1), out
    assert console.run("cat events/ftrace/print/trigger") == AVAILABLE
    # Each write swapped the instance's buffers after its line: odd lines in trace, even ones in snapshot.
    live = re.findall(r"tracing_mark_write: mark >(\d)<", console.run("cat instances/m/trace", timeout=60))
    snap = re.findall(r"tracing_mark_write: mark >(\d)<", console.run("cat instances/m/snapshot", timeout=60))
    assert (live, snap) == (["1", "3"], ["2", "4"])
    assert "tracing_mark_write: global" in console.run("cat trace", timeout=60)
    assert console.run("rmdir instances/m") == ""


def test_named_histogram_shared_across_arrays_holds_rmdir(console):
    console.run("mkdir instances/n")
    console.run("echo 'hist:name=shared:keys=common_pid' > instances/n/%s/trigger" % EXEC)
    console.run("echo 'hist:name=shared:keys=common_pid' > %s/trigger" % EXEC)
    # A name that exists with other keys is refused wherever it is written.
    assert console.run("echo 'hist:name=shared:keys=filename' > events/sched/sched_process_exit/trigger") == EINVAL
    run_programs(console)
    shared, hits, _ = hist_totals(console, "instances/n/%s/hist" % EXEC)
    assert hits == 6, shared     # one map, fed by both arrays' triggers
    assert console.run("cat %s/hist" % EXEC, timeout=60) == shared
    busy = "rmdir: failed to remove 'instances/n': Device or resource busy"
    assert console.run("rmdir instances/n") == busy
    # Refused, nothing changed: the instance and its trigger are still there.
    assert console.run("cat instances/n/%s/trigger" % EXEC).startswith("hist:name=shared:keys=common_pid")
    console.run("echo '!hist:name=shared:keys=common_pid' >> %s/trigger" % EXEC)
    assert console.run("rmdir instances/n") == ""
    assert console.run("cat %s/trigger" % EXEC) == AVAILABLE


def test_error_log_per_instance(console):
    """instances/foo/error_log: the errors of that array's own filters and triggers, in Linux's layout; the top
    error_log has the top array's and the probe definitions' (which belong to no array, as Linux's NULL); each
    cleared by `echo > error_log` on its own."""
    console.run("echo > error_log")
    console.run("mkdir instances/el")
    try:
        assert console.run("cat instances/el/error_log") == ""
        assert console.run("echo 'prev_pd == 1' > instances/el/events/sched/sched_switch/filter") == EINVAL
        assert console.run("echo 'hist:keys=nosuch' > instances/el/%s/trigger" % EXEC) == EINVAL
        assert console.run("echo 'p:1bad vfs_read' >> kprobe_events") == EINVAL
        assert console.run("echo 'next_pd == 2' > events/sched/sched_switch/filter") == EINVAL
        log = console.run("cat instances/el/error_log").splitlines()
        assert [re.sub(r"^\[ *\d+\.\d{6}\] ", "", l) for l in log[0::3]] == [
            "event filter parse error: error: Field not found",
            "hist:sched:sched_process_exec: error: Couldn't find field"]
        assert log[1:3] == ["  Command: prev_pd == 1", " " * 19 + "^"]
        assert log[4] == "  Command: hist:keys=nosuch"
        top = [re.sub(r"^\[ *\d+\.\d{6}\] ", "", l) for l in console.run("cat error_log").splitlines()[0::3]]
        assert top == ["trace_kprobe: error: Event name must follow the same rules as C identifiers",
                       "event filter parse error: error: Field not found"], top
        assert console.run("echo > instances/el/error_log") == ""
        assert console.run("cat instances/el/error_log") == ""
        assert len(console.run("cat error_log").splitlines()) == 6       # the top one's stays
    finally:
        console.run("echo 0 > events/sched/sched_switch/filter")
        console.run("echo > error_log")
        console.run("rmdir instances/el")
    assert "instances/el" not in console.run("ls instances")
