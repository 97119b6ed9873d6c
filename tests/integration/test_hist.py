"""tests/integration/test_hist.py: hist triggers on one CPU, typed as Linux's histogram.rst types them (its paths
under /sys/kernel/debug/tracing, its commands), each histogram's counts checked against the ring buffer's record of
the same events in the same run; enable_event/disable_event and enable_hist/disable_hist; pause, cont, clear,
name=; refused specs in error_log with Linux's words and caret.
Synthetic events and the actions (onmatch, onmax, onchange, snapshot) are test_hist_actions.py's, on a kernel of
their own so that the two modules run side by side.

How a count is checked: the histogram starts paused and tracing off; one program run is bracketed by triggers on
sched_process_exec (traceon + enable_hist) and sched_process_exit (traceoff + disable_hist), so on one CPU both
start and stop at the same event, and the histogram's Hits must equal the lines the buffer holds.
"""

import re

from tests.console import LOG_LINE

SMP = 1
D = "/sys/kernel/debug/tracing"
EINVAL = "echo: write error: Invalid argument"
TOTALS = re.compile(r"\nTotals:\n    Hits: (\d+)\n    Entries: (\d+)\n    Dropped: (\d+)$")


def hist(console, event):
    """(header lines, entry lines, hits, entries, dropped) of events/<event>/hist."""
    out = console.run("cat %s/events/%s/hist" % (D, event), timeout=60)
    m = TOTALS.search(out)
    assert m, out[-500:]
    lines = out[:m.start()].split("\n")
    head = [l for l in lines if l.startswith("#")]
    entries = [l for l in lines if l.startswith("{")]
    assert len(entries) == int(m.group(2)), out[-1000:]
    return head, entries, int(m.group(1)), int(m.group(2)), int(m.group(3))


def trace_lines(console, name):
    """Lines of `cat trace` for event `name`, after checking that nothing was lost."""
    out = console.run("cat trace", timeout=120)
    m = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", out)
    assert m and m.group(1) == m.group(2), out[:400]
    return [l for l in out.splitlines() if not l.startswith("#") and (" %s: " % name) in l]


def bracket(console, hist_event, program="/tests/cyclictest", args="3 1000", comm="cyclictest"):
    """Runs program with tracing and hist_event's histograms on exactly while it runs (see the module doc)."""
    console.run("echo 0 > tracing_on")
    console.run("echo > trace")
    console.run("echo 'traceon if filename ~ \"%s\"' > events/sched/sched_process_exec/trigger" % program)
    console.run("echo 'enable_hist:%s if filename ~ \"%s\"' >> events/sched/sched_process_exec/trigger"
                % (hist_event.replace("/", ":"), program))
    console.run("echo 'traceoff if comm == \"%s\"' > events/sched/sched_process_exit/trigger" % comm)
    console.run("echo 'disable_hist:%s if comm == \"%s\"' >> events/sched/sched_process_exit/trigger"
                % (hist_event.replace("/", ":"), comm))
    out = console.run("%s %s" % (program, args), timeout=120)
    console.run("echo > events/sched/sched_process_exec/trigger")
    console.run("echo > events/sched/sched_process_exit/trigger")
    return out     # tracing stays off: reading the histogram allocates too


def test_kmalloc_examples_count_what_the_buffer_holds(console):
    """histogram.rst's kmalloc examples (call_site, .hex, .sym, .sym-offset, two values, sort), each checked."""
    trig = D + "/events/kmem/kmalloc/trigger"
    specs = ["hist:key=call_site:val=bytes_req",
             "hist:key=call_site.hex:val=bytes_req",
             "hist:key=call_site.sym:val=bytes_req:sort=bytes_req.descending",
             "hist:key=call_site.sym-offset:val=bytes_req:sort=bytes_req.descending",
             "hist:keys=call_site.sym:values=bytes_req,bytes_alloc:sort=bytes_alloc.descending"]
    try:
        console.run("echo 1 > events/kmem/kmalloc/enable")
        for spec in specs:
            assert console.run("echo '%s:pause' > %s" % (spec, trig)) == ""
            bracket(console, "kmem/kmalloc", "/bin/busybox", "ls -l /tests /proc", "busybox")
            head, entries, hits, n, dropped = hist(console, "kmem/kmalloc")
            lines = trace_lines(console, "kmalloc")
            assert hits == len(lines) > 0 and dropped == 0, spec
            # The trigger line is Linux's: hitcount first among the values, the sort and size spelled out.
            info = head[2]
            assert info.startswith("# trigger info: hist:keys=call_site") and ":vals=hitcount,bytes_req" in info
            assert info.endswith("[paused]") and ":size=2048" in info
            total_req = sum(int(m) for m in re.findall(r"bytes_req=(\d+)", "\n".join(lines)))
            assert sum(int(m) for m in re.findall(r"bytes_req: +(\d+)", "\n".join(entries))) == total_req
            assert sum(int(m) for m in re.findall(r"hitcount: +(\d+)", "\n".join(entries))) == hits
            if ".hex" in spec:
                assert all(re.match(r"^\{ call_site: [0-9a-f]+ \} hitcount: +\d+  bytes_req: +\d+$", e)
                           for e in entries), entries[:3]
            elif ".sym-offset" in spec:
                assert all(re.match(r"^\{ call_site: \[[0-9a-f]{16}\] [\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+ +\} ", e)
                           for e in entries), entries[:3]
            elif ".sym" in spec:
                assert all(re.match(r"^\{ call_site: \[[0-9a-f]{16}\] [\w.]+ +\} hitcount", e) for e in entries)
                # Each symbol's count is the number of buffer lines whose call_site is in it.
                for e in entries:
                    sym = re.search(r"\] ([\w.]+)", e).group(1)  # gcc's clones: getname.constprop.0
                    count = int(re.search(r"hitcount: +(\d+)", e).group(1))
                    assert sum(1 for l in lines if re.search(r"call_site=%s\+" % re.escape(sym), l)) == count, e
            else:
                assert all(re.match(r"^\{ call_site: +\d+ \} hitcount: +\d+  bytes_req: +\d+$", e)
                           for e in entries), entries[:3]
            sorted_by = "bytes_alloc" if "bytes_alloc.descending" in spec else \
                "bytes_req" if "descending" in spec else "hitcount"
            vals = [int(re.search(sorted_by + r": +(\d+)", e).group(1)) for e in entries]
            assert vals == sorted(vals, reverse="descending" in spec), vals
            assert console.run("echo '!%s' >> %s" % (spec, trig)) == ""
            assert console.run("cat " + trig).startswith("# Available triggers:")
    finally:
        console.run("echo 1 > tracing_on")
        console.run("echo 0 > events/kmem/kmalloc/enable")
        console.run("echo > " + trig)


def test_syscall_and_fork_examples(console):
    """id.syscall and common_pid.execname keys (raw_syscalls), child_comm with size=256 and pause/cont."""
    trig = D + "/events/raw_syscalls/sys_enter/trigger"
    try:
        console.run("echo 1 > events/raw_syscalls/sys_enter/enable")
        spec = "hist:key=id.syscall,common_pid.execname:val=hitcount:sort=id,hitcount"
        assert console.run("echo '%s:pause' > %s" % (spec, trig)) == ""
        bracket(console, "raw_syscalls/sys_enter")
        head, entries, hits, n, dropped = hist(console, "raw_syscalls/sys_enter")
        lines = trace_lines(console, "sys_enter")
        assert hits == len(lines) > 0
        assert "hist:keys=id.syscall,common_pid.execname:vals=hitcount:sort=id.syscall,hitcount" in head[2]
        ids = []
        for e in entries:
            m = re.match(r"^\{ id: (sys_\w+|unknown_syscall) +\[ *(\d+)\], common_pid: (.{16})\[ *(\d+)\] \} "
                         r"hitcount: +(\d+)$", e)
            assert m, e
            ids.append(int(m.group(2)))
            assert m.group(3).strip() == "cyclictest"
            assert sum(1 for l in lines if re.search(r"NR %s \(" % m.group(2), l)) == int(m.group(5)), e
        assert ids == sorted(ids)
        assert "sys_nanosleep" in "\n".join(entries)
    finally:
        console.run("echo 1 > tracing_on")
        console.run("echo 0 > events/raw_syscalls/sys_enter/enable")
        console.run("echo > " + trig)
    trig = D + "/events/sched/sched_process_fork/trigger"
    try:
        assert console.run("echo 'hist:key=child_comm:val=hitcount:size=256' > %s" % trig) == ""
        console.run("/bin/sh -c '/bin/busybox true; /bin/busybox true'", timeout=60)
        head, entries, hits, n, _ = hist(console, "sched/sched_process_fork")
        assert ":size=256 [active]" in head[2] and hits >= 2
        assert console.run("echo 'hist:key=child_comm:val=hitcount:size=256:pause' >> %s" % trig) == ""
        assert hist(console, "sched/sched_process_fork")[0][2].endswith("[paused]")
        console.run("/bin/sh -c '/bin/busybox true'", timeout=60)
        assert hist(console, "sched/sched_process_fork")[2] == hits     # paused: nothing counted
        assert console.run("echo 'hist:key=child_comm:val=hitcount:size=256:cont' >> %s" % trig) == ""
        console.run("/bin/sh -c '/bin/busybox true'", timeout=60)
        assert hist(console, "sched/sched_process_fork")[2] > hits
        assert console.run("echo 'hist:key=child_comm:val=hitcount:size=256:clear' >> %s" % trig) == ""
        assert hist(console, "sched/sched_process_fork")[2:] == (0, 0, 0)
    finally:
        console.run("echo > " + trig)


def test_modifiers_log2_buckets_usecs_and_stacktrace(console):
    trig = "events/kmem/kmalloc/trigger"
    try:
        assert console.run("echo 'hist:keys=bytes_req.log2:sort=bytes_req' > %s" % trig) == ""
        assert console.run("echo 'hist:keys=bytes_req.buckets=64' >> %s" % trig) == ""
        assert console.run("echo 'hist:keys=stacktrace:values=bytes_req' >> %s" % trig) == ""
        console.run("/tests/cyclictest 2 1000", timeout=60)
        out = console.run("cat events/kmem/kmalloc/hist", timeout=60)
        log2 = re.findall(r"^\{ bytes_req: ~ 2\^(\d+) *\} hitcount: +\d+$", out, re.M)
        assert log2 and [int(x) for x in log2] == sorted(int(x) for x in log2)
        buckets = re.findall(r"^\{ bytes_req: ~ (\d+)-(\d+) \} hitcount", out, re.M)
        assert buckets and all(int(a) % 64 == 0 and int(b) == int(a) + 63 for a, b in buckets)
        assert re.search(r"^\{ stacktrace:\n {9}\S+\+0x[0-9a-f]+/0x[0-9a-f]+\n", out, re.M), out[-1500:]
        assert out.count("# event histogram") == 3
    finally:
        console.run("echo > " + trig)


def test_enable_event_soft_mode(console):
    trig = "events/sched/sched_process_exec/trigger"
    try:
        assert console.run("echo 'enable_event:kmem:kfree:1' > %s" % trig) == ""
        assert console.run("cat " + trig) == "enable_event:kmem:kfree:count=1"
        assert console.run("cat events/kmem/kfree/enable") == "0*"
        console.run("/tests/hello", timeout=60)
        assert console.run("cat " + trig) == "enable_event:kmem:kfree:count=0"
        assert console.run("cat events/kmem/kfree/enable") == "1*"
        assert console.run("echo 'disable_event:kmem:kfree' >> %s" % trig) == ""
        console.run("/tests/hello", timeout=60)
        assert console.run("cat events/kmem/kfree/enable") == "0*"
        assert console.run("echo 'vfs_read:enable_event:kmem:kfree:2' >> set_ftrace_filter") == ""
        assert "vfs_read:enable_event:kmem:kfree:count=2" in console.run("cat set_ftrace_filter")
        assert console.run("echo 'vfs_read:enable_event:kmem:nosuch' >> set_ftrace_filter") == EINVAL
        assert console.run("echo '!vfs_read:enable_event:kmem:kfree' >> set_ftrace_filter") == ""
        assert console.run("echo > " + trig) == ""
        assert console.run("cat events/kmem/kfree/enable") == "0"
    finally:
        console.run("echo 0 > events/kmem/kfree/enable")
        console.run("echo > " + trig)


def test_named_histograms_share_one_map(console):
    try:
        for ev in ("sched_waking", "sched_wakeup"):
            assert console.run("echo 'hist:name=foo:keys=pid:vals=prio' > events/sched/%s/trigger" % ev) == ""
        console.run("/tests/cyclictest 3 1000", timeout=60)
        # Pausing one pauses the map both share, so the two reads see the same counts.
        assert console.run("echo 'hist:name=foo:keys=pid:vals=prio:pause' >> "
                           "events/sched/sched_wakeup/trigger") == ""
        a, b = hist(console, "sched/sched_waking"), hist(console, "sched/sched_wakeup")
        assert a[1:] == b[1:] and a[2] > 0 and "hist:name=foo:keys=pid:vals=hitcount,prio" in a[0][2]
        assert a[0][2].endswith("[paused]")
        # The first one's map is the other's too: it goes last.
        assert console.run("echo > events/sched/sched_waking/trigger") == "echo: write error: Device or " \
            "resource busy"
    finally:
        console.run("echo > events/sched/sched_wakeup/trigger")
        console.run("echo > events/sched/sched_waking/trigger")


BAD = [  # (event, spec, Linux's text, the part the caret points at, or None for column 0)
    ("sched/sched_switch", "hist:keys=nosuch", "Couldn't find field", "nosuch"),
    ("sched/sched_switch", "hist:keys=prev_comm.hex", "Invalid field modifier", "hex"),
    ("sched/sched_switch", "hist:keys=next_pid:lat=common_timestamp-$nosuchvar", "Couldn't find variable",
     "nosuchvar"),
    ("sched/sched_switch", "hist:keys=next_pid:sort=nosuch", "Sort field must be a key or a val", "nosuch"),
    ("sched/sched_switch", "hist:keys=next_pid:sort=hitcount.sideways", "Invalid sort modifier", "sideways"),
    ("sched/sched_switch", "hist:keys=next_pid:sort=next_pid,hitcount,prev_pid", "Too many sort fields (Max = 2)",
     "sort="),
    ("sched/sched_switch", "hist:keys=next_pid:cont", "Can't clear or continue a nonexistent hist trigger", None),
    ("sched/sched_switch", "hist:keys=next_pid:x=", "Empty assignment", "x="),
    ("sched/sched_switch", "hist:keys=next_pid:onmatch(sched.nosuch).nosynth(next_pid)",
     "Invalid subsystem or event name", "nosuch"),
    ("sched/sched_switch", "hist:keys=next_pid:onmatch(sched.sched_waking).nosynth(next_pid)",
     "Couldn't find synthetic event", "nosynth"),
]


def last_error(console):
    return console.run("cat error_log").split("\n")[-3:]


def test_bad_specs_are_logged_and_change_nothing(console):
    trig = "events/sched/sched_switch/trigger"
    # A hist that stays, with the event firing all along (a workload beside the shell, timer interrupts).
    assert console.run("echo 'hist:keys=prev_pid' > " + trig) == ""
    assert re.match(r"^\[\d+\] compute on CPU 0$", console.run("run compute 0 3"))
    before = console.run("cat " + trig)
    for event, spec, text, at in BAD:
        assert console.run("echo '%s' >> events/%s/trigger" % (spec, event)) != "", spec
        head, cmd, caret = last_error(console)
        assert re.match(r"^\[ *\d+\.\d{6}\] hist:%s: error: %s$" % (event.replace("/", ":"), re.escape(text)),
                        head), (spec, head)
        assert cmd == "  Command: " + spec
        assert caret == " " * (11 + (spec.index(at) if at else 0)) + "^", (spec, caret)
        assert console.run("cat " + trig) == before
    # Too many keys: refused, and (as Linux) without an error_log line.
    lines = console.run("cat error_log")
    assert console.run("echo 'hist:keys=prev_pid,next_pid,prev_prio,next_prio' >> " + trig) == EINVAL
    assert console.run("cat error_log") == lines
    assert hist(console, "sched/sched_switch")[2] > 0     # the one that stayed kept counting
    # The same trigger twice.
    assert console.run("echo 'hist:keys=next_pid' >> " + trig) == ""
    assert console.run("echo 'hist:keys=next_pid' >> " + trig) == "echo: write error: File exists"
    assert last_error(console)[0].endswith("error: Hist trigger already exists")
    console.run("echo > " + trig)
    console.run("kill all")
    # A synthetic event with a bad type.
    spec = "bad_ev u64 lat; floats x"
    assert console.run("echo '%s' >> synthetic_events" % spec) == EINVAL
    head, cmd, caret = last_error(console)
    assert head.endswith("] synthetic_events: error: Invalid type") and cmd == "  Command: " + spec
    assert caret == " " * (11 + spec.index("floats")) + "^"
    assert console.run("cat synthetic_events") == ""
    console.run("echo > error_log")


FORK = "events/sched/sched_process_fork/trigger"


def test_expressions_fold_constants_and_refuse_as_linux(console):
    """Linux 6.1's arithmetic: + - * / with * and / first, left to right, numbers folded at once (the
    listing shows the result); its errors with Linux's caret."""
    try:
        for expr, value in (("123", 123), ("16-8-4-2", 2), ("64/8/4/2", 1), ("16-8+4+2", 14),
                            ("4*3/2*2", 12), ("4+3*2-2", 8), ("4+6/2-2", 5)):
            assert console.run("echo 'hist:keys=common_pid:x=%s' > %s" % (expr, FORK)) == "", expr
            assert re.search(r":x=%d:" % value, console.run("cat " + FORK)), expr
        console.run("echo > " + FORK)
        for cmd, text, at in (("hist:keys=common_pid:x=32+10*3/20-4", "Too many subexpressions (3 max)", "10"),
                              ("hist:keys=common_pid:x=1+2+3+4+5", "Too many subexpressions (3 max)", "1"),
                              ("hist:keys=common_pid:x=-(1)+2", "Unary minus not supported in sub-expressions",
                               "1)"),
                              ("hist:keys=common_pid:x=3/0", "Division by zero", "0")):
            assert console.run("echo '%s' >> %s" % (cmd, FORK)) != "", cmd
            head, line, caret = last_error(console)
            assert head.endswith("hist:sched:sched_process_fork: error: " + text) and line == "  Command: " + cmd
            assert caret == " " * (11 + cmd.index(at)) + "^", (cmd, caret)
        assert console.run("cat " + FORK).startswith("# Available triggers:")
        # An expression on a field, evaluated at each event: twice the pid, per pid.
        assert console.run("echo 'hist:keys=pid:vals=hitcount:twice=pid*2-0:onchange($twice).save(pid)' > "
                           "events/sched/sched_waking/trigger") == ""
        console.run("/tests/cyclictest 2 1000", timeout=60)
        out = console.run("cat events/sched/sched_waking/hist")
        rows = re.findall(r"^\{ pid: +(\d+) \} hitcount: +\d+\n\tchanged: +(\d+)  pid: +(\d+)", out, re.M)
        assert rows and all(int(c) == 2 * int(p) and p == q for p, c, q in rows), out
    finally:
        console.run("echo > events/sched/sched_waking/trigger")
        console.run("echo > " + FORK)
        console.run("echo > error_log")


def test_trace_marker_triggers_percent_and_graph(console):
    """events/ftrace/print has Linux's trigger and hist files: a trace_marker write runs them on its
    record; .percent prints a value's share of its column's total, .graph a bar against its maximum."""
    trig = "events/ftrace/print/trigger"
    try:
        assert console.run("ls events/ftrace/print").split() == ["format", "hist", "id", "trigger"]
        # the shell writes as pid 1: its pid sums to 1 for "one", 2 for "two"
        assert console.run("echo 'hist:keys=buf:vals=hitcount,common_pid.percent,common_pid.graph if "
                           "buf != \"skip\"' > "
                           + trig) == ""
        for word in ("one", "two", "two", "skip"):
            console.run("echo -n %s > trace_marker" % word)
        out = console.run("cat events/ftrace/print/hist")
        rows = re.findall(r"^\{ buf: (\w+) +\} hitcount: +(\d+)  common_pid \(%\): +(\d+\.\d\d)  "
                          r"common_pid: (.{20})$", out, re.M)
        assert sorted((b, int(h), p, g) for b, h, p, g in rows) == [
            ("one", 1, "33.33", "#" * 10 + " " * 10), ("two", 2, "66.66", "#" * 20)], out
    finally:
        console.run("echo > " + trig)


def test_proc_pid_comm_names_each_task(console):
    """/proc/<pid>/comm, which ftracetest reads to check .execname keys: the name ps shows for every task, a kernel
    thread's too; /proc/self is the reader; a task renames only itself (Linux's EINVAL for another); a task gone, pid
    0 and a name that is not a pid have no directory."""
    out = console.run("run compute 0")
    m = re.match(r"^\[(\d+)\] compute on CPU 0$", out)
    assert m, out
    kpid = int(m.group(1))
    try:
        tasks = {}
        for line in console.run("ps").splitlines()[1:]:
            pid, cpu, state, switches, comm = line.split(None, 4)
            tasks[int(pid)] = comm
        assert tasks.get(kpid) == "compute", tasks
        for pid, comm in tasks.items():
            if pid:
                assert console.run("cat /proc/%d/comm" % pid) == comm
        assert console.run("cat /proc/self/comm") == tasks[1]
        out = console.run("/bin/sh -c 'cat /proc/$$/comm; echo -n renamed > /proc/self/comm; "
                          "cat /proc/$$/comm; echo x > /proc/%d/comm; cd /proc/$$ && cat comm'" % kpid)
        out = [l for l in out.splitlines() if not re.match(LOG_LINE, l)]     # busybox cat's sendfile: ENOSYS
        assert out == ["sh", "renamed", "sh: write error: Invalid argument", "cat"]
        assert console.run("cat /proc/%d/comm" % kpid) == "compute"
    finally:
        console.run("kill %d" % kpid)
    for _ in range(100):        # kill asks; the thread leaves at its next check
        if not re.search(r"^ *%d " % kpid, console.run("ps"), re.M):
            break
    assert console.run("cat /proc/%d/comm" % kpid) == "cat: /proc/%d/comm: No such file or directory" % kpid
    for name in ("0", "01", "1x", "99999999"):
        assert console.run("cat /proc/%s/comm" % name).endswith("No such file or directory")
