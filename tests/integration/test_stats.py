"""tests/integration/test_stats.py: the function profiler (function_profile_enabled, trace_stat) and
the stack tracer (stack_tracer_enabled, stack_max_size, stack_trace): Linux's layouts, numbers that
grow while on and freeze when off, resets, and bad input refused."""

import re

import pytest

SMP = 2
EINVAL = "echo: write error: Invalid argument"
STAT_HEAD = ["  Function                               Hit    Time            Avg             s^2",
             "  --------                               ---    ----            ---             ---"]
DUR = r"\d+(?:\.\d{1,3})? us +"
STAT_LINE = r"^  (?P<func>[\w. ]{30})  (?P<hit>[ \d]{10})    (?P<time>%s)    %s    %s$" % (DUR, DUR, DUR)


def stats(console, cpu):
    out = console.run("cat trace_stat/function%d" % cpu).splitlines()
    assert out[:2] == STAT_HEAD
    rows = {}
    for line in out[2:]:
        m = re.match(STAT_LINE, line)
        assert m, line
        us = float(m.group("time").split()[0])
        rows[m.group("func").strip()] = (int(m.group("hit")), us)
    return rows


def test_profiler_counts_then_freezes(console):
    console.run("echo 'fs_iteration vfs_* path_lookup dentry_lookup' > set_ftrace_filter")
    assert console.run("echo 1 > function_profile_enabled") == ""
    assert console.run("cat function_profile_enabled") == "1"
    pid = int(re.match(r"^\[(\d+)\]", console.run("run fs 1 2")).group(1))
    console.run("selftest timer_ticks")
    first = stats(console, 1)
    assert {"vfs_open", "vfs_read", "vfs_close", "path_lookup", "dentry_lookup"} <= set(first)
    assert first["vfs_open"][0] == first["vfs_read"][0] == first["vfs_close"][0]  # once each per file
    times = [t for _, t in first.values()]
    assert times == sorted(times, reverse=True)                    # most time first
    console.run("selftest timer_ticks")
    second = stats(console, 1)
    assert second["vfs_open"][0] > first["vfs_open"][0]             # growing while on
    assert console.run("echo 0 > function_profile_enabled") == ""
    frozen = stats(console, 1)
    console.run("selftest timer_ticks")
    assert stats(console, 1) == frozen                               # frozen when off
    assert stats(console, 0) == {} or all(h > 0 for h, _ in stats(console, 0).values())
    console.run("kill %d" % pid)


def test_profiler_and_function_graph_exclude_each_other(console):
    console.run("echo 1 > function_profile_enabled")
    assert console.run("echo function_graph > current_tracer") == \
        "echo: write error: Device or resource busy"
    assert console.run("cat current_tracer") == "nop"


@pytest.mark.parametrize("file", ["function_profile_enabled", "/proc/sys/kernel/stack_tracer_enabled"])
@pytest.mark.parametrize("bad", ["2", "x", "-1"])
def test_switches_refuse_bad_values(console, file, bad):
    before = console.run("cat " + file)
    assert console.run("echo '%s' > %s" % (bad, file)) == EINVAL
    assert console.run("cat " + file) == before


def test_stack_tracer_records_the_deepest_stack(console):
    assert console.run("cat stack_max_size") == "0"
    assert console.run("echo 1 > /proc/sys/kernel/stack_tracer_enabled") == ""
    console.run("run compute 1 1")
    console.run("selftest timer_ticks")
    size = int(console.run("cat stack_max_size"))
    out = console.run("cat stack_trace").splitlines()
    m = re.match(r"^        Depth    Size   Location    \((\d+) entries\)$", out[0])
    assert m and out[1] == "        -----    ----   --------"
    rows = [re.match(r"^ *(\d+)\) +(\d+) +(\d+)   (\w[\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+$", l) for l in out[2:]]
    assert all(rows) and len(rows) == int(m.group(1)) > 2, out
    depths = [int(r.group(2)) for r in rows]
    assert depths == sorted(depths, reverse=True) and depths[0] >= size > 0
    assert all(int(r.group(3)) == (depths[i] - depths[i + 1] if i + 1 < len(depths) else depths[i])
               for i, r in enumerate(rows))
    assert console.run("echo 0 > /proc/sys/kernel/stack_tracer_enabled") == ""
    assert console.run("echo 0 > stack_max_size") == ""
    assert console.run("cat stack_max_size") == "0"
    assert console.run("echo x > stack_max_size") == EINVAL


def test_stack_trace_filter_limits_where_the_stack_is_measured(console):
    """Linux's stack_trace_filter: the stack tracer's own ops filter, with set_ftrace_filter's globs."""
    assert console.run("cat stack_trace_filter") == "#### all functions enabled ####"
    assert console.run("echo 'compute_*' > stack_trace_filter") == ""
    listed = console.run("cat stack_trace_filter").splitlines()
    assert listed and all(f.startswith("compute_") for f in listed), listed
    assert console.run("echo 'zzz_no_such_*' > stack_trace_filter") == EINVAL
    assert console.run("cat stack_trace_filter").splitlines() == listed
    # Only at demo_greeting, which nothing calls while compute runs: nothing measured.
    assert console.run("echo demo_greeting > stack_trace_filter") == ""
    assert console.run("echo 0 > stack_max_size") == ""
    assert console.run("echo 1 > /proc/sys/kernel/stack_tracer_enabled") == ""
    try:
        console.run("run compute 1 1")
        console.run("selftest timer_ticks")
        assert console.run("cat stack_max_size") == "0"
        # The filter changes while the tracer runs: now compute's functions are measured.
        assert console.run("echo 'compute_*' > stack_trace_filter") == ""
        console.run("run compute 1 1")
        console.run("selftest timer_ticks")
        assert int(console.run("cat stack_max_size")) > 0
    finally:
        console.run("echo 0 > /proc/sys/kernel/stack_tracer_enabled")
        console.run("echo > stack_trace_filter")
        console.run("echo 0 > stack_max_size")
    assert console.run("cat stack_trace_filter") == "#### all functions enabled ####"
