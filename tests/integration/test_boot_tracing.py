"""tests/integration/test_boot_tracing.py: tracing set up from the kernel command line, as Linux 6.1 reads it
(ftrace=, ftrace_filter=, trace_event=, trace_options=, trace_buf_size=, trace_instance=, kprobe_event=,
ftrace_dump_on_oops, tp_printk): the boot from kmain()'s last steps to the shell is in the trace when the prompt
comes; bad values are said on the console and ignored, and the boot goes on."""

import os
import re
import subprocess

import pytest

from tests.console import ROOT, Console

SMP = 2
BUILD = os.path.join(ROOT, "build")
ISO = os.path.join(BUILD, "boot-tracing-test.iso")
CMDLINE = ("test ftrace=function ftrace_filter=workloads_init,kthread_create,no_such_fn "
           "trace_event=sched:sched_switch,nosuch:ev trace_options=sym-offset,bogus trace_buf_size=128K "
           "trace_instance=boot,sched:sched_wakeup kprobe_event=p:bootprobe,fs_mkdir_p ftrace_dump_on_oops=orig_cpu")


def make_iso(path, cmdline):
    subprocess.run([os.path.join(ROOT, "tools", "mkiso.sh"), os.path.join(BUILD, "kernel.elf"), cmdline, path,
                    os.path.join(BUILD, "initramfs.cpio")], check=True, capture_output=True, cwd=ROOT)


@pytest.fixture(scope="module")
def booted():
    """The machine booted with CMDLINE, its trace as the boot left it (the shared `console` fixture would empty
    the buffer first, as it does between tests)."""
    make_iso(ISO, CMDLINE)
    con = Console(smp=SMP, iso=ISO, name="test_boot_tracing")
    try:
        con.start()
        yield con
    finally:
        con.close()


def test_bad_values_are_said_and_ignored(booted):
    console = booted
    boot = console.boot_text
    assert "tracing: ftrace_filter=no_such_fn: Invalid argument, ignored" in boot
    assert "tracing: trace_event=nosuch:ev: Invalid argument, ignored" in boot
    assert "Failed to enable trace event: nosuch:ev" in boot
    assert "tracing: trace_options=bogus: Invalid argument, ignored" in boot
    # ... and the good ones around them took effect.
    assert console.run("cat set_ftrace_filter").split() == ["kthread_create", "workloads_init"]
    assert console.run("cat set_event") == "sched:sched_switch"
    assert "sym-offset" in console.run("cat trace_options").splitlines()
    assert console.run("cat buffer_size_kb") == "128"
    assert console.run("cat /proc/sys/kernel/ftrace_dump_on_oops") == "2"
    assert console.run("cat kprobe_events") == "p:kprobes/bootprobe fs_mkdir_p"
    assert console.run("cat instances/boot/set_event") == "sched:sched_wakeup"


def test_the_boot_is_in_the_trace(booted):
    console = booted
    lines = [l for l in console.run("cat trace", timeout=120).splitlines() if not l.startswith("#")]
    calls = [re.search(r": (\w+)\+0x0/0x[0-9a-f]+ <-(\w+)\+", l) for l in lines]
    calls = [(m.group(1), m.group(2)) for m in calls if m]
    # kmain() started the workloads and then the shell's thread, before any prompt.
    assert ("workloads_init", "kmain") in calls and ("kthread_create", "kmain") in calls, lines[:10]
    assert calls.index(("workloads_init", "kmain")) < calls.index(("kthread_create", "kmain"))
    assert any("sched_switch: prev_comm=swapper/0 prev_pid=0" in l and "next_comm=sh" in l for l in lines)
    assert console.run("cat current_tracer") == "function"


def test_an_unknown_tracer_and_tp_printk(tmp_path):
    iso = str(tmp_path / "bad.iso")
    make_iso(iso, "test ftrace=nosuch trace_buf_size=lots tp_printk trace_event=sched:sched_process_fork "
                  "alloc_snapshot")
    con = Console(smp=1, iso=iso, name="test_boot_tracing-bad")
    try:
        con.start()
        assert "ftrace bootup tracer 'nosuch' not registered." in con.boot_text
        assert "tracing: trace_buf_size=lots: not a size, ignored" in con.boot_text
        assert con.run("cat snapshot").splitlines()[3] == "# * Snapshot is allocated *"
        assert con.run("cat current_tracer buffer_size_kb /proc/sys/kernel/tracepoint_printk") == "nop\n64\n1"
        # tp_printk: a recorded event is printed on the console too, as its trace line without the context.
        out = con.run("/bin/busybox true")
        assert re.search(r"^\[ *\d+\.\d{6}\] sched_process_fork: comm=sh pid=1 child_comm=busybox child_pid=\d+$", out,
                         re.M), out
        con.run("echo 0 > /proc/sys/kernel/tracepoint_printk")
        assert "sched_process_fork" not in con.run("/bin/busybox true")
    finally:
        con.close()
