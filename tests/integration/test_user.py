"""tests/integration/test_user.py: programs in ring 3 on Linux's system-call ABI (docs/17-user-space.md).

Booted with `-cpu max`, so SMEP and SMAP are on, and two CPUs. Our own static programs (tests/user/) check
every system call with good and hostile arguments, faults kill only the faulting process with Linux's report,
fork/exec/wait give Linux's wait statuses; Debian's static busybox runs unmodified from the initramfs.
"""

import re

import pytest

from tests.console import LOG_LINE

SMP = 2
QEMU_ARGS = ["-cpu", "max"]

# Linux 6.1's report for an unhandled SIGSEGV (arch/x86/mm/fault.c: show_signal_msg()).
SEGFAULT = (r"^(?P<comm>\S+)\[(?P<pid>\d+)\]: segfault at (?P<addr>[0-9a-f]+) ip (?P<ip>[0-9a-f]{16}) "
            r"sp (?P<sp>[0-9a-f]{16}) error (?P<err>[0-9a-f]+)(?: in (?P<file>\S+)\[(?P<base>[0-9a-f]+)"
            r"\+(?P<len>[0-9a-f]+)\])? likely on CPU \d+ \(core \d+, socket \d+\)$")
TRAP = r"^traps: (?P<comm>\S+)\[(?P<pid>\d+)\] (?P<what>.+) ip:[0-9a-f]+ sp:[0-9a-f]+ error:[0-9a-f]+"


def lines(text):
    """Output lines without printk timestamps."""
    return [re.sub(LOG_LINE, "", line) for line in text.split("\n")]


def program_lines(text):
    """What the program itself printed: the kernel's log lines (timestamped) removed."""
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


def test_hello_arguments_and_status(console):
    assert program_lines(console.run("/tests/hello a 'b c'")) == [
        "hello from ring 3", "argv[0] = /tests/hello", "argv[1] = a", "argv[2] = b c"]


def test_missing_program(console):
    assert console.run("/tests/nope") == "/tests/nope: No such file or directory"
    assert console.run("/proc/version") == "/proc/version: Permission denied"


def test_every_syscall_with_hostile_arguments(console):
    out = program_lines(console.run("/tests/syscalls", timeout=120))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(failures)
    summary = out[-1]
    m = re.match(r"^PASS (\d+)/(\d+)$", summary)
    assert m and m.group(1) == m.group(2) and int(m.group(2)) > 150, summary
    assert len([line for line in out if line.startswith("ok ")]) == int(m.group(2))


def test_unknown_syscall_logged_once_per_number(console):
    """syscalls calls number 400 and -1: logged the first time, never again. Numbers above 511 share one
    report for the whole boot: -1's, unless a test before it in a shared boot (the syscall fuzzer) made one."""
    with console.disable_check("banner"):          # dmesg starts with the boot banner
        before = console.run("dmesg")
    console.run("/tests/syscalls", timeout=120)
    with console.disable_check("banner"):
        dmesg = console.run("dmesg")
    assert len(re.findall(r"system call 400 not implemented \(-ENOSYS\)", dmesg)) == 1
    big = re.findall(r"system call (\d+) not implemented \(-ENOSYS\); numbers above 511 are reported this once",
                     dmesg)
    assert len(big) == 1, big
    assert big[0] == "4294967295" or re.search(r"system call %s not implemented" % big[0], before), big


@pytest.mark.parametrize("kind,addr,err", [
    ("null", "0", "4"),                            # user read, page not present
    ("write-text", None, "7"),                     # user write to a present read-only page
    ("kernel", "ffffffff80000000", "4"),           # a kernel address from ring 3
    ("nx", None, "15"),                            # instruction fetch from the (non-executable) stack
    ("unmapped", None, "6"),                       # a page munmap()ed a moment before
])
def test_segfault_kills_only_the_process(console, kind, addr, err):
    out = lines(console.run("/tests/segv " + kind))
    assert out[0] == "segv: " + kind
    reports = [m for m in (re.match(SEGFAULT, line) for line in out) if m]
    assert len(reports) == 1, out
    m = reports[0]
    assert m.group("comm") == "segv" and m.group("err") == err
    if addr is not None:
        assert m.group("addr") == addr
    if kind != "nx":
        assert m.group("file") == "segv", out          # the ip is in the program's text
    assert out[-1] == "Segmentation fault"
    assert "segv: still alive" not in out
    assert console.run("echo alive") == "alive"


@pytest.mark.parametrize("kind,what,message", [
    ("int80", "general protection fault", "Segmentation fault"),   # no IA32 emulation: int 0x80 is refused
    ("ud2", "trap invalid opcode", "Illegal instruction"),
    ("div0", "trap divide error", "Floating point exception"),
])
def test_other_traps_kill_only_the_process(console, kind, what, message):
    out = lines(console.run("/tests/segv " + kind))
    traps = [m for m in (re.match(TRAP, line) for line in out) if m]
    assert len(traps) == 1 and traps[0].group("what") == what and traps[0].group("comm") == "segv", out
    assert out[-1] == message
    assert console.run("echo alive") == "alive"


def test_fork_exec_wait_statuses(console):
    out = program_lines(console.run("/tests/forkexec"))
    assert [line for line in out if not line.startswith(("hello", "argv"))] == [
        "exit(42) status 2a00",          # exit code << 8
        "segfault status b",             # SIGSEGV, no core
        "exec hello fail status 300",    # the exec'd program's own exit(3)
        "exec missing status 200",       # the child's exit(ENOENT) after a failed execve
        "write shared status 200",
        "parent memory untouched",       # the child wrote its own copy
        "getppid status 0",              # the child saw its parent's pid
        "WNOHANG: still running",
        "sleeper status 700",
        "no children left: ECHILD",
    ]
    assert "argv[0] = hello" in out and "argv[1] = fail" in out


def test_busybox_echo(console):
    assert program_lines(console.run("/bin/busybox echo hi there")) == ["hi there"]


def test_busybox_ls_root(console):
    """The kernel's own directories and the initramfs's in one tree, as ls lists them (in columns)."""
    names = program_lines(console.run("/bin/busybox ls -1 /"))
    assert names == sorted(names)
    for name in ["bin", "dev", "proc", "sbin", "sys", "tests", "usr"]:
        assert name in names, names
    columns = program_lines(console.run("/bin/busybox ls /"))
    assert sorted(" ".join(columns).split()) == names


def test_busybox_cat_proc_version(console):
    with console.disable_check("banner"):          # /proc/version is the banner, printed on purpose
        version = console.run("cat /proc/version")
        out = program_lines(console.run("/bin/busybox cat /proc/version"))
    assert out == [version]


def test_busybox_uname(console):
    with console.disable_check("banner"):
        version = console.run("cat /proc/version").split()
    assert program_lines(console.run("/bin/uname -a")) == [
        "ftrace-os ftrace-os %s #1 SMP x86_64 GNU/Linux" % version[2]]


def test_busybox_sh_forks_and_execs(console):
    assert program_lines(console.run("/bin/sh -c 'echo a; echo b'")) == ["a", "b"]
    assert program_lines(console.run("/bin/sh -c '/tests/hello fail; echo status $?'")) == [
        "hello from ring 3", "argv[0] = /tests/hello", "argv[1] = fail", "status 3"]


def test_busybox_pipelines_and_substitution(console):
    assert program_lines(console.run("/bin/sh -c 'echo hello | /bin/busybox tr a-z A-Z'")) == ["HELLO"]
    assert program_lines(console.run("/bin/sh -c 'for i in 1 2 3; do echo $i; done | /usr/bin/tail -1'")) == ["3"]
    assert program_lines(console.run("/bin/sh -c 'x=$(/bin/echo sub); echo got $x'")) == ["got sub"]
    # yes never stops by itself: head's exit closes the pipe, and yes dies of SIGPIPE.
    assert program_lines(console.run("/bin/sh -c '/usr/bin/yes | /usr/bin/head -2'")) == ["y", "y"]
    assert program_lines(console.run("/bin/sh -c '/bin/ls / | /usr/bin/wc -l'")) == [
        str(len(program_lines(console.run("/bin/ls -1 /"))))]


def test_busybox_ls_long_symlink(console):
    out = program_lines(console.run("/bin/ls -l /bin/sh"))
    assert len(out) == 1 and out[0].startswith("lrwxrwxrwx") and out[0].endswith("/bin/sh -> busybox")


def test_ctrl_c_ends_the_foreground_program(console):
    console.send(b"/bin/busybox sleep 100\r")
    console.wait_for(re.escape("/bin/busybox sleep 100"))
    console.send(b"\x03")
    out = console.wait_for_prompt(timeout=30)
    assert console.run("echo alive") == "alive"


def test_ctrl_c_ends_a_program_reading_the_console(console):
    """cat waits for a line on fd 0; Ctrl-C (seen by the tty or by the shell) ends it with SIGINT."""
    console.send(b"/bin/busybox cat\r")
    console.wait_for(re.escape("/bin/busybox cat"))
    console.send(b"\x03")
    console.wait_for_prompt(timeout=30)
    assert console.run("echo alive") == "alive"


def checks_all_pass(out, at_least):
    """A tests/user program's printed lines: no "not ok", and "PASS n/n" last with n at least at_least."""
    assert not [line for line in out if line.startswith("not ok")], "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= at_least, out


def meminfo(console):
    return dict((k.rstrip(":"), int(v)) for k, v, _ in
                (line.split() for line in console.run("cat /proc/meminfo").split("\n")))


def test_memory_comes_back(console):
    """Every page a program used (its own, its page tables, its kernel stack) is free again after it."""
    console.run("/bin/sh -c 'echo a; /bin/ls / >/dev/null'")
    before = meminfo(console)
    console.run("/tests/forkexec")
    console.run("/bin/sh -c 'echo a; /bin/ls / >/dev/null'")
    after = meminfo(console)
    assert after["OtherPages"] == 0
    assert after["KernelStack"] == before["KernelStack"]
    assert after["PageTables"] == before["PageTables"]
    assert after["MemFree"] >= before["MemFree"] - 4 * 4   # slabs may keep a page cached


def test_fork_is_copy_on_write(console):
    """tests/user/cow.c: after fork each side's writes (stores, read() into a shared page, after an
    mprotect() round trip) stay its own, 2 MiB are shared until the child writes them, a write the area
    forbids is still SIGSEGV; and every page is free again once the program is gone."""
    before = meminfo(console)
    out = program_lines(console.run("/tests/cow", timeout=120))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 18, out
    after = meminfo(console)
    assert after["OtherPages"] == 0
    assert after["PageTables"] == before["PageTables"]
    assert after["MemFree"] >= before["MemFree"] - 4 * 4   # slabs may keep a page cached
