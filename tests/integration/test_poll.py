"""tests/integration/test_poll.py: poll(2), select(2) and pselect6(2) sleeping on the files' wait queues (docs/17-user-space.md).

tests/user/pollwake.c checks the calls as Linux has them (the sets, the timeouts written back, the errnos) and
sleepers woken by a pipe's byte, a pipe's last writer going and a trace_marker line on trace_pipe. Here also, from
the trace, what wakes a sleeper: the write itself, not the next timer tick.
"""

import re

from tests.console import LOG_LINE

SMP = 2

LINE = re.compile(r"^\s*\S+-(\d+)\s+\[(\d{3})\]\s+(\S+)\s+[\d.]+: (\w+)(.*)$")
EVENTS = ("sched/sched_switch", "sched/sched_wakeup", "syscalls/sys_enter_write", "syscalls/sys_exit_write",
          "irq_vectors/local_timer_entry")


def test_poll_select_pselect6(console):
    out = [line for line in console.run("/tests/pollwake", timeout=120).split("\n") if not re.match(LOG_LINE, line)]
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 19, out


def woken_by(console, how):
    """`pollwake trace HOW`: the parent, the poller's sched_wakeup line, and whether it lies between the parent's
    sys_write entry and exit."""
    console.run("echo > trace")
    console.run("echo 'prev_comm == \"pollwake\"' > events/sched/sched_switch/filter")
    for e in EVENTS:
        console.run(f"echo 1 > events/{e}/enable")
    out = console.run(f"/tests/pollwake trace {how}", timeout=60)
    for e in EVENTS:
        console.run(f"echo 0 > events/{e}/enable")
    console.run("echo 0 > events/sched/sched_switch/filter")
    m = re.search(r"^poller (\d+) of (\d+) woke: 1$", out, re.M)
    assert m, out
    poller, parent = m.group(1), m.group(2)
    lines = [t.groups() for t in map(LINE.match, out.split("\n")) if t]  # (pid, cpu, flags, event, rest)
    wakes = [i for i, l in enumerate(lines) if l[3] == "sched_wakeup" and f" pid={poller} " in l[4]]
    assert len(wakes) == 1, lines
    wake = lines[wakes[0]]
    enters = [i for i, l in enumerate(lines) if l[0] == parent and l[3] == "sys_write" and "->" not in l[4]]
    exits = [i for i, l in enumerate(lines) if l[0] == parent and l[3] == "sys_write" and "->" in l[4]]
    assert len(enters) == 1 and len(exits) == 1, lines
    return parent, wake, enters[0] < wakes[0] < exits[0]


def check_woken_inside_the_write(console, how):
    """The poller's sched_wakeup is the parent's, between its sys_write's entry and exit, and not in an interrupt
    (no h among the flags): the pipe's wake_up() called pollwake() from inside pipe_write(). With the old 10 ms look,
    the wake-up came from the timer interrupt (flags d.h..) of the poller's next tick, after the write."""
    parent, wake, inside = woken_by(console, how)
    assert wake[0] == parent and inside, wake
    assert "h" not in wake[2], wake


def test_a_pipe_write_wakes_a_poller_inside_the_write(console):
    check_woken_inside_the_write(console, "poll")


def test_a_pipe_write_wakes_a_select_inside_the_write(console):
    check_woken_inside_the_write(console, "select")
