#!/usr/bin/python3
"""tools/soak.py: `make soak`. Boots the test ISO on -smp 4 with every workload running, then changes
tracing at random for a while and checks the machine after every step; writes docs/SOAK.md.

    tools/soak.py [--minutes M | --steps N] [--seed S] [--smp 4] [--cycles 1000] [--switches 200]
                  [--out docs/SOAK.md | --no-write]

Phases: warm-up (every kind of step once) and the memory baseline; random steps; the memory
sequence (tracer switches, then the profiler and the stack tracer on and off); every ftrace site
switched on and off --cycles times with each patch method (the kernel's `sitecycle`); a last
check that everything off gives back the baseline. Any check that fails, a fault on the console or
a command that does not come back ends the run with status 1, the seed and the step that did it,
and the serial log in build/soak.log (with every CPU's registers, for a hang).
"""

import argparse
import bisect
import datetime
import json
import os
import random
import re
import socket
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from tests.console import LOG_LINE, Console, ConsoleError, ConsoleTimeout  # noqa: E402

LOG = os.path.join(ROOT, "build", "soak.log")
QMP = "/tmp/ftrace-os-soak-%d.sock" % os.getpid()

# Every workload `run` knows, on the CPUs the shell (CPU 0) does not need: spin on all of them.
WORKLOADS = ["spin", "compute", "hash", "fs", "greet", "jump"]
TRACERS = ["nop", "function", "function_graph"]
GLOBS = ["vfs_*", "compute_*", "hash_*", "kmalloc kfree", "*lock*", "schedule", "stress_target"]
BUFFER_KB = [8, 16, 32, 64, 128]
BASE_BUFFER_KB = 64
LIVEPATCH = ["demo_greeting", "'!demo_greeting'", "demo_greeting_shout", "'!demo_greeting_shout'", ""]
DIRECT = ["stress_target", "vfs_read", "demo_greeting", "compute_fib", ""]
TRIGGER_EVENTS = ["sched/sched_switch", "sched/sched_wakeup", "timer/hrtimer_expire_entry",
                  "kmem/kmalloc", "irq_vectors/local_timer_entry"]
# Kernel log lines that mean something went wrong (beside the console's own bad patterns).
FAULT_RX = re.compile(r"ftrace bug|jump label bug|WARNING|Oops|BUG|exception|panic|failed|mismatch",
                      re.I)
# /proc/meminfo's lines that together hold every frame in use (kernel/mm/mm.h: enum page_user).
PAGE_USERS = ["Slab", "KernelStack", "PageTables", "Execmem", "TraceBuffers", "FtraceRecords", "Shmem", "Reserved",
              "OtherPages"]
ERROR_RX = re.compile(r"(Invalid argument|busy|No such|exists|not permitted|error|denied|usage)", re.I)


class SoakFailure(Exception):
    """A check failed: the message says which, and the run ends."""


class Soak:
    def __init__(self, con, rng, seed, quick=False):
        self.con, self.rng, self.seed = con, rng, seed
        self.quick = quick          # the smoke test: per-CPU stats after every step, not when measuring
        self.step = 0               # random steps done (0 during warm-up)
        self.phase = "boot"
        self.commands = 0
        self.kinds = {}             # step kind -> times done
        self.refused = {}           # step kind -> times the kernel answered with an error
        self.seconds = {}           # step kind -> wall seconds its commands took
        self.checks = 0
        self.workloads, self.nr_workers = [], 0
        self.last_iterations = {}
        self.serial_checked = 0     # offset in the console text up to which kernel lines were scanned
        self.functions = []
        self.events = []
        self.cycles = {}            # method -> (cycles, ms, sites)
        self.memory = {}            # label -> (kmalloc bytes, MemFree kB, Slab kB)
        self.pages = {}             # label -> {meminfo owner line: kB}

    # -- talking to the shell -------------------------------------------------------------------------

    def sh(self, cmd, timeout=60):
        """Run one shell command; a timeout dumps every CPU's registers and ends the run."""
        self.commands += 1
        try:
            return self.con.run(cmd, timeout=timeout)
        except ConsoleTimeout as e:
            raise SoakFailure("%s: `%s` did not come back in %ds\n%s\n%s"
                              % (self.where(), cmd, timeout, dump_cpus(), e)) from None

    def begin(self, phase):
        self.phase = phase
        print("soak: %s: %s, step %d, %d commands" % (time.strftime("%H:%M:%S"), phase, self.step, self.commands),
              flush=True)

    def where(self):
        return "seed %d, %s, step %d" % (self.seed, self.phase, self.step)

    def do(self, kind, cmd, timeout=60):
        """One step of kind `kind`; an error answer is counted (the kernel may refuse), not fatal."""
        t0 = time.monotonic()
        out = self.sh(cmd, timeout)
        self.seconds[kind] = self.seconds.get(kind, 0) + time.monotonic() - t0
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        if ERROR_RX.search(out):
            self.refused[kind] = self.refused.get(kind, 0) + 1
        return out

    def read_pipe(self, path, seconds):
        """`cat PATH` on a pipe file for about `seconds`, then Ctrl-C (a pipe read blocks for more)."""
        self.commands += 1
        self.kinds["read trace_pipe"] = self.kinds.get("read trace_pipe", 0) + 1
        self.seconds["read trace_pipe"] = self.seconds.get("read trace_pipe", 0) + seconds
        try:
            self.con.send("cat %s\r" % path)
            time.sleep(seconds)
            self.con.send(b"\x03")
            self.con.wait_for_prompt(timeout=60)
        except ConsoleTimeout as e:
            raise SoakFailure("%s: `cat %s` did not stop on Ctrl-C\n%s\n%s"
                              % (self.where(), path, dump_cpus(), e)) from None

    # -- the random steps -----------------------------------------------------------------------------

    def some_functions(self):
        return " ".join(self.rng.sample(self.functions, self.rng.randint(1, 6)))

    def step_tracer(self):
        self.do("tracer switch", "echo %s > current_tracer" % self.rng.choice(TRACERS))

    def step_filter(self):
        r = self.rng.random()
        if r < 0.3:
            what = "'%s'" % self.rng.choice(GLOBS)
        elif r < 0.6:
            what = self.some_functions()
        elif r < 0.75:
            what = ""
        else:
            fn = self.rng.choice(self.functions)
            cmd = self.rng.choice(["%s:traceoff:%d" % (fn, self.rng.randint(1, 5)), "!%s:traceoff" % fn,
                                   "%s:traceon" % fn, "!%s:traceon" % fn,
                                   "%s:stacktrace:%d" % (fn, self.rng.randint(1, 5)), "!%s:stacktrace" % fn])
            self.do("filter command", "echo '%s' >> set_ftrace_filter" % cmd)
            return
        op = self.rng.choice([">", ">>"])
        target = "set_ftrace_notrace" if self.rng.random() < 0.15 else "set_ftrace_filter"
        self.do("filter write", "echo %s %s %s" % (what, op, target))

    def step_trigger(self):
        ev = self.rng.choice(TRIGGER_EVENTS)
        r = self.rng.random()
        if r < 0.3:
            cmd = "echo > events/%s/trigger" % ev
        elif r < 0.5:
            cmd = "echo '!%s' >> events/%s/trigger" % (self.rng.choice(["traceoff", "traceon", "stacktrace"]), ev)
        else:
            trig = "%s:%d" % (self.rng.choice(["traceoff", "traceon", "stacktrace"]), self.rng.randint(1, 9))
            if ev == "sched/sched_switch" and self.rng.random() < 0.5:
                trig += " if prev_comm == \"spin\""
            cmd = "echo '%s' %s events/%s/trigger" % (trig, self.rng.choice([">", ">>"]), ev)
        self.do("trigger add/remove", cmd)

    def step_event(self):
        ev = self.rng.choice(self.events + ["sched", ""])
        path = "events/%s/enable" % ev if ev else "events/enable"
        self.do("event enable", "echo %d > %s" % (self.rng.randint(0, 1), path.replace("//", "/")))

    def step_buffer(self):
        self.do("buffer resize", "echo %d > buffer_size_kb" % self.rng.choice(BUFFER_KB))

    def step_livepatch(self):
        what = self.rng.choice(LIVEPATCH)
        op = ">" if what in ("", "demo_greeting") else ">>"
        self.do("livepatch toggle", "echo %s %s livepatch_enable" % (what, op))

    def step_direct(self):
        self.do("direct-call toggle", "echo %s > direct_count" % self.rng.choice(DIRECT))

    def step_method(self):
        self.do("patch_method change", "echo %s > patch_method" % self.rng.choice(["breakpoint", "stop_machine"]))

    def step_profiler(self):
        self.do("profiler toggle", "echo %d > function_profile_enabled" % self.rng.randint(0, 1))

    def step_stack(self):
        self.do("stack tracer toggle", "echo %d > /proc/sys/kernel/stack_tracer_enabled" % self.rng.randint(0, 1))

    def step_func_hits(self):
        self.do("func_hits toggle", "echo %d > func_hits" % self.rng.randint(0, 1))

    def step_tracing_on(self):
        self.do("tracing_on", "echo %d > tracing_on" % (self.rng.random() < 0.8))

    def step_pipe(self):
        path = self.rng.choice(["trace_pipe", "per_cpu/cpu%d/trace_pipe" % self.rng.randint(0, 3)])
        self.read_pipe(path, self.rng.uniform(0.2, 1.0))

    def step_trace(self):
        path = self.rng.choice(["trace", "per_cpu/cpu%d/trace" % self.rng.randint(0, 3)])
        self.do("read trace", "cat %s" % path, timeout=180)

    STEPS = [(step_tracer, 4), (step_filter, 4), (step_trigger, 3), (step_event, 2), (step_buffer, 2),
             (step_livepatch, 2), (step_direct, 2), (step_method, 2), (step_profiler, 1), (step_stack, 1),
             (step_func_hits, 1), (step_tracing_on, 1), (step_pipe, 2), (step_trace, 1)]

    def random_step(self):
        fns, weights = zip(*self.STEPS)
        self.rng.choices(fns, weights)[0](self)

    # -- checks ---------------------------------------------------------------------------------------

    def verify(self):
        """verify_sites: every ftrace and jump-label site holds what its state says, no bug reported."""
        out = self.sh("cat verify_sites")
        lines = out.splitlines()
        if (len(lines) != 4 or "FAILED" in out or not lines[0].endswith(": ok") or not lines[1].endswith(": ok")
                or lines[2] != "ftrace_bug reports: 0, jump label bugs: 0"):
            raise SoakFailure("%s: verify_sites says:\n%s" % (self.where(), out))
        m = re.match(r"memory: (\d+) kmalloc bytes in use, (\d+) trampoline pages", lines[3])
        return int(m.group(1)), int(m.group(2))

    def check_workloads(self, progress):
        """No workload saw a mismatch; with `progress`, each one has run since the last time."""
        rows = [l.split() for l in self.sh("cat /proc/workloads").splitlines()[1:]]
        if len(rows) != self.nr_workers:
            raise SoakFailure("%s: workloads died: %s" % (self.where(), rows))
        for pid, cpu, name, it, win, mis in rows:
            if int(mis):
                raise SoakFailure("%s: workload %s (pid %s) counted %s mismatches" % (self.where(), name, pid, mis))
            if progress and int(it) <= self.last_iterations.get(pid, -1):
                raise SoakFailure("%s: workload %s (pid %s) made no progress (%s iterations)"
                                  % (self.where(), name, pid, it))
            if progress:
                self.last_iterations[pid] = int(it)

    def check_stats(self):
        """Each CPU's ring-buffer counters agree with each other and with its size."""
        for cpu in range(self.con.smp):
            size = int(self.sh("cat per_cpu/cpu%d/buffer_size_kb" % cpu).split()[0])
            st = dict(l.split(":", 1) for l in self.sh("cat per_cpu/cpu%d/stats" % cpu).splitlines())
            entries, nbytes = int(st["entries"]), int(st["bytes"])
            if nbytes > size * 1024 or (entries == 0) != (nbytes == 0) or int(st["commit overrun"]):
                raise SoakFailure("%s: cpu%d stats do not add up (buffer %d kB): %s"
                                  % (self.where(), cpu, size, st))

    def check_kernel_log(self):
        """No kernel line since the last check that speaks of a bug, a fault or a failure."""
        self.con.check()                       # brings the console's text up to date, too
        text = self.con._text                  # this boot's serial text (log_text() copies all of it)
        start = text.rfind("\n", 0, self.serial_checked) + 1
        end = text.rfind("\n") + 1            # complete lines only
        new, self.serial_checked = text[start:end], max(self.serial_checked, end)
        for line in new.replace("\r", "").splitlines():
            if re.match(LOG_LINE, line) and FAULT_RX.search(line):
                raise SoakFailure("%s: the kernel logged: %s" % (self.where(), line))

    def check(self, full=False):
        self.checks += 1
        self.check_kernel_log()
        self.verify()
        self.check_workloads(progress=full)
        if full and (not self.quick or self.phase == "end"):
            self.check_stats()

    # -- everything off, and memory -------------------------------------------------------------------

    def all_off(self):
        for cmd in ["echo 0 > tracing_on", "echo nop > current_tracer", "echo > set_ftrace_filter",
                    "echo > set_ftrace_notrace", "echo 0 > func_hits", "echo 0 > function_profile_enabled",
                    "echo 0 > /proc/sys/kernel/stack_tracer_enabled", "echo > livepatch_enable",
                    "echo > direct_count", "echo 0 > events/enable"]:
            out = "\n".join(l for l in self.sh(cmd).splitlines() if not re.match(LOG_LINE, l))
            if out:
                raise SoakFailure("%s: `%s` while switching everything off: %s" % (self.where(), cmd, out))
        for ev in TRIGGER_EVENTS:
            self.sh("echo > events/%s/trigger" % ev)
        # Function commands outlive `echo > set_ftrace_filter`, as in Linux: each goes by its `!`.
        for line in self.sh("cat set_ftrace_filter").splitlines():
            m = re.match(r"^(\S+):(traceon|traceoff|stacktrace)", line)
            if m:
                self.sh("echo '!%s:%s' >> set_ftrace_filter" % m.groups())
        self.sh("echo %d > buffer_size_kb" % BASE_BUFFER_KB)
        self.sh("echo 1 > tracing_on")
        self.sh("echo breakpoint > patch_method")
        out = self.sh("cat enabled_functions")
        if out:
            raise SoakFailure("%s: with everything off, sites still call ftrace:\n%s" % (self.where(), out))

    def measure(self, label):
        """Everything off; kmalloc bytes (least of 3 reads: workloads allocate for a moment) and meminfo,
        whose lines from Slab on must account for every frame in use (else frames have no owner)."""
        self.all_off()
        self.check(full=True)
        kbytes = min(self.verify()[0] for _ in range(3))
        info = {k: int(v.split()[0]) for k, v in
                (l.split(":", 1) for l in self.sh("cat /proc/meminfo").splitlines())}
        owned = sum(info[k] for k in PAGE_USERS)
        if info["MemTotal"] - info["MemFree"] != owned:
            raise SoakFailure("%s: MemTotal - MemFree is %d kB but the owners in /proc/meminfo hold %d kB"
                              % (self.where(), info["MemTotal"] - info["MemFree"], owned))
        figures = (kbytes, info["MemFree"], info["Slab"])
        self.memory[label] = figures
        self.pages[label] = {k: info[k] for k in PAGE_USERS}
        return figures

    def leaked(self, label):
        return self.memory[label][0] - self.memory["baseline"][0]

    # -- phases ---------------------------------------------------------------------------------------

    def setup(self):
        self.begin("setup")
        self.functions = self.sh("cat available_filter_functions", timeout=60).split()
        self.events = [e.replace(":", "/") for e in self.sh("cat available_events").split()]
        others = list(range(1, self.con.smp)) or [0]
        self.workloads = ["%s %s" % (w, "%d-%d" % (others[0], others[-1]) if w == "spin" else others[i % len(others)])
                          for i, w in enumerate(WORKLOADS)]
        for w in self.workloads:
            self.nr_workers += len(re.findall(r"^\[\d+\] ", self.sh("run " + w), re.M))
        self.check(full=True)

    def warm_up(self):
        """Every kind of step once, so what the kernel keeps once used (ret_stacks, cached pages) is
        in the baseline rather than counted as a leak."""
        self.begin("warm-up")
        if not self.quick:
            self.measure("boot")
        for fn, _ in self.STEPS:
            fn(self)
        for cmd in ["echo %s > current_tracer" % t for t in TRACERS] + [
                "echo 1 > function_profile_enabled", "echo 0 > function_profile_enabled",
                "echo 1 > /proc/sys/kernel/stack_tracer_enabled", "echo 0 > /proc/sys/kernel/stack_tracer_enabled",
                "echo 'stacktrace:1' > events/sched/sched_switch/trigger", "echo demo_greeting > livepatch_enable",
                "echo stress_target > direct_count"]:
            self.do("warm-up", cmd)
        self.measure("baseline")

    def random_steps(self, deadline=None, steps=None):
        self.begin("random")
        t0 = time.monotonic()
        while (steps is not None and self.step < steps) or (deadline is not None and time.monotonic() < deadline):
            self.step += 1
            self.random_step()
            self.check(full=self.step % 10 == 0)
            if self.step % 100 == 0:
                print("soak: step %d, %.1f min, %d commands" % (self.step, (time.monotonic() - t0) / 60,
                                                                self.commands), flush=True)
                self.measure("step %d" % self.step)
        self.random_minutes = (time.monotonic() - t0) / 60
        return None if self.quick else self.measure("after random steps")

    def memory_sequence(self, switches, before):
        """The sequence from the issue: tracer switches, then profiler and stack tracer on and off;
        `before` is the measure just taken with everything off."""
        self.begin("memory sequence")
        for i in range(switches):
            self.do("tracer switch", "echo %s > current_tracer" % TRACERS[1 + i % 2])
            if i % 20 == 19:
                self.check()
        self.sh("echo nop > current_tracer")
        for cmd in ["echo 1 > function_profile_enabled", "echo 1 > /proc/sys/kernel/stack_tracer_enabled"]:
            self.do("profiler/stack tracer on", cmd)
        time.sleep(1)
        for cmd in ["echo 0 > function_profile_enabled", "echo 0 > /proc/sys/kernel/stack_tracer_enabled"]:
            self.do("profiler/stack tracer off", cmd)
        after = self.measure("after %d switches, profiler, stack tracer" % switches)
        self.sequence = (switches, before, after)

    def site_cycles(self, cycles, chunk=100, save=lambda phase: None):
        """`sitecycle` in chunks, with the checks between them, for each patch method."""
        for method in ("breakpoint", "stop_machine"):
            self.begin("sitecycle %s" % method)
            done, ms, sites = 0, 0, 0
            while done < cycles:
                n = min(chunk, cycles - done)
                out = self.sh("sitecycle %d %s" % (n, method), timeout=60 + 5 * n)
                m = re.match(r"sitecycle: (\d+) of (\d+) cycles of (\d+) sites, \S+, (\d+) ms, \d+ calls seen: ok$", out)
                if not m or int(m.group(1)) != n:
                    raise SoakFailure("%s: %s" % (self.where(), out))
                done += n
                ms += int(m.group(4))
                sites = int(m.group(3))
                self.check(full=True)
                self.cycles[method] = (done, ms, sites)
                save("the end of sitecycle %s" % method)
            print("soak: %d cycles of %d sites with %s in %.1f s (guest clock)" % (done, sites, method, ms / 1000),
                  flush=True)
        self.phase = "end"
        self.measure("after site cycles (end)")


def dump_cpus():
    """Every CPU's registers (RIP symbolized) over QMP: where a hung kernel is."""
    try:
        syms = []
        for line in open(os.path.join(ROOT, "build", "kernel.sym")):
            p = line.split()
            if len(p) == 3:
                syms.append((int(p[0], 16), p[2]))
        syms.sort()
        addrs = [a for a, _ in syms]
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(10)
        s.connect(QMP)
        f = s.makefile("rw")
        f.readline()
        for req in ({"execute": "qmp_capabilities"},
                    {"execute": "human-monitor-command", "arguments": {"command-line": "info registers -a"}}):
            f.write(json.dumps(req) + "\n")
            f.flush()
            reply = json.loads(f.readline())
        out = []
        for line in reply["return"].splitlines():
            m = re.search(r"RIP=([0-9a-f]{16})", line)
            if m:
                a = int(m.group(1), 16)
                i = bisect.bisect_right(addrs, a) - 1
                line += "  <%s+0x%x>" % (syms[i][1], a - syms[i][0]) if i >= 0 else ""
            if m or line.startswith(("CPU#", "RAX", "RSP")):
                out.append(line)
        return "---- CPUs ----\n" + "\n".join(out)
    except (OSError, ValueError, KeyError) as e:
        return "(no register dump: %s)" % e


def report(soak, args, minutes, fails, status=""):
    """The SOAK page: what ran, and the figures; `status` says if the run did not end well."""
    base = soak.memory.get("baseline", (0, 0, 0))
    last = soak.memory.get("after site cycles (end)", base)
    toggles = sum(n for k, n in soak.kinds.items() if k not in ("read trace_pipe", "read trace"))
    text = ["# Soak", "",
            "Written by `make soak SOAK_MINUTES=%s SOAK_SEED=%d SMP=%d` (tools/soak.py) on %s; the test ISO "
            "under TCG, every workload running (`run %s`). What it does and checks: docs/16-hardening.md, "
            "section Soak." % (args.minutes, args.seed, args.smp, datetime.date.today().isoformat(),
                               "`, `run ".join(soak.workloads)), ""] + ([status, ""] if status else []) + [
            "| figure | value |", "|---|---:|",
            "| minutes, whole run | %.1f |" % minutes,
            "| random steps | %d |" % soak.step,
            "| of which refused by the kernel (EBUSY, EINVAL, ...: counted, not failures) | %d |"
            % sum(soak.refused.values()),
            "| toggles, all kinds (tracer, filter, trigger, ... below) | %d |" % toggles,
            "| shell commands | %d |" % soak.commands,
            "| checks (verify_sites, workloads, kernel log; every 10th also per-CPU stats) | %d |" % soak.checks,
            "| faults (ftrace bug, jump label bug, Oops, panic, failed check) | %d |" % fails,
            "| kmalloc bytes leaked at the end (everything off vs. baseline) | %d |" % (last[0] - base[0]),
            ""]
    text += ["| step kind | done | refused | wall seconds |", "|---|---:|---:|---:|"]
    for kind in sorted(soak.kinds):
        text.append("| %s | %d | %d | %.0f |" % (kind, soak.kinds[kind], soak.refused.get(kind, 0),
                                                 soak.seconds.get(kind, 0)))
    text += ["", "Every ftrace site switched on and off by `sitecycle` (a register and an unregister of an ops "
             "on every function, each followed by the check of every site), CPUs 1-3 busy:", "",
             "| patch method | cycles | sites | guest seconds | ms per cycle |", "|---|---:|---:|---:|---:|"]
    for method, (n, ms, sites) in soak.cycles.items():
        text.append("| %s | %d | %d | %.1f | %.1f |" % (method, n, sites, ms / 1000, ms / n))
    text += ["", "Memory with everything off (tracer nop, no filter, no trigger, no event, no livepatch, no "
             "direct call, profiler and stack tracer off, %d kB buffers), kmalloc bytes the least of three "
             "reads:" % BASE_BUFFER_KB, "",
             "| when | kmalloc bytes in use | vs. baseline | MemFree kB | vs. baseline | Slab kB |",
             "|---|---:|---:|---:|---:|---:|"]
    for label, (kb, free, slab) in soak.memory.items():
        if label.startswith("step "):
            continue
        text.append("| %s | %d | %+d | %d | %+d | %d |" % (label, kb, kb - base[0], free, free - base[1], slab))
    text += ["", "Where the frames in use are, with everything off (kB, `/proc/meminfo`'s lines from Slab on, "
             "which add up to MemTotal - MemFree at every measurement; a drop in MemFree shows up in one of "
             "them):", "", "| when | " + " | ".join(PAGE_USERS) + " |", "|---|" + "---:|" * len(PAGE_USERS)]
    for label, owners in soak.pages.items():
        if not label.startswith("step "):
            text.append("| %s | %s |" % (label, " | ".join(str(owners[k]) for k in PAGE_USERS)))
    steps = [kb - base[0] for label, (kb, _, _) in soak.memory.items() if label.startswith("step ")]
    if steps:
        text += ["", "Also measured the same way every 100 random steps (%d times): kmalloc bytes vs. baseline "
                 "between %+d and %+d." % (len(steps), min(steps), max(steps))]
    if hasattr(soak, "sequence"):
        n, before, after = soak.sequence
        text += ["", "The memory sequence (%d switches between function and function_graph, then the profiler "
                 "and the stack tracer on and off): kmalloc bytes %d -> %d (%+d), MemFree %d -> %d kB (%+d), "
                 "Slab %d -> %d kB." % (n, before[0], after[0], after[0] - before[0], before[1], after[1],
                                         after[1] - before[1], before[2], after[2])]
    return "\n".join(text) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10, help="length of the random phase")
    ap.add_argument("--steps", type=int, help="random steps instead of minutes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--smp", type=int, default=4)
    ap.add_argument("--cycles", type=int, default=1000, help="sitecycle cycles per patch method")
    ap.add_argument("--switches", type=int, default=200, help="tracer switches of the memory sequence")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "SOAK.md"))
    ap.add_argument("--no-write", action="store_true", help="print the report, do not write --out")
    ap.add_argument("--quick", action="store_true", help="fewer commands per check (the smoke test)")
    args = ap.parse_args()

    print("soak: seed %d, -smp %d, %s" % (args.seed, args.smp, "%d steps" % args.steps if args.steps is not None
                                          else "%.1f minutes of random steps" % args.minutes), flush=True)
    con = Console(smp=args.smp, name="soak", extra_args=["-qmp", "unix:%s,server=on,wait=off" % QMP])
    soak = Soak(con, random.Random(args.seed), args.seed, args.quick)
    t0 = time.monotonic()
    fails = 0

    def save(next_phase):
        """The report so far, in case the run is stopped before its end."""
        if not args.no_write:
            with open(args.out, "w") as f:
                f.write(report(soak, args, (time.monotonic() - t0) / 60, 0,
                               "Partial: the run was stopped before %s." % next_phase))

    try:
        con.start()
        soak.setup()
        soak.warm_up()
        if args.steps is not None:
            before = soak.random_steps(steps=args.steps)
        else:
            before = soak.random_steps(deadline=time.monotonic() + args.minutes * 60)
        save("the memory sequence")
        if args.switches:
            soak.memory_sequence(args.switches, before)
        save("sitecycle")
        soak.site_cycles(args.cycles, chunk=min(100, max(1, args.cycles)), save=save)
        soak.phase = "end"
        if soak.leaked("after site cycles (end)"):
            raise SoakFailure("%s: %d kmalloc bytes more in use than at the baseline, everything off"
                              % (soak.where(), soak.leaked("after site cycles (end)")))
        with con.disable_check("banner"):     # dmesg repeats the boot banner
            dmesg = soak.sh("dmesg", timeout=60)
        bad = [l for l in dmesg.splitlines() if FAULT_RX.search(l)]
        if bad:
            raise SoakFailure("%s: dmesg holds:\n%s" % (soak.where(), "\n".join(bad)))
    except (SoakFailure, ConsoleError) as e:
        fails = 1
        print("soak: FAILED at %s\n%s" % (soak.where(), e), flush=True)
    finally:
        con.save_log(LOG)
        con.close()
        if os.path.exists(QMP):
            os.unlink(QMP)
    text = report(soak, args, (time.monotonic() - t0) / 60, fails,
                  "FAILED at %s (the serial log: build/soak.log)." % soak.where() if fails else "")
    print(text)
    if not args.no_write:
        with open(args.out, "w") as f:
            f.write(text)
        print("soak: wrote %s" % os.path.relpath(args.out, ROOT))
    print("soak: serial log in %s" % os.path.relpath(LOG, ROOT))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
