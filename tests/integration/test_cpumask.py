"""tests/integration/test_cpumask.py: tracing_cpumask as Linux's: a hex bitmap of the possible CPUs, and a CPU
taken out records nothing (events and the function tracer alike) while the others go on; every trace array has
its own; a bit past the last CPU is EOVERFLOW, anything not hex EINVAL, with nothing changed."""

import re

SMP = 2
T = "/sys/kernel/tracing"
EINVAL = "echo: write error: Invalid argument"
EOVERFLOW = "echo: write error: Value too large for defined data type"


def cpus_seen(console, path=T):
    """The CPU column of every line of trace after a workload has run on both CPUs."""
    console.run("echo > %s/trace" % path)
    pids = re.findall(r"^\[(\d+)\] compute on CPU \d$", console.run("run compute all 1"), re.M)
    assert len(pids) == 2, pids
    for pid in pids:
        console.poll("ps", lambda out: not re.search(r"^ *%s " % pid, out, re.M), timeout=120)
    return set(re.findall(r"^ *\S+-\d+ +\[(\d{3})\]", console.run("cat %s/trace" % path), re.M))


def test_cpumask_limits_recording(console):
    assert console.run("cat %s/tracing_cpumask" % T) == "3"
    assert console.run("echo 1 > %s/events/sched/sched_switch/enable" % T) == ""
    try:
        assert cpus_seen(console) == {"000", "001"}
        for mask, cpus in (("1", {"000"}), ("2", {"001"}), ("3", {"000", "001"})):
            assert console.run("echo %s > %s/tracing_cpumask" % (mask, T)) == ""
            assert console.run("cat %s/tracing_cpumask" % T) == mask
            assert cpus_seen(console) == cpus, mask
    finally:
        console.run("echo 0 > %s/events/sched/sched_switch/enable" % T)
        console.run("echo 3 > %s/tracing_cpumask" % T)


def test_bad_masks_change_nothing(console):
    assert console.run("echo 2 > %s/tracing_cpumask" % T) == ""
    for bad, err in (("10", EOVERFLOW), ("4", EOVERFLOW), ("zz", EINVAL), ("0x1", EINVAL)):
        assert console.run("echo '%s' > %s/tracing_cpumask" % (bad, T)) == err, bad
        assert console.run("cat %s/tracing_cpumask" % T) == "2"
    assert console.run("echo 3 > %s/tracing_cpumask" % T) == ""


def test_instance_has_its_own_mask(console):
    assert console.run("mkdir %s/instances/cm" % T) == ""
    try:
        assert console.run("echo 1 > %s/instances/cm/tracing_cpumask" % T) == ""
        assert console.run("cat %s/tracing_cpumask" % T) == "3"
        assert console.run("echo 1 > %s/instances/cm/events/sched/sched_switch/enable" % T) == ""
        assert cpus_seen(console, T + "/instances/cm") == {"000"}
    finally:
        console.run("rmdir %s/instances/cm" % T)
