"""tests/integration/test_spinlock.py: the spin locks are real functions, as Linux's kernel/locking/spinlock.c.

`_raw_spin_lock()` and its six siblings are listed in available_filter_functions, a glob finds them, and tracing
them with the function and function_graph tracers on 4 busy CPUs records the calls and leaves the kernel alive
(the tracer's own locks stay inline: kernel/spinlock.h). A `traceoff` probe on every lock function stops the
buffer the first time any lock is taken, as ftracetest's func_set_ftrace_file.tc relies on.
"""

import re

SMP = 4
T = "/sys/kernel/tracing"
LOCKS = ["_raw_spin_lock", "_raw_spin_lock_irqsave", "_raw_spin_lock_irq", "_raw_spin_unlock",
         "_raw_spin_unlock_irqrestore", "_raw_spin_unlock_irq", "_raw_spin_trylock"]


def available(console):
    return console.run("cat %s/available_filter_functions" % T).split("\n")


def busy(console):
    """Workloads on every CPU for a second, waited for: they take run-queue and allocator locks."""
    pids = re.findall(r"^\[(\d+)\] hash on CPU \d$", console.run("run hash all 1"), re.M)
    assert len(pids) == SMP, pids
    for pid in pids:
        console.poll("ps", lambda out: not re.search(r"^ *%s " % pid, out, re.M), timeout=120)


def test_lock_functions_are_traceable(console):
    funcs = set(available(console))
    for name in LOCKS + ["mutex_lock", "mutex_unlock", "mutex_trylock"]:
        assert name in funcs, name


def test_glob_selects_exactly_the_matching_functions(console):
    try:
        for glob, rx in (("*pin*lock", r".*pin.*lock$"), ("*try*lock", r".*try.*lock$"),
                         ("m*lock", r"^m.*lock$")):
            assert console.run("echo '%s' > %s/set_ftrace_filter" % (glob, T)) == ""
            got = console.run("cat %s/set_ftrace_filter" % T).split("\n")
            want = [f for f in available(console) if re.match(rx, f)]
            assert sorted(got) == sorted(want) and want, (glob, got, want)
    finally:
        console.run("echo > %s/set_ftrace_filter" % T)


def test_tracing_the_locks_on_busy_cpus(console):
    assert console.run("echo '_raw_spin*' > %s/set_ftrace_filter" % T) == ""
    try:
        for tracer in ("function", "function_graph"):
            console.run("echo > %s/trace" % T)
            assert console.run("echo %s > %s/current_tracer" % (tracer, T)) == ""
            busy(console)
            assert console.run("echo 0 > %s/tracing_on" % T) == ""   # a tracer change clears it
            trace = console.run("cat %s/trace" % T)
            assert console.run("echo nop > %s/current_tracer" % T) == ""
            assert console.run("echo 1 > %s/tracing_on" % T) == ""
            if tracer == "function":
                calls = re.findall(r"^ *\S+-\d+ +\[(\d{3})\] \S+ +[\d.]+: (\w+) <-\w+", trace, re.M)
            else:
                calls = re.findall(r"^ *(\d+)\)[^|]*\| +(\w+)\(\);", trace, re.M)
            names = {name for _, name in calls}
            assert {"_raw_spin_lock", "_raw_spin_unlock"} <= names, (tracer, names, trace[-2000:])
            assert names <= set(LOCKS + ["_raw_spin_lock_nested"]), names
            assert len({cpu for cpu, _ in calls}) > 1, (tracer, trace[-2000:])
    finally:
        console.run("echo nop > %s/current_tracer" % T)
        console.run("echo 1 > %s/tracing_on" % T)
        console.run("echo > %s/set_ftrace_filter" % T)
    assert re.search(r"\bsh$", console.run("ps"), re.M)


def test_traceoff_probe_on_every_lock(console):
    assert console.run("echo 1 > %s/tracing_on" % T) == ""
    try:
        assert console.run("echo '*lock*:traceoff' > %s/set_ftrace_filter" % T) == ""
        console.poll("cat %s/tracing_on" % T, lambda out: out == "0", timeout=60)
        probes = console.run("cat %s/set_ftrace_filter" % T)
        assert "_raw_spin_lock:traceoff:unlimited" in probes.split("\n"), probes
        assert console.run("echo '!*try*lock:traceoff' >> %s/set_ftrace_filter" % T) == ""
        assert "_raw_spin_trylock:traceoff" not in console.run("cat %s/set_ftrace_filter" % T)
    finally:
        console.run("echo '!*:traceoff' >> %s/set_ftrace_filter" % T)
        console.run("echo 1 > %s/tracing_on" % T)
    assert console.run("cat %s/set_ftrace_filter" % T) == "#### all functions enabled ####"
