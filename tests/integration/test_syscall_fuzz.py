"""tests/integration/test_syscall_fuzz.py: tests/user/fuzz.c, random system calls with hostile arguments.

Seeded and reproducible (`/tests/fuzz SEED CHILDREN CALLS` replays a run). Bounded here; `make fuzz` runs it
longer (SYSCALL_FUZZ="SEED CHILDREN CALLS"). What must hold: no kernel fault (the console's bad patterns), every
child ends (faulting ones alone, sleeping ones killed), the kernel shell and tracing still work, and the memory the
children used is back (/proc/meminfo, as test_user.py's test_memory_comes_back reads it).
"""

import os
import re

from tests.console import LOG_LINE

SMP = 2
QEMU_ARGS = ["-cpu", "max"]
RUN = os.environ.get("SYSCALL_FUZZ", "1 20 200")


def meminfo(console):
    return dict((k.rstrip(":"), int(v)) for k, v, _ in
                (line.split() for line in console.run("cat /proc/meminfo").split("\n")))


def test_fuzz_leaves_the_kernel_whole(console):
    console.run("/tests/fuzz 1 2 50", timeout=120)            # first-time allocations (logged-once bitmaps)
    before = meminfo(console)
    seed, children, calls = RUN.split()
    out = [line for line in console.run("/tests/fuzz " + RUN, timeout=60 + int(children) * 10).split("\n")
           if not re.match(LOG_LINE, line)]
    assert out[-1].startswith("fuzz: %s children x %s calls from seed %s" % (children, calls, seed)), out
    after = meminfo(console)
    assert after["OtherPages"] == 0
    assert after["KernelStack"] == before["KernelStack"]
    assert after["PageTables"] == before["PageTables"]
    assert after["MemFree"] >= before["MemFree"] - 4 * 4      # slabs may keep a page or so cached
    # the kernel shell and tracing are still usable
    assert console.run("cat current_tracer") == "nop"
    assert console.run("/tests/hello x").split("\n")[0] == "hello from ring 3"


def test_same_seed_same_fate(console):
    """A seed is a replay: the same children die of the same signals twice. A child the fuzzer killed after a
    second is left out of the comparison: the second is the guest's clock, and on a loaded host a busy child
    can use it up before reaching the call that faults (a fresh-clone run once lost seed 7's SIGSEGV so)."""
    runs = []
    for _ in range(2):
        fates = dict(re.match(r"^seed (\d+): (.*)$", line).groups()
                     for line in console.run("/tests/fuzz 5 6 150", timeout=120).split("\n") if line.startswith("seed "))
        runs.append(fates)
    cut = {s for fates in runs for s, fate in fates.items() if fate == "killed after a second"}
    compared = [{s: f for s, f in fates.items() if s not in cut} for fates in runs]
    assert compared[0] == compared[1]
    assert any(f.startswith("killed by signal") for f in compared[0].values()), runs  # not an empty comparison


def child_calls(console, seed):
    """Run `/tests/fuzz SEED 1 150` with raw_syscalls:sys_enter on: (the child's calls, "NR n (args)" each, and
    whether the fuzzer's one-second timer killed it)."""
    console.run("echo > trace")
    console.run("echo 1 > events/raw_syscalls/sys_enter/enable")
    out = console.run("/tests/fuzz %d 1 150" % seed, timeout=120)
    console.run("echo 0 > events/raw_syscalls/sys_enter/enable")
    calls = {}
    for line in console.run("cat trace", timeout=120).split("\n"):
        m = re.match(r"^\s*fuzz-(\d+)\s.*\ssys_enter: (NR .*)$", line)
        if m:
            calls.setdefault(int(m.group(1)), []).append(m.group(2))
    assert len(calls) == 2, (out, sorted(calls))                  # the parent (the lower pid) and its child
    return calls[max(calls)], "seed %d: killed after a second" % seed in out


def test_same_seed_same_calls(console):
    """A seed replays call by call, arguments included. Seed 7's 80th call is getrandom(0x403000, -1): 24576
    random bytes over the fuzzer's bss, where the PRNG's state once lay, so that every call after it was random
    (and seed 7's fate with them: a fault, a clean exit or a sleep). Both runs are traced whole (1 MiB a CPU).
    A run the fuzzer's timer cut short (a loaded host can starve the child's CPU for the guest's second) is
    compared as far as it went."""
    console.run("echo 1024 > buffer_size_kb")
    runs = [child_calls(console, 7) for _ in range(2)]
    # the call that matters: getrandom into the image, length -1 (the kernel writes up to the mapping's end)
    for calls, cut in runs:
        assert cut or any(re.match(r"NR 318 \(40[0-9a-f]{4}, ffffffffffffffff,", c) for c in calls), calls
    n = min(len(calls) for calls, _ in runs) if any(cut for _, cut in runs) else None
    (a, _), (b, _) = runs
    first_difference = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), None)
    assert first_difference is None and a[:n] == b[:n], (first_difference, runs)
