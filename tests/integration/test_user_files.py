"""tests/integration/test_user_files.py: what programs see of files beyond the basics (docs/17-user-space.md).

Each file system has its own device number in st_dev, the same for every file in it (busybox `stat`, and
`df` finding a file's mount by it); a program's read of per_cpu/cpuN/trace_pipe consumes CPU N's events
alone and waits for one as the top-level trace_pipe does. Names of up to 255 bytes are tests/user/tmpfs.c's.
"""

import re

from tests.integration.test_user import checks_all_pass, meminfo

SMP = 2
QEMU_ARGS = ["-cpu", "max"]
LINE = r"^ *(?P<comm>[ -~]{1,16})-(?P<pid>\d+) +\[(?P<cpu>\d{3})\] \S+ +\d+\.\d{6}: (?P<rest>.*)$"


def devices(console, *paths):
    out = console.run("/bin/busybox stat -c '%d %n' " + " ".join(paths))
    return {line.split(" ", 1)[1]: int(line.split(" ", 1)[0]) for line in out.split("\n") if line}


def test_st_dev_is_the_file_systems(console):
    dev = devices(console, "/", "/bin/busybox", "/tmp", "/proc", "/proc/mounts", "/sys/kernel/tracing",
                  "/sys/kernel/tracing/trace", "/sys/kernel/debug/tracing/trace", "/dev")
    # One device for each file system, shared by all its files; anonymous devices (major 0) as Linux's.
    assert dev["/"] == dev["/bin/busybox"]
    assert dev["/proc"] == dev["/proc/mounts"]
    assert dev["/sys/kernel/tracing"] == dev["/sys/kernel/tracing/trace"]
    assert dev["/sys/kernel/debug/tracing/trace"] == dev["/sys/kernel/tracing/trace"]   # one tracefs
    assert len({dev["/"], dev["/tmp"], dev["/proc"], dev["/sys/kernel/tracing"], dev["/dev"]}) == 5
    assert all(0 < d < 256 for d in dev.values())
    try:
        console.run("/bin/busybox mkdir /tmp/m2")
        console.run("/bin/busybox mount -t tmpfs none /tmp/m2")
        second = devices(console, "/tmp/m2", "/tmp")
        assert second["/tmp/m2"] != second["/tmp"]       # a second tmpfs is a second device
    finally:
        console.run("/bin/busybox umount /tmp/m2")
        console.run("/bin/busybox rmdir /tmp/m2")


def test_df_finds_the_mount_by_device(console):
    out = console.run("/bin/busybox df /tmp")
    last = out.split("\n")[-1]
    assert re.match(r"^tmpfs\s+\d+\s+\d+\s+\d+\s+\d+%\s+/tmp$", last), out


def test_shared_anonymous_memory_across_fork(console):
    """tests/user/mapshared.c: a MAP_SHARED|MAP_ANONYMOUS area is one memory for parent and children, pages
    made before or after the fork, through mprotect and a partial munmap; the frames go with the last
    mapping."""
    before = meminfo(console)
    out = [l for l in console.run("/tests/mapshared", timeout=120).split("\n") if not l.startswith("[")]
    checks_all_pass(out, 10)
    after = meminfo(console)
    assert after["OtherPages"] == before["OtherPages"] == 0


def test_sendfile(console):
    """tests/user/sendfile.c, then busybox cat (which tries sendfile first) copying a file: the same bytes,
    and no "system call 40 not implemented" line in the log any more."""
    before = meminfo(console)
    out = [l for l in console.run("/tests/sendfile", timeout=120).split("\n") if not l.startswith("[")]
    checks_all_pass(out, 18)
    assert meminfo(console)["OtherPages"] == before["OtherPages"]
    try:
        # The log's line would come out in the middle of the command's output (printk to the console).
        out = console.run("/bin/sh -c 'cat /bin/busybox > /tmp/bb && cmp /bin/busybox /tmp/bb && echo same'",
                          timeout=120)
        assert out == "same", out
    finally:
        console.run("/bin/busybox rm -f /tmp/bb")


def test_per_cpu_trace_pipe_read_by_a_program(console):
    try:
        console.run("echo > trace")
        console.run("echo percpu-marker > trace_marker")
        lines = [re.match(LINE, l) for l in console.run("cat trace").split("\n")]
        marks = [m for m in lines if m and "percpu-marker" in m.group("rest")]
        assert len(marks) == 1, lines
        cpu = int(marks[0].group("cpu"))
        got = console.run(f"/bin/busybox head -n 1 per_cpu/cpu{cpu}/trace_pipe", timeout=60)
        assert "percpu-marker" in got and f"[{cpu:03d}]" in got, got
        # Consumed: neither that CPU's trace nor the whole buffer shows it any more.
        assert "percpu-marker" not in console.run(f"cat per_cpu/cpu{cpu}/trace")
        assert "percpu-marker" not in console.run("cat trace")
    finally:
        console.run("echo > trace")


def test_faccessat2(console):
    """tests/user/faccess.c: with real uid 1000 and effective 0, access/faccessat2 answer for the real user, AT_EACCESS
    for the effective one; AT_SYMLINK_NOFOLLOW asks of a dangling link, AT_EMPTY_PATH of the fd; bad flags and modes
    are EINVAL, "" is ENOENT."""
    out = [l for l in console.run("/tests/faccess", timeout=60).split("\n") if not l.startswith("[")]
    checks_all_pass(out, 12)
