"""Grader of exercise 08.4 (docs/08-function-graph.md): stack traces see through function_graph's hooked
return slots, reading the real return address off the task's shadow stack."""

import re

import pytest

TITLE = "an unwinder that knows the shadow stack"
POINTS = 10
FS_FUNCS = "fs_iteration vfs_* path_lookup dentry_lookup inode_permission page_cache_lookup copy_to_buffer"


@pytest.fixture(scope="module")
def traces(console):
    """The stack traces of a function_graph run of the fs workload, one list of lines each."""
    console.run("echo '%s' > set_ftrace_filter" % FS_FUNCS)
    console.run("echo 'vfs_read:stacktrace' >> set_ftrace_filter")
    try:
        assert console.run("echo function_graph > current_tracer") == ""
        console.run("echo > trace")
        pid = int(re.match(r"^\[(\d+)\]", console.run("run fs 1 1")).group(1))
        console.run("selftest timer_ticks")
        console.run("echo 0 > tracing_on")
        lines = console.run("cat trace", timeout=60).splitlines()
        console.run("kill %d" % pid)
    finally:
        for cmd in ("echo 1 > tracing_on", "echo nop > current_tracer", "echo '!vfs_read:stacktrace' >> set_ftrace_filter",
                    "echo > set_ftrace_filter", "echo > trace"):
            console.run(cmd)
    found = []
    for i, line in enumerate(lines):
        if line.endswith("<stack trace>"):
            entries = []
            for follow in lines[i + 1:]:
                if not follow.startswith(" => "):
                    break
                entries.append(follow[4:])
            found.append(entries)
    return found


def test_caller_named(traces):
    assert traces, "no <stack trace> in the trace"
    assert traces[0][:3] == ["vfs_read", "fs_iteration", "work_thread"], traces[0]


def test_no_hooked_slot_left(traces):
    assert traces, "no <stack trace> in the trace"
    assert not [t for t in traces if "return_to_handler" in t], traces[:3]
