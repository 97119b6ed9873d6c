"""tests/integration/test_hist_wakeup.py: histogram.rst's wakeup-latency recipe (docs/22) cross-checked against
the wakeup_rt tracer (docs/21) on the same wake-up: `rtwake US` wakes a SCHED_FIFO task from the timer tick while
the shell holds its CPU with preemption off for US microseconds (kernel/lab/wakeup_lab.c), so the task waits most
of that section. The recipe times sched_waking to sched_switch with hist variables and fires the wakeup_latency
synthetic event; the tracer times sched_wakeup to the switch with its own probes. Both must find the one wait of
about 50 ms, and agree within 100 us: the two start events are a few instructions apart, and each reads its clock
a few thousand instructions from the other's. The machine runs under -icount (the TSC counts guest instructions,
as `make bench` runs), so a host that deschedules QEMU between two probes cannot stretch that gap: the agreement
does not depend on the host's speed or load.
"""

import re

SMP = 2
QEMU_ARGS = ["-icount", "shift=0,sleep=off"]
SECTION_US = 50000
AGREE_US = 100


def test_recipe_and_wakeup_rt_report_the_same_wait(console):
    cmds = [
        "echo 'wakeup_latency u64 lat; pid_t pid; int prio' >> synthetic_events",
        "echo 'hist:keys=$saved_pid:saved_pid=pid:ts0=common_timestamp.usecs if comm==\"rtwake\"' >> "
        "events/sched/sched_waking/trigger",
        "echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking)"
        ".wakeup_latency($wakeup_lat,$saved_pid,next_prio) if next_comm==\"rtwake\"' >> "
        "events/sched/sched_switch/trigger",
        "echo 'hist:keys=pid,prio,lat:sort=pid,lat' >> events/synthetic/wakeup_latency/trigger",
    ]
    try:
        for cmd in cmds:
            assert console.run(cmd) == "", cmd
        assert console.run("echo wakeup_rt > current_tracer") == ""
        assert console.run("echo 0 > tracing_max_latency") == ""
        out = console.run("rtwake %d" % SECTION_US, timeout=120)
        m = re.match(r"^rtwake (\d+) woken behind preemption off for %d us, its CPU held (\d+) us$" % SECTION_US,
                     out)
        assert m, out
        pid, held = int(m.group(1)), int(m.group(2))
        latency = int(console.run("cat tracing_max_latency"))
        assert 0 < latency <= held
        hist = console.run("cat events/synthetic/wakeup_latency/hist")
        # One wake-up of the task (prio 99 - 50), so one entry with one hit.
        entries = re.findall(r"^\{ pid: +(\d+), prio: +(\d+), lat: +(\d+) \} hitcount: +(\d+)$", hist, re.M)
        assert [(int(p), int(pr), int(n)) for p, pr, _, n in entries] == [(pid, 49, 1)], hist
        lat = int(entries[0][2])
        assert SECTION_US // 2 < lat <= held, (lat, held)
        assert abs(lat - latency) <= AGREE_US, (lat, latency)
    finally:
        console.run("echo nop > current_tracer")
        console.run("echo > events/synthetic/wakeup_latency/trigger")
        console.run("echo > events/sched/sched_switch/trigger")
        console.run("echo > events/sched/sched_waking/trigger")
        console.run("echo '!wakeup_latency' >> synthetic_events")
