"""tests/integration/test_jump_label.py: static keys seen from the shell, on four CPUs.

/proc/jump_labels lists every key with its sites; /proc/sys/kernel/jump_label_demo flips the demo key, whose
two sites in jump_label_demo() are one 5-byte NOP <-> `jmp rel32` and one `jmp rel8` <-> 2-byte NOP; `dis`
shows the bytes.  The stress test flips the key 8 times (200 in `make stress`) with each patch method while three CPUs run the
branch (the `jump` workload checks every answer), reading the demo's site bytes after every flip, then checks
every site's bytes against its key.
"""

import re

import pytest

from tests.console import stress_rounds

from tests.integration.test_smp import start, wait_gone, workloads

SMP = 4
EINVAL = "echo: write error: Invalid argument"
DEMO = "/proc/sys/kernel/jump_label_demo"
FLIPS = stress_rounds(8, 200)               # with each method; 200 in `make stress`

KEY_LINE = r"^(?P<key>\S+): (?P<state>on|off), enabled (?P<count>-?\d+), (?P<n>\d+) sites?$"
SITE_LINE = (r"^  0x(?P<addr>[0-9a-f]{16}) (?P<sym>\S+\+0x[0-9a-f]+/0x[0-9a-f]+) len (?P<len>[25]) "
             r"(?P<form>nop|jmp|cli|sti|call|bad|\?\?\?) -> (?P<target>\S+\+0x[0-9a-f]+/0x[0-9a-f]+)$")
DIS_SITE = r"^(?P<addr>[0-9a-f]+):  (?P<bytes>(?:[0-9a-f]{2} )+) +(?P<insn>.*?)   # jump label (?P<key>\S+)$"


def keys(console):
    """/proc/jump_labels as {key: {"state", "count", "sites": [site dicts]}}, checking every line's format."""
    out = {}
    cur = None
    for line in console.run("cat /proc/jump_labels").splitlines():
        m = re.match(KEY_LINE, line)
        if m:
            cur = out[m["key"]] = {"state": m["state"], "count": int(m["count"]), "n": int(m["n"]), "sites": []}
            continue
        m = re.match(SITE_LINE, line)
        assert m and cur is not None, line
        cur["sites"].append(m.groupdict())
    for key, k in out.items():
        assert len(k["sites"]) == k["n"], (key, k)
    return out


def demo_sites(console):
    """The demo's sites as `dis` shows them: [(address, bytes, instruction)]."""
    out = console.run("dis jump_label_demo 48").splitlines()
    sites = [re.match(DIS_SITE, l) for l in out]
    return [(int(m["addr"], 16), m["bytes"].split(), m["insn"]) for m in sites if m and
            m["key"] == "jump_label_demo_key"]


def test_proc_jump_labels_lists_the_demo_key(console):
    ks = keys(console)
    demo = ks["jump_label_demo_key"]
    assert (demo["state"], demo["count"], demo["n"]) == ("off", 0, 2)
    base = int(console.run("ksym jump_label_demo").split()[0], 16)
    long_site, short_site = sorted(demo["sites"], key=lambda s: -int(s["len"]))
    assert (long_site["len"], long_site["form"]) == ("5", "nop")
    assert (short_site["len"], short_site["form"]) == ("2", "jmp")
    for s in demo["sites"]:
        off = int(s["sym"].split("+")[1].split("/")[0], 16)
        assert s["sym"].startswith("jump_label_demo+") and int(s["addr"], 16) == base + off
        assert s["target"].startswith("jump_label_demo+")
    # A key inside a structure (as in a tracepoint) is named by the structure and the offset.
    assert ks["jlt_tracepoint+0x8"]["sites"][0]["sym"].startswith("jlt_tracepoint_hit+")
    # Every other key is well formed too, and nothing is bad or unexplained after boot (an irqflags site is
    # its cli or sti while its key is off).
    assert all(s["form"] in ("nop", "jmp", "cli", "sti") for k in ks.values() for s in k["sites"])


IRQ_SITE = {"cli": ("3e 66 67 40 fa", "ds data16 addr32 rex cli"), "sti": ("3e 66 67 40 fb", "ds data16 addr32 rex sti")}


def test_irqflags_sites_are_the_cli_and_sti_until_an_event_listens(console):
    """local_irq_disable()/enable() sites: the padded cli/sti with no listener, `call` the thunk with one, and back."""
    def irq_sites():
        k = keys(console)["trace_irqflags_key"]
        return k, [s for s in k["sites"] if s["target"].startswith(("irq_disable_thunk+", "irq_save_thunk+",
                                                                        "irq_enable_thunk+"))]

    k, sites = irq_sites()
    assert (k["state"], k["count"]) == ("off", 0)
    assert len(sites) > 10 and {s["form"] for s in sites} == {"cli", "sti"}, sites
    assert all(s["len"] == "5" for s in sites)
    # The rest of the key's sites (safe_halt(), the entry code) stay static branches: 5-byte NOPs.
    assert all(s["form"] == "nop" for s in k["sites"] if s not in sites)
    # `dis` names the two sites of latency_spin_irqs_off() (noirq's cli and sti) as objdump would.
    size = int(console.run("ksym latency_spin_irqs_off").rsplit("/", 1)[1], 16)
    out = console.run("dis latency_spin_irqs_off %d" % size).splitlines()
    dis = [re.match(DIS_SITE, l) for l in out]
    dis = [m for m in dis if m and m["key"] == "trace_irqflags_key"]
    assert [m["insn"] for m in dis] == [IRQ_SITE["cli"][1], IRQ_SITE["sti"][1]], out
    assert [m["bytes"].strip() for m in dis] == [IRQ_SITE["cli"][0], IRQ_SITE["sti"][0]], out
    try:
        assert console.run("echo 1 > events/preemptirq/irq_disable/enable") == ""
        k, on = irq_sites()
        assert (k["state"], k["count"]) == ("on", 1)
        assert [s["form"] for s in on] == ["call"] * len(sites)
        assert all(s["form"] == "jmp" for s in k["sites"] if s not in on)
        out = console.run("dis latency_spin_irqs_off %d" % size).splitlines()
        calls = [m for m in (re.match(DIS_SITE, l) for l in out) if m and m["key"] == "trace_irqflags_key"]
        assert [m["insn"].split()[0] for m in calls] == ["call", "call"], out
        assert "<irq_disable_thunk>" in calls[0]["insn"] and "<irq_enable_thunk>" in calls[1]["insn"], out
        assert [m["addr"] for m in calls] == [m["addr"] for m in dis]
    finally:
        console.run("echo 0 > events/preemptirq/irq_disable/enable")
    k, off = irq_sites()
    assert (k["state"], k["count"]) == ("off", 0)
    assert [s["form"] for s in off] == [s["form"] for s in sites]


def test_dis_shows_the_sites_flip(console):
    before = demo_sites(console)
    assert [(b, i.split()[0]) for _, b, i in before] == \
        [(["0f", "1f", "44", "00", "00"], "nopl"), (before[1][1], "jmp")]
    assert before[1][1][0] == "eb" and len(before[1][1]) == 2
    assert console.run("echo 1 > " + DEMO) == ""
    assert console.run("cat " + DEMO) == "1"
    on = demo_sites(console)
    assert [a for a, _, _ in on] == [a for a, _, _ in before]
    assert on[0][1][0] == "e9" and on[0][2].startswith("jmp") and "<jump_label_demo+0x" in on[0][2]
    assert on[1][1] == ["66", "90"] and on[1][2] == "xchg   %ax,%ax"
    k = keys(console)["jump_label_demo_key"]
    assert (k["state"], k["count"]) == ("on", 1)
    assert sorted(s["form"] for s in k["sites"]) == ["jmp", "nop"]
    assert console.run("echo 1 > " + DEMO) == ""          # already on: no change, no error
    assert keys(console)["jump_label_demo_key"]["count"] == 1
    assert console.run("echo 0 > " + DEMO) == ""
    assert demo_sites(console) == before
    assert console.run("cat " + DEMO) == "0"


@pytest.mark.parametrize("bad", ["2", "-1", "on", "", "1 0", "99999999999999999999999"])
def test_demo_file_refuses_bad_input(console, bad):
    for state in ("1", "0"):
        assert console.run("echo %s > %s" % (state, DEMO)) == ""
        before = demo_sites(console)
        assert console.run("echo '%s' > %s" % (bad, DEMO)) == EINVAL
        assert console.run("cat " + DEMO) == state
        assert demo_sites(console) == before
    assert console.run("echo x > /proc/jump_labels") == "/proc/jump_labels: Permission denied"


def test_flip_under_load_both_methods(console):
    jumpers = start(console, "run jump 1-3")
    busy = start(console, "run compute 2")
    try:
        for method in ("breakpoint", "stop_machine"):
            assert console.run("echo %s > patch_method" % method) == ""
            for i in range(FLIPS):
                on = i % 2 == 0
                assert console.run("echo %d > %s" % (on, DEMO), timeout=60) == ""
                # After every flip: the state, and both sites' bytes (the long one jumps when on).
                demo = keys(console)["jump_label_demo_key"]
                assert demo["state"] == ("on" if on else "off"), demo
                forms = {s["len"]: s["form"] for s in demo["sites"]}
                assert forms == ({"5": "jmp", "2": "nop"} if on else {"5": "nop", "2": "jmp"}), demo
            assert console.run("cat " + DEMO) == "0"
    finally:
        console.run("echo breakpoint > patch_method")
        console.run("echo 0 > " + DEMO)
        console.run("kill " + " ".join(str(p) for p, _ in jumpers + busy))
    assert wait_gone(console, [p for p, _ in jumpers + busy])
    stats = workloads(console)
    for pid, _ in jumpers:
        assert int(stats[pid]["windows"]) > 0 and stats[pid]["mismatches"] == "0", stats[pid]
    k = keys(console)["jump_label_demo_key"]
    assert (k["state"], k["count"]) == ("off", 0)
    assert "ok 1 jump_label_sites_match_keys" in console.run("selftest jump_label_sites_match_keys")
    assert "ok 1 ftrace_nop_sites_after_boot" in console.run("selftest ftrace_nop_sites_after_boot")
