"""tests/integration/test_lean.py: the product kernel without test code (make LEAN=1, build-lean/).

`make test` builds it and this module boots it once: the in-kernel self-tests (tests/kernel/, kernel/selftest.c),
the benches (kernel/bench/) and the lock validator (kernel/locking/lockdep*.c) are not linked in, not one of their
symbols, and what a user and the labs need (the shell, tracefs, the function tracer, events, the lab commands)
works without them.
"""

import glob
import os
import re
import subprocess

from tests.console import ROOT

ISO = os.path.join(ROOT, "build-lean", "ftrace-os-test.iso")
LEAN_SYMS = os.path.join(ROOT, "build-lean", "kernel.sym")
TEST_OBJS = ["kernel/selftest.o", "tests/kernel/*.o", "kernel/bench/*.o",   # as built into build/
             "kernel/locking/lockdep*.o"]


def defined(paths):
    """Global names only: file-local statics (`seen.0`, `number`) may share a name with the kernel's."""
    out = subprocess.run(["nm", "--defined-only"] + paths, capture_output=True, text=True, check=True).stdout
    return {m.group(1) for m in re.finditer(r"^[0-9a-f]+ [TDBR] (\S+)$", out, re.M)}


def test_no_test_code_is_linked_in():
    objs = [o for pattern in TEST_OBJS for o in glob.glob(os.path.join(ROOT, "build", pattern))]
    test_syms = {s for s in defined(objs) if not s.startswith(".")}
    assert len(test_syms) > 40, "build/ has no test objects to compare with: %s" % objs
    with open(LEAN_SYMS) as f:
        lean = {line.split()[2] for line in f if len(line.split()) == 3}
    assert not test_syms & lean, sorted(test_syms & lean)[:20]
    assert not {s for s in lean if "selftest" in s and s not in ("__start_selftests", "__stop_selftests")}
    # The locks call the validator only when it is built in: no hook is left behind.
    assert not {s for s in lean if s.startswith(("lock_acquire", "lock_release", "lockdep"))}, \
        sorted(s for s in lean if s.startswith(("lock_acquire", "lock_release", "lockdep")))


def test_no_lock_validator_files(console):
    assert console.run("cat /proc/lockdep_stats") == "cat: /proc/lockdep_stats: No such file or directory"


def test_no_selftest_or_bench_command(console):
    assert console.run("selftest") == "selftest: command not found"
    assert console.run("bench") == "bench: command not found"
    assert "bench" not in console.run("ls events").split()
    assert not re.search(r"^  (selftest|bench) ", console.run("help"), re.M)


def test_tracing_and_labs_work(console):
    assert console.run("echo vfs_read > set_ftrace_filter") == ""
    assert console.run("echo function > current_tracer") == ""
    console.run("run fs 0 1")
    console.poll("cat trace", lambda out: re.search(r" vfs_read <-fs_iteration$", out, re.M), timeout=60)
    for cmd in ("echo nop > current_tracer", "echo > set_ftrace_filter", "echo > trace"):
        console.run(cmd)
    assert console.run("echo 1 > events/sched/sched_switch/enable") == ""
    console.poll("cat trace", lambda out: "sched_switch: prev_comm=" in out, timeout=60)
    console.run("echo 0 > events/sched/sched_switch/enable")
    out = console.run("cat verify_sites", timeout=60)
    assert re.search(r"^ftrace sites: \d+ checked, 0 calling ftrace: ok$", out, re.M), out
    assert re.search(r"^jump label sites: \d+ checked: ok$", out, re.M), out
