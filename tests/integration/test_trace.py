"""tests/integration/test_trace.py: the trace files as a Linux user knows them: exact header, column
layout, the function tracer with filters and pid filtering, tracing_on, trace_marker, clearing,
buffer_size_kb, trace_pipe with Ctrl-C, and overwrite shown as [LOST N EVENTS]."""

import re

import pytest

SMP = 2

HEADER = [
    "#                                _-----=> irqs-off/BH-disabled",
    "#                               / _----=> need-resched",
    "#                              | / _---=> hardirq/softirq",
    "#                              || / _--=> preempt-depth",
    "#                              ||| / _-=> migrate-disable",
    "#                              |||| /     delay",
    "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
    "#              | |         |   |||||     |         |",
]
# "              sh-1       [000] .....     0.041470: kmalloc <-kzalloc": each column at its place
LINE = (r"^(?P<comm>[ -~]{16})-(?P<pid>\d+) *(?<= )\[(?P<cpu>\d{3})\] "
        r"(?P<flags>[d.][N.][hzZ.][0-9a-f.][.]) +(?P<ts>\d+\.\d{6}): (?P<rest>.*)$")
FN = r"^(?P<func>[\w.]+) <-(?P<parent>[\w.]+)$"
EINVAL = "echo: write error: Invalid argument"


def trace(console):
    out = console.run("cat trace", timeout=60).splitlines()
    assert out[0].startswith("# tracer: ") and out[1] == "#", out[:4]
    m = re.match(r"^# entries-in-buffer/entries-written: (\d+)/(\d+)   #P:(\d+)$", out[2])
    assert m and out[3] == "#", out[:4]
    assert out[4:12] == HEADER
    events = []
    for line in out[12:]:
        e = re.match(LINE, line)
        assert e, "bad trace line: %r" % line
        assert len(e.group("comm")) == 16 and line.index("[") == 25, line   # under "CPU#" in the header
        events.append(e.groupdict())
    return out[0][len("# tracer: "):], int(m.group(1)), int(m.group(2)), int(m.group(3)), events


def test_tracers_listed_and_nop_is_current(console):
    assert console.run("cat available_tracers").split() == ["timerlat", "osnoise", "hwlat", "wakeup_dl", "wakeup_rt",
                                                            "wakeup", "preemptirqsoff", "preemptoff", "irqsoff",
                                                            "function_graph", "function", "nop"]
    assert console.run("cat current_tracer") == "nop"
    name, inbuf, written, ncpu, events = trace(console)
    assert (name, inbuf, written, ncpu, events) == ("nop", 0, 0, SMP, [])


def test_function_tracer_records_filtered_calls(console):
    console.run("echo 'vfs_*' > set_ftrace_filter")
    assert console.run("echo function > current_tracer") == ""
    assert console.run("cat current_tracer") == "function"
    (pid, _), = [(int(m.group(1)), 1) for m in [re.match(r"^\[(\d+)\]", console.run("run fs 1 1"))]]
    console.run("selftest timer_ticks")
    name, inbuf, written, ncpu, events = trace(console)
    assert name == "function" and inbuf == len(events) == written > 0
    funcs = set()
    for e in events:
        f = re.match(FN, e["rest"])
        assert f, e
        assert f.group("func").startswith("vfs_")
        funcs.add(f.group("func"))
        assert e["comm"].strip() == "fs" and int(e["pid"]) == pid and e["cpu"] == "001"
    assert funcs == {"vfs_open", "vfs_read", "vfs_close"}
    assert [float(e["ts"]) for e in events] == sorted(float(e["ts"]) for e in events)


def test_call_order_and_parents(console):
    console.run("echo 'vfs_* path_lookup dentry_lookup' > set_ftrace_filter")
    console.run("echo function > current_tracer")
    pid = re.match(r"^\[(\d+)\]", console.run("run fs 1 1")).group(1)
    console.run("selftest timer_ticks")
    # This run's task only: the previous test's fs worker may still be running its second, and two
    # tasks on one CPU interleave their calls.
    rows = [re.match(FN, e["rest"]).groups() for e in trace(console)[4] if e["pid"] == pid]
    i = rows.index(("vfs_open", "fs_iteration"))
    assert rows[i + 1] == ("path_lookup", "vfs_open")
    assert rows[i + 2] == ("dentry_lookup", "path_lookup")


def test_tracing_on_and_clear(console):
    console.run("echo kmalloc > set_ftrace_filter")
    console.run("echo function > current_tracer")
    console.run("selftest heap_reuse")
    assert trace(console)[1] >= 3
    assert console.run("echo 0 > tracing_on") == ""
    assert console.run("cat tracing_on") == "0"
    before = trace(console)[2]
    console.run("selftest heap_reuse")
    assert trace(console)[2] == before                 # nothing recorded while off
    assert console.run("echo > trace") == ""
    assert trace(console)[1:3] == (0, 0)
    assert console.run("echo 1 > tracing_on") == ""
    console.run("selftest heap_reuse")
    events = trace(console)[4]
    assert len(events) == 3 and all(e["rest"].startswith("kmalloc <-") for e in events)


def test_trace_marker_line(console):
    assert console.run("echo 'hello trace' > trace_marker") == ""
    events = trace(console)[4]
    assert [e["rest"] for e in events] == ["tracing_mark_write: hello trace"]
    assert events[0]["comm"].strip() == "sh"


def test_set_ftrace_pid_filters_tasks(console):
    console.run("echo 'vfs_read' > set_ftrace_filter")
    pids = [int(re.match(r"^\[(\d+)\]", l).group(1)) for l in console.run("run fs 1 3").splitlines()]
    pids += [int(re.match(r"^\[(\d+)\]", l).group(1)) for l in console.run("run fs 1 3").splitlines()]
    assert console.run("echo %d > set_ftrace_pid" % pids[1]) == ""
    assert console.run("cat set_ftrace_pid") == str(pids[1])
    console.run("echo function > current_tracer")
    console.run("selftest timer_ticks")
    events = trace(console)[4]
    assert events and {int(e["pid"]) for e in events} == {pids[1]}
    console.run("kill %d %d" % tuple(pids))


@pytest.mark.parametrize("cmd", ["echo nosuch > current_tracer", "echo abc > buffer_size_kb",
                                 "echo 0 > buffer_size_kb", "echo 99999999 > buffer_size_kb",
                                 "echo abc > tracing_on", "echo 99999 > set_ftrace_pid",
                                 "echo x > set_ftrace_pid", "echo -1 > set_ftrace_pid"])
def test_bad_writes_are_refused(console, cmd):
    files = ["current_tracer", "buffer_size_kb", "tracing_on", "set_ftrace_pid"]
    before = [console.run("cat " + f) for f in files]
    assert console.run(cmd) == EINVAL
    assert [console.run("cat " + f) for f in files] == before


def test_read_only_and_write_only_files(console):
    assert console.run("echo x > available_tracers") == "available_tracers: Permission denied"
    assert console.run("echo x > trace_pipe") == "trace_pipe: Permission denied"
    assert console.run("cat trace_marker") == "cat: trace_marker: Permission denied"


def test_buffer_size_kb_resizes(console):
    assert console.run("cat buffer_size_kb") == "64"
    assert console.run("echo 128 > buffer_size_kb") == ""
    assert console.run("cat buffer_size_kb") == "128"


def test_overwrite_and_trace_pipe_lost_events(console):
    assert console.run("echo 8 > buffer_size_kb") == ""
    console.run("echo stress_target > set_ftrace_filter")
    console.run("echo function > current_tracer")
    (pid,) = [int(re.match(r"^\[(\d+)\]", console.run("run spin 1")).group(1))]
    console.run("selftest timer_ticks")
    # Every event the header counts printed needs the writer held off while `trace` is read.
    assert console.run("echo 1 > options/pause-on-trace") == ""
    try:
        name, inbuf, written, _, events = trace(console)
    finally:
        console.run("echo 0 > options/pause-on-trace")
    assert written > inbuf == len(events) > 0           # the buffer wrapped: oldest lost
    console.send(b"cat trace_pipe\r")
    console.wait_for(r"CPU:1 \[LOST \d+ EVENTS\]", timeout=60)
    console.wait_for(r"spin-%d +\[001\] [.d]{5}.* stress_target <-spin_iteration" % pid, timeout=60)
    console.send(b"\x03")
    console.wait_for_prompt(timeout=60)
    console.run("kill %d" % pid)


def test_func_stack_trace_option(console):
    console.run("echo vfs_read > set_ftrace_filter")
    assert console.run("echo func_stack_trace > trace_options") == ""
    try:
        console.run("echo function > current_tracer")
        console.run("run fs 1 1")
        console.run("selftest timer_ticks")
        text = console.run("cat trace")
        assert re.search(r": vfs_read <-fs_iteration\n +fs-\d+ +\[001\] \.{5} +[\d.]+: <stack trace>\n"
                         r" => vfs_read\n => fs_iteration\n => work_thread\n", text), text[-800:]
    finally:
        console.run("echo nofunc_stack_trace > trace_options")


def test_trace_pipe_keeps_up_with_a_slow_writer(console):
    """A reader that catches up with the writer must see later events too (it once stalled)."""
    console.run("echo vfs_open > set_ftrace_filter")
    console.run("echo function > current_tracer")
    console.run("echo > trace")
    (pid,) = [int(re.match(r"^\[(\d+)\]", console.run("run fs 1 5")).group(1))]
    console.send(b"cat trace_pipe\r")
    for _ in range(30):                  # each wait starts after the previous match
        console.wait_for(r"vfs_open <-fs_iteration", timeout=60)
    console.send(b"\x03")
    console.wait_for_prompt(timeout=60)
    console.run("kill %d" % pid)
