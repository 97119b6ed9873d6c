"""tests/integration/test_static.py: the static-ftrace build (make STATIC_FTRACE=1, build-static/).

One QEMU for the module, booted from build-static/ftrace-os-test.iso: the only module that does; every other
integration module tests the dynamic build. What is checked here holds for both builds (banner, prompt,
filters, the function tracer's lines) or is what the static build must do differently: sites stay
`call __fentry__` whatever is traced, and what needs a patched site (enabled_functions, patch_method,
direct_count, a kprobe at offset 0) is absent or refused. function_graph works through Linux's static
graph hook, and builds the call tree test_graph.py checks in the dynamic build.
`FS_ROWS` is shared with test_ftrace.py, which checks that the dynamic build traces the same lines.
"""

import os
import re

import pytest

from tests.console import ANNOUNCED_REPORTS, ROOT, TIMEOUT_SCALE, unannounced_reports
from tests.ktap import parse_ktap

SMP = 2                                  # test_graph's workload runs on CPU 1
ISO = os.path.join(ROOT, "build-static", "ftrace-os-test.iso")

FS_FILTER = "vfs_* path_lookup dentry_lookup"
# One iteration of `run fs 0 1` (fs_iteration() opens, reads and closes a file) as the function tracer shows it.
FS_ROWS = [("vfs_open", "fs_iteration"), ("path_lookup", "vfs_open"), ("dentry_lookup", "path_lookup"),
           ("dentry_lookup", "path_lookup"), ("vfs_read", "fs_iteration")]
FN = re.compile(r"^ +(?P<comm>\S+)-(?P<pid>\d+) +\[\d{3}\] \S{5} +\d+\.\d{6}: (?P<func>\w+) <-(?P<parent>\w+)$")
EINVAL = "echo: write error: Invalid argument"
EBUSY = "echo: write error: Device or resource busy"


def fs_rows(console):
    """(function, parent) of each `cat trace` line after one `run fs 0 1` under the filter FS_FILTER."""
    console.run("echo '%s' > set_ftrace_filter" % FS_FILTER)
    assert console.run("echo function > current_tracer") == ""
    console.run("run fs 0 1")
    console.run("selftest timer_ticks")          # the workload has ended and its events are in
    console.run("echo 0 > tracing_on")
    lines = console.run("cat trace", timeout=60).splitlines()
    for cmd in ("echo nop > current_tracer", "echo 1 > tracing_on", "echo > set_ftrace_filter", "echo > trace"):
        console.run(cmd)
    rows = []
    for line in lines:
        if not line.startswith("#"):
            m = FN.match(line)
            assert m and m.group("comm") == "fs", "bad trace line: %r" % line
            rows.append((m.group("func"), m.group("parent")))
    return rows


def call_target(console, func):
    """What the first instruction of func is, as `dis` decodes it."""
    line = console.run("dis %s 5" % func).splitlines()[1]
    return re.sub(r"\s+", " ", line.split("  ", 2)[2].strip()) if line.count("  ") >= 2 else line


def test_boot_leaves_every_site_a_call(console):
    m = re.search(r"ftrace: static \(no dynamic ftrace\): (\d+) sites left calling __fentry__", console.boot_text)
    assert m and int(m.group(1)) > 300, console.boot_text[-800:]
    assert "converted" not in console.boot_text
    assert console.run("cat current_tracer") == "nop"


@pytest.mark.parametrize("func", ["vfs_read", "bench_target", "kmalloc"])
def test_dis_shows_call_fentry_traced_or_not(console, func):
    assert re.fullmatch(r"call [0-9a-f]{16} <__fentry__>", call_target(console, func))
    console.run("echo %s > set_ftrace_filter" % func)
    console.run("echo function > current_tracer")
    try:
        assert re.fullmatch(r"call [0-9a-f]{16} <__fentry__>", call_target(console, func))
    finally:
        console.run("echo nop > current_tracer")
        console.run("echo > set_ftrace_filter")


def test_function_tracer_on_filtered_functions(console):
    rows = fs_rows(console)
    assert rows[:len(FS_ROWS)] == FS_ROWS
    assert {f for f, _ in rows} <= {"vfs_open", "vfs_read", "vfs_close", "path_lookup", "dentry_lookup"}


def test_set_ftrace_filter_and_notrace(console):
    assert console.run("echo 'nosuch*' > set_ftrace_filter") == EINVAL
    assert console.run("cat set_ftrace_filter") == "#### all functions enabled ####"
    console.run("echo 'vfs_r*' > set_ftrace_filter")
    assert console.run("cat set_ftrace_filter").splitlines() == ["vfs_read"]
    console.run("echo 'vfs_*' > set_ftrace_filter")
    console.run("echo vfs_read > set_ftrace_notrace")
    console.run("echo function > current_tracer")
    console.run("run fs 0 1")
    console.run("selftest timer_ticks")
    console.run("echo 0 > tracing_on")
    funcs = {m.group("func") for m in map(FN.match, console.run("cat trace", timeout=60).splitlines()) if m}
    for cmd in ("echo nop > current_tracer", "echo 1 > tracing_on", "echo > set_ftrace_filter",
                "echo > set_ftrace_notrace", "echo > trace"):
        console.run(cmd)
    assert funcs == {"vfs_open", "vfs_close"}


@pytest.mark.parametrize("name", ["enabled_functions", "patch_method", "direct_count"])
def test_dynamic_only_files_are_absent(console, name):
    assert console.run("cat " + name) == "cat: %s: No such file or directory" % name
    assert name not in console.run("ls").split()


def test_function_graph_through_the_static_graph_hook(console):
    """__fentry__ tests ftrace_graph_entry after ftrace_trace_function: the same tree as the dynamic build."""
    from tests.integration import test_graph
    # An fs workload an earlier test started on CPU 0 may still run: its calls are not this tree's.
    pids = [l.split()[0] for l in console.run("ps").splitlines()[1:] if l.split()[-1] == "fs"]
    if pids:
        console.run("kill " + " ".join(pids))
    try:
        test_graph.test_leaves_and_the_call_tree_shape(console)
        test_graph.test_lines_nest_and_durations_add_up(console)
        assert re.fullmatch(r"call [0-9a-f]{16} <__fentry__>", call_target(console, "vfs_open"))
    finally:
        for cmd in ("echo nop > current_tracer", "echo > set_ftrace_filter", "echo > trace"):
            console.run(cmd)
    # Off again: nothing left hooked, the function tracer alone works as before.
    assert console.run("cat current_tracer") == "nop"
    assert fs_rows(console)[:len(FS_ROWS)] == FS_ROWS


def test_what_needs_a_patched_site_is_refused(console):
    assert console.run("echo 'p:at0 vfs_read' > kprobe_events") == EBUSY
    assert console.run("echo 'p:at5 vfs_read+5' > kprobe_events") == ""   # past the site: an int3 probe
    assert console.run("cat kprobe_events") == "p:kprobes/at5 vfs_read+5"
    assert console.run("echo > kprobe_events") == ""


def test_selftests_that_need_no_patched_site_pass(console):
    """`selftest` in this build: the cases marked SELFTEST_DYNAMIC say so and skip; every other one passes."""
    with console.expected_bugs(), console.expected_jump_label_bugs(), \
            console.disable_check(*ANNOUNCED_REPORTS) as seen:
        output = console.run("selftest", timeout=300 * TIMEOUT_SCALE)
    assert not unannounced_reports(output, seen), unannounced_reports(output, seen)
    results = parse_ktap(output)
    failed = ["%s: %s" % (r.name, " / ".join(r.diagnostics)) for r in results if not r.ok]
    assert not failed, failed
    skipped = [r for r in results if r.skip]
    for r in skipped:
        assert any("needs dynamic ftrace" in d for d in r.diagnostics), r
    assert len(results) - len(skipped) >= 50, [r.name for r in skipped]
    assert {"ftrace_two_ops_overlap", "stop_machine_holds_every_cpu", "events_record_matches_format"} <= \
        {r.name for r in results if not r.skip}
