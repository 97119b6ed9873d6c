"""tests/integration/test_perf_events.py: perf_event_open(2) beside ftrace's buffer (docs/24-perf-events.md).

tests/user/perftest.c checks the ABI from ring 3: attr sizes VER0..VER7 and E2BIG with our size written back, bad
attrs refused with Linux's errno, a tracepoint counted with ENABLE/DISABLE/RESET/ID and read_format, a group,
sched_switch samples in the mmap'ed ring, SET_FILTER, and perf_event_paranoid's refusals as uid 1000. Here also:
an event enabled in both ftrace and perf writes to both, the paranoid sysctl refuses bad input, and the two
programs of the chapter (perfstat, perfrecord) count and sample.
"""

import re

from tests.console import LOG_LINE

SMP = 2
QEMU_ARGS = ["-cpu", "max"]


def program_lines(text):
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


def test_perf_abi_program(console):
    out = program_lines(console.run("/tests/perftest", timeout=180))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 50, out
    # the uid 1000 child's own checks ran and passed
    assert "ok 2 uid 1000: own task, user only: opens" in out


def test_paranoid_sysctl(console):
    """Linux's default, 2; any int is stored, anything else refused and nothing changed."""
    assert console.run("cat /proc/sys/kernel/perf_event_paranoid") == "2"
    out = console.run("echo abc > /proc/sys/kernel/perf_event_paranoid")
    assert "Invalid argument" in out
    assert console.run("cat /proc/sys/kernel/perf_event_paranoid") == "2"
    console.run("echo -1 > /proc/sys/kernel/perf_event_paranoid")
    assert console.run("cat /proc/sys/kernel/perf_event_paranoid") == "-1"
    console.run("echo 2 > /proc/sys/kernel/perf_event_paranoid")
    assert console.run("cat /proc/sys/kernel/perf_event_paranoid") == "2"
