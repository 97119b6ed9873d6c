"""tests/integration/test_affinity.py: tasks move between CPUs within their affinity (kernel/sched/migrate.c).

On 4 CPUs: busybox's nproc reads sched_getaffinity; taskset sets a process's mask and the process (and each child
it forks after) runs only there, as /proc/PID/stat's processor field shows; a busy loop running on a CPU its new
mask forbids is moved off it before sched_setaffinity returns (the kernel shell's ps shows where), and
sched_migrate_task says so in Linux's format; forked busy loops spread over idle CPUs; kernel threads and bad masks are refused with Linux's errno. Every check
is about where tasks are, never about how fast anything ran.
"""

import re

SMP = 4
T = "/sys/kernel/tracing"


def sh(console, script, timeout=120):
    return console.run("/bin/sh -c '%s'" % script, timeout=timeout)


def test_nproc_and_getaffinity(console):
    assert sh(console, "busybox nproc") == "4"
    assert re.fullmatch(r"pid \d+'s current affinity mask: f", sh(console, "busybox taskset -p $$"))
    # The kernel shell is a kernel thread, bound to CPU 0.
    assert sh(console, "busybox taskset -p 1") == "pid 1's current affinity mask: 1"


def test_taskset_places_the_process_and_its_children(console):
    out = sh(console, "for m in 1 2 4 8; do busybox taskset -p $m $$ >/dev/null; "
                      "echo $m $(cut -d\" \" -f39 /proc/self/stat); done")
    assert out.split("\n") == ["1 0", "2 1", "4 2", "8 3"], out
    # taskset MASK CMD: the command alone runs there.
    assert sh(console, "busybox taskset 4 cut -d\" \" -f39 /proc/self/stat") == "2"
    assert sh(console, "busybox taskset 6 busybox nproc") == "2"


def cpu_of(console, pid):
    """The CPU the kernel shell's ps shows pid on, and its state letter."""
    m = re.search(r"^ *%s +(\d+) ([RS]) " % pid, console.run("ps"), re.M)
    assert m, (pid, console.run("ps"))
    return int(m.group(1)), m.group(2)


def loops(console, n, mask="f"):
    """n busy loops (busybox's ash), left running after their parent exits: their pids, once each has
    exec'd ash after taskset set its mask (`echo $!` comes before the child has even run)."""
    pids = sh(console, "for i in %s; do busybox taskset %s ash -c \"while :; do :; done\" & echo $!; done"
              % (" ".join(str(i) for i in range(n)), mask)).split()
    assert len(pids) == n and all(p.isdigit() for p in pids), pids
    for p in pids:
        console.poll("ps", lambda out: re.search(r"^ *%s +\d+ R +\d+ ash$" % p, out, re.M), timeout=60)
    return pids


def test_running_loop_is_moved_off_a_forbidden_cpu(console):
    console.run("echo > %s/trace" % T)
    [pid] = loops(console, 1, mask="1")
    try:
        assert cpu_of(console, pid) == (0, "R")
        assert console.run("echo 1 > %s/events/sched/sched_migrate_task/enable" % T) == ""
        assert sh(console, "busybox taskset -p 8 %s" % pid).endswith("new affinity mask: 8")
        assert cpu_of(console, pid) == (3, "R")
        assert console.run("echo 0 > %s/events/sched/sched_migrate_task/enable" % T) == ""
        trace = console.run("cat %s/trace" % T)
        moves = re.findall(r"sched_migrate_task: comm=ash pid=%s prio=120 orig_cpu=(\d) dest_cpu=(\d)$" % pid,
                           trace, re.M)
        assert moves == [("0", "3")], trace[-1500:]
    finally:
        console.run("echo 0 > %s/events/sched/sched_migrate_task/enable" % T)
        sh(console, "kill %s" % pid)


def test_forked_loops_spread_and_stay_within_their_masks(console):
    # Three loops forked with every CPU allowed: a fork prefers an idle CPU to its parent's. (Not
    # all three apart: a loop that slept on its way, on a lock, may wake beside another, and
    # nothing here balances load afterwards.)
    pids = loops(console, 3)
    try:
        assert len({cpu_of(console, p)[0] for p in pids}) >= 2, console.run("ps")
        # Under that load, masks changed over and over: each loop is on an allowed CPU after every call.
        for mask in (1, 2, 4, 8, 3, 0xc, 5, 0xa, 6, 9, 0xf, 7, 0xe):
            for p in pids:
                assert sh(console, "busybox taskset -p %x %s" % (mask, p)).endswith(
                    "new affinity mask: %x" % mask)
                cpu, state = cpu_of(console, p)
                assert mask & (1 << cpu) and state == "R", (mask, p, cpu)
    finally:
        sh(console, "kill %s" % " ".join(pids))
    assert re.search(r"\bsh$", console.run("ps"), re.M)


def test_bad_affinity_changes_nothing(console):
    out = sh(console, "busybox taskset -p 10 $$; busybox taskset -p 0 $$; busybox taskset -p 1 1; "
                      "busybox taskset -p $$")
    lines = out.split("\n")
    assert "taskset: can't set pid" in lines[1] and lines[1].endswith("Invalid argument"), out
    assert lines[-1].endswith("current affinity mask: f"), out
    assert sum("Invalid argument" in l for l in lines) == 3, out
