"""Grader of exercise 04.3 (docs/04-smp.md): a per-CPU count of call-function IPIs, the fifth column of `cpus`."""

import re

TITLE = "a per-CPU counter: IPIs in cpus"
POINTS = 10
DEMO = "/proc/sys/kernel/jump_label_demo"


def cpus(console):
    rows = console.run("cpus").splitlines()
    assert re.match(r"^CPU +APIC +STATE +TICKS +IPIS$", rows[0]), rows[0]
    found = {}
    for row in rows[1:]:
        m = re.match(r"^ *(\d+) +(\d+) +online +(\d+) +(\d+)$", row)
        assert m, row
        found[int(m.group(1))] = int(m.group(4))
    assert sorted(found) == [0, 1], rows
    return found


def test_header_and_rows(console):
    cpus(console)


def test_patching_sends_ipis_to_the_other_cpu(console):
    before = cpus(console)
    # Each flip patches two sites and makes every other CPU serialize: call-function IPIs.
    for value in (1, 0, 1, 0):
        assert console.run("echo %d > %s" % (value, DEMO)) == ""
    after = cpus(console)
    assert after[1] >= before[1] + 4, (before, after)
    assert after[0] >= before[0]
