"""tests/integration/test_soak.py: what the soak (tools/soak.py, `make soak`) stands on: verify_sites, the
test-mode sitecycle command, memory given back when everything is off; and a short run of the driver itself
with a fixed seed, so it cannot rot between soaks."""

import os
import re
import subprocess
import sys

from tests.integration.test_smp import start, wait_gone

SMP = 4
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

VERIFY = [r"^ftrace sites: (?P<sites>\d+) checked, (?P<on>\d+) calling ftrace: ok$",
          r"^jump label sites: \d+ checked: ok$",
          r"^ftrace_bug reports: 0, jump label bugs: 0$",
          r"^memory: (?P<kmalloc>\d+) kmalloc bytes in use, (?P<pages>\d+) trampoline pages$"]
CYCLE = r"^sitecycle: (\d+) of (\d+) cycles of (\d+) sites, (\S+?)(, notramp)?, \d+ ms, (\d+) calls seen: ok$"


def verify(console):
    lines = console.run("cat verify_sites").splitlines()
    assert len(lines) == len(VERIFY), lines
    found = {}
    for rx, line in zip(VERIFY, lines):
        m = re.match(rx, line)
        assert m, (rx, line)
        found.update({k: int(v) for k, v in m.groupdict().items()})
    return found


def settled_kmalloc(console):
    """kmalloc bytes once nothing frees in the background (a task an earlier test ended is reaped
    later): the same value on both sides of two timer ticks."""
    last = verify(console)["kmalloc"]
    for _ in range(10):
        console.run("selftest timer_ticks")
        now = verify(console)["kmalloc"]
        if now == last:
            return now
        last = now
    return last


def kmalloc_back_to(console, before, rounds=50):
    """kmalloc bytes, read until they are back to `before` (or below: something `before` counted was
    freed meanwhile) or `rounds` timer-tick waits have passed. What is given back may be freed a little
    later (a task reaped, an RCU-Tasks wait), so only memory that never comes back fails the caller's
    comparison: a leak stays above `before` however long we wait."""
    now = verify(console)["kmalloc"]
    for _ in range(rounds):
        if now <= before:
            break
        console.run("selftest timer_ticks")
        now = verify(console)["kmalloc"]
    return now


def test_verify_sites_counts_what_calls_ftrace(console):
    idle = verify(console)
    assert idle["on"] == 0 and idle["sites"] > 300 and idle["pages"] == 0
    assert console.run("echo 'vfs_open vfs_read vfs_close' > set_ftrace_filter") == ""
    assert console.run("echo 1 > func_hits") == ""
    try:
        live = verify(console)
        assert live["on"] == 3 and live["sites"] == idle["sites"] and live["pages"] == 1
    finally:
        console.run("echo 0 > func_hits")
        console.run("echo > set_ftrace_filter")
    assert verify(console)["on"] == 0


def test_verify_sites_is_busy_while_patch_step_holds_a_patch(console):
    assert console.run("echo 'stress_target on' > patch_step") == ""
    try:
        assert console.run("cat verify_sites") == "cat: verify_sites: Device or resource busy"
        assert console.run("sitecycle 1") == "sitecycle: patch_step holds a patch"
    finally:
        console.run("echo abort > patch_step")
    verify(console)


def test_sitecycle_switches_every_site_with_each_method(console):
    pids = [p for p, _ in start(console, "run spin 1-3 3")]
    for method, extra in (("breakpoint", ""), ("stop_machine", " notramp")):
        out = console.run("sitecycle 3 %s%s" % (method, extra), timeout=120)
        m = re.match(CYCLE, out)
        assert m, out
        assert m.group(1) == m.group(2) == "3" and m.group(4) == method
        assert (m.group(5) is not None) == bool(extra)
        assert int(m.group(6)) > 0                      # every function traced: calls are seen
    assert console.run("cat patch_method") == "[breakpoint] stop_machine"   # the method in force is kept
    assert verify(console)["on"] == 0
    # The spinners outlive the cycles when these run fast; reaped during the next test, they would
    # free their 768 bytes inside its memory comparison.
    assert wait_gone(console, pids)


def test_sitecycle_refuses_bad_arguments(console):
    usage = "usage: sitecycle N [breakpoint|stop_machine] [notramp]"
    for bad in ("sitecycle", "sitecycle 0", "sitecycle x", "sitecycle 2 int3", "sitecycle 2 breakpoint x"):
        assert console.run(bad) == usage, bad
    assert verify(console)["on"] == 0


def test_cleared_sets_and_disabled_patches_give_their_memory_back(console):
    """A filter or notrace set written then cleared, and a live patch enabled then disabled, leave
    kmalloc exactly where it was (each used to keep a 2 kB hash)."""
    before = settled_kmalloc(console)
    for cmd in ("echo 'vfs_*' > set_ftrace_filter", "echo kfree > set_ftrace_notrace",
                "echo demo_greeting > livepatch_enable", "echo demo_greeting_shout >> livepatch_enable",
                "echo > livepatch_enable", "echo > set_ftrace_filter", "echo > set_ftrace_notrace"):
        console.run(cmd)
    assert console.run("cat set_ftrace_filter") == "#### all functions enabled ####"
    assert console.run("cat set_ftrace_notrace") == "#### no functions disabled ####"
    assert kmalloc_back_to(console, before) <= before
    assert console.run("echo demo_greeting > livepatch_enable").endswith("demo_greeting -> demo_greeting_fixed")
    console.run("echo > livepatch_enable")
    assert kmalloc_back_to(console, before) <= before


def test_a_detached_direct_call_gives_its_filter_back(console):
    """direct_count attached, moved and detached: kmalloc where it was (it kept its 2 kB filter)."""
    before = settled_kmalloc(console)
    for cmd in ("echo compute_fib > direct_count", "echo vfs_read > direct_count", "echo > direct_count"):
        assert console.run(cmd) == "", cmd
    assert kmalloc_back_to(console, before) <= before
    assert console.run("cat enabled_functions") == ""


def test_the_last_function_command_removed_gives_its_memory_back(fresh_console):
    """The first function command ever, added then removed by its `!`: kmalloc where it was before it
    (the probe ops kept its one-function filter and an empty command set, 2160 bytes: make soak,
    seed 2, step 86). A fresh boot, so that no earlier test has paid that once already."""
    con = fresh_console
    before = settled_kmalloc(con)
    for cmd in ("echo 'serial_init:traceon' >> set_ftrace_filter", "echo 'kfree:traceoff:3' >> set_ftrace_filter",
                "echo '!serial_init:traceon' >> set_ftrace_filter", "echo '!kfree:traceoff' >> set_ftrace_filter"):
        assert con.run(cmd) == "", cmd
    assert con.run("cat set_ftrace_filter") == "#### all functions enabled ####"
    assert con.run("cat enabled_functions") == ""
    assert kmalloc_back_to(con, before) <= before
    assert con.run("echo 'serial_init:traceon' >> set_ftrace_filter") == ""
    assert con.run("cat set_ftrace_filter").splitlines()[-1] == "serial_init:traceon:unlimited"
    assert con.run("echo '!serial_init:traceon' >> set_ftrace_filter") == ""
    assert kmalloc_back_to(con, before) <= before


def test_soak_driver_short_run():
    """The driver end to end: a few random steps, a couple of site cycles, fixed seed, no file written."""
    out = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "soak.py"), "--steps", "5", "--cycles", "1",
                          "--switches", "0", "--seed", "3", "--quick", "--no-write"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert re.search(r"^\| random steps \| 5 \|$", out.stdout, re.M), out.stdout
    assert re.search(r"^\| faults .* \| 0 \|$", out.stdout, re.M), out.stdout
    assert re.search(r"^\| breakpoint \| 1 \| \d+ \|", out.stdout, re.M), out.stdout
    assert re.search(r"^\| stop_machine \| 1 \| \d+ \|", out.stdout, re.M), out.stdout
