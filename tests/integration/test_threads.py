"""tests/integration/test_threads.py: threads on Linux's ABI (docs/17-user-space.md, "Threads and futexes").

tests/user/threads.c starts threads with the flags pthread_create passes, waits on futexes, and ends thread
groups every way Linux allows: each thread has its own id and the process's pid, the CLONE_CHILD_CLEARTID
word wakes a join, FUTEX_WAIT times out and refuses bad input with Linux's errno, a process-directed signal
goes to a thread that does not block it, exit_group ends every thread, a leader that exits first leaves a
process that ends with its last thread, execve in a thread replaces the process. The trace shows each
thread under its own id, in sched_switch and in the futex system-call events. tests/user/robust.c checks the
robust-futex walk at a thread's exit.
"""

import re

from tests.console import LOG_LINE
from tests.integration.test_user import checks_all_pass, meminfo

SMP = 2
QEMU_ARGS = ["-cpu", "max"]
LINE = (r"^ *(?P<comm>[ -~]{1,16})-(?P<pid>\d+) +\[(?P<cpu>\d{3})\] (?P<flags>[d.][N.][hzZ.][0-9a-f.][.]) +"
        r"(?P<ts>\d+\.\d{6}): (?P<rest>.*)$")


def program_lines(text):
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


def test_threads_program(console):
    before = meminfo(console)
    out = program_lines(console.run("/tests/threads", timeout=180))
    checks_all_pass(out, 55)
    # Every thread's stack, every mm and table went with its process. A thread that reaps itself leaves its
    # stack on its CPU's dead list until that CPU next schedules (reap_dead(): never the stack it stands on),
    # so the last one may still be there at the first read: read until it went, a bounded number of times.
    for _ in range(50):
        after = meminfo(console)
        if after["KernelStack"] == before["KernelStack"]:
            break
    assert after["OtherPages"] == 0
    assert after["KernelStack"] == before["KernelStack"]
    assert after["PageTables"] == before["PageTables"]


def test_robust_futexes(console):
    # tests/user/robust.c: a thread ends holding a robust lock, another while main waits on one; the kernel's
    # walk of the set_robust_list() list marks each FUTEX_OWNER_DIED and wakes the waiter.
    checks_all_pass(program_lines(console.run("/tests/robust", timeout=120)), 11)


def test_trace_shows_each_thread(console):
    try:
        console.run("echo > trace")
        console.run("echo 1 > events/sched/sched_switch/enable")
        console.run("echo 1 > events/syscalls/sys_enter_futex/enable")
        console.run("echo 1 > events/syscalls/sys_exit_futex/enable")
        console.run("echo 1 > events/task/task_newtask/enable")
        out = program_lines(console.run("/tests/threads trace", timeout=120))
        m = re.match(r"^threads (\d+) (\d+)$", out[-1])
        assert m, out
        tids = {int(m.group(1)), int(m.group(2))}
        console.run("echo 0 > events/enable")
        body = []
        for line in console.run("cat trace", timeout=60).split("\n"):
            lm = re.match(LINE, line)
            if lm:
                body.append((lm.group("comm").strip(), int(lm.group("pid")), lm.group("rest")))
        # Each thread is its own pid in the trace's pid column, and in sched_switch's fields.
        for tid in tids:
            waits = [r for c, p, r in body if p == tid and r.startswith("sys_futex(")]
            assert waits and all(re.match(r"^sys_futex\(uaddr: [0-9a-f]+, op: 80, val: 0, ", r)
                                 for r in waits), (tid, waits)
            assert any(p == tid and r.startswith("sys_futex -> 0x0") for c, p, r in body), tid
            assert any(re.search(rf"prev_comm=threads prev_pid={tid} .*==> ", r) for c, p, r in body)
            assert any(re.search(rf"==> next_comm=threads next_pid={tid} ", r) for c, p, r in body)
            assert any(f"task_newtask: pid={tid} comm=threads clone_flags=3d0f00 " in r
                       for c, p, r in body), tid
    finally:
        console.run("echo 0 > events/enable")
        console.run("echo > trace")


def test_process_wide_signals(console):
    # tests/user/sigshared.c: kill() reaches the one thread that does not block it, waits in the process's set
    # (rt_sigpending from two threads, ShdPnd) while all block it, goes to the first that unblocks it; a fatal
    # SIGTERM ends every thread. signal_generate says what Linux's says: kill() is the process's (grp=1, the
    # task its pid names), tgkill() the thread's (grp=0), and exit_group's SIGKILLs to the other threads are no
    # event (Linux's zap_other_threads() sets the bit without one).
    try:
        console.run("echo > trace")
        console.run("echo 1 > events/signal/signal_generate/enable")
        checks_all_pass(program_lines(console.run("/tests/sigshared", timeout=180)), 20)
        console.run("echo 0 > events/enable")
        gens = []
        for line in console.run("cat trace", timeout=60).split("\n"):
            lm = re.match(LINE, line)
            if lm and lm.group("comm").strip() == "sigshared":
                m = re.match(r"signal_generate: sig=(\d+) errno=0 code=(-?\d+) comm=(\S+) pid=(\d+) "
                             r"grp=(\d) res=(\d)$", lm.group("rest"))
                assert m, line
                gens.append((int(lm.group("pid")),) + tuple(m.groups()))
        kills = [g for g in gens if g[1] == "10" and g[2] == "0"]
        assert len(kills) == 2 and all(g[5] == "1" and g[6] == "0" and int(g[4]) == g[0] for g in kills), gens
        tgkills = [g for g in gens if g[1] == "10" and g[2] == "-6"]
        assert len(tgkills) == 1 and tgkills[0][5] == "0" and tgkills[0][6] == "0", gens
        terms = [g for g in gens if g[1] == "15"]
        assert len(terms) == 1 and terms[0][5] == "1" and terms[0][6] == "0", gens
        assert not [g for g in gens if g[1] == "9"], gens
    finally:
        console.run("echo 0 > events/enable")
        console.run("echo > trace")
