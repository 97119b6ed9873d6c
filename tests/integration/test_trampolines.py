"""tests/integration/test_trampolines.py: per-ops trampolines, direct calls and live patching, seen
from the shell on four CPUs: what enabled_functions and dis show as sites move between an ops's own
trampoline, the shared callers and a direct call; that the direct counter counts every call, alone
or shared; that livepatch_enable switches demo_greeting live, refuses a rival and bad names; and
that ops coming and going under load leave every site, trampoline and answer right."""

import re
import time

from tests.console import stress_rounds

SMP = 4
SWITCHES = stress_rounds(10, 100)   # livepatch on and off under load; 100 in `make stress`
EINVAL = "echo: write error: Invalid argument"
EBUSY = "echo: write error: Device or resource busy"
ORIGINAL = "Hello from ftrace-os, the kernel that traces it's own calls"
FIXED = "Hello from ftrace-os, the kernel that traces its own calls"
SHOUT = "HELLO FROM FTRACE-OS, THE KERNEL THAT TRACES ITS OWN CALLS"
TRAMP_LINE = (r"^(?P<name>\w+) \((?P<count>\d+)\)(?P<flags>( R|  )( I|  )( D|  ))"
              r"\ttramp: 0x(?P<tramp>[0-9a-f]+) \((?P<func>\S+)\) ->(?P<callee>\S+)$")
WORK_LINE = (r"^ *(?P<pid>\d+) +(?P<cpu>\d+) (?P<name>\w+) +(?P<iter>\d+) +(?P<windows>\d+) +"
             r"(?P<mismatches>\d+)(?P<exited> \(exited\))?$")


def first_insn(console, func):
    """The decoded first instruction of func, as `dis` prints it (spaces squeezed)."""
    line = console.run("dis %s 5" % func).splitlines()[1]
    return re.sub(r"\s+", " ", line.split("  ", 2)[2].strip())


def quiet_out(text):
    """Command output without the printk lines the kernel echoed meanwhile."""
    return "\n".join(l for l in text.splitlines() if not re.match(r"^\[ *\d+\.\d+\] ", l))


def start(console, cmd):
    pids = [int(m.group(1)) for m in re.finditer(r"^\[(\d+)\] \w+ on CPU \d+$", console.run(cmd), re.M)]
    assert pids
    return pids


def finish(console, pids, timeout=60):
    console.run("kill " + " ".join(map(str, pids)))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = workloads(console)
        if all(rows[p]["exited"] for p in pids):
            return rows
        time.sleep(0.2)
    raise AssertionError("workloads did not exit: %r" % rows)


def workloads(console):
    rows = [re.match(WORK_LINE, l) for l in console.run("cat /proc/workloads").splitlines()[1:]]
    assert all(rows)
    return {int(r.group("pid")): r.groupdict() for r in rows}


def direct_calls(console):
    m = re.match(r"^(\w+) calls=(\d+) last_arg=0x[0-9a-f]+ via direct_count_tramp$", console.run("cat direct_count"))
    assert m
    return m.group(1), int(m.group(2))


def test_single_ops_calls_its_trampoline_and_dis_names_it(console):
    assert console.run("echo kmalloc > set_ftrace_filter") == ""
    assert console.run("echo 1 > func_hits") == ""
    m = re.match(TRAMP_LINE, console.run("cat enabled_functions"))
    assert m and m.group("name") == "kmalloc" and m.group("count") == "1", m
    assert m.group("func").startswith("func_hits_call+0x0/") and m.group("callee") == m.group("func")
    assert first_insn(console, "kmalloc").endswith("call %s <ftrace_trampoline>" % m.group("tramp"))
    assert re.match(r"^ftrace_trampoline\+0x0/0x[0-9a-f]+$", console.run("ksym 0x" + m.group("tramp")))
    assert console.run("echo 0 > func_hits") == ""
    # Freed after the quiescence wait: no name any more, and the site is a NOP again.
    assert console.run("ksym 0x" + m.group("tramp")).endswith("no symbol at this address")
    assert first_insn(console, "kmalloc").endswith("nopl 0x0(%rax,%rax,1)")


def test_sites_move_between_trampoline_list_and_direct(console):
    assert console.run("echo stress_target > direct_count") == ""
    assert re.match(r"^stress_target \(1\) R   D\n\tdirect-->direct_count_tramp\+0x0/0x[0-9a-f]+$",
                    console.run("cat enabled_functions"))
    assert first_insn(console, "stress_target").endswith("<direct_count_tramp>")
    # func_hits joins on the same function: the site calls ftrace_regs_caller, which runs the list
    # and then leaves to the direct trampoline.
    assert console.run("echo 'stress_target vfs_read' > set_ftrace_filter") == ""
    assert console.run("echo 1 > func_hits") == ""
    lines = console.run("cat enabled_functions").splitlines()
    i = lines.index("stress_target (2) R   D")
    assert lines[i + 1].startswith("\tdirect-->direct_count_tramp")
    assert [re.match(TRAMP_LINE, l).group("name") for l in lines[:i] + lines[i + 2:]] == ["vfs_read"]
    assert first_insn(console, "stress_target").endswith("<ftrace_regs_caller>")
    assert first_insn(console, "vfs_read").endswith("<ftrace_trampoline>")
    assert console.run("echo > direct_count") == ""
    assert first_insn(console, "stress_target").endswith("<ftrace_trampoline>")
    assert console.run("echo 0 > func_hits") == ""
    assert console.run("cat enabled_functions") == ""


def test_direct_count_counts_every_call_alone_and_shared(console):
    for shared in (False, True):
        if shared:
            console.run("echo stress_target > set_ftrace_filter")
            console.run("echo 1 > func_hits")
        assert console.run("echo stress_target > direct_count") == ""
        assert direct_calls(console) == ("stress_target", 0)
        rows = finish(console, start(console, "run spin 1-3"))
        spun = [r for r in rows.values() if r["name"] == "spin"][-3:]
        name, calls = direct_calls(console)
        # Each spin iteration calls stress_target 64 times; the counter must have all of them.
        assert calls == 64 * sum(int(r["iter"]) for r in spun) and calls > 0
        if shared:
            hits = console.run("cat func_hits").splitlines()
            assert any(re.match(r"^ *stress_target +%d$" % calls, l) for l in hits), hits
        console.run("echo > direct_count")
        console.run("echo 0 > func_hits")


def test_direct_count_refuses_bad_input_and_keeps_state(console):
    assert console.run("echo stress_target > direct_count") == ""
    for bad in ("no_such_function", "stress_*", "stress_target extra", "x" * 200):
        assert console.run("echo '%s' > direct_count" % bad) == EINVAL
        assert direct_calls(console)[0] == "stress_target"
    assert console.run("echo > direct_count") == ""
    assert console.run("cat direct_count").startswith("# not attached")


def test_livepatch_switches_demo_greeting_and_back(console):
    assert console.run("greet").splitlines()[0] == ORIGINAL
    out = console.run("echo demo_greeting > livepatch_enable")
    assert "livepatch: enabling patch 'demo_greeting': demo_greeting -> demo_greeting_fixed" in out
    assert console.run("greet").splitlines()[0] == FIXED
    m = re.match(TRAMP_LINE, console.run("cat enabled_functions"))
    assert m and m.group("name") == "demo_greeting" and m.group("flags") == " R I  "
    assert m.group("func").startswith("klp_ftrace_handler+0x0/")
    assert first_insn(console, "demo_greeting").endswith("<ftrace_trampoline>")
    table = console.run("cat livepatch_enable").splitlines()
    assert re.match(r"^  demo_greeting +demo_greeting +demo_greeting_fixed +enabled$", table[1])
    # A rival replacement of the same function is a second IPMODIFY ops: refused, nothing changes.
    out = console.run("echo demo_greeting_shout >> livepatch_enable").splitlines()
    assert out[-1] == EBUSY
    assert "demo_greeting is already modified by another ftrace ops (IPMODIFY)" in out[0]
    assert console.run("greet").splitlines()[0] == FIXED
    assert "disabled" in console.run("cat livepatch_enable").splitlines()[2]
    assert "patch disabled" in console.run("echo '!demo_greeting' >> livepatch_enable")
    assert console.run("greet").splitlines()[0] == ORIGINAL
    assert console.run("cat enabled_functions") == ""
    assert "enabling patch 'demo_greeting_shout'" in console.run("echo demo_greeting_shout > livepatch_enable")
    assert console.run("greet").splitlines()[0] == SHOUT


def test_livepatch_refuses_bad_names(console):
    for bad in ("nope", "!nope", "demo_greeting extra", "x" * 100):
        assert console.run("echo '%s' > livepatch_enable" % bad) == EINVAL
    assert all(l.endswith("disabled") for l in console.run("cat livepatch_enable").splitlines()[1:])
    assert console.run("greet").splitlines()[0] == ORIGINAL


def test_livepatch_while_other_cpus_run_the_function(console):
    pids = start(console, "run greet 1-3")
    try:
        for i in range(SWITCHES):
            console.run("echo demo_greeting > livepatch_enable", timeout=60)
            console.run("echo '!demo_greeting' >> livepatch_enable", timeout=60)
    finally:
        rows = finish(console, pids)
    for p in pids:
        assert int(rows[p]["windows"]) > 0 and rows[p]["mismatches"] == "0", rows[p]
    seen = re.search(r"original=(\d+) fixed=(\d+)", console.run("greet"))
    assert int(seen.group(1)) > 0 and int(seen.group(2)) > 0
    assert "ok 1 ftrace_nop_sites_after_boot" in console.run("selftest ftrace_nop_sites_after_boot")


def test_ops_come_and_go_under_load(console):
    pids = []
    for cmd in ("run spin 1-3", "run greet 1-3", "run fs 1-3", "run compute 2", "run hash 3"):
        pids += start(console, cmd)
    try:
        out = console.run("selftest trampoline_ops_come_and_go", timeout=400)
    finally:
        rows = finish(console, pids)
    assert "ok 1 trampoline_ops_come_and_go" in out, out
    for p in pids:
        assert rows[p]["mismatches"] == "0", rows[p]
    assert "ok 1 ftrace_nop_sites_after_boot" in console.run("selftest ftrace_nop_sites_after_boot")


def test_live_patch_keeps_the_kill_switch_on(console):
    # As Linux's FTRACE_OPS_FL_PERMANENT: switching ftrace off would silently drop the fix.
    console.run("echo demo_greeting > livepatch_enable")
    assert console.run("echo 0 > /proc/sys/kernel/ftrace_enabled") == EBUSY
    assert console.run("cat /proc/sys/kernel/ftrace_enabled") == "1"
    assert console.run("greet").splitlines()[0] == FIXED
    console.run("echo > livepatch_enable")
    assert console.run("echo 0 > /proc/sys/kernel/ftrace_enabled") == ""
    out = console.run("echo demo_greeting > livepatch_enable").splitlines()
    assert out[-1] == EBUSY and "ftrace is switched off" in out[0], out
    assert console.run("greet").splitlines()[0] == ORIGINAL
    assert console.run("echo 1 > /proc/sys/kernel/ftrace_enabled") == ""


def test_livepatch_and_direct_call_exclude_each_other(console):
    assert console.run("echo demo_greeting > direct_count") == ""
    out = console.run("echo demo_greeting > livepatch_enable").splitlines()
    assert out[-1] == EBUSY and "has a direct call attached" in out[0], out
    assert console.run("echo > direct_count") == ""
    console.run("echo demo_greeting > livepatch_enable")
    assert console.run("echo demo_greeting > direct_count") == EBUSY
    assert console.run("cat direct_count").startswith("# not attached")
