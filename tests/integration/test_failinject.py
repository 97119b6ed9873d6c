"""tests/integration/test_failinject.py: every control-file write and tracer switch, with each of its allocations
failing in turn (/proc/self/fail-nth), answers `Cannot allocate memory`, leaves the state it found, and leaks nothing.

For one CASE (setup, action, undo): after a warm-up (action then undo, so that caches that live for good, such as a
trampoline page once mapped, are already there), N = 1, 2, ... arms the shell's N-th allocation to fail and runs the
action.  Either
  - the action never reached an N-th allocation (fail-nth still armed afterwards): it must have succeeded, and the
    walk ends; N - 1 is how many allocations the action makes; or
  - the injected failure fired and the action failed: the message is ENOMEM's, and every STATE file reads as before,
    byte for byte, and after drop_caches MemFree, Slab and each slabinfo row's active_objs are what they were; or
  - the failure fired and the action succeeded anyway (it degrades, e.g. no private trampoline): undo must bring
    memory back to what it was.
"""

import re

import pytest

SMP = 2

ENOMEM = "Cannot allocate memory"

# Files whose bytes make up "the state": if a failed action changed any of them, it was not undone.
STATE = [
    "current_tracer", "set_ftrace_filter", "set_ftrace_notrace", "set_graph_function", "set_graph_notrace",
    "set_ftrace_pid", "set_event", "enabled_functions", "kprobe_events", "buffer_size_kb", "per_cpu/cpu1/buffer_size_kb",
    "trace", "function_profile_enabled", "/proc/sys/kernel/stack_tracer_enabled", "events/sched/sched_switch/trigger",
    "events/sched/sched_switch/enable", "events/kmem/enable", "patch_method", "livepatch_enable", "direct_count",
    "saved_cmdlines_size", "func_hits", "tracing_on", "events/sched/filter", "events/sched/sched_switch/filter",
    "events/sched/sched_wakeup/filter", "events/sched/sched_waking/filter", "events/sched/sched_process_exit/filter",
    "synthetic_events", "events/kmem/kfree/enable",
]
SITES = ["schedule", "kfree", "demo_greeting"]   # dis: bytes of call sites the actions touch

# (name, setup, action, undo): setup runs once before the walk; undo returns to the state before action.
CASES = [
    ("tracer_function", [], "echo function > current_tracer", ["echo nop > current_tracer"]),
    ("tracer_function_graph", [], "echo function_graph > current_tracer", ["echo nop > current_tracer"]),
    ("tracer_switch_graph_to_function", ["echo function_graph > current_tracer"],
     "echo function > current_tracer", ["echo function_graph > current_tracer"]),
    ("filter_glob", [], "echo 'sched*' > set_ftrace_filter", ["echo > set_ftrace_filter"]),
    ("filter_glob_live", ["echo function > current_tracer"], "echo 'k*' > set_ftrace_filter",
     ["echo > set_ftrace_filter"]),
    ("notrace_glob", [], "echo 'k*' > set_ftrace_notrace", ["echo > set_ftrace_notrace"]),
    ("graph_function", [], "echo schedule > set_graph_function", ["echo > set_graph_function"]),
    ("func_command", [], "echo 'kfree:traceoff' >> set_ftrace_filter", ["echo '!kfree:traceoff' >> set_ftrace_filter"]),
    ("mod_command", [], "echo 'f:mod:m' >> set_ftrace_filter", ["echo '!f:mod:m' >> set_ftrace_filter"]),
    ("saved_cmdlines_resize", [], "echo 256 > saved_cmdlines_size", ["echo 128 > saved_cmdlines_size"]),
    ("set_event", [], "echo sched:sched_switch > set_event", ["echo > set_event"]),
    ("events_enable", [], "echo 1 > events/kmem/enable", ["echo 0 > events/kmem/enable"]),
    ("event_trigger", [], "echo traceoff > events/sched/sched_switch/trigger",
     ["echo '!traceoff' > events/sched/sched_switch/trigger"]),
    ("kprobe_add", [], "echo 'p:fi_probe kfree' >> kprobe_events", ["echo > kprobe_events"]),
    ("kretprobe_add", [], "echo 'r:fi_ret kfree' >> kprobe_events", ["echo > kprobe_events"]),
    ("kprobe_enable", ["echo 'p:fi_probe kfree' >> kprobe_events"], "echo 1 > events/kprobes/fi_probe/enable",
     ["echo 0 > events/kprobes/fi_probe/enable"]),
    ("event_filter", [], "echo 'prev_pid == 1' > events/sched/sched_switch/filter",
     ["echo 0 > events/sched/sched_switch/filter"]),
    ("system_filter", [], "echo 'common_pid != 0' > events/sched/filter", ["echo 0 > events/sched/filter"]),
    ("trigger_with_filter", [], "echo 'stacktrace if prev_pid == 1' > events/sched/sched_switch/trigger",
     ["echo '!stacktrace' > events/sched/sched_switch/trigger"]),
    ("hist_trigger", [], "echo 'hist:keys=next_pid,prev_comm:vals=prev_prio if prev_pid == 1' >> "
     "events/sched/sched_switch/trigger", ["echo > events/sched/sched_switch/trigger"]),
    ("synthetic_event", [], "echo 'fi_lat u64 lat; pid_t pid; char comm[16]' >> synthetic_events",
     ["echo '!fi_lat' >> synthetic_events"]),
    ("enable_event_trigger", [], "echo 'enable_event:kmem:kfree:2' > events/sched/sched_switch/trigger",
     ["echo > events/sched/sched_switch/trigger"]),
    ("enable_event_command", [], "echo 'kfree:enable_event:kmem:kmalloc' >> set_ftrace_filter",
     ["echo '!kfree:enable_event:kmem:kmalloc' >> set_ftrace_filter"]),
    ("tracer_function_filtered", ["echo 'k*' > set_ftrace_filter"], "echo function > current_tracer",
     ["echo nop > current_tracer"]),
    ("ftrace_pid", [], "echo 1 > set_ftrace_pid", ["echo > set_ftrace_pid"]),
    ("buffer_resize", [], "echo 128 > buffer_size_kb", ["echo 64 > buffer_size_kb"]),
    ("stack_tracer", [], "echo 1 > /proc/sys/kernel/stack_tracer_enabled",
     ["echo 0 > /proc/sys/kernel/stack_tracer_enabled"]),
    ("profiler", [], "echo 1 > function_profile_enabled", ["echo 0 > function_profile_enabled"]),
    ("func_hits", [], "echo 1 > func_hits", ["echo 0 > func_hits"]),
    ("patch_method", [], "echo stop_machine > patch_method", ["echo breakpoint > patch_method"]),
    ("livepatch", [], "echo demo_greeting > livepatch_enable", ["echo '!demo_greeting' >> livepatch_enable"]),
    ("direct_call", [], "echo demo_greeting > direct_count", ["echo > direct_count"]),
]
TEARDOWN = ["echo nop > current_tracer", "echo 1 > tracing_on", "echo 0 > events/enable", "echo > set_ftrace_filter", "echo > set_ftrace_notrace",
            "echo > set_graph_function", "echo > set_event", "echo > kprobe_events"]
NO_ALLOC = {"patch_method", "ftrace_pid"}           # walked anyway: an allocation added later gets tested
MAX_ALLOCS = 400                                   # a walk longer than this is a bug of its own



def answer(out):
    """What the shell said, without kernel log lines (a degraded success may log why)."""
    return "\n".join(l for l in out.split("\n") if l.strip() and not re.match(r"\[\s*\d+\.\d+\]", l))


# Where a degraded success may differ from a plain one: no private trampoline changes these.
TRAMPOLINE_DEPENDENT = {"enabled_functions", "trace"}


def state(con, files=STATE, sites=SITES):
    got = {"files": con.run("cat " + " ".join(files))}       # one command: the walk reads this often
    got.update({f"dis {s}": con.run(f"dis {s} 5") for s in sites})
    return got


def settings(con):
    """The state a user set, without what depends on how it was reached (trampolines)."""
    return state(con, [f for f in STATE if f not in TRAMPOLINE_DEPENDENT], [])


def memory(con):
    """MemFree, Slab and each size class's live objects, after cached empty slabs went back."""
    con.run("echo 3 > /proc/sys/vm/drop_caches")
    mem = {k: v for k, v in re.findall(r"^(MemFree|Slab):\s+(\d+) kB", con.run("cat /proc/meminfo"), re.M)}
    for name, active in re.findall(r"^(kmalloc-\d+)\s+(\d+)", con.run("cat /proc/slabinfo"), re.M):
        mem[name] = active
    return mem


def diff(before, after):
    return {k: (before[k], after.get(k)) for k in before if before[k] != after.get(k)}


def mark(con):
    """One known line in the buffer, then tracing off: what the walk traces must not change it."""
    con.run("echo > trace")
    con.run("echo 1 > tracing_on")
    con.run("echo fault-injection-marker > trace_marker")
    con.run("echo 0 > tracing_on")


@pytest.fixture
def fi(console):
    """The module's machine, quiet about injected failures (a test that failed may have rebooted it)."""
    for attr in ("failslab", "fail_page_alloc", "fail_execmem"):
        console.run(f"echo 0 > /sys/kernel/debug/{attr}/verbose")
    return console


def walk(con, action, undo):
    """Returns (allocations the action makes, the N whose failure the action survived)."""
    for cmd in undo:
        con.run(cmd)                                 # warm-up: action then undo
    out = con.run(action)
    assert not answer(out), out
    done = settings(con)
    for cmd in undo:
        con.run(cmd)
    mark(con)
    before, mem = state(con), memory(con)
    survived = []
    for n in range(1, MAX_ALLOCS):
        con.run(f"echo {n} > /proc/self/fail-nth")
        out = con.run(action)
        left = re.findall(r"^(\d+)$", con.run("cat /proc/self/fail-nth"), re.M)[-1]
        if left != "0":
            con.run("echo 0 > /proc/self/fail-nth")
            assert not answer(out), f"N={n}: the action failed with nothing injected: {out!r}"
            for cmd in undo:
                con.run(cmd)
            assert diff(mem, memory(con)) == {}, "a successful action then undo leaked"
            return n - 1, survived
        if answer(out):
            assert answer(out) == f"echo: write error: {ENOMEM}", f"N={n}: {out!r}"
            assert diff(before, state(con)) == {}, f"N={n}: a failed `{action}` changed state"
            assert diff(mem, memory(con)) == {}, f"N={n}: a failed `{action}` leaked"
        else:
            survived.append(n)
            assert diff(done, settings(con)) == {}, f"N={n}: `{action}` survived a failure, but not whole"
            for cmd in undo:
                con.run(cmd)
            assert diff(mem, memory(con)) == {}, f"N={n}: `{action}` survived a failure, then undo leaked"
            mark(con)
            before = state(con)
    pytest.fail(f"`{action}` made more than {MAX_ALLOCS} allocations")


@pytest.mark.parametrize("name,setup,action,undo", CASES, ids=[c[0] for c in CASES])
def test_walk(fi, name, setup, action, undo):
    for cmd in TEARDOWN + setup:
        fi.run(cmd)
    allocs, survived = walk(fi, action, undo)
    print(f"WALK {name}: {allocs} allocations, survived {survived}")
    assert allocs > 0 or name in NO_ALLOC, f"`{action}` allocates nothing: the walk tested nothing"


# Writes that change nothing: each must make no allocation at all (fail-nth still armed after it), so that turning
# off what is off, or emptying what is empty, cannot fail for memory.
NO_CHANGE = ["echo 0 > func_hits", "echo > set_ftrace_filter", "echo > set_ftrace_notrace",
             "echo 0 > events/sched/filter", "echo 0 > events/sched/sched_switch/filter"]


def test_writes_that_change_nothing_allocate_nothing(fresh_console):
    """A machine where none of these was ever on: func_hits has never allocated its counters."""
    con = fresh_console
    for cmd in NO_CHANGE:
        con.run("echo 1 > /proc/self/fail-nth")
        out = con.run(cmd)
        left = con.run("cat /proc/self/fail-nth")
        con.run("echo 0 > /proc/self/fail-nth")
        assert (answer(out), left) == ("", "1"), f"`{cmd}` changed nothing but allocated: {out!r}, fail-nth {left}"


# ---------------------------------------------------------------------------------------------------------------
# The knobs themselves: Linux's defaults, bad input refused, and a probability that replays from its seed.
# ---------------------------------------------------------------------------------------------------------------

DEBUG = "/sys/kernel/debug"
DEFAULTS = {"probability": "0", "interval": "1", "times": "1", "space": "0", "verbose": "2"}   # Linux's
BAD = {"probability": "101", "interval": "0", "times": "-2", "space": "-1", "verbose": "3", "seed": "x"}


def knob(con, attr, name):
    return con.run(f"cat {DEBUG}/{attr}/{name}").strip()


def test_knobs_defaults_and_bad_input(fresh_console):
    con = fresh_console
    for attr in ("failslab", "fail_page_alloc", "fail_execmem"):
        for name, value in DEFAULTS.items():
            assert knob(con, attr, name) == value, (attr, name)
        for name, value in BAD.items():
            before = knob(con, attr, name)
            assert con.run(f"echo {value} > {DEBUG}/{attr}/{name}") == "echo: write error: Invalid argument"
            assert knob(con, attr, name) == before
    assert con.run("echo -1 > /proc/self/fail-nth") == "echo: write error: Invalid argument"
    assert con.run("cat /proc/self/fail-nth").strip() == "0"


def set_attr(con, attr, **values):
    for name, value in values.items():
        con.run(f"echo {value} > {DEBUG}/{attr}/{name}")


FILTER_WRITE = "echo 'sched* k*' > set_ftrace_filter"  # dozens of hash allocations


def outcomes(con, runs):
    got = []
    for _ in range(runs):
        got.append("ok" if con.run(FILTER_WRITE) == "" else "ENOMEM")
        con.run("echo > set_ftrace_filter")
    return got


def test_times_then_off(fi):
    """probability 100, times 2: exactly two allocations fail, then times reads 0 and nothing else does."""
    injected = int(knob(fi, "failslab", "injected"))
    set_attr(fi, "failslab", probability=100, interval=1, times=2)
    got = [answer(fi.run("echo 'sched*' > set_ftrace_filter")) for _ in range(3)]
    fi.run("echo > set_ftrace_filter")
    assert got == [f"echo: write error: {ENOMEM}"] * 2 + [""]
    assert knob(fi, "failslab", "times") == "0"
    assert int(knob(fi, "failslab", "injected")) == injected + 2
    set_attr(fi, "failslab", probability=0, times=1)


def test_probability_replays_from_its_seed(fi):
    """A seeded probability gives the same run of failures twice (no clock, no hardware randomness)."""
    set_attr(fi, "failslab", probability=5, interval=1, times=-1, seed=12345)
    first = outcomes(fi, 8)
    set_attr(fi, "failslab", seed=12345)
    second = outcomes(fi, 8)
    set_attr(fi, "failslab", probability=0, times=1)
    assert first == second
    assert "ok" in first and "ENOMEM" in first, first       # 5% of dozens of allocations: some fail, not all


def test_interval_and_verbose(fi):
    """interval 3: only every third call may fail; verbose 1 says so in the log, as Linux's fail_dump()."""
    set_attr(fi, "failslab", probability=100, interval=3, times=1, verbose=1)
    out = fi.run(FILTER_WRITE)
    set_attr(fi, "failslab", probability=0, interval=1, times=1, verbose=0)
    fi.run("echo > set_ftrace_filter")
    assert "FAULT_INJECTION: forcing a failure." in out
    assert "name failslab, interval 3, probability 100, space 0, times 1" in out
    assert out.endswith(f"echo: write error: {ENOMEM}")


def test_trampoline_page_cannot_be_allocated(fi):
    """fail_execmem: the function tracer gets no private trampoline, says so, and traces through the shared one."""
    for cmd in TEARDOWN:
        fi.run(cmd)
    fi.run("echo kfree > set_ftrace_filter")
    set_attr(fi, "fail_execmem", probability=100, times=1)
    out = fi.run("echo function > current_tracer")
    assert "ftrace: no trampoline for global_ops (-12): using the shared callers" in out
    assert knob(fi, "fail_execmem", "times") == "0"
    assert fi.run("cat current_tracer") == "function"
    enabled = fi.run("cat enabled_functions")
    assert enabled.startswith("kfree (1)") and "tramp:" not in enabled, enabled
    fi.run("echo kfree > set_ftrace_filter")        # a filter write frees the hash it replaces
    assert re.search(r"\bkfree <-", fi.run("cat trace")), "nothing traced without a trampoline"
    fi.run("echo nop > current_tracer")
    fi.run("echo > set_ftrace_filter")
    set_attr(fi, "fail_execmem", times=1, probability=0)


def test_corrupted_site_is_reported_and_survived(fresh_console):
    """A site's bytes changed behind ftrace's back: enabling it is an ftrace_bug, the site and ftrace are left
    alone, and the kernel (and the corrupted function) keep running."""
    con = fresh_console
    assert con.run("fault site demo_greeting") == ""
    assert con.run("dis demo_greeting 5").split("\n")[1].endswith("90 90 90 90 90")
    with con.disable_check("ftrace_bug") as seen:
        out = con.run("echo function > current_tracer")
    assert seen.hits, "no ftrace bug report"
    assert "demo_greeting+0x0/" in out and "actual:   90:90:90:90:90" in out, out
    assert "ftrace: code changes disabled until reboot" in out
    assert answer(out) == "echo: write error: Invalid argument"
    assert con.run("dis demo_greeting 5").split("\n")[1].endswith("90 90 90 90 90")     # left as found
    assert "Hello from ftrace-os" in con.run("greet")                                      # still runs
    assert con.run("echo function > current_tracer") == "echo: write error: No such device"
    assert "sh" in con.run("ps")


# ---------------------------------------------------------------------------------------------------------------
# Tracer switches hold no more memory after the first round: what stays is a cache of fixed size, not a leak.
# ---------------------------------------------------------------------------------------------------------------

SWITCH_ROUND = ["echo function > current_tracer", "echo 1 > function_profile_enabled",
                "echo 1 > /proc/sys/kernel/stack_tracer_enabled", "echo 0 > function_profile_enabled",
                "echo function_graph > current_tracer", "echo 0 > /proc/sys/kernel/stack_tracer_enabled",
                "echo nop > current_tracer"]


def test_switches_hold_no_more_memory(fi):
    for cmd in TEARDOWN + SWITCH_ROUND:
        fi.run(cmd)                                  # the first round makes the caches
    before = memory(fi)
    before["Execmem"] = re.search(r"^Execmem:\s+(\d+) kB", fi.run("cat /proc/meminfo"), re.M).group(1)
    for _ in range(10):
        for cmd in SWITCH_ROUND:
            assert fi.run(cmd) == "", cmd
    after = memory(fi)
    after["Execmem"] = re.search(r"^Execmem:\s+(\d+) kB", fi.run("cat /proc/meminfo"), re.M).group(1)
    assert diff(before, after) == {}
