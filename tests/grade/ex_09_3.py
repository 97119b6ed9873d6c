"""Grader of exercise 09.3 (docs/09-triggers-and-stats.md): dump and cpudump act once, as Linux's."""

TITLE = "dump once"
POINTS = 10


def commands(console):
    return [l for l in console.run("cat set_ftrace_filter").splitlines() if not l.startswith("#")]


def test_any_count_becomes_one(console):
    assert console.run("echo 'vfs_open:dump:5' >> set_ftrace_filter") == ""
    assert console.run("echo 'vfs_close:cpudump' >> set_ftrace_filter") == ""
    assert commands(console) == ["vfs_open:dump:count=1", "vfs_close:cpudump:count=1"]


def test_dumps_once(console):
    assert console.run("echo 'uptime_show:cpudump' >> set_ftrace_filter") == ""
    first = console.run("cat /proc/uptime")         # uptime_show
    assert first.count("Dumping ftrace buffer:") == 1, first
    assert commands(console) == ["uptime_show:cpudump:count=0"]
    console.run("echo 1 > tracing_on")
    second = console.run("cat /proc/uptime")
    assert "Dumping" not in second, second
