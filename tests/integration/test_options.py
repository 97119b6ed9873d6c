"""tests/integration/test_options.py: trace_options and options/ are one set of switches, in Linux 6.1's order
and with its defaults, each option doing to `trace` what Linux's does: print-parent, sym-offset, sym-addr,
verbose, raw, context-info, irq-info, markers, record-cmd; per instance; bad writes change nothing."""

import re

SMP = 2

GENERAL = ["print-parent", "nosym-offset", "nosym-addr", "noverbose", "noraw", "nohex", "nobin", "noblock",
           "trace_printk", "annotate", "nouserstacktrace", "nosym-userobj", "noprintk-msg-only", "context-info", "nolatency-format",
           "record-cmd", "norecord-tgid", "overwrite", "nodisable_on_free", "irq-info", "markers", "noevent-fork",
           "nopause-on-trace", "hash-ptr", "function-trace", "nofunction-fork", "nodisplay-graph", "nostacktrace"]
TRACERS = ["nofunc_stack_trace", "nofuncgraph-overrun", "funcgraph-cpu", "funcgraph-overhead",
           "nofuncgraph-proc", "funcgraph-duration", "nofuncgraph-abstime", "funcgraph-irqs",
           "nofuncgraph-tail", "nofuncgraph-retval"]
IRQ_HEADER = [
    "#                                _-----=> irqs-off/BH-disabled",
    "#                               / _----=> need-resched",
    "#                              | / _---=> hardirq/softirq",
    "#                              || / _--=> preempt-depth",
    "#                              ||| / _-=> migrate-disable",
    "#                              |||| /     delay",
    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
    "#              | |         |   |||||     |         |",
]
PLAIN_HEADER = [
    "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION",
    "#              | |         |         |         |",
]
EINVAL = "echo: write error: Invalid argument"


def option_names():
    return [o[2:] if o.startswith("no") else o for o in GENERAL + TRACERS]


def recorded(console):
    """vfs_read calls of one `fs` run under the function tracer, then tracing off: a fixed buffer to print."""
    console.run("echo vfs_read > set_ftrace_filter")
    console.run("echo function > current_tracer")
    out = console.run("run fs 1 1")
    pid = int(re.match(r"^\[(\d+)\]", out).group(1))
    # This run's own events: an earlier test's `run fs` may still be reading for its last second.
    console.poll("cat trace", lambda t: re.search(r"-%d +\[.*vfs_read" % pid, t), timeout=60)
    console.run("echo 0 > tracing_on")
    return pid


def addr(console, sym):
    return int(console.run("ksym " + sym).split()[0], 16)


def test_trace_options_and_options_dir_agree(console):
    assert console.run("cat trace_options").splitlines() == GENERAL + TRACERS
    assert console.run("ls options").splitlines() == sorted(option_names())
    for opt in GENERAL + TRACERS:
        on = not opt.startswith("no")
        base = opt[2:] if not on else opt
        assert console.run("cat options/" + base) == ("1" if on else "0"), base
        # Flip it through one file, read it back through the other, and put it back.
        assert console.run("echo %d > options/%s" % (not on, base)) == ""
        assert ("no" + base if on else base) in console.run("cat trace_options").splitlines()
        assert console.run("echo %s > trace_options" % opt) == ""
        assert console.run("cat options/" + base) == ("1" if on else "0")
    for bad in ("2", "on", "-1", ""):
        assert console.run("echo %s > options/raw" % bad) == EINVAL
    for bad in ("nosuch", "nonosuch", "no", "print-parent extra"):
        assert console.run("echo '%s' > trace_options" % bad) == EINVAL
    assert console.run("cat trace_options").splitlines() == GENERAL + TRACERS


def test_each_option_shapes_the_function_lines(console):
    pid = recorded(console)
    read, fs_iter = addr(console, "vfs_read"), addr(console, "fs_iteration")
    out = console.run("cat trace").splitlines()
    assert out[4:12] == IRQ_HEADER
    lines = out[12:]
    assert lines
    ctx = r"^ +fs-%d +\[001\] [d.][N.][hzZ.][0-9a-f.]\. +(\d+\.\d{6}): " % pid
    for line in lines:
        assert re.match(ctx + r"vfs_read <-fs_iteration$", line), line

    console.run("echo sym-offset > trace_options")
    for line in console.run("cat trace").splitlines()[12:]:
        assert re.match(ctx + r"vfs_read\+0x0/0x[0-9a-f]+ <-fs_iteration\+0x[0-9a-f]+/0x[0-9a-f]+$", line), line
    console.run("echo sym-addr > trace_options")
    for line in console.run("cat trace").splitlines()[12:]:
        m = re.match(ctx + r"vfs_read\+0x0/0x[0-9a-f]+ <([0-9a-f]{16})> <-fs_iteration\+0x([0-9a-f]+)/0x[0-9a-f]+ "
                     r"<([0-9a-f]{16})>$", line)
        assert m and int(m.group(2), 16) == read and int(m.group(4), 16) == fs_iter + int(m.group(3), 16), line
    console.run("echo nosym-offset > trace_options")
    console.run("echo noprint-parent > trace_options")
    for line in console.run("cat trace").splitlines()[12:]:
        assert re.match(ctx + r"vfs_read <%016x>$" % read, line), line
    console.run("echo nosym-addr > trace_options")

    # irq-info off: Linux's other header, and no flags column.
    console.run("echo noirq-info > trace_options")
    out = console.run("cat trace").splitlines()
    assert out[4:6] == PLAIN_HEADER
    times = []
    for line in out[6:]:
        m = re.match(r"^ +fs-%d +\[001\] +(\d+\.\d{6}): vfs_read$" % pid, line)
        assert m and line.index("[") == 25, line
        times.append(m.group(1))
    assert len(times) == len(lines)
    # verbose: no column header (its latency-format lines are not built: latency-format ignores it).
    console.run("echo verbose > trace_options")
    assert console.run("cat trace").splitlines()[:4] == out[:4] and \
        console.run("cat trace").splitlines()[4:] == out[6:]
    console.run("echo noverbose > trace_options")
    # context-info off: the function alone, and no header past the tracer's name.
    console.run("echo nocontext-info > trace_options")
    assert console.run("cat trace").splitlines() == ["# tracer: function", "#"] + ["vfs_read"] * len(lines)
    # raw: Linux's print_raw_fmt: pid, CPU, nanoseconds, then ip and parent ip in hex.
    console.run("echo raw > trace_options")
    assert len(console.run("cat trace").splitlines()[2:]) == len(lines)
    for line in console.run("cat trace").splitlines()[2:]:
        m = re.match(r"^([0-9a-f]+) ([0-9a-f]+)$", line)
        assert m and int(m.group(1), 16) == read and fs_iter < int(m.group(2), 16) < fs_iter + 0x100, line
    console.run("echo context-info > trace_options")
    raw = console.run("cat trace").splitlines()[6:]
    assert len(raw) == len(lines)
    for line, t in zip(raw, times):
        m = re.match(r"^%d 1 (\d+) ([0-9a-f]+) ([0-9a-f]+)$" % pid, line)
        sec, usec = t.split(".")
        assert m and int(m.group(1)) // 1000 == int(sec) * 1000000 + int(usec) and int(m.group(2), 16) == read, \
            (line, t)
    for opt in ("noraw", "irq-info", "print-parent"):
        console.run("echo %s > trace_options" % opt)
    assert console.run("cat trace").splitlines()[12:] == lines


def test_markers_option_refuses_trace_marker(console):
    console.run("echo nomarkers > trace_options")
    assert console.run("echo hello > trace_marker") == EINVAL
    console.run("echo markers > trace_options")
    assert console.run("echo hello > trace_marker") == ""
    assert console.run("cat trace").splitlines()[-1].endswith("tracing_mark_write: hello")


def test_record_cmd_off_keeps_new_names_out(console):
    console.run("echo norecord-cmd > trace_options")
    pid = recorded(console)
    comms = {m.group(1) for m in re.finditer(r"^ *(\S+)-%d " % pid, console.run("cat trace"), re.M)}
    assert comms == {"<...>"}, comms
    console.run("echo record-cmd > trace_options")
    console.run("echo > trace")
    console.run("echo 1 > tracing_on")
    console.run("run fs 1 1")
    console.poll("cat trace", lambda t: re.search(r"^ +fs-\d+ .*vfs_read", t, re.M), timeout=60)


def test_options_are_per_instance(console):
    console.run("mkdir instances/opt")
    console.run("echo nocontext-info > instances/opt/trace_options")
    assert console.run("cat options/context-info instances/opt/options/context-info") == "1\n0"
    console.run("echo hello > instances/opt/trace_marker")
    console.run("echo hello > trace_marker")
    assert console.run("cat instances/opt/trace").splitlines() == ["# tracer: nop", "#", "tracing_mark_write: hello"]
    assert re.match(r"^ +sh-\d+ +\[\d{3}\] \.{5} +\d+\.\d{6}: tracing_mark_write: hello$",
                    console.run("cat trace").splitlines()[-1])
    console.run("echo 0 > instances/opt/options/markers")
    assert console.run("echo again > instances/opt/trace_marker") == EINVAL
    assert console.run("echo again > trace_marker") == ""
    assert console.run("rmdir instances/opt") == ""


def test_readme_lists_the_syntax_ftracetest_greps_for(console):
    """Linux's ftracetest decides what to test by grepping README: list what is built, nothing else."""
    readme = console.run("cat README")
    assert readme.startswith("tracing mini-HOWTO")
    for built in ("Create/append/", "x8/16/32/64", "$arg<N>", "r[maxactive]", "imm-value", "imm-string",
                  "e[:[<group>/][<event>]]", "p[:[<group>/][<event>]]", " <type>\\[<array-size>\\]", "ustring",
                  "[u]<offset>", "snapshot()", "onchange(var)", "synthetic_events", "s:[synthetic/]",
                  "char name[]' >> synthetic_events", "[<module>:]"):
        assert built in readme, built
    assert re.search(r"accepts: .* glob-matching-pattern", readme)
    assert re.search(r"place \(kretprobe\): .*%return.*", readme)
    assert re.search(r"<attached-group>\.<attached-event>.*\[if <filter>\]", readme)
    fetch = readme.split("fetcharg:")[1].split("\n")[0]
    assert "$comm" in fetch
    assert re.search(r"place \(uprobe\): .*%return", readme)
    # Every file it names at the top level exists.
    here = {n.rstrip("/") for n in console.run("ls").split()}
    named = re.findall(r"^  ([a-z_]+)\t", readme, re.M)
    assert len(named) > 20 and set(named) <= here, set(named) - here


def test_a_latency_tracer_hears_either_file(console):
    """latency-format sits in the table where Linux lists it, irqsoff turns it on for itself, and function-trace
    switched through options/ adds or drops irqsoff's functions as a write to trace_options does."""
    console.run("echo vfs_read > set_ftrace_filter")
    try:
        console.run("echo irqsoff > current_tracer")
        assert console.run("cat options/latency-format") == "1"
        assert console.run("cat enabled_functions").startswith("vfs_read")
        assert console.run("echo 0 > options/function-trace") == ""
        assert console.run("cat enabled_functions") == ""
        assert "nofunction-trace" in console.run("cat trace_options").splitlines()
        assert console.run("echo 1 > options/function-trace") == ""
        assert console.run("cat enabled_functions").startswith("vfs_read")
        assert console.run("echo nofunction-trace > trace_options") == ""
        assert console.run("cat enabled_functions") == ""
        assert console.run("echo function-trace > trace_options") == ""
        assert console.run("cat enabled_functions").startswith("vfs_read")
        console.run("echo nop > current_tracer")
        assert console.run("cat options/latency-format") == "0"
        assert console.run("cat enabled_functions") == ""
        # Any array's, its own: latency-format in an instance's table shapes that instance's lines only.
        console.run("mkdir instances/lat")
        assert console.run("echo 1 > instances/lat/options/latency-format") == ""
        assert "latency-format" in console.run("cat instances/lat/trace_options").splitlines()
        assert "nolatency-format" in console.run("cat trace_options").splitlines()
        console.run("echo lat-line > instances/lat/trace_marker")
        out = [l for l in console.run("cat instances/lat/trace").splitlines() if not l.startswith("#")]
        assert len(out) == 1 and re.match(r"^ {0,8}\S{1,8}-\d+ +\d+[d.][N.][hzZ.][0-9a-f.]\. +\d+us.: "
                                          r"tracing_mark_write: lat-line$", out[0]), out
    finally:
        console.run("echo nop > current_tracer")
        console.run("rmdir instances/lat")
        console.run("echo > set_ftrace_filter")


def test_stacktrace_option_records_the_stack_after_each_event(console):
    """options/stacktrace (Linux's TRACE_ITER_STACKTRACE): a <stack trace> record follows every event kept, in
    the array whose option it is; the events' own lines are unchanged, and off means no stacks."""
    console.run("echo 1 > events/sched/sched_process_fork/enable")
    console.run("mkdir instances/st")
    try:
        console.run("echo 1 > instances/st/events/sched/sched_process_fork/enable")
        assert console.run("echo 1 > options/stacktrace") == ""
        assert console.run("cat options/stacktrace instances/st/options/stacktrace") == "1\n0"
        console.run("/bin/busybox true")
        text = console.run("cat trace")
        m = re.search(r"sched_process_fork: comm=sh pid=\d+ child_comm=busybox child_pid=\d+\n"
                      r" +sh-\d+ +\[\d{3}\] \S{5} +\d+\.\d{6}: <stack trace>\n((?: => \S+\n?)+)", text)
        assert m, text
        # From the tracepoint (as the stacktrace trigger's) out to where the shell started the program.
        frames = m.group(1).split()
        assert frames[1] == "__traceiter_sched_process_fork" and "user_process_start" in frames, frames
        # The instance saw the same fork, without a stack: its option is off.
        inst = console.run("cat instances/st/trace")
        assert "sched_process_fork" in inst and "<stack trace>" not in inst, inst
        assert console.run("echo 0 > options/stacktrace") == ""
        assert console.run("echo 1 > instances/st/options/stacktrace") == ""
        console.run("echo > trace")
        console.run("echo > instances/st/trace")
        console.run("/bin/busybox true")
        assert "<stack trace>" not in console.run("cat trace")
        assert "<stack trace>" in console.run("cat instances/st/trace")
    finally:
        console.run("echo 0 > options/stacktrace")
        console.run("echo 0 > events/sched/sched_process_fork/enable")
        console.run("rmdir instances/st")
