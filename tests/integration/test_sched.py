"""tests/integration/test_sched.py: the scheduling classes (kernel/sched/rt.c, deadline.c) and their system
calls (kernel/sched/syscalls.c) on 2 CPUs: Linux's errnos for bad input with nothing changed (tests/user/schedtest.c),
our chrt (util-linux's command line) running a program in each class, /proc/self/stat's priority and policy; RT
throttling (kernel/sched/rt_bandwidth.c): a SCHED_FIFO loop that never sleeps on the shell's CPU is switched out
when its runtime of the period is spent, and the shell still answers."""

import re

from tests.console import LOG_LINE

SMP = 2
RT_RUNTIME = "/proc/sys/kernel/sched_rt_runtime_us"
RT_PERIOD = "/proc/sys/kernel/sched_rt_period_us"
EINVAL = "echo: write error: Invalid argument"


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
    # No RT throttling here (ftracetest turns it off the same way): a loop longer than 950 ms of CPU would
    # rightly be switched out when its runtime is spent; test_rt_throttling_keeps_the_shell_alive has that.
    runtime = console.run("cat " + RT_RUNTIME)
    assert console.run("echo -1 > " + RT_RUNTIME) == ""
    try:
        out = program_lines(console.run(
            "/usr/bin/chrt -f 10 /bin/sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done; echo fifo-done'",
            timeout=120))
    finally:
        console.run("echo %s > %s" % (runtime, RT_RUNTIME))
    console.run("echo 0 > tracing_on")
    console.run("kill " + pids[0])
    assert out == ["fifo-done"]
    trace = console.run("cat trace", timeout=60)
    # Every switch away from the FIFO shell (prio 89) while it was runnable would show prev_prio=89 prev_state=R+.
    assert not re.search(r"prev_prio=89 prev_state=R\+ ==> next_comm=\S+ next_pid=\d+ next_prio=120", trace), trace
    assert re.search(r"prev_prio=89 prev_state=X ==>", trace), trace
    assert re.search(r"next_comm=compute next_pid=%s next_prio=120" % pids[0], trace), trace


def test_rt_sysctls_refuse_bad_input(console):
    """Linux's checks: the period at least 1, the runtime -1 or more and within the period, numbers only;
    a refused write changes nothing."""
    assert console.run("cat %s %s" % (RT_PERIOD, RT_RUNTIME)).split() == ["1000000", "950000"]
    for cmd in ("echo 0 > " + RT_PERIOD, "echo 900000 > " + RT_PERIOD, "echo abc > " + RT_PERIOD,
                "echo -2 > " + RT_RUNTIME, "echo 1000001 > " + RT_RUNTIME, "echo 2147483648 > " + RT_RUNTIME,
                "echo 1x > " + RT_RUNTIME):
        assert console.run(cmd) == EINVAL, cmd
    assert console.run("cat %s %s" % (RT_PERIOD, RT_RUNTIME)).split() == ["1000000", "950000"]


def fifo_loop(console):
    """Starts a SCHED_FIFO 50 loop that never sleeps, in the background on CPU 0 (the shell's; taskset moves it
    there, where a fork would otherwise choose the idle CPU); its pid, once it runs as the FIFO loop.

    The sh that starts it stays on CPU 1 and waits there until the loop is FIFO, then sh again (chrt has
    exec'd it; asked in that order, a "sh" can only be the loop's): chrt's own start, under SCHED_OTHER beside
    the shell, may outlast the commands that follow, which would then never need the throttle. All of it is one
    command, typed before the loop exists, so the kernel's throttling line can only come in its output, never
    inside the echo of a command typed while the shell waits for its 50 ms."""
    try:
        out = program_lines(console.run(
            "/bin/sh -c '/usr/bin/taskset 1 /usr/bin/chrt -f 50 /bin/sh -c \"while :; do :; done\" "
            "> /dev/null 2>&1 & p=$!; until /usr/bin/chrt -p $p | grep -q SCHED_FIFO && "
            "[ $(cat /proc/$p/comm) = sh ]; do :; done; echo $p'",
            timeout=120))
    except BaseException:
        console.run("/bin/busybox pkill -9 -f 'while :; do :; done'", timeout=120)  # never leave it to others
        raise
    return int(out[-1])


def test_rt_throttling_keeps_the_shell_alive(console):
    """A SCHED_FIFO loop that never sleeps, started on CPU 0 (the shell's): with Linux's default 950 ms of every
    second the shell still answers, in the 50 ms left to it, and the kernel says once that throttling began.
    Then a second loop at 50 ms of every 100 ms, which never sleeps either, is switched out while runnable
    (prev_state=R) at every period's runtime, so many times in a guest second. Nothing here depends on how fast
    QEMU runs: without throttling the shell would never answer at all."""
    pid = fifo_loop(console)
    try:
        # The answer needs the shell to run: only while the loop is throttled (and dmesg's, a second time).
        assert console.run("cat " + RT_RUNTIME, timeout=120) == "950000"
        with console.disable_check("banner"):                # dmesg replays the banner line
            assert "sched: RT throttling activated" in console.run("dmesg", timeout=120)
    finally:
        console.run("/bin/busybox kill -9 %d" % pid, timeout=120)
    # The CPU still owes up to 950 ms: -1 pays all of it back at the period's end (at 50 ms a period it would
    # take two seconds), with no loop left to take the CPU meanwhile; then the period, then the runtime in it.
    for cmd in ("echo -1 > " + RT_RUNTIME, "echo 100000 > " + RT_PERIOD, "/bin/busybox sleep 2",
                "echo 50000 > " + RT_RUNTIME, "echo 1 > events/sched/sched_switch/enable"):
        assert console.run(cmd, timeout=120) == "", cmd
    pid = fifo_loop(console)
    try:
        console.run("/bin/busybox sleep 1", timeout=120)
        assert console.run("echo 0 > tracing_on", timeout=120) == ""
    finally:
        console.run("/bin/busybox kill -9 %d" % pid, timeout=120)
        console.run("echo 1000000 > " + RT_PERIOD, timeout=120)
        console.run("echo 950000 > " + RT_RUNTIME, timeout=120)
    trace = console.run("cat trace", timeout=60)
    switch = re.compile(r"^.*\[000\] .*sched_switch: prev_comm=(\S+) prev_pid=(\d+) prev_prio=(\d+) "
                        r"prev_state=(\S+) ==> next_comm=\S+ next_pid=(\d+)", re.M)
    # The loop's switches out: FIFO (prio 49) and past chrt's exec of sh (chrt, FIFO already, may sleep in its
    # exec, S). A guest second at 50 ms of every 100: about ten throttles, each a switch-out while runnable (R:
    # preempted on its way back to user space, as Linux's schedule() from exit_to_user_mode_loop() reports it;
    # R+ from inside the kernel), to another task.
    outs = [m for m in switch.finditer(trace)
            if int(m.group(2)) == pid and m.group(3) == "49" and m.group(1) == "sh"]
    assert len(outs) >= 3, trace[-3000:]
    for m in outs:
        assert m.group(4) in ("R", "R+") and int(m.group(5)) != pid, m.group(0)
