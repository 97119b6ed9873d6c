"""tests/integration/test_notrace_pid.py: set_ftrace_notrace_pid and set_event_notrace_pid as Linux's: a listed
task is never traced, even when set_ftrace_pid / set_event_pid list it too; function-fork and event-fork keep its
children out as well; every trace array has its own; bad input refused with nothing changed."""

import re

SMP = 2
T = "/sys/kernel/tracing"
EINVAL = "echo: write error: Invalid argument"


def greet_lines(console, path=T):
    console.run("echo > %s/trace" % path)
    console.run("greet")
    return re.findall(r"^ *(\S+)-(\d+) .*demo_greeting <-", console.run("cat %s/trace" % path), re.M)


def test_function_notrace_pid(console):
    assert console.run("echo demo_greeting > %s/set_ftrace_filter" % T) == ""
    assert console.run("echo function > %s/current_tracer" % T) == ""
    try:
        assert greet_lines(console) == [("sh", "1")]
        assert console.run("echo 1 > %s/set_ftrace_notrace_pid" % T) == ""
        assert console.run("cat %s/set_ftrace_notrace_pid" % T) == "1"
        assert greet_lines(console) == []
        # In both lists: still not traced (Linux's rule).
        assert console.run("echo 1 > %s/set_ftrace_pid" % T) == ""
        assert greet_lines(console) == []
        for bad in ("abc", "-1", "99999"):
            assert console.run("echo %s > %s/set_ftrace_notrace_pid" % (bad, T)) == EINVAL, bad
            assert console.run("cat %s/set_ftrace_notrace_pid" % T) == "1"
        assert console.run("echo > %s/set_ftrace_notrace_pid" % T) == ""
        assert console.run("cat %s/set_ftrace_notrace_pid" % T) == ""
        assert greet_lines(console) == [("sh", "1")]
    finally:
        console.run("echo > %s/set_ftrace_pid" % T)
        console.run("echo > %s/set_ftrace_notrace_pid" % T)
        console.run("echo nop > %s/current_tracer" % T)
        console.run("echo > %s/set_ftrace_filter" % T)


def sched_exec_pids(console, path=T):
    """The pids of the events recorded while the shell runs one busybox program."""
    console.run("echo > %s/trace" % path)
    console.run("/bin/busybox true")
    return re.findall(r"^ *\S+-(\d+) +\[", console.run("cat %s/trace" % path), re.M)


def test_event_notrace_pid(console):
    assert console.run("echo 1 > %s/events/sched/sched_process_fork/enable" % T) == ""
    try:
        # The shell (pid 1) forks the program: the fork event is the shell's.
        assert "1" in sched_exec_pids(console)
        assert console.run("echo 1 > %s/set_event_notrace_pid" % T) == ""
        assert console.run("cat %s/set_event_notrace_pid" % T) == "1"
        assert "1" not in sched_exec_pids(console)
        assert console.run("echo 1 > %s/set_event_pid" % T) == ""
        assert sched_exec_pids(console) == []
        assert console.run("echo abc > %s/set_event_notrace_pid" % T) == EINVAL
        assert console.run("cat %s/set_event_notrace_pid" % T) == "1"
    finally:
        console.run("echo > %s/set_event_pid" % T)
        console.run("echo > %s/set_event_notrace_pid" % T)
        console.run("echo 0 > %s/events/sched/sched_process_fork/enable" % T)


def test_instance_has_its_own_notrace_lists(console):
    assert console.run("mkdir %s/instances/np" % T) == ""
    try:
        for f in ("set_ftrace_notrace_pid", "set_event_notrace_pid"):
            assert console.run("echo 1 > %s/instances/np/%s" % (T, f)) == ""
            assert console.run("cat %s/instances/np/%s" % (T, f)) == "1"
            assert console.run("cat %s/%s" % (T, f)) == ""
        assert console.run("echo demo_greeting > %s/instances/np/set_ftrace_filter" % T) == ""
        assert console.run("echo function > %s/instances/np/current_tracer" % T) == ""
        assert greet_lines(console, T + "/instances/np") == []
        assert console.run("echo > %s/instances/np/set_ftrace_notrace_pid" % T) == ""
        assert greet_lines(console, T + "/instances/np") == [("sh", "1")]
    finally:
        console.run("echo nop > %s/instances/np/current_tracer" % T)
        console.run("rmdir %s/instances/np" % T)
