"""tests/integration/test_hist_smp.py: hist triggers on sched_switch with four CPUs switching at once: every switch the
ring buffer keeps is counted once (per CPU too), and a table filled past its size counts what it drops and stays
consistent."""

import re

SMP = 4
TOTALS = re.compile(r"\nTotals:\n    Hits: (\d+)\n    Entries: (\d+)\n    Dropped: (\d+)\n")
COND = 'next_comm == "compute" || next_comm == "hash"'


def wait_gone(console, pids, timeout=120):
    console.poll("ps", lambda out: not set(re.findall(r"^\s*(\d+)\s", out, re.M)) & set(pids), timeout=timeout)


def test_sched_switch_on_4_cpus_under_load(console):
    trig = "events/sched/sched_switch/trigger"
    try:
        assert console.run("echo '%s' > events/sched/sched_switch/filter" % COND) == ""
        assert console.run("echo 'hist:keys=common_cpu if %s' > %s" % (COND, trig)) == ""
        assert console.run("echo 'hist:keys=common_timestamp:size=128 if %s' >> %s" % (COND, trig)) == ""
        console.run("echo > trace")
        assert console.run("echo 1 > events/sched/sched_switch/enable") == ""
        pids = []
        for cmd in ("run compute all 2", "run hash all 2"):
            pids += re.findall(r"^\[(\d+)\]", console.run(cmd), re.M)
        assert len(pids) == 8
        wait_gone(console, pids)
        console.run("echo 0 > events/sched/sched_switch/enable")
        out = console.run("cat trace", timeout=120)
        m = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", out)
        assert m and m.group(1) == m.group(2)
        lines = [l for l in out.splitlines() if " sched_switch: " in l]
        hist = console.run("cat events/sched/sched_switch/hist", timeout=60)
        parts = hist.split("\n\n\n# event histogram")
        assert len(parts) == 2
        # Oldest first, as Linux lists hist triggers: the per-CPU count, then the size=128 one.
        per_cpu, small = parts
        hits, entries, dropped = map(int, TOTALS.search(per_cpu + "\n").groups())
        assert hits == len(lines) > 128 and dropped == 0
        cpus = {}
        for l in lines:
            cpu = int(re.search(r"\[(\d{3})\]", l).group(1))
            cpus[cpu] = cpus.get(cpu, 0) + 1
        got = {int(c): int(n) for c, n in re.findall(r"^\{ common_cpu: +(\d+) \} hitcount: +(\d+)$", per_cpu,
                                                     re.M)}
        assert got == cpus and len(got) == 4
        # Past its size: 128 entries kept, every other event counted as dropped, the sums consistent.
        s_hits, s_entries, s_dropped = map(int, TOTALS.search(small + "\n").groups())
        assert "keys=common_timestamp:vals=hitcount:sort=hitcount:size=128:clock=global" in small
        assert s_entries == 128 and s_dropped > 0 and s_hits + s_dropped == hits
        counts = [int(n) for n in re.findall(r"^\{ common_timestamp: +\d+ \} hitcount: +(\d+)$", small, re.M)]
        assert len(counts) == 128 and sum(counts) == s_hits
    finally:
        console.run("echo 0 > events/sched/sched_switch/enable")
        console.run("echo > " + trig)
        console.run("echo 0 > events/sched/sched_switch/filter")
