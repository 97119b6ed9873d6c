#!/usr/bin/python3
"""tools/bench.py: `make bench`. Boots the kernel with -icount shift=0 (one TSC tick per guest instruction),
runs the in-kernel `bench` command on each CPU count asked for, and writes docs/BENCHMARKS.md.

    tools/bench.py [--smp 1,2,4] [--out docs/BENCHMARKS.md] [--wall-only] [--programs-only]
    (--wall-only: only the wall-time sections, /dev/ttyS1 and reading the trace; --programs-only: only the
    system-call rows of a user program)
"""

import argparse
import datetime
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tests.console import Console  # noqa: E402  (the same console the tests drive)

ICOUNT = ["-icount", "shift=0,sleep=off"]
# The kernels `make bench` builds: without the lock validator (LOCKDEP=0), as a product kernel runs.
ISO = os.path.join(ROOT, "build-nolockdep", "ftrace-os.iso")
STATIC_ISO = os.path.join(ROOT, "build-static-nolockdep", "ftrace-os.iso")   # make LOCKDEP=0 STATIC_FTRACE=1


def run_bench(smp, iso=ISO):
    """(bench output, boot text) of one boot under icount."""
    con = Console(smp=smp, extra_args=ICOUNT, iso=iso, name="bench-smp%d" % smp)
    try:
        con.start()
        return con.run("bench", timeout=600), con.boot_text
    finally:
        con.close()


def row_ticks(out, label):
    """The ticks column of the row `label` in a bench table, or None."""
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0] == label:
            return int(cells[1])
    return None


def boot_us(boot_text):
    """Microseconds (under icount: thousands of guest instructions) from reset to the shell's line."""
    m = re.search(r"\[\s*(\d+)\.(\d{6})\] shell: type 'help'", boot_text)
    return int(m.group(1)) * 1000000 + int(m.group(2)) if m else None


# (what, dynamic row, static row): the same work on both builds, one per line of the comparison.
COMPARE = [
    ("traced function, nothing traced", "NOP site (ftrace on, nothing registered)",
     "static site, nothing traced (2 x cmp+jne, ret)"),
    ("traced function, 1 ops live on another function", "NOP site (ftrace on, nothing registered)",
     "static, 1 ops on another function (list, no match)"),
    ("1 ops on the function", "1 ops, ftrace_caller calling it directly",
     "static, 1 ops on the site (list function)"),
    ("2 ops on the function", "list function, 2 ops on the site", "static, 2 ops on the site (list function)"),
    ("function tracer, filter: bench_target", "function tracer, filter: bench_target",
     "function tracer, filter: bench_target"),
    ("function tracer, every function", "function tracer, every function", "function tracer, every function"),
    ("function_graph, filter: bench_target (entry + return)", "function_graph, entry + return",
     "function_graph, entry + return"),
]


def compare(dyn, dyn_boot, sta, sta_boot):
    """The side-by-side table of the dynamic and static builds at -smp 1."""
    base = row_ticks(dyn, "baseline: notrace twin, no call site")
    text = ("| per call of bench_target (-smp 1) | dynamic | static | dynamic +base | static +base |\n"
            "|---|---:|---:|---:|---:|\n")
    for what, d_row, s_row in COMPARE:
        d, s = row_ticks(dyn, d_row), row_ticks(sta, s_row)
        if d is None or s is None:
            continue
        text += "| %s | %d | %d | %d | %d |\n" % (what, d, s, d - base, s - base)
    d, s = boot_us(dyn_boot), boot_us(sta_boot)
    if d is not None and s is not None:
        text += ("\nBoot to the shell (printk timestamp of `shell: type 'help'`): dynamic %d us, static %d us, "
                 "%d us (guest instructions x 1000) more for the dynamic build's conversion.\n" % (d, s, d - s))
    return text


TTYS1_HEADER = "\n## /dev/ttyS1 throughput\n"


def run_ttyS1(runs=5):
    """Host wall time of `cat /proc/kallsyms > /dev/ttyS1` (plain TCG, no icount: the serial device's speed
    is QEMU's, not the guest's), minus that of a tiny file, over the frame's bytes; median of `runs`."""
    import statistics
    import time
    out = os.path.join(ROOT, "build", "bench-ttyS1.bin")
    con = Console(smp=1, iso=ISO, name="bench-ttyS1", ttyS1=out)
    rates, size = [], 0
    try:
        con.start()
        for _ in range(runs):
            t0 = time.monotonic()
            con.run("cat /proc/version > /dev/ttyS1")
            t1 = time.monotonic()
            before = os.path.getsize(out)
            con.run("cat /proc/kallsyms > /dev/ttyS1", timeout=600)
            t2 = time.monotonic()
            size = os.path.getsize(out) - before
            rates.append(size / 1024 / max((t2 - t1) - (t1 - t0), 1e-6))
    finally:
        con.close()
    return ("%s\nHow: `tools/bench.py` boots without icount, with `-serial file:build/bench-ttyS1.bin`, and times on the "
            "host `cat /proc/kallsyms > /dev/ttyS1` (one FTOSRAW1 frame of %d bytes) less a one-line file's round "
            "trip, %d runs. Wall time under TCG: it varies with the host and its load.\n\n"
            "| copy | KiB | KiB/s (median) | min | max |\n|---|---:|---:|---:|---:|\n"
            "| cat /proc/kallsyms > /dev/ttyS1 | %d | %d | %d | %d |\n"
            % (TTYS1_HEADER, size, runs, size // 1024, statistics.median(rates), min(rates), max(rates)))


READ_HEADER = "\n## Reading the trace\n"


def fill_buffer(con):
    """Every CPU's buffer full of function events: three spinning workers for a second, then tracing off."""
    import time
    for cmd in ["echo 0 > tracing_on", "echo nop > current_tracer", "echo > trace", "echo function > current_tracer",
                "echo 1 > tracing_on", "run spin 1-3 1"]:
        con.run(cmd)
    time.sleep(2.5)                       # the workers' second, and their exit
    con.run("echo 0 > tracing_on")


def read_rate(con, cmd):
    """(bytes, events, seconds) for one read of the whole buffer; trace_pipe, which waits for more once
    empty, is ended with Ctrl-C after a second of silence, and that second is not counted."""
    import time
    t0 = time.monotonic()
    if cmd == "cat trace":
        out = con.run(cmd, timeout=600)
        t1 = time.monotonic()
    else:
        con.send(cmd + "\r")
        con.wait_for(re.escape(cmd) + "\r\n")
        start, last, quiet = con._pos, -1, time.monotonic()
        while time.monotonic() - quiet < 1.0:
            con._sync()
            if len(con._text) != last:
                last, quiet = len(con._text), time.monotonic()
            time.sleep(0.02)
        t1 = quiet
        con.send(b"\x03")
        con._pos = start
        out = con.wait_for_prompt(timeout=600)
    events = sum(1 for l in out.splitlines() if l and not l.startswith(("#", "^C")))
    return len(out), events, t1 - t0


def run_trace_read(runs=3, smp=4):
    """Host wall time to read a full default buffer on `smp` CPUs, as `cat trace` and `cat trace_pipe` (plain TCG)."""
    import statistics
    con = Console(smp=smp, iso=ISO, name="bench-read")
    rows = []
    try:
        con.start()
        kb = int(con.run("cat buffer_size_kb"))
        for cmd in ("cat trace", "cat trace_pipe"):
            got = []
            for _ in range(runs):
                fill_buffer(con)
                got.append(read_rate(con, cmd))
            secs = statistics.median(g[2] for g in got)
            rows.append("| %s | %d | %d | %.2f | %d | %d |" % (
                cmd, statistics.median(g[0] for g in got) // 1024, statistics.median(g[1] for g in got), secs,
                statistics.median(g[0] / 1024 / g[2] for g in got), statistics.median(g[1] / g[2] for g in got)))
    finally:
        con.close()
    return ("%s\nHow: `tools/bench.py` boots -smp %d without icount, fills every CPU's buffer (%d KiB each, the "
            "default) with the function tracer while `run spin 1-3 1` runs, turns tracing off, and times on the host "
            "one read of it all through the serial console: `cat trace` to its prompt, `cat trace_pipe` to its last "
            "byte (it then waits for more, and is stopped with Ctrl-C). Median of %d runs, each on a refilled "
            "buffer. Wall time under TCG: it varies with the host and its load.\n\n"
            "| read | KiB | events | seconds | KiB/s | events/s |\n|---|---:|---:|---:|---:|---:|\n%s\n"
            % (READ_HEADER, smp, kb, runs, "\n".join(rows)))


PROGRAMS_HEADER = "\n## Programs: a system call's round trip\n"
SYSCALL_LOOPS, SYSCALL_RUNS = 1000, 7
SYSCALL_CONFIGS = [
    ("getppid loop, nothing traced", []),
    ("raw_syscalls:sys_enter + sys_exit enabled", ["echo 1 > events/raw_syscalls/enable"]),
    ("syscalls:sys_enter_getppid enabled", ["echo 1 > events/syscalls/sys_enter_getppid/enable"]),
    # hist triggers on the same event, the event itself off (docs/22); Linux's figures in PROGRAMS_LINUX
    ("hist:keys=common_pid on sys_enter_getppid", [
        "echo 'hist:keys=common_pid' > events/syscalls/sys_enter_getppid/trigger"]),
    ("hist:keys=common_pid,__syscall_nr:vals=__syscall_nr", [
        "echo 'hist:keys=common_pid,__syscall_nr:vals=__syscall_nr' > events/syscalls/sys_enter_getppid/trigger"]),
    ("hist ts0= var + onmatch() synthetic event (recorded)", [
        "echo > events/syscalls/sys_enter_getppid/trigger",
        "echo 'bench_lat u64 lat' >> synthetic_events",
        "echo 'hist:keys=common_pid:ts0=common_timestamp.usecs' >> events/syscalls/sys_enter_getppid/trigger",
        "echo 'hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:onmatch(syscalls.sys_enter_getppid)"
        ".bench_lat($lat)' >> events/syscalls/sys_enter_getppid/trigger",
        "echo 1 > events/synthetic/bench_lat/enable"]),
]


def boot_wall(runs=3):
    """Host wall time from QEMU's start to the kernel shell's prompt, plain TCG (no icount), -smp 2; median."""
    import statistics
    import time
    times = []
    for i in range(runs):
        con = Console(smp=2, extra_args=["-cpu", "max"], iso=ISO, name="bench-boot%d" % i, cdrom=True)   # make run's
        try:
            t0 = time.monotonic()
            con.start()
            times.append(time.monotonic() - t0)
        finally:
            con.close()
    return statistics.median(times)


def uprobe_rows(con):
    """/tests/tracee's loop through loop_function(), untraced and with one uprobe event on the function."""
    import statistics
    from tests.elf import elf_symbol_offset
    off, _ = elf_symbol_offset(os.path.join(os.path.dirname(ISO), "user", "tracee"), "loop_function")
    rows, base = [], None
    for what, setup in [("getppid through loop_function(), nothing traced", []),
                        ("one uprobe on loop_function()", ["echo 'p:bench /tests/tracee:%#x' > uprobe_events" % off,
                                                         "echo 1 > events/uprobes/bench/enable"])]:
        for cmd in setup:
            con.run(cmd)
        out = con.run("/tests/tracee loop %d %d" % (SYSCALL_LOOPS, SYSCALL_RUNS), timeout=300)
        ticks = statistics.median(float(x) for x in re.findall(r"tsc_per_call=([\d.]+)", out))
        base = ticks if base is None else base
        rows.append("| %s | %d | %+d |" % (what, round(ticks), round(ticks - base)))
    con.run("echo 0 > events/uprobes/bench/enable")
    con.run("echo > uprobe_events")
    return rows


PERF_STAT = "/tests/perfstat -e syscalls:sys_enter_getppid /tests/getppid_loop %d %d" % (SYSCALL_LOOPS, SYSCALL_RUNS)
BPF_LOOP = "/tests/bpfload /tests/getppidcount.bpf.o loop %d" % SYSCALL_LOOPS
JIT = "/proc/sys/net/core/bpf_jit_enable"
PERF_CONFIGS = [
    ("syscalls:sys_enter_getppid counted by perf (perfstat)", [], PERF_STAT),
    ("the same counted by perf and enabled in events/", ["echo 1 > events/syscalls/sys_enter_getppid/enable"],
     PERF_STAT),
    ("a BPF program counting it (libbpf, interpreted)", ["echo 0 > " + JIT], BPF_LOOP),
    ("a BPF program counting it (libbpf, JITed)", ["echo 1 > " + JIT], BPF_LOOP),
    ("an empty fentry program on __x64_sys_getppid (libbpf, JITed; BPF trampoline)", ["echo 1 > " + JIT],
     "/tests/bpfload /tests/getppidfentry.bpf.o loop %d" % SYSCALL_LOOPS),
]


def perf_rows(con, base):
    """The getppid loop with sys_enter_getppid counted by a perf event on the task (tests/user/perfstat.c), alone
    and with the ftrace event on too (one probe, both consumers), and with a BPF program attached through a perf
    event by libbpf (tests/bpf/bpfload.c, getppidcount.bpf.o), interpreted and JITed; +base above the untraced
    loop."""
    import statistics
    rows = []
    jit = con.run("cat " + JIT).strip()
    for what, setup, cmd in PERF_CONFIGS:
        for c in ["echo 0 > events/enable", "echo > trace"] + setup:
            con.run(c)
        out = con.run(cmd, timeout=300)
        ticks = statistics.median(float(x) for x in re.findall(r"tsc_per_call=([\d.]+)", out))
        rows.append("| %s | %d | %+d |" % (what, round(ticks), round(ticks - base)))
    con.run("echo 0 > events/enable")
    con.run("echo %s > %s" % (jit, JIT))
    return rows


def run_programs():
    """Guest instructions per getppid() of /tests/getppid_loop (-icount, -smp 1), untraced and with the
    syscall events on; and the boot's host wall time."""
    import statistics
    con = Console(smp=1, extra_args=ICOUNT + ["-cpu", "max"], iso=ISO, name="bench-programs")
    rows, base = [], None
    try:
        con.start()
        for what, setup in SYSCALL_CONFIGS:
            for cmd in ["echo 0 > events/enable", "echo > trace"] + setup:
                con.run(cmd)
            out = con.run("/tests/getppid_loop %d %d" % (SYSCALL_LOOPS, SYSCALL_RUNS), timeout=300)
            per = [float(x) for x in re.findall(r"tsc_per_call=([\d.]+)", out)]
            ticks = statistics.median(per)
            base = ticks if base is None else base
            rows.append("| %s | %d | %+d |" % (what, round(ticks), round(ticks - base)))
        con.run("echo 0 > events/enable")
        con.run("echo > events/syscalls/sys_enter_getppid/trigger")
        rows += perf_rows(con, base)
        rows += uprobe_rows(con)
    finally:
        con.close()
    boot = boot_wall()
    return ("%s\nHow: `tools/bench.py` boots `-smp 1 -cpu max` under icount and runs `/tests/getppid_loop %d %d` "
            "(tests/user/getppid_loop.c: `getppid` by a raw `syscall` in a loop between two `rdtsc`, %d runs); "
            "**ticks** is the median of the runs' guest instructions per iteration (loop included), **+base** "
            "what the events add. The uprobe rows run `/tests/tracee loop` (tests/user/tracee.c), whose loop "
            "calls `loop_function()`, one `getppid` each; their +base is above that loop untraced, and the uprobe "
            "on the function's first instruction (`xor %%edx,%%edx` from Debian's gcc 12, one the kernel does not "
            "emulate) costs an int3, the event, and a single step in the XOL slot. As for kprobes, icount counts the instructions the handlers run, "
            "not what delivering two exceptions costs on hardware. The perf rows run the same getppid loop under "
            "`/tests/perfstat -e syscalls:sys_enter_getppid` (tests/user/perfstat.c: a perf event counting the "
            "tracepoint on the loop's task), the BPF rows the same loop inside `/tests/bpfload "
            "/tests/getppidcount.bpf.o loop 1000` (Debian's libbpf attaching tests/bpf/getppidcount.bpf.c, an array "
            "map's slot incremented per call, through a perf event; docs/24-perf-events.md); Linux 6.1 runs the same "
            "binaries at 745 per call counted by perfstat, 1434 with the ftrace event on too, and 740 with the BPF "
            "program (its JIT is always on), above its own untraced 332 (median of 7 runs, linux-peer `-i`)."
            " An empty fentry program there costs 462 per call, +124 above its untraced 338: Linux's BTF has no `__x64_sys_getppid`, so that program (a copy of tests/bpf/getppidfentry.bpf.c built for the run, not kept) attaches to `__task_pid_nr_ns()`, which getppid calls once (linux-peer `-i`). Linux 6.1 in the same QEMU (linux-peer, its "
            "`getppid-loop`): 338 per iteration, +1237 with both raw_syscalls events, +714 with "
            "`syscalls:sys_enter_getppid`; the same `/tests/tracee loop` binary there costs 334 per call "
            "untraced and +2269 with the same uprobe (median of 7 runs, linux-peer `-i`). The goal for the "
            "round trip is at most 100. The hist rows put the same triggers on `sys_enter_getppid` in both "
            "kernels (the event itself off): Linux 6.1 pays +921 for `hist:keys=common_pid`, +1126 for the "
            "compound key with a sum, +3290 for the ts0 variable plus `onmatch()` firing a recorded synthetic "
            "event (linux-peer `-i`, the modal run without a timer tick, 15 runs each); the goal for ours is "
            "under half of those.\n\n"
            "| per getppid() call | ticks | +base |\n|---|---:|---:|\n%s\n\n"
            "Boot to the kernel shell's prompt, initramfs unpacked (host wall time from QEMU's start, plain TCG, "
            "-smp 2, median of 3; it varies with the host and its load): %.2f s. The busybox prompt "
            "(INIT=/bin/sh) is not built on this branch yet.\n"
            % (PROGRAMS_HEADER, SYSCALL_LOOPS, SYSCALL_RUNS, SYSCALL_RUNS, "\n".join(rows), boot))


def qemu_version():
    out = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True, text=True).stdout
    return out.splitlines()[0] if out else "unknown"


HEADER = """# Benchmarks

Written by `make bench` ({date}); do not edit by hand: run it again. What grows with the number of call
sites (10,000 and 40,000, `make SCALE=N`) is in docs/BENCHMARKS-scale.md, written by `make bench-scale`.

How: `tools/bench.py` boots `build-nolockdep/ftrace-os.iso` (the kernel without its lock validator, as a
product kernel runs: `make LOCKDEP=0`) in {qemu} under TCG with `-icount shift=0,sleep=off`, so the
guest TSC advances exactly one tick per guest instruction, and types `bench` at the shell. Each row is the
median of {runs} runs of a {loops}-call loop with interrupts off; **ticks** are guest instructions per call
(loop and indirect call included), **+base** is the cost above the untraced baseline measured in the same run,
**ns** converts ticks with the kernel's own TSC calibration (under icount, 1 tick = 1 ns of virtual time, so it
repeats the instruction count; it says nothing about real hardware). Benchmarks are read, never asserted:
tests check behaviour only.

The ftrace-core rows put one or two ops on `bench_target`. "its own trampoline" is the ops's private copy
of `ftrace_caller` (docs/10); "ftrace_caller calling it directly" is the same ops registered with our
`FTRACE_OPS_FL_NO_TRAMP`, the static caller with its `call` patched to the callback: the two run the same
instructions, so they cost the same. "list function, 1 ops on the site" is what a site used by one ops
pays without a trampoline of its own once a second ops is live elsewhere (on `vfs_read`): `ftrace_call`
then calls `ftrace_ops_list_func`, which walks every ops. That is the cost a per-ops trampoline removes;
the line under the table says by how much. The direct call is `direct_count_tramp` (three instructions,
arch/x86/lab/direct_count.asm) called straight from the site.

The live-patching rows time `register_ftrace_function()` / `unregister_ftrace_function()` of an ops on
every function, that is the whole update (three batches) with the method named. With one CPU online
both methods write directly, since no other CPU can be running the code: their rows are the same.
The int3 rows time calls of a function while the protocol is held at step 1 on the same CPU.

The static-branch rows time `bench_static_branch()`, the notrace baseline with one
`static_branch_unlikely()` in it (kernel/bench/bench_jump_label.c, docs/12): with the key off the site is a
5-byte NOP, one instruction; on, a `jmp` to the block and one back. "static key flip" times
`static_branch_enable()` / `static_branch_disable()` of that key (one site) with each patch method:
a whole flip, through the same patcher ftrace uses.

The tracepoint rows time `bench_target_tp()`, the notrace baseline with one `trace_bench_event(x)` in it
(kernel/bench/bench_events.c, docs/13): with the event off the tracepoint is its static branch's NOP;
"event recorded" writes a 12-byte record straight into the ring buffer; "via the scratch copy" is the
path a filter, a trigger or `set_event_pid` needs: the record is built aside, then copied in. The goal
for "event off" is +1, the NOP, and the static-branch row shows the site alone costs exactly that; the
tracepoint row pays more because its branch holds a call: gcc keeps `x` alive across it in a
callee-saved register, so the function saves and restores one (`dis bench_target_tp`). That cost
belongs to the function, not to the site, and a function that already uses callee-saved registers
(most real ones, `__schedule()` among them) pays only the NOP.

The hist rows time the same `bench_target_tp()` with hist triggers on its event and the event itself
off, so only the triggers run, on the scratch copy (kernel/bench/bench_hist.c, docs/22): `keys=common_pid`
finds one entry of a tracing_map and adds to its hitcount; `keys=common_pid,x:vals=x` builds a 16-byte
compound key over up to 1000 entries and adds a sum; the third row has two triggers, one saving
`common_timestamp.usecs` in a variable, the other reading the previous event's value and firing a synthetic
event (recorded) through an `onmatch` action, which is what the wakeup-latency recipe costs per event. The line
after the tables times one read of a hist file of 2048 entries (`keys=x`, each hit once): the sort and the
formatting into a buffer, in guest instructions; what `cat hist` adds on top is the serial console's.

The kprobe rows put one probe with an empty handler on `bench_target`, the function of the
function-tracer rows (kernel/bench/bench_kprobes.c, docs/15): on its fentry site (ftrace calls the handler
through a regs trampoline), on its `push %rbp` (int3, emulated in the handler) and on its
`mov %rsp,%rbp` (int3, copied to a slot and single-stepped: a second exception, #DB). The kretprobe
row adds the return trampoline to a probe on ftrace. Read the int3 rows with care: icount counts the
instructions the handlers execute, not what the CPU spends delivering an exception and returning
from it with `iretq`, which on real hardware costs far more than an instruction; so here an int3 hit
looks as cheap as a call through ftrace, and the stepped probe only a little dearer than the
emulated one, though it takes two exceptions to the emulated one's one. The optimized row is the
`push %rbp` probe again once the optimizer has made its site a `jmp` to a detour buffer (docs/15, section
12): no exception at all. The buffer pushes a whole `pt_regs` and turns interrupts off (23
instructions), does the hit itself (the nesting check and the mark on this CPU's `kprobe_ctlblk`
through `%gs`, the site's one armed probe called through its `only` pointer: 8 with the mark taken
off), pops every register back, falls into the copied `push %rbp; mov %rsp,%rbp; lea 0x1(%rdi),%eax`
and jumps back: 53 of the row's instructions are the buffer's and the two jumps, 6 the empty
handler's, and one `bench_target`'s fentry NOP, which the untraced twin lacks: 60, issue 27's goal
for that row (at most +60; docs/15, section 12, says where each instruction goes).

The latency-hook rows time a `local_irq_disable()`/`local_irq_enable()` pair and a
`preempt_disable()`/`preempt_enable_no_resched()` pair in a notrace function (kernel/bench/bench_latency.c,
docs/21); **+raw** is the cost above the same function with the bare instructions (`cli`/`sti`, the count's
`++`/`--`) and no hook sites. With no latency tracer each hook is a 5-byte NOP (its static branch) whose
taken side calls a register-preserving thunk, so the pair costs its two NOPs; the tracer rows are the same
pair with irqsoff or preemptoff running (each pair is then a section, opened and closed). The swap rows
time `ring_buffer_swap()`, the heart of `update_max_tr()`, between two buffers of the size shown: it trades
each CPU's descriptor and never touches a page, so the count must not grow with the size. Debian's Linux
6.1 has neither the irqsoff tracer nor the preemptirq hooks (no `CONFIG_IRQSOFF_TRACER`,
`CONFIG_PREEMPT_TRACER`, `CONFIG_PREEMPTIRQ_EVENTS`: its `available_tracers` lists
`blk mmiotrace function_graph function nop`), so there is no Linux figure to put beside these.

For scale, measured the same way on Linux 6.1: its function tracer costs 542 guest instructions per
event and function_graph 1328 per traced call. This project's goals are at most 45 and at most 120 above
the baseline; the "+base" column says where we are (docs/07 and docs/08 say where the cost goes).
"every function" differs from "filter: bench_target" only in how many sites are live: one call
takes the same path, so the two rows match. "a second trace array" is the function tracer's
callback and trampoline on an ops of its own whose `private` names another `struct trace_array`
(the trampoline finds its buffer through its ops, as instances will): the same path again.

Reproduce: `make bench`, or boot with `make run QEMU="qemu-system-x86_64 -icount shift=0,sleep=off"` and
type `bench`.
"""


STATIC_HEADER = """
## Static ftrace build (make STATIC_FTRACE=1), -smp 1

`build-static-nolockdep/ftrace-os.iso`, booted the same way: no site is ever patched, every call of a traced
function enters `__fentry__`, which returns unless `ftrace_trace_function` or the graph hook
`ftrace_graph_entry` is set, and then goes through `ftrace_static_caller` to `ftrace_ops_list_func`,
which tests each ops's filter on every call, or through `ftrace_graph_caller` to
`prepare_ftrace_return()`, which tests function_graph's (docs/02, "Static ftrace: what the patching
saves"). Patching, trampolines, SAVE_REGS ops, direct calls and kprobes do not apply there and are
not measured. The comparison below puts the dynamic build's -smp 1 rows beside the static ones.
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--smp", default="1,2,4")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "BENCHMARKS.md"))
    ap.add_argument("--programs-only", action="store_true",
                    help="measure only the system-call rows, and replace only that section")
    ap.add_argument("--wall-only", action="store_true",
                    help="measure /dev/ttyS1 and reading the trace, and replace only those sections")
    args = ap.parse_args()
    if args.programs_only:
        with open(args.out) as f:
            text = f.read().split(PROGRAMS_HEADER)[0].rstrip("\n") + "\n"
        text += run_programs()
        print(text[text.index(PROGRAMS_HEADER):])
        with open(args.out, "w") as f:
            f.write(text)
        return
    if args.wall_only:
        with open(args.out) as f:
            old = f.read()
        text = old.split(TTYS1_HEADER)[0].rstrip("\n") + "\n"
        text += run_ttyS1() + run_trace_read()
        if PROGRAMS_HEADER in old:
            text += PROGRAMS_HEADER + old.split(PROGRAMS_HEADER)[1]
        print(text[text.index(TTYS1_HEADER):])
        with open(args.out, "w") as f:
            f.write(text)
        return
    text = HEADER.format(date=datetime.date.today().isoformat(), qemu=qemu_version(), runs=7, loops=1000)
    first = None
    for smp in [int(s) for s in args.smp.split(",")]:
        out, boot = run_bench(smp)
        first = first or (out, boot)
        print(out)
        text += "\n## -smp %d\n\n%s\n" % (smp, out.strip())
    if os.path.exists(STATIC_ISO):
        out, boot = run_bench(1, STATIC_ISO)
        print(out)
        text += STATIC_HEADER + "\n" + out.strip() + "\n\n" + compare(first[0], first[1], out, boot)
    text += run_ttyS1() + run_trace_read() + run_programs()
    with open(args.out, "w") as f:
        f.write(text)
    print("wrote " + os.path.relpath(args.out, ROOT))


if __name__ == "__main__":
    main()
