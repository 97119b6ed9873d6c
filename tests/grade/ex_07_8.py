"""Grader of exercise 07.8 (docs/07-function-tracer.md): a tracer of your own, `count`, which prints each
function event as the function's name and how many of its events this read of `trace` has shown."""

TITLE = "a tracer of your own: count"
POINTS = 10


def record(console):
    console.run("echo 'cmd_pwd uptime_show' > set_ftrace_filter")
    assert console.run("echo count > current_tracer") == ""
    for cmd in ("pwd", "cat /proc/uptime", "pwd", "pwd"):
        console.run(cmd)
    console.run("echo 0 > tracing_on")


def test_listed(console):
    tracers = console.run("cat available_tracers").split()
    assert "count" in tracers and {"nop", "function", "function_graph"} <= set(tracers), tracers


def test_counts_per_function(console):
    record(console)
    out = console.run("cat trace").splitlines()
    assert out[:3] == ["# tracer: count", "#", "# FUNCTION COUNT"], out[:3]
    assert out[3:] == ["cmd_pwd 1", "uptime_show 1", "cmd_pwd 2", "cmd_pwd 3"], out


def test_each_read_counts_afresh(console):
    record(console)
    first = console.run("cat trace")
    assert console.run("cat trace") == first
    assert first.splitlines()[-1] == "cmd_pwd 3", first
