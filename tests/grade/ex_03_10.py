"""Grader of exercise 03.10 (docs/03-ftrace-ops.md): Linux 6.4's touched_functions, every function some ops
has wanted since boot, in enabled_functions' format."""

TITLE = "touched_functions"
POINTS = 10
FUNCS = ["cmd_pwd", "uptime_show"]
NEVER = "cmd_poweroff"          # nothing in the graders traces it


def listed(text):
    return {line.split(" ")[0]: line for line in text.splitlines()}


def test_while_traced_same_lines_as_enabled(console):
    console.run("echo '%s' > set_ftrace_filter" % " ".join(FUNCS))
    assert console.run("echo function > current_tracer") == ""
    enabled = listed(console.run("cat enabled_functions"))
    touched = listed(console.run("cat touched_functions"))
    assert set(FUNCS) <= set(enabled), enabled
    for func in FUNCS:
        assert touched.get(func) == enabled[func], (touched.get(func), enabled[func])


def test_kept_after_tracing_stops(console):
    console.run("echo '%s' > set_ftrace_filter" % " ".join(FUNCS))
    console.run("echo function > current_tracer")
    console.run("echo nop > current_tracer")
    enabled = listed(console.run("cat enabled_functions"))
    touched = listed(console.run("cat touched_functions"))
    assert not set(FUNCS) & set(enabled), enabled
    for func in FUNCS:
        assert touched.get(func) == "%s (0)      " % func, touched.get(func)
    assert NEVER not in touched
