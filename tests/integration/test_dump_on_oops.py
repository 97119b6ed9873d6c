"""tests/integration/test_dump_on_oops.py: ftrace_dump_on_oops prints the trace buffer in the Oops, between its
first line and the registers (where Linux's die notifier prints it), framed as Linux frames it, before QEMU exits;
orig_cpu (2) prints the faulting CPU's buffer only; a panic without an Oops dumps too; off (0) nothing; and a serial
BREAK followed by z (sysrq-z, QEMU's Ctrl-A B on a muxed console) dumps on demand."""

import os
import re
import select
import subprocess
import time

import pytest

from tests.console import EXIT_PANIC, LOG_LINE, QEMU, ROOT, TEST_ISO

DASHES = "---------------------------------"


def rows(text):
    return [re.sub(LOG_LINE, "", line) for line in text.split("\n")]


def crash(console, cmd="fault pf"):
    with console.expected_crash():
        status, out = console.run_to_exit(cmd)
    assert status == EXIT_PANIC
    return rows(out)


def dump_of(lines):
    """The dumped lines between the frame's dashes, checked to sit inside the Oops."""
    start = lines.index("Dumping ftrace buffer:")
    assert lines[start + 1] == DASHES, lines[start:start + 3]
    end = lines.index(DASHES, start + 2)
    return start, lines[start + 2:end]


@pytest.mark.smp(2)
def test_dump_on_oops_prints_every_cpu_inside_the_oops(fresh_console):
    con = fresh_console
    assert con.run("cat /proc/sys/kernel/ftrace_dump_on_oops") == "0"
    assert con.run("echo 3 > /proc/sys/kernel/ftrace_dump_on_oops") == "echo: write error: Invalid argument"
    con.run("echo 1 > /proc/sys/kernel/ftrace_dump_on_oops")
    con.run("echo spin_iteration > set_ftrace_filter")
    con.run("echo function > current_tracer")
    con.run("run spin 1 30")
    con.poll("cat per_cpu/cpu1/trace", lambda t: "spin_iteration" in t, timeout=60)
    con.run("echo before-the-fault > trace_marker")
    lines = crash(con)
    oops = next(i for i, l in enumerate(lines) if l.startswith("Oops: #PF"))
    start, dumped = dump_of(lines)
    rip = next(i for i, l in enumerate(lines) if l.startswith("RIP: "))
    assert oops < start < rip, (oops, start, rip)
    assert any(re.match(r"^ +sh-1 +\[000\] .* tracing_mark_write: before-the-fault$", l) for l in dumped)
    assert any(re.match(r"^ +spin-\d+ +\[001\] .* spin_iteration <-", l) for l in dumped)
    assert lines.count("Dumping ftrace buffer:") == 1          # panic() after the Oops does not dump again


@pytest.mark.smp(2)
def test_orig_cpu_dumps_the_faulting_cpu_only(fresh_console):
    con = fresh_console
    con.run("echo 2 > /proc/sys/kernel/ftrace_dump_on_oops")
    con.run("echo spin_iteration > set_ftrace_filter")
    con.run("echo function > current_tracer")
    con.run("run spin 1 30")
    con.poll("cat per_cpu/cpu1/trace", lambda t: "spin_iteration" in t, timeout=60)
    con.run("echo on-cpu0 > trace_marker")
    _, dumped = dump_of(crash(con))
    assert dumped and all("[000]" in l for l in dumped), dumped[:5]
    assert any(l.endswith("tracing_mark_write: on-cpu0") for l in dumped)


def test_panic_without_oops_dumps_and_off_dumps_nothing(fresh_console):
    con = fresh_console
    con.run("echo 1 > /proc/sys/kernel/ftrace_dump_on_oops")
    con.run("echo before-panic > trace_marker")
    lines = crash(con, "fault panic")
    start, dumped = dump_of(lines)
    assert start > next(i for i, l in enumerate(lines) if l.startswith("Kernel panic - not syncing"))
    assert dumped[-1].endswith("tracing_mark_write: before-panic")


def test_off_dumps_nothing(fresh_console):
    fresh_console.run("echo not-dumped > trace_marker")
    lines = crash(fresh_console)
    assert "Dumping ftrace buffer:" not in lines


def test_sysrq_z_after_a_serial_break_dumps(tmp_path):
    """A console where Ctrl-A is QEMU's escape (make run's): Ctrl-A B sends a BREAK on COM1, then z."""
    qemu = subprocess.Popen([QEMU, "-m", "256M", "-display", "none", "-no-reboot",
                             "-chardev", "stdio,id=con,mux=on,signal=off", "-serial", "chardev:con",
                             "-mon", "chardev=con,mode=readline", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
                             "-cdrom", TEST_ISO, "-boot", "d"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT)
    out = b""

    def wait_for(pattern, timeout=120):
        nonlocal out
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if re.search(pattern, out.replace(b"\r", b"")):
                return
            ready, _, _ = select.select([qemu.stdout], [], [], 0.5)
            if ready:
                out += os.read(qemu.stdout.fileno(), 65536)
        raise AssertionError("no %r in:\n%s" % (pattern, out.decode(errors="replace")[-3000:]))

    def send(data):
        qemu.stdin.write(data)
        qemu.stdin.flush()

    try:
        wait_for(rb"tracing# $")
        send(b"echo hello-sysrq > trace_marker\r")
        wait_for(rb"trace_marker\n.*tracing# $")
        send(b"\x01b")
        time.sleep(1)       # the BREAK is its own event: the key must come after it
        send(b"z")
        wait_for(rb"sysrq: Dump ftrace buffer\nDumping ftrace buffer:\n-+\n +sh-1 +\[000\] .*"
                 rb"tracing_mark_write: hello-sysrq\n-+\n")
        send(b"\x01b")
        time.sleep(1)
        send(b"h")
        wait_for(rb"sysrq: HELP : dump-ftrace-buffer\(z\) \n")
        send(b"cat tracing_on\r")   # the key was not typed into the shell; the dump turned tracing off
        wait_for(rb"cat tracing_on\n0\n.*tracing# $")
    finally:
        qemu.kill()
        qemu.wait()
