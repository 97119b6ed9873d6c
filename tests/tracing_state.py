"""tests/tracing_state.py: put a shared machine's tracing state back to what it was at boot, between two tests.

Linux's ftracetest does the same before each test (`initialize_system`: tracer nop, tracing on, filters, events,
triggers, probes and options cleared).  Here the boot state is read once, right after the boot, from the files in
STATE (a few `cat` commands); after each test the same files are read again, and only when they differ are the
RESET writes typed, in an order that works from any state (events off before their probes go, tracer nop before
its filters).  If the files still differ after that, the test left state that nothing here can undo, and
tests/conftest.py fails it saying which.  The trace buffer is emptied after every test, and the shell put back in
the tracing directory.
"""

import re

from tests.console import INITIAL_CWD

# What a test may change that a later one would see: read after every test.  At most 250 characters a line
# (VALUES in two).
# VALUES are one line each (a missing file's error too), put back by writing what they read at boot.
VALUES = ["current_tracer", "tracing_on", "buffer_size_kb", "max_graph_depth", "tracing_thresh",
          "function_profile_enabled", "/proc/sys/kernel/stack_tracer_enabled", "/proc/sys/kernel/ftrace_enabled",
          "/proc/sys/kernel/jump_label_demo", "/proc/sys/kernel/jump_label_demo_true", "events/enable",
          "/proc/sys/debug/kprobes-optimization", "/sys/kernel/debug/kprobes/enabled", "buffer_percent"]
# The same for the latency detectors' files (hwlat_detector/, osnoise/): width and runtime_us first to 0, so that
# any window and period may be written back before them; a choice file ("none [round-robin] per-cpu") gets its bracketed word back.
DETECTOR_VALUES = ["tracing_cpumask", "hwlat_detector/window", "hwlat_detector/width", "hwlat_detector/mode",
                   "osnoise/cpus", "osnoise/period_us", "osnoise/runtime_us", "osnoise/stop_tracing_us",
                   "osnoise/stop_tracing_total_us", "osnoise/timerlat_period_us", "osnoise/print_stack"]
SETS = [
    ["set_ftrace_filter", "set_ftrace_notrace", "set_graph_function", "set_graph_notrace", "set_ftrace_pid",
     "set_event", "set_event_pid", "kprobe_events", "func_hits", "patch_method", "livepatch_enable"],
    ["direct_count", "events/sched/filter", "events/sched/sched_switch/trigger", "events/sched/sched_wakeup/trigger",
     "events/sched/sched_waking/trigger", "events/sched/sched_process_exit/trigger", "trace_options",
     "synthetic_events"],
    ["tracing_max_latency", "snapshot", "osnoise/options"],
]
STATE = [VALUES, DETECTOR_VALUES] + SETS
OPTIONS = "trace_options"
SCHED_EVENTS = ["sched_switch", "sched_wakeup", "sched_waking", "sched_process_exit"]

# From any state back to the boot one (VALUES are then written back).  Writes a build lacks fail harmlessly.
RESET = (["echo 0 > tracing_on", "echo nop > current_tracer", "echo 0 > snapshot",
           "echo 0 > tracing_max_latency", "echo 0 > func_hits",
          "echo 0 > function_profile_enabled", "echo 0 > /proc/sys/kernel/stack_tracer_enabled",
          "echo 0 > stack_max_size", "echo 0 > events/enable", "echo > set_event", "echo > set_event_pid"]
         + ["echo > events/sched/%s/trigger" % e for e in SCHED_EVENTS]
         + ["echo 0 > events/sched/filter", "echo > kprobe_events", "echo > set_ftrace_filter",
            "echo > set_ftrace_notrace", "echo > set_graph_function", "echo > set_graph_notrace",
            "echo > set_ftrace_pid", "echo > livepatch_enable", "echo > direct_count", "echo breakpoint > patch_method",
            "echo > synthetic_events", "echo > error_log", "echo local > trace_clock",
            "echo > set_ftrace_notrace_pid", "echo > set_event_notrace_pid", "echo > stack_trace_filter",
            "echo 0 > hwlat_detector/width", "echo 0 > osnoise/runtime_us", "echo DEFAULTS > osnoise/options"])

# A function command line of set_ftrace_filter: func:cmd:..., with enable_event's system:event.
FUNC_COMMAND = re.compile(r"^(\S+?):(\w+)(:\w+:\w+)?:(?:unlimited|count=\d+)$")


def read_state(console):
    """{file or group of files: contents}; func_hits' counts left out (they grow)."""
    state = {}
    for names in (VALUES[:11], VALUES[11:], DETECTOR_VALUES[:4], DETECTOR_VALUES[4:]):          # two lines: the shell takes at most 255 characters
        values = console.run("cat " + " ".join(names), timeout=60).split("\n")
        state.update(zip(names, values + [""] * (len(names) - len(values))))
    for files in SETS:
        text = console.run("cat " + " ".join(files), timeout=60)
        state[" ".join(files)] = "\n".join(l for l in text.split("\n") if not re.match(r"^  \S+ +\d+$", l))
    return state


def boot_state(console):
    """The state right after boot, with an empty buffer."""
    console.run("echo > trace")
    console.boot_state = read_state(console)
    console.boot_options = console.run("cat " + OPTIONS).split("\n")


def _remove_commands(console):
    """Function commands (func:cmd) go one by one: a plain write to set_ftrace_filter keeps them."""
    for line in console.run("cat set_ftrace_filter").splitlines():
        m = FUNC_COMMAND.match(line)
        if m:
            console.run("echo '!%s:%s%s' >> set_ftrace_filter" % (m.group(1), m.group(2), m.group(3) or ""))


_LIVE_WORKLOAD = re.compile(r"^\s*(\d+)\s+\d+\s+\S+\s+\d+\s+\d+\s+\d+$", re.M)


def live_workloads(console):
    """The pids of the `run` workloads still running (/proc/workloads without "(exited)")."""
    return set(_LIVE_WORKLOAD.findall(console.run("cat /proc/workloads")))


def _stop_workloads(console):
    """The workloads a test started stop with it: one still running would write into the next test's trace.
    Those running before the test began (a module fixture's) are left alone."""
    mine = live_workloads(console) - getattr(console, "workloads_before", set())
    if mine:
        console.run("kill " + " ".join(sorted(mine)), timeout=60)
        console.poll("cat /proc/workloads", lambda out: not mine & set(_LIVE_WORKLOAD.findall(out)), timeout=60)


def _put_back(console, state):
    _remove_commands(console)
    for cmd in RESET:
        console.run(cmd, timeout=60)
    boot = console.boot_state
    for name in VALUES:
        if not boot[name].startswith("cat: ") and name != "events/enable":
            console.run("echo %s > %s" % (boot[name], name), timeout=60)
    for name in DETECTOR_VALUES:
        chosen = re.search(r"\[(\S+)\]", boot[name])
        if not boot[name].startswith("cat: "):
            console.run("echo %s > %s" % (chosen.group(1) if chosen else boot[name], name), timeout=60)
    options = console.run("cat " + OPTIONS).split("\n")
    for option in console.boot_options:
        if option not in options:
            console.run("echo %s > %s" % (option, OPTIONS))


def reset(console):
    """Back to the boot state; returns None, or what still differs from it (the test's fault)."""
    if console.cwd != INITIAL_CWD:
        console.run("cd " + INITIAL_CWD)
    _stop_workloads(console)
    state = read_state(console)
    if state != console.boot_state:
        _put_back(console, state)
        state = read_state(console)
    console.run("echo > trace")
    left = {k: (v, console.boot_state[k]) for k, v in state.items() if v != console.boot_state[k]}
    if not left:
        return None
    return "\n".join("%s now:\n%s\nat boot:\n%s" % (k, now, then) for k, (now, then) in left.items())
