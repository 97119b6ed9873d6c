"""tests/integration/test_sched.py: the scheduling classes (kernel/sched/rt.c, deadline.c) and their system
calls (kernel/sched/syscalls.c) on 2 CPUs: Linux's errnos for bad input with nothing changed (tests/user/schedtest.c),
our chrt (util-linux's command line) running a program in each class, /proc/self/stat's priority and policy."""

import re

from tests.console import LOG_LINE

SMP = 2


def program_lines(text):
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


def test_syscalls_good_and_bad(console):
    out = program_lines(console.run("/tests/schedtest", timeout=120))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(failures)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) > 60, out[-1]


def test_chrt_limits(console):
    assert program_lines(console.run("/usr/bin/chrt -m")) == [
        "SCHED_OTHER min/max priority\t: 0/0", "SCHED_FIFO min/max priority\t: 1/99",
        "SCHED_RR min/max priority\t: 1/99", "SCHED_BATCH min/max priority\t: 0/0",
        "SCHED_IDLE min/max priority\t: 0/0", "SCHED_DEADLINE min/max priority\t: 0/0"]


def stat_fields(console, cmd):
    out = program_lines(console.run("/usr/bin/" + cmd + " /bin/cat /proc/self/stat"))
    fields = out[-1].rsplit(") ", 1)[1].split()
    # fields[0] is field 3 (state): priority is 18, nice 19, rt_priority 40, policy 41.
    return int(fields[15]), int(fields[16]), int(fields[37]), int(fields[38])


def test_chrt_runs_program_in_class(console):
    assert stat_fields(console, "chrt -o 0") == (20, 0, 0, 0)
    assert stat_fields(console, "chrt -f 5") == (-6, 0, 5, 1)
    assert stat_fields(console, "chrt -r 99") == (-100, 0, 99, 2)
    assert stat_fields(console, "chrt -d -T 1000000 -D 10000000 -P 10000000 0") == (-101, 0, 0, 6)


def test_chrt_shows_and_refuses(console):
    out = program_lines(console.run("/usr/bin/chrt -f 30 /bin/sh -c 'chrt -p $$'"))
    assert re.match(r"^pid \d+'s current scheduling policy: SCHED_FIFO$", out[0]), out
    assert re.match(r"^pid \d+'s current scheduling priority: 30$", out[1]), out
    assert program_lines(console.run("/bin/sh -c 'chrt -f 100 true; echo $?'")) == [
        "chrt: failed to set pid's policy: errno 22", "1"]
    assert program_lines(console.run(
        "/bin/sh -c 'chrt -d -T 9900000 -D 10000000 -P 10000000 0 true; echo $?'")) == [
        "chrt: failed to set pid's policy: errno 16", "1"]


def test_fifo_task_is_not_time_sliced(console):
    """A SCHED_FIFO loop beside a normal workload on its CPU: never switched out while runnable (no R+
    switch away from prio 89), where a normal task is sliced at every tick."""
    # A fair workload on CPU 0, the shell's, where the forked FIFO loop runs too.
    pids = re.findall(r"^\[(\d+)\]", console.run("run compute 0"), re.M)
    assert len(pids) == 1
    console.run("echo 1 > events/sched/sched_switch/enable")
    out = program_lines(console.run(
        "/usr/bin/chrt -f 10 /bin/sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done; echo fifo-done'",
        timeout=120))
    console.run("echo 0 > tracing_on")
    console.run("kill " + pids[0])
    assert out == ["fifo-done"]
    trace = console.run("cat trace", timeout=60)
    # Every switch away from the FIFO shell (prio 89) while it was runnable would show prev_prio=89 prev_state=R+.
    assert not re.search(r"prev_prio=89 prev_state=R\+ ==> next_comm=\S+ next_pid=\d+ next_prio=120", trace), trace
    assert re.search(r"prev_prio=89 prev_state=X ==>", trace), trace
    assert re.search(r"next_comm=compute next_pid=%s next_prio=120" % pids[0], trace), trace
