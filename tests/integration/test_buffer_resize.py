"""tests/integration/test_buffer_resize.py: buffer_size_kb and per_cpu/cpuN/buffer_size_kb resize as Linux's do,
keeping what is recorded (the newest events that fit), per CPU (the top-level file reads X while the CPUs differ);
an instance lists only the tracers it may run; bad sizes refused with nothing changed."""

import re

SMP = 2
T = "/sys/kernel/tracing"
EINVAL = "echo: write error: Invalid argument"


def marks(console, path="trace"):
    return re.findall(r"tracing_mark_write: (\S+)$", console.run("cat %s/%s" % (T, path)), re.M)


def test_resize_keeps_what_is_recorded(console):
    assert console.run("cat %s/buffer_size_kb" % T) == "64"
    for i in range(5):
        console.run("echo keep-%d > %s/trace_marker" % (i, T))
    for kb in ("128", "16", "64"):
        assert console.run("echo %s > %s/buffer_size_kb" % (kb, T)) == ""
        assert console.run("cat %s/buffer_size_kb" % T) == kb
        assert marks(console) == ["keep-%d" % i for i in range(5)], kb
    # Recording goes on after a resize, behind what was kept.
    console.run("echo after > %s/trace_marker" % T)
    assert marks(console) == ["keep-%d" % i for i in range(5)] + ["after"]


def test_shrinking_keeps_the_newest(console):
    console.run("echo > %s/trace" % T)
    # Each marker takes a few dozen bytes: 600 of them fill more than two 4 KiB pages of a CPU.
    out = console.run("/bin/sh -c 'i=0; while [ $i -lt 600 ]; do echo m$i > %s/trace_marker; "
                      "i=$((i+1)); done'" % T, timeout=300)
    assert out == "", out
    before = marks(console)
    assert before[-1] == "m599", before[-3:]
    assert console.run("echo 8 > %s/buffer_size_kb" % T) == ""
    after = marks(console)
    assert after and after == before[-len(after):] and len(after) < len(before), (len(before), len(after))
    stats = console.run("cat %s/per_cpu/cpu0/stats %s/per_cpu/cpu1/stats" % (T, T))
    assert sum(int(n) for n in re.findall(r"^overrun: (\d+)", stats, re.M)) > 0, stats
    assert console.run("echo 64 > %s/buffer_size_kb" % T) == ""


def test_per_cpu_size(console):
    assert console.run("echo 32 > %s/per_cpu/cpu0/buffer_size_kb" % T) == ""
    assert console.run("cat %s/per_cpu/cpu0/buffer_size_kb" % T) == "32"
    assert console.run("cat %s/per_cpu/cpu1/buffer_size_kb" % T) == "64"
    assert console.run("cat %s/buffer_size_kb" % T) == "X"
    assert console.run("echo 64 > %s/per_cpu/cpu0/buffer_size_kb" % T) == ""
    assert console.run("cat %s/buffer_size_kb" % T) == "64"
    assert console.run("echo 128 > %s/per_cpu/cpu1/buffer_size_kb" % T) == ""
    assert console.run("echo 128 > %s/per_cpu/cpu0/buffer_size_kb" % T) == ""
    assert console.run("cat %s/buffer_size_kb" % T) == "128"
    assert console.run("echo 64 > %s/buffer_size_kb" % T) == ""


def test_bad_sizes_change_nothing(console):
    console.run("echo kept > %s/trace_marker" % T)
    for path in ("buffer_size_kb", "per_cpu/cpu1/buffer_size_kb"):
        before = console.run("cat %s/%s" % (T, path))
        for bad in ("0", "abc", "-4", "99999999", ""):
            assert console.run("echo '%s' > %s/%s" % (bad, T, path)) == EINVAL, (path, bad)
            assert console.run("cat %s/%s" % (T, path)) == before
    assert "kept" in marks(console)


def test_instance_lists_only_its_tracers(console):
    assert console.run("mkdir %s/instances/rs" % T) == ""
    try:
        mine = console.run("cat %s/instances/rs/available_tracers" % T).split()
        every = console.run("cat %s/available_tracers" % T).split()
        assert "nop" in mine and "function" in mine and set(mine) < set(every), (mine, every)
        for t in every:
            out = console.run("echo %s > %s/instances/rs/current_tracer" % (t, T))
            assert out == ("" if t in mine else EINVAL), (t, out)
        console.run("echo nop > %s/instances/rs/current_tracer" % T)
        assert console.run("echo 16 > %s/instances/rs/per_cpu/cpu1/buffer_size_kb" % T) == ""
        assert console.run("cat %s/instances/rs/buffer_size_kb" % T) == "X"
        assert console.run("cat %s/buffer_size_kb" % T) == "64"
    finally:
        console.run("rmdir %s/instances/rs" % T)


def test_resize_and_empty_while_a_program_reads(console):
    """A program (tests/user/resize_read.c) reads `trace` and trace_pipe in one process while another resizes the
    buffer and empties it, a function tracer writing all along: every line read is whole, each resize is done or
    refused (while a read of `trace` is in the pages) with ENOMEM, what Linux 6.1's buffer_size_kb says of any refused
    resize, each `echo > trace` is done, and a resize once the reader is gone is done. No panic, no bad line,
    whichever way the CPUs interleave."""
    console.run("echo 'compute_*' > %s/set_ftrace_filter" % T)
    console.run("echo function > %s/current_tracer" % T)
    started = re.match(r"^\[(\d+)\] compute on CPU 1$", console.run("run compute 1"))
    assert started
    try:
        out = console.run("/tests/resize_read 20", timeout=600)
    finally:
        console.run("kill " + started.group(1))
        console.run("echo nop > %s/current_tracer" % T)
        console.run("echo > %s/set_ftrace_filter" % T)
    assert re.search(r"^lines \d+, bad 0$", out, re.M), out
    assert re.search(r"^resized \d+, refused \d+, emptied \d+$", out, re.M), out
    assert out.splitlines()[-1] == "PASS 5/5", out
    assert console.run("cat %s/buffer_size_kb" % T) == "64"
