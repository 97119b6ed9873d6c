"""tests/integration/test_tmpfs.py: the writable rootfs and tmpfs (docs/17-user-space.md, section 8).

tests/user/tmpfs.c checks each system call's semantics and errnos; busybox then does what ftracetest does
with files (mktemp, mkdir -p, redirections, rm -rf, a "#!" script), and the pages written come back.
"""

import re

from tests.console import LOG_LINE

SMP = 2
QEMU_ARGS = ["-cpu", "max"]


def program_lines(text):
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


def shmem_kb(console):
    m = re.search(r"^Shmem:\s+(\d+) kB$", console.run("cat /proc/meminfo"), re.M)
    assert m
    return int(m.group(1))


def test_every_call_and_errno(console):
    out = program_lines(console.run("/tests/tmpfs", timeout=120))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(failures)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 90, out[-1]


def test_tmp_is_a_tmpfs(console):
    assert "tmpfs /tmp tmpfs rw,relatime 0 0" in console.run("cat /proc/mounts").split("\n")
    assert console.run("/bin/busybox stat -c '%a %F' /tmp") == "1777 directory"


def test_busybox_does_what_ftracetest_does(console):
    script = ("d=$(mktemp -d /tmp/ftd.XXXXXX)&&mkdir -p $d/l/a&&echo one >$d/l/a/f&&"
              "echo two >>$d/l/a/f&&cat $d/l/a/f&&l=$(mktemp $d/l/x.XXXXXX)&&echo z >$l&&"
              "ls $d/l|wc -l&&rm -rf $d&&ls $d;echo $?")
    out = program_lines(console.run("/bin/sh -c '%s'" % script, timeout=60))
    assert out[:3] == ["one", "two", "2"]
    assert re.match(r"^ls: /tmp/ftd\.\w{6}: No such file or directory$", out[3]), out
    assert out[4:] == ["1"]


def test_a_script_runs_through_its_interpreter(console):
    console.run("/bin/sh -c 'printf \"#!/tests/hello one two\\n\" > /tmp/s.sh; chmod 755 /tmp/s.sh'")
    assert program_lines(console.run("/tmp/s.sh x")) == [
        "hello from ring 3", "argv[0] = /tests/hello", "argv[1] = one two", "argv[2] = /tmp/s.sh",
        "argv[3] = x"]
    console.run("/bin/busybox rm /tmp/s.sh")


def test_written_pages_come_back(console):
    before = shmem_kb(console)
    console.run("/bin/sh -c 'dd if=/dev/zero of=/tmp/big bs=4096 count=64 2>/dev/null'", timeout=60)
    assert shmem_kb(console) == before + 256
    console.run("/bin/busybox rm /tmp/big")
    assert shmem_kb(console) == before


def test_mount_tmpfs_with_a_size(console):
    out = console.run("/bin/sh -c 'mkdir /tmp/m && mount -t tmpfs -o size=8k none /tmp/m && "
                      "grep /tmp/m /proc/mounts && dd if=/dev/zero of=/tmp/m/f bs=1024 count=12; "
                      "ls -l /tmp/m/f; umount /tmp/m && rmdir /tmp/m && echo gone'", timeout=60)
    lines = program_lines(out)
    assert "none /tmp/m tmpfs rw,relatime 0 0" in lines
    assert any("No space left on device" in line for line in lines), out
    assert any(re.search(r"\s8192 .* /tmp/m/f$", line) for line in lines), out
    assert lines[-1] == "gone"
