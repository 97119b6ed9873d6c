"""tests/integration/test_ftracetest.py: a quick part of Linux's own ftracetest, so a regression shows up.

`make ftracetest` runs all of Linux 6.1's tools/testing/selftests/ftrace inside the kernel and writes
docs/FTRACETEST.md; this runs, the same way (tools/ftracetest.py: extracted from Debian's linux-source-6.1
into build/, packed into an initramfs, `./ftracetest` under busybox's sh), cases of test.d/00basic and
test.d/ftrace that passed in that run, and asserts that each still passes. The list is the run's, not a
wish: a case that starts passing may be added here when docs/FTRACETEST.md is regenerated. Left to
`make ftracetest` (LEFT_TO_FULL_RUN): passing cases whose ground this suite's own modules cover, and
which took half of this module's time.
"""

import importlib.util
import os

import pytest

from tests.console import Console

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("ftracetest", os.path.join(ROOT, "tools", "ftracetest.py"))
ftracetest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ftracetest)

# test.d file -> its description: cases that passed in docs/FTRACETEST.md's run, run here.
PASSING = {
    "00basic/basic1.tc": "Basic trace file check",
    "00basic/basic2.tc": "Basic test for tracers",
    "00basic/basic3.tc": "Basic trace clock test",
    "00basic/basic4.tc": "Basic event tracing check",
    "00basic/ringbuffer_size.tc": "Change the ringbuffer size",
    "00basic/snapshot.tc": "Snapshot and tracing setting",
    "00basic/trace_pipe.tc": "trace_pipe and trace_marker",
    "ftrace/fgraph-filter-stack.tc": "ftrace - function graph filters with stack tracer",
    "ftrace/fgraph-filter.tc": "ftrace - function graph filters",
    "ftrace/func-filter-stacktrace.tc": "ftrace - stacktrace filter command",
    "ftrace/func_profile_stat.tc": "ftrace - function profiling",
    "ftrace/func_stack_tracer.tc": "ftrace - Max stack tracer",
}

# Cases that pass too, run by `make ftracetest` only: the slowest five (with their runs in an instance, about half
# of this module's time), each on ground this suite's own modules cover.
LEFT_TO_FULL_RUN = {
    # test_triggers.py (traceon/traceoff with counts, their removal), test_instances.py (enable_event counted
    # down in an instance), test_instance_triggers.py
    "ftrace/func_event_triggers.tc": "ftrace - test for function event triggers",
    "ftrace/func_traceonoff_triggers.tc": "ftrace - test for function traceon/off triggers",
    # test_trace.py (set_ftrace_pid), test_notrace_pid.py (set_ftrace_notrace_pid, in an instance too). The
    # notrace case may also fail for no fault of ours, rarely: it counts the lines of `trace` that hold its shell's
    # PID by `grep $PID`, a bare substring, so another task's line whose timestamp or pid holds those digits counts.
    "ftrace/func-filter-notrace-pid.tc": "ftrace - function pid notrace filters",
    "ftrace/func-filter-pid.tc": "ftrace - function pid filters",
    # test_stats.py (the profiler counts, then freezes; it and function_graph exclude each other)
    "ftrace/func_profiler.tc": "ftrace - function profiler with function tracing",
}


# The same files as shell globs: the kernel shell takes lines of at most 255 characters.
GLOBS = ("00basic/*.tc ftrace/fgraph-filter*.tc ftrace/func-filter-stacktrace.tc ftrace/func_profile_stat.tc "
         "ftrace/func_stack_tracer.tc")


@pytest.fixture(scope="module")
def ftrace_console():
    ftracetest.extract()
    con = Console(smp=2, extra_args=["-m", "1G"], iso=ftracetest.build_iso(), name="ftracetest")
    con.start()
    yield con
    con.close()


def test_globs_name_exactly_the_passing_files():
    import glob
    top = os.path.join(ftracetest.SRC, "test.d")
    ftracetest.extract()
    files = {os.path.relpath(f, top) for g in GLOBS.split() for f in glob.glob(os.path.join(top, g))}
    assert files == set(PASSING)
    assert all(os.path.exists(os.path.join(top, f)) for f in LEFT_TO_FULL_RUN), LEFT_TO_FULL_RUN


def test_cases_that_pass_keep_passing(ftrace_console):
    out = ftrace_console.run("/bin/sh -c 'cd /ftrace/test.d && ../ftracetest %s'" % GLOBS, timeout=1800)
    results, summary = ftracetest.parse(out)
    got = {desc: res for _, desc, res in results if not desc.startswith("(instance)")}
    assert got == {desc: "PASS" for desc in PASSING.values()}, out
    assert summary.get("passed", 0) >= len(PASSING), out
