"""tests/integration/test_optprobes.py: optimized kprobes on 4 CPUs, as a user sees them: a probe inside a
function becomes [OPTIMIZED] in kprobes/list a moment after it is armed, its site a jmp in `dis`; it counts and
fetches exactly what the int3 probe does on the same workload; /proc/sys/debug/kprobes-optimization takes every
site back to its int3 and forward again; kprobes/enabled disarms everything; kprobes/blacklist lists what may
not be probed. The self-tests (tests/kernel/optprobes_test.c) run here on 4 CPUs too, where the site goes to
its jmp and back 200 times while three CPUs run it, every register and the stack checked at each hit."""

import re
from collections import Counter

from tests.console import TIMEOUT_SCALE
from tests.integration.test_kprobe_events import define, events, run_workload
from tests.ktap import parse_ktap

SMP = 4
LIST = "cat /sys/kernel/debug/kprobes/list"
SYSCTL = "/proc/sys/debug/kprobes-optimization"
EINVAL = "echo: write error: Invalid argument"
ON_MSG = "kprobes: kprobe jump-optimization is enabled. All kprobes are optimized if possible."
OFF_MSG = "kprobes: kprobe jump-optimization is disabled. All kprobes are based on software breakpoint."


def said(out, message):
    """A write whose only output is printk's line with message (a timestamp before it)."""
    assert re.match(r"^\[ *\d+\.\d{6}\] %s$" % re.escape(message), out), out


def listed(console):
    return sorted(console.run(LIST).splitlines(), key=lambda l: l[:16])


def wait_optimized(console, n=1):
    console.poll(LIST, lambda out: out.count("[OPTIMIZED]") == n, timeout=30 * TIMEOUT_SCALE)


def test_selftests_on_4_cpus(console):
    out = console.run("selftest optprobes_*", timeout=900 * TIMEOUT_SCALE)
    results = parse_ktap(out)
    assert len(results) == 6, out
    assert all(r.ok and not r.skip for r in results), out


def test_listed_optimized_and_back_through_the_sysctl(console):
    assert console.run("cat " + SYSCTL) == "1"
    define(console, "p:sq compute_square+5 x=%di:u64")
    assert re.match(r"^[0-9a-f]{16}  k  compute_square\+0x5    \[DISABLED\]$", console.run(LIST))
    assert console.run("echo 1 > events/kprobes/sq/enable") == ""
    wait_optimized(console)
    assert re.match(r"^[0-9a-f]{16}  k  compute_square\+0x5    \[OPTIMIZED\]$", console.run(LIST))
    dis = console.run("dis compute_square 10").splitlines()
    assert re.match(r"^[0-9a-f]{16}:  e9 [0-9a-f ]{11} +jmp +ffffffffa[0-9a-f]{7} +# optimized kprobe: "
                    r"jmp over 55 48 0f af ff$", dis[2]), dis
    said(console.run("echo 0 > " + SYSCTL), OFF_MSG)
    assert console.run("cat " + SYSCTL) == "0"
    assert re.match(r"^[0-9a-f]{16}  k  compute_square\+0x5    $", console.run(LIST))
    dis = console.run("dis compute_square 10").splitlines()
    assert re.match(r"^[0-9a-f]{16}:  cc +int3 +# kprobe: int3 over 55$", dis[2]), dis
    assert re.match(r"^[0-9a-f]{16}:  48 0f af ff", dis[3]), dis        # the imul is whole again
    for bad in ("2", "-1", "x", ""):
        assert console.run("echo '%s' > %s" % (bad, SYSCTL)) == EINVAL
        assert console.run("cat " + SYSCTL) == "0"
    assert console.run("echo 0 > " + SYSCTL) == ""                      # no change, no message
    said(console.run("echo 1 > " + SYSCTL), ON_MSG)
    wait_optimized(console)
    assert console.run("echo 0 > events/kprobes/sq/enable") == ""
    assert re.match(r"^[0-9a-f]{16}  k  compute_square\+0x5    \[DISABLED\]$", console.run(LIST))
    assert re.match(r"^[0-9a-f]{16}:  55 ", console.run("dis compute_square 10").splitlines()[2])


def run_counted(console):
    """Runs the compute workload once, both events on; (hits of sq, of ref; x values of sq, of ref)."""
    assert console.run("echo > trace") == ""
    before = {l.split()[0]: int(l.split()[1]) for l in console.run("cat kprobe_profile").splitlines()}
    run_workload(console, "run compute 1 1")
    after = {l.split()[0]: int(l.split()[1]) for l in console.run("cat kprobe_profile").splitlines()}
    xs = {n: Counter(re.search(r" x=(\d+)$", e["rest"])[1] for e in events(console, n)) for n in ("sq", "ref")}
    return after["sq"] - before["sq"], after["ref"] - before["ref"], xs["sq"], xs["ref"]


def test_optimized_hits_equal_int3_hits_on_the_same_workload(console):
    # ref rides on ftrace at offset 0: every call of compute_square meets it however sq is made.
    define(console, "p:ref compute_square x=%di:u64")
    define(console, "p:sq compute_square+5 x=%di:u64")
    assert console.run("echo 4096 > buffer_size_kb") == ""
    said(console.run("echo 0 > " + SYSCTL), OFF_MSG)
    assert console.run("echo 1 > events/kprobes/enable") == ""
    int3 = run_counted(console)
    assert "[OPTIMIZED]" not in console.run(LIST)
    said(console.run("echo 1 > " + SYSCTL), ON_MSG)
    wait_optimized(console)
    optimized = run_counted(console)
    assert "[OPTIMIZED]" in console.run(LIST)                # the whole run long
    assert console.run("echo 0 > events/kprobes/enable") == ""
    for hits, ref_hits, xs, ref_xs in (int3, optimized):
        assert hits == ref_hits > 0
        assert xs == ref_xs and sum(xs.values()) == hits
    assert set(int3[2]) == set(optimized[2])


def test_enabled_disarms_every_probe(console):
    define(console, "p:sq compute_square+5 x=%di:u64")
    define(console, "p:ref compute_square")
    assert console.run("echo 1 > events/kprobes/enable") == ""
    wait_optimized(console)
    assert console.run("cat /sys/kernel/debug/kprobes/enabled") == "1"
    said(console.run("echo 0 > /sys/kernel/debug/kprobes/enabled"), "kprobes: Kprobes globally disabled")
    assert console.run("cat /sys/kernel/debug/kprobes/enabled") == "0"
    assert re.match(r"^[0-9a-f]{16}:  55 ", console.run("dis compute_square 10").splitlines()[2])
    assert re.match(r"^[0-9a-f]{16}:  0f 1f 44 00 00 ", console.run("dis compute_square 10").splitlines()[1])
    before = console.run("cat kprobe_profile")
    run_workload(console, "run compute 1 1")
    assert console.run("cat kprobe_profile") == before
    assert console.run("echo 0 > /sys/kernel/debug/kprobes/enabled") == ""   # already: nothing to say
    assert console.run("echo maybe > /sys/kernel/debug/kprobes/enabled") == EINVAL
    said(console.run("echo on > /sys/kernel/debug/kprobes/enabled"), "kprobes: Kprobes globally enabled")
    wait_optimized(console)
    run_workload(console, "run compute 1 1")
    hits = [int(l.split()[1]) for l in console.run("cat kprobe_profile").splitlines()]
    assert hits[0] == hits[1] > 0
    assert console.run("echo 0 > events/kprobes/enable") == ""


def test_blacklist_is_the_notrace_code(console):
    lines = console.run("cat /sys/kernel/debug/kprobes/blacklist", timeout=60).splitlines()
    names = set()
    for line in lines:
        m = re.match(r"^0x([0-9a-f]{16})-0x([0-9a-f]{16})\t(\S+)$", line)
        assert m and int(m[1], 16) < int(m[2], 16), line
        names.add(m[3])
    assert {"memcpy", "kprobe_site_lookup", "optimized_callback", "text_poke_bp_batch"} <= names
    assert "compute_square" not in names and "vfs_read" not in names
    assert console.run("echo 'p memcpy' > kprobe_events") == EINVAL
