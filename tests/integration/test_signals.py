"""tests/integration/test_signals.py: signals as Linux delivers them (docs/17-user-space.md, "Signals").

tests/user/signals.c checks handlers and the rt_sigframe (registers, mask and FPU state back after rt_sigreturn),
real-time signals queued and standard ones merged, SIGSEGV caught by a handler, default actions, -EINTR and
SA_RESTART, SIGCHLD's siginfo, rt_sigtimedwait, rt_sigsuspend and sigaltstack. Here also: the segfault report only
when nobody handles SIGSEGV, Ctrl-C reaching a program's process group through the console, and children killed
the moment they start (tests/user/killrace.c).
"""

import re

from tests.console import LOG_LINE

SMP = 2
QEMU_ARGS = ["-cpu", "max"]


def program_lines(text):
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


def test_signal_program(console):
    out = program_lines(console.run("/tests/signals", timeout=120))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    assert "segv caught" in out
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 30, out


def test_handled_segv_prints_no_report(console):
    """A program that catches its SIGSEGV gets no segfault line in the log (Linux prints it only unhandled)."""
    console.run("/tests/signals", timeout=120)
    with console.disable_check("banner"):
        dmesg = console.run("dmesg")
    assert not re.search(r"signals\[\d+\]: segfault", dmesg)


def test_ctrl_c_interrupts_a_program(console):
    """busybox sleep in the foreground: Ctrl-C through the console's line discipline ends it with SIGINT."""
    console.send(b"/bin/sleep 30\r")
    console.wait_for(r"/bin/sleep 30\r\n")
    console.send(b"\x03")
    out = console.wait_for_prompt(timeout=20)    # long before the 30 s are up
    assert "^C" in out


def test_permissions_after_dropping_root(console):
    """tests/user/dropuid.c: as uid 1000, tracefs is EACCES at both paths, root's ids and processes EPERM."""
    out = program_lines(console.run("/tests/dropuid", timeout=60))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 15, out
    # the kernel shell stays root: tracing is still its own
    assert console.run("cat current_tracer") == "nop"


def test_kill_right_after_fork(console):
    """tests/user/killrace.c: 2000 children SIGTERMed as they start (after fork or vfork, before or after their exec,
    on their way into nanosleep), each waited for as ash's `wait` does. A SIGCHLD after which wait4 WNOHANG does not
    find the child prints "not ok"; a kill the child sleeps through hangs it, and the timeout fails the test."""
    out = program_lines(console.run("/tests/killrace 2000", timeout=300))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    assert out[-1] == "PASS 2000/2000", out


def test_job_control_stops_every_thread(console):
    """tests/user/jobstop.c: SIGSTOP and a thread's SIGTSTP stop all three threads of a process (their counters stand
    still, each in state T), wait4 WUNTRACED/WCONTINUED report 0x137f, 0x147f and 0xffff once each with SIGCHLD's
    CLD_STOPPED and CLD_CONTINUED, SIGCONT starts every counter again, SIGKILL ends a stopped process, and a group
    with no parent in its session ignores SIGTSTP."""
    out = program_lines(console.run("/tests/jobstop", timeout=120))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 28, out
