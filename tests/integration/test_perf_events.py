"""tests/integration/test_perf_events.py: perf_event_open(2) beside ftrace's buffer (docs/24-perf-events.md).

tests/user/perftest.c checks the ABI from ring 3: attr sizes VER0..VER7 and E2BIG with our size written back, bad
attrs refused with Linux's errno, a tracepoint counted with ENABLE/DISABLE/RESET/ID and read_format, a group,
sched_switch samples in the mmap'ed ring, SET_FILTER, and perf_event_paranoid's refusals as uid 1000. Here also:
an event enabled in both ftrace and perf writes to both, the paranoid sysctl refuses bad input, and the two
programs of the chapter (perfstat, perfrecord) count and sample.
"""

import re

from tests.console import LOG_LINE

SMP = 2
QEMU_ARGS = ["-cpu", "max"]


def program_lines(text):
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


def test_perf_abi_program(console):
    out = program_lines(console.run("/tests/perftest", timeout=180))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 50, out
    # the uid 1000 child's own checks ran and passed
    assert "ok 2 uid 1000: own task, user only: opens" in out


def test_paranoid_sysctl(console):
    """Linux's default, 2; any int is stored, anything else refused and nothing changed."""
    assert console.run("cat /proc/sys/kernel/perf_event_paranoid") == "2"
    out = console.run("echo abc > /proc/sys/kernel/perf_event_paranoid")
    assert "Invalid argument" in out
    assert console.run("cat /proc/sys/kernel/perf_event_paranoid") == "2"
    console.run("echo -1 > /proc/sys/kernel/perf_event_paranoid")
    assert console.run("cat /proc/sys/kernel/perf_event_paranoid") == "-1"
    console.run("echo 2 > /proc/sys/kernel/perf_event_paranoid")
    assert console.run("cat /proc/sys/kernel/perf_event_paranoid") == "2"


def test_tracepoint_in_both_ftrace_and_perf(console):
    """sys_enter_getppid enabled in events/ and counted by perfstat in the same run: the one probe writes to both."""
    console.run("echo 0 > trace")
    console.run("echo 1 > events/syscalls/sys_enter_getppid/enable")
    out = program_lines(console.run("/tests/perfstat -e syscalls:sys_enter_getppid /tests/getppid_loop 40 3",
                                    timeout=120))
    console.run("echo 0 > events/syscalls/sys_enter_getppid/enable")
    counted = [line for line in out if line.endswith("syscalls:sys_enter_getppid")]
    assert counted, out
    perf_count = int(counted[0].split()[0])
    ftrace_count = len([line for line in console.run("cat trace").split("\n") if "sys_getppid()" in line])
    assert perf_count == 120 and ftrace_count == 120, (perf_count, ftrace_count)
    # perf alone: the probe stays attached for perf while events/ reads 0
    assert console.run("cat events/syscalls/sys_enter_getppid/enable") == "0"


def test_perfstat_software_counters(console):
    out = program_lines(console.run("/tests/perfstat /bin/busybox true", timeout=120))
    assert " Performance counter stats for '/bin/busybox true':" in out
    names = {line.split()[-1]: line.split()[0] for line in out if re.match(r"^\s+[\d.]+ ", line)}
    assert set(names) >= {"task-clock", "context-switches", "cpu-migrations", "page-faults"}, out
    assert float(names["task-clock"]) > 0
    assert int(names["cpu-migrations"]) == 0      # a task never leaves its CPU here
    assert int(names["page-faults"]) > 0          # glibc's heap and data pages are made on first touch


def test_perfrecord_samples_with_callchains(console):
    out = program_lines(console.run("/tests/perfrecord /tests/perfrecord -t 100", timeout=300))
    samples = [line.split() for line in out if line.startswith("sample ")]
    m = re.match(r"^# perfrecord: (\d+) samples, (\d+) lost$", out[-1])
    assert m and int(m.group(1)) == len(samples) >= 5 and m.group(2) == "0", out[-3:]
    assert len({s[1] for s in samples}) == 1                  # one task: the workload
    assert all(s[5] == "10000000" for s in samples)           # -F 100: a period of 10 ms
    assert all("u" in s or "k" in s for s in samples)        # every sample has a call chain
    users = [s[s.index("u") + 1].split(",") for s in samples if "u" in s]
    # all but a sample or two taken while the task had no user space any more (its exit)
    assert len(users) >= len(samples) - 2, len(samples) - len(users)
    assert all(0x400000 <= int(u[0], 16) < 0x500000 for u in users)
    kernels = [s[s.index("k") + 1].split(",") for s in samples if "k" in s]
    assert all(int(k[0], 16) >= 0xffffffff80000000 for k in kernels)


def test_bpf_programs_on_perf_events(console):
    """tests/user/perfbpf.c: SET_BPF of a tracepoint and a kprobe program, their errors, BPF_LINK_CREATE, a
    program's 0 dropping the hit, and bpf_perf_event_output() into a bpf-output event's ring."""
    out = program_lines(console.run("/tests/perfbpf", timeout=180))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 20, out
    assert console.run("cat kprobe_events") == ""


def test_kprobe_and_uprobe_pmus(console):
    """tests/user/perfprobe.c: the kprobe and uprobe PMUs as libbpf opens them (types and the retprobe bit from
    /sys/bus/event_source/devices/), probes counted and listed nowhere, a uprobe program reading ip and sp at
    Linux's pt_regs offsets, and Linux's errors (ENOENT, E2BIG, EFAULT, EINVAL, EACCES for uid 1000, and
    Linux 6.1.y's EADDRNOTAVAIL for a name two static functions share)."""
    names = {}
    for line in console.run("cat /proc/kallsyms", timeout=60).splitlines():
        addr, kind, sym = line.split()[:3]
        if kind == "t":
            names[sym] = names.get(sym, 0) + 1
    dup = sorted(n for n, c in names.items() if c > 1)[0]     # two static functions of one name
    out = program_lines(console.run("/tests/perfprobe " + dup, timeout=180))
    failures = [line for line in out if line.startswith("not ok")]
    assert not failures, "\n".join(out)
    assert any("a name two functions share: EADDRNOTAVAIL" in line for line in out), out
    m = re.match(r"^PASS (\d+)/(\d+)$", out[-1])
    assert m and m.group(1) == m.group(2) and int(m.group(2)) >= 26, out
    assert console.run("cat kprobe_events") == "" and console.run("cat uprobe_events") == ""
    # the probes went with their perf events: no kprobe is left registered
    assert "__x64_sys_getppid" not in console.run("cat /sys/kernel/debug/kprobes/list")
