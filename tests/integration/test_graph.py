"""tests/integration/test_graph.py: the function_graph tracer: Linux's header and columns, nesting
that balances with indentation by depth, durations that add up, leaves on one line, and the files
that shape it (max_graph_depth, tracing_thresh), with bad input refused."""

import re

import pytest

SMP = 2

HEADER = ["# tracer: function_graph", "#",
          "# CPU  DURATION                  FUNCTION CALLS",
          "# |     |   |                     |   |   |   |"]
DUR = r"(?P<mark>[ +!#*@$]) (?P<us>\d+)(?:\.(?P<ns>\d{1,3}))? us +"
ENTRY = r"^ (?P<cpu>\d)\)               \|  (?P<ind> *)(?P<func>[\w.]+)\(\) \{$"
LEAF = r"^ (?P<cpu>\d)\) " + DUR + r"\|  (?P<ind> *)(?P<func>[\w.]+)\(\);$"
RET = r"^ (?P<cpu>\d)\) " + DUR + r"\|  (?P<ind> *)\}(?: /\* (?P<func>[\w.]+) \*/)?$"
FS_FUNCS = "fs_iteration vfs_* path_lookup dentry_lookup inode_permission page_cache_lookup copy_to_buffer"
EINVAL = "echo: write error: Invalid argument"


def graph(console, filt=FS_FUNCS, seconds=1):
    console.run("echo '%s' > set_ftrace_filter" % filt)
    assert console.run("echo function_graph > current_tracer") == ""
    console.run("echo > trace")                                  # only what this run records
    pid = int(re.match(r"^\[(\d+)\]", console.run("run fs 1 %d" % seconds)).group(1))
    console.run("selftest timer_ticks")
    console.run("echo 0 > tracing_on")
    out = console.run("cat trace", timeout=60).splitlines()
    console.run("echo 1 > tracing_on")
    console.run("kill %d" % pid)
    assert out[:4] == HEADER
    return out[4:]


def duration_ns(m):
    ns = m.group("ns") or "0"
    return int(m.group("us")) * 1000 + int(ns.ljust(3, "0"))


def test_lines_nest_and_durations_add_up(console):
    lines = graph(console)
    # Start at the first complete iteration: earlier lines may belong to a call already running.
    start = next(i for i, l in enumerate(lines) if re.match(ENTRY, l) and "fs_iteration" in l)
    stack, checked = [], 0                      # entries: [func, indent, children_ns]
    for line in lines[start:]:
        e, leaf, r = re.match(ENTRY, line), re.match(LEAF, line), re.match(RET, line)
        assert e or leaf or r, "not a graph line: %r" % line
        m = e or leaf or r
        assert m.group("cpu") == "1"
        depth = len(stack) - 1 if r else len(stack)                # a `}` sits at its entry's depth
        assert len(m.group("ind")) == 2 * max(depth, 0), line      # indented by depth
        if e:
            stack.append([m.group("func"), 0])
        elif leaf:
            if stack:
                stack[-1][1] += duration_ns(leaf)
        else:
            if not stack:
                break                                               # the trace ended mid-call
            func, children = stack.pop()
            assert r.group("func") is None, line                    # its entry was printed
            assert duration_ns(r) >= children, (func, line)
            if stack:
                stack[-1][1] += duration_ns(r)
            checked += 1
    assert checked >= 3


def test_leaves_and_the_call_tree_shape(console):
    text = "\n".join(graph(console))
    assert re.search(r"\|    vfs_open\(\) \{\n.*\|      path_lookup\(\) \{\n.*\|        dentry_lookup\(\);", text)
    assert re.search(r"\|    vfs_close\(\);", text)


def test_duration_marks_follow_linux_thresholds(console):
    for line in graph(console):
        m = re.match(LEAF, line) or re.match(RET, line)
        if not m:
            continue
        ns = duration_ns(m)
        want = "+" if ns > 10000 else " "
        for limit, mark in ((100000, "!"), (1000000, "#"), (10000000, "*"), (100000000, "@")):
            if ns > limit:
                want = mark
        assert m.group("mark") == want, line


def test_max_graph_depth_one(console):
    assert console.run("echo 1 > max_graph_depth") == ""
    assert console.run("cat max_graph_depth") == "1"
    lines = graph(console)
    assert lines and all(re.match(LEAF, l) and l.endswith("|  fs_iteration();") for l in lines)


def test_tracing_thresh_keeps_only_long_returns(console):
    assert console.run("echo 2 > tracing_thresh") == ""            # microseconds
    assert console.run("cat tracing_thresh") == "2"
    lines = [l for l in graph(console, filt="fs_iteration vfs_* path_lookup dentry_lookup")
             if l and not l.startswith(" ---") and " => " not in l]
    assert lines                                                    # fs_iteration takes longer
    for line in lines:
        r = re.match(RET, line)
        assert r and r.group("func") and duration_ns(r) >= 2000, line


@pytest.mark.parametrize("cmd", ["echo 51 > max_graph_depth", "echo -1 > max_graph_depth",
                                 "echo x > max_graph_depth", "echo 1.5 > tracing_thresh",
                                 "echo abc > tracing_thresh"])
def test_bad_values_refused(console, cmd):
    before = [console.run("cat max_graph_depth"), console.run("cat tracing_thresh")]
    assert console.run(cmd) == EINVAL
    assert [console.run("cat max_graph_depth"), console.run("cat tracing_thresh")] == before


def test_switching_tracers_leaves_sites_right(console):
    console.run("echo 'vfs_*' > set_ftrace_filter")
    for tracer in ("function_graph", "function", "function_graph", "nop"):
        assert console.run("echo %s > current_tracer" % tracer) == ""
    assert console.run("cat enabled_functions") == ""
    assert "ok 1 ftrace_nop_sites_after_boot" in console.run("selftest ftrace_nop_sites_after_boot")


def test_tracers_switched_under_load(console):
    """Graph hooks are planted and removed while both CPUs run traced code: nothing may fault."""
    console.run("echo > set_ftrace_filter")                    # every function
    pids = []
    for work in ("compute 1", "hash 0", "fs 1", "spin 1"):
        pids += [int(m) for m in re.findall(r"^\[(\d+)\]", console.run("run " + work), re.M)]
    try:
        for i in range(25):
            for tracer in ("function_graph", "function", "nop"):
                assert console.run("echo %s > current_tracer" % tracer, timeout=60) == ""
    finally:
        console.run("kill " + " ".join(map(str, pids)))
    assert console.run("cat enabled_functions") == ""
    assert "ok 1 ftrace_nop_sites_after_boot" in console.run("selftest ftrace_nop_sites_after_boot")


def test_trace_options_shape_the_output(console):
    assert console.run("cat trace_options").splitlines() == [
        "print-parent", "nosym-offset", "nosym-addr", "noverbose", "noraw", "nohex", "nobin", "noblock",
        "trace_printk", "annotate", "nouserstacktrace", "nosym-userobj", "noprintk-msg-only", "context-info", "nolatency-format",
        "record-cmd", "norecord-tgid", "overwrite", "nodisable_on_free", "irq-info", "markers", "noevent-fork",
        "nopause-on-trace", "hash-ptr", "function-trace", "nofunction-fork", "nodisplay-graph", "nostacktrace",
        "nofunc_stack_trace", "nofuncgraph-overrun", "funcgraph-cpu", "funcgraph-overhead",
        "nofuncgraph-proc", "funcgraph-duration", "nofuncgraph-abstime", "funcgraph-irqs",
        "nofuncgraph-tail", "nofuncgraph-retval"]
    try:
        for opt in ("funcgraph-proc", "nofuncgraph-duration", "funcgraph-tail"):
            assert console.run("echo %s > trace_options" % opt) == ""
        assert console.run("echo nosuch > trace_options") == EINVAL
        console.run("echo 'vfs_open path_lookup dentry_lookup' > set_ftrace_filter")
        console.run("echo function_graph > current_tracer")
        console.run("run fs 1 1")
        console.run("selftest timer_ticks")
        out = console.run("cat trace").splitlines()
        assert out[2:4] == ["# CPU  TASK/PID                      FUNCTION CALLS",
                            "# |     |    |                       |   |   |   |"]
        body = out[4:]
        body = [l for l in body if l and not l.startswith(" ---") and " => " not in l]
        assert body and all(re.match(r"^ 1\)  +fs-\d+ +\| +\S", l) for l in body), body[:5]
        assert any(l.endswith("} /* path_lookup */") for l in body)        # tail names every return
        assert not any(" us " in l for l in body)                          # no durations
    finally:
        for opt in ("nofuncgraph-proc", "funcgraph-duration", "nofuncgraph-tail"):
            console.run("echo %s > trace_options" % opt)


def test_graph_header_with_proc(console):
    console.run("echo funcgraph-proc > trace_options")
    try:
        console.run("echo function_graph > current_tracer")
        out = console.run("cat trace").splitlines()
        assert out[2:4] == ["# CPU  TASK/PID         DURATION                  FUNCTION CALLS",
                            "# |     |    |           |   |                     |   |   |   |"]
    finally:
        console.run("echo nofuncgraph-proc > trace_options")


def test_set_graph_function_and_notrace(console):
    assert console.run("cat set_graph_function") == "#### all functions enabled ####"
    assert console.run("cat set_graph_notrace") == "#### no functions disabled ####"
    try:
        assert console.run("echo vfs_open > set_graph_function") == ""
        assert console.run("cat set_graph_function") == "vfs_open"
        body = graph(console)
        funcs = {m.group("func") for m in (re.match(ENTRY, l) or re.match(LEAF, l) for l in body) if m}
        assert "vfs_open" in funcs and "path_lookup" in funcs          # it, and what it calls
        assert not funcs & {"vfs_read", "vfs_close", "fs_iteration"}    # nothing else
        console.run("echo > set_graph_function")
        assert console.run("echo path_lookup > set_graph_notrace") == ""
        body = graph(console)
        funcs = {m.group("func") for m in (re.match(ENTRY, l) or re.match(LEAF, l) for l in body) if m}
        assert "vfs_open" in funcs and "vfs_read" in funcs
        assert not funcs & {"path_lookup", "dentry_lookup", "inode_permission"}  # it and its children
        assert console.run("echo nosuch > set_graph_notrace") == EINVAL
        assert console.run("cat set_graph_notrace") == "path_lookup"
    finally:
        console.run("echo > set_graph_function")
        console.run("echo > set_graph_notrace")


def test_retval_and_abstime_options(console):
    for opt in ("funcgraph-retval", "funcgraph-abstime"):
        assert console.run("echo %s > trace_options" % opt) == ""
    try:
        console.run("echo 'vfs_open path_lookup dentry_lookup inode_permission' > set_ftrace_filter")
        console.run("echo function_graph > current_tracer")
        console.run("echo > trace")
        console.run("run fs 1 1")
        console.run("selftest timer_ticks")
        out = console.run("cat trace").splitlines()
        assert out[2:4] == ["#     TIME        CPU  DURATION                  FUNCTION CALLS",
                            "#      |          |     |   |                     |   |   |   |"]
        # Task-switch banners (another fs task may still run) carry no time, as in Linux.
        body = [l for l in out[4:] if l and not l.startswith(" ---") and " => " not in l]
        bad = [l for l in body if not re.match(r"^ +\d+\.\d{6} \|   1\) ", l)]
        assert body and not bad, bad[:3]
        # inode_permission returns 0 here: a leaf with its value; path_lookup's return names itself
        assert any(l.endswith("inode_permission(); /* = 0x0 */") for l in body), body[:8]
        assert any(re.search(r"\} /\* path_lookup = 0x[0-9a-f]+ \*/$", l) for l in body)
    finally:
        for opt in ("nofuncgraph-retval", "nofuncgraph-abstime"):
            console.run("echo %s > trace_options" % opt)



def recorded(console, filt):
    """One `fs` run graphed and tracing left off: a fixed buffer that each read prints the same."""
    console.run("echo '%s' > set_ftrace_filter" % filt)
    assert console.run("echo function_graph > current_tracer") == ""
    console.run("echo > trace")
    console.run("run fs 1 1")
    console.run("selftest timer_ticks")
    console.run("echo 0 > tracing_on")
    out = console.run("cat trace", timeout=60).splitlines()
    assert out[:4] == HEADER
    return out[4:]


def read_as(console, *opts):
    """The trace already recorded, printed with these options set, then set back."""
    for opt in opts:
        assert console.run("echo %s > trace_options" % opt) == ""
    try:
        return console.run("cat trace", timeout=60).splitlines()
    finally:
        for opt in opts:
            console.run("echo %s > trace_options" % (opt[2:] if opt.startswith("no") else "no" + opt))


def test_funcgraph_cpu_and_overhead_options(console):
    # msleep: each fs round ends in a 2 ms sleep, which always earns at least the '#' mark (over 1 ms)
    on = HEADER[2:] + recorded(console, "fs_iteration vfs_open path_lookup msleep")
    nocpu = read_as(console, "nofuncgraph-cpu")[2:]
    assert nocpu[:2] == ["#  DURATION                  FUNCTION CALLS",
                         "#   |   |                     |   |   |   |"]
    assert len(nocpu) == len(on)
    graphed = 0
    for a, b in zip(on[2:], nocpu[2:]):
        if re.match(ENTRY, a) or re.match(LEAF, a) or re.match(RET, a):
            assert a == " 1) " + b, (a, b)        # the CPU column alone is gone
            graphed += 1
        else:
            assert a == b, (a, b)                 # the task-switch banner keeps its CPU, as Linux's
    assert graphed
    nomark = read_as(console, "nofuncgraph-overhead")[2:]
    assert nomark[:2] == HEADER[2:] and len(nomark) == len(on)
    marked = 0
    for a, b in zip(on[2:], nomark[2:]):
        m = re.match(LEAF, a) or re.match(RET, a)
        if m and m.group("mark") != " ":
            marked += 1
            a = a[:m.start("mark")] + " " + a[m.end("mark"):]
        assert a == b, (a, b)                     # the mark's column blank, all else the same
    assert marked and any(l.endswith("msleep();") and re.match(r"^ 1\) [#*@$] ", l) for l in on)


def test_funcgraph_overrun_option(console):
    """Linux's "(Overruns: N)" after each return's `}` (never after a leaf); N counts calls refused
    because the shadow stack was full, not those max_graph_depth leaves out."""
    assert console.run("echo 2 > max_graph_depth") == ""
    try:
        lines = recorded(console, "fs_iteration vfs_open path_lookup dentry_lookup")
    finally:
        console.run("echo 0 > max_graph_depth")
    with_n = read_as(console, "funcgraph-overrun")[4:]
    assert [l for l in with_n if not l.startswith(" (Overruns: ")] == lines
    returns = 0
    for i, line in enumerate(with_n):
        if line.startswith(" (Overruns: "):
            assert line == " (Overruns: 0)", line          # depth refusals are no overrun
            assert re.match(RET, with_n[i - 1]), with_n[i - 1]
        elif re.match(RET, line):
            returns += 1
            assert i + 1 < len(with_n) and with_n[i + 1].startswith(" (Overruns: "), line
    assert returns and not any("dentry_lookup" in l for l in lines)     # depth 2 left it out


def test_trace_pipe_prints_graph_leaves_on_one_line(console):
    console.run("echo 'vfs_open path_lookup dentry_lookup' > set_ftrace_filter")
    console.run("echo function_graph > current_tracer")
    console.run("run fs 1 1")
    console.send(b"cat trace_pipe\r")
    console.wait_for(r" 1\) +[\d.]+ us +\|      dentry_lookup\(\);", timeout=60)
    console.send(b"\x03")
    console.wait_for_prompt(timeout=60)


def test_stack_trace_names_the_hooked_return_slot(console):
    """A return slot fgraph hooked holds return_to_handler's first byte: named as such, not as the symbol
    before it (stack entries are otherwise looked up at the return address - 1)."""
    console.run("echo 'vfs_read:stacktrace' >> set_ftrace_filter")
    try:
        lines = graph(console, filt=FS_FUNCS)
    finally:
        console.run("echo '!vfs_read:stacktrace' >> set_ftrace_filter")
    i = next(i for i, l in enumerate(lines) if l.endswith("<stack trace>"))
    assert lines[i + 1:i + 4] == [" => vfs_read", " => fs_iteration", " => return_to_handler"], lines[i:i + 6]
