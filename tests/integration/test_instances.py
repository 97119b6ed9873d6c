"""tests/integration/test_instances.py: instances/ as Linux has it: `mkdir instances/foo` makes a trace array with
its own buffer, tracer, filters and events beside the global one, neither seeing the other's configuration; an
event on in two instances is written to both; rmdir is refused while the instance is in use; bad requests change
nothing; and fifty instances made and removed under load on 4 CPUs give every byte back."""

import re

SMP = 4

FILES = ["available_tracers", "buffer_percent", "buffer_size_kb", "current_tracer", "error_log", "events/", "free_buffer",
         "options/", "per_cpu/", "set_event",
         "set_event_notrace_pid", "set_event_pid", "set_ftrace_filter", "set_ftrace_notrace", "set_ftrace_notrace_pid",
         "set_ftrace_pid", "snapshot", "timestamp_mode", "trace",
         "trace_clock", "trace_marker", "trace_options", "trace_pipe", "tracing_cpumask", "tracing_max_latency",
         "tracing_on"]
# "              fs-2       [001] .....     0.165064: vfs_open <-fs_iteration"
LINE = re.compile(r"^ *(?P<comm>.+?)-(?P<pid>\d+) +\[(?P<cpu>\d{3})\] (?P<flags>\S{5}) +(?P<ts>\d+\.\d{6}): "
                  r"(?P<rest>.*)$")
EINVAL = "echo: write error: Invalid argument"


def lines(console, path):
    """The event lines of a trace file, as (comm, rest) after the header."""
    out = console.run("cat " + path, timeout=120).splitlines()
    assert out[0].startswith("# tracer: "), out[:3]
    got = []
    for line in out:
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        assert m, "bad trace line in %s: %r" % (path, line)
        got.append((m.group("comm"), m.group("rest")))
    return got


def wait_workload(console, pid):
    console.poll("ps", lambda out: not re.search(r"^ *%d " % pid, out, re.M), timeout=120)


def start(console, workload, cpus, seconds):
    return int(re.match(r"^\[(\d+)\]", console.run("run %s %d %d" % (workload, cpus, seconds))).group(1))


def test_mkdir_makes_the_files_and_rmdir_removes_them(console):
    assert console.run("ls instances") == ""
    assert console.run("mkdir instances/foo") == ""
    assert console.run("ls instances") == "foo/"
    assert console.run("ls instances/foo").splitlines() == FILES
    assert console.run("ls instances/foo/per_cpu").splitlines() == ["cpu%d/" % c for c in range(SMP)]
    # A new instance starts as the global array did at boot, whatever the global one is now.
    console.run("echo 0 > tracing_on")
    assert console.run("cat instances/foo/current_tracer instances/foo/tracing_on instances/foo/buffer_size_kb") \
        == "nop\n1\n64"
    assert console.run("cat instances/foo/trace_options") == console.run("cat trace_options")
    assert console.run("cat instances/foo/set_ftrace_filter") == "#### all functions enabled ####"
    assert console.run("cat instances/foo/events/sched/sched_switch/enable") == "0"
    assert console.run("cat instances/foo/events/sched/sched_switch/id") == \
        console.run("cat events/sched/sched_switch/id")
    console.run("echo 1 > tracing_on")
    assert console.run("rmdir instances/foo") == ""
    assert console.run("ls instances") == ""
    assert console.run("cat instances/foo/trace") == "cat: instances/foo/trace: No such file or directory"


def test_bad_requests_change_nothing(console):
    console.run("mkdir instances/foo")
    assert console.run("mkdir instances/foo") == "mkdir: cannot create directory 'instances/foo': File exists"
    assert console.run("mkdir events/foo") == "mkdir: cannot create directory 'events/foo': Operation not permitted"
    assert console.run("mkdir instances/foo/bar") == \
        "mkdir: cannot create directory 'instances/foo/bar': Operation not permitted"
    assert console.run("rmdir instances") == "rmdir: failed to remove 'instances': Operation not permitted"
    assert console.run("rmdir instances/bar") == "rmdir: failed to remove 'instances/bar': No such file or directory"
    assert console.run("rmdir instances/foo/trace") == "rmdir: failed to remove 'instances/foo/trace': Not a directory"
    assert console.run("echo nosuch > instances/foo/current_tracer") == EINVAL
    assert console.run("cat instances/foo/current_tracer") == "nop"
    assert console.run("echo 'nosuch_fn' > instances/foo/set_ftrace_filter") == EINVAL
    assert console.run("echo 'vfs_read:snapshot:x' > instances/foo/set_ftrace_filter") == EINVAL
    assert console.run("cat instances/foo/set_ftrace_filter") == "#### all functions enabled ####"
    assert console.run("echo nosuch:event > instances/foo/set_event") == EINVAL
    assert console.run("echo 2 > instances/foo/events/sched/sched_switch/enable") == EINVAL
    assert console.run("echo 7 > instances/foo/buffer_size_kb") == EINVAL
    assert console.run("cat instances/foo/set_event instances/foo/buffer_size_kb") == "64"
    assert console.run("ls instances") == "foo/"
    assert console.run("rmdir instances/foo") == ""


def test_rmdir_refused_while_in_use(console):
    console.run("mkdir instances/busy")
    console.run("cd instances/busy/per_cpu")
    assert console.run("rmdir ../../busy") == "rmdir: failed to remove '../../busy': Device or resource busy"
    console.run("cd /sys/kernel/tracing")
    assert console.run("ls instances") == "busy/"
    assert console.run("cat instances/busy/current_tracer") == "nop"
    # The files it had are all still there and work.
    assert console.run("ls instances/busy").splitlines() == FILES
    console.run("echo still-here > instances/busy/trace_marker")
    assert ("sh", "tracing_mark_write: still-here") in lines(console, "instances/busy/trace")
    assert console.run("rmdir instances/busy") == ""


def test_function_commands_in_an_instance(console):
    """An instance's set_ftrace_filter takes function commands of its own (Linux's tr->func_probes): traceoff
    turns the instance's tracing_on off, not the top one's; enable_event switches the instance's event, in
    soft mode (0*) meanwhile; rmdir takes them away."""
    console.run("mkdir instances/fc")
    assert console.run("echo 'vfs_read:traceoff' > instances/fc/set_ftrace_filter") == ""
    assert console.run("echo 'vfs_read:enable_event:kmem:kmalloc:1' >> instances/fc/set_ftrace_filter") == ""
    assert console.run("cat instances/fc/set_ftrace_filter").splitlines() == [
        "#### all functions enabled ####", "vfs_read:traceoff:unlimited",
        "vfs_read:enable_event:kmem:kmalloc:count=1"]
    assert console.run("cat set_ftrace_filter") == "#### all functions enabled ####"
    assert console.run("cat instances/fc/events/kmem/kmalloc/enable events/kmem/kmalloc/enable") == "0*\n0"
    pid = start(console, "fs", 1, 1)
    wait_workload(console, pid)
    assert console.run("cat instances/fc/tracing_on tracing_on") == "0\n1"
    assert console.run("cat instances/fc/events/kmem/kmalloc/enable events/kmem/kmalloc/enable") == "1*\n0"
    assert "vfs_read:enable_event:kmem:kmalloc:count=0" in console.run("cat instances/fc/set_ftrace_filter")
    assert console.run("echo '!vfs_*:enable_event:kmem:kmalloc' >> instances/fc/set_ftrace_filter") == ""
    assert console.run("cat instances/fc/events/kmem/kmalloc/enable") == "1"
    assert console.run("echo 'vfs_read:stacktrace' >> instances/fc/set_ftrace_filter") == ""
    assert console.run("rmdir instances/fc") == ""
    assert console.run("cat events/kmem/kmalloc/enable set_ftrace_filter") == "0\n#### all functions enabled ####"
    assert "probe_call" not in console.run("cat enabled_functions")


def test_event_fork_follows_children_in_an_instance(console):
    """An instance's options/event-fork makes its own set_event_pid follow a listed task's children (Linux's
    per-array event-fork); the top one's option and list are not involved."""
    console.run("mkdir instances/ef")
    try:
        assert console.run("echo 1 > instances/ef/set_event_pid") == ""
        assert console.run("echo 1 > instances/ef/events/sched/sched_process_exec/enable") == ""
        console.run("/bin/busybox true")
        assert "sched_process_exec" not in console.run("cat instances/ef/trace")
        assert console.run("echo 1 > instances/ef/options/event-fork") == ""
        assert console.run("cat options/event-fork set_event_pid") == "0"
        console.run("/bin/busybox true")
        execs = [(c, r) for c, r in lines(console, "instances/ef/trace") if r.startswith("sched_process_exec")]
        assert len(execs) == 1 and "filename=/bin/busybox" in execs[0][1], execs
        # The child left the list when it exited; the shell stays.
        assert console.run("cat instances/ef/set_event_pid") == "1"
    finally:
        console.run("rmdir instances/ef")


def test_instance_beside_global(console):
    """Each array records what it was set up for, from the same workload, and shows its own settings."""
    console.run("mkdir instances/foo")
    console.run("echo 'vfs_*' > instances/foo/set_ftrace_filter")
    assert console.run("echo function > instances/foo/current_tracer") == ""
    console.run("echo sched:sched_switch > instances/foo/set_event")
    console.run("echo 'path_lookup' > set_ftrace_filter")
    console.run("echo function > current_tracer")
    console.run("echo sched:sched_wakeup > set_event")
    assert console.run("cat set_ftrace_filter") == "path_lookup"
    assert console.run("cat set_event") == "sched:sched_wakeup"
    assert console.run("cat instances/foo/set_event") == "sched:sched_switch"
    assert console.run("cat events/sched/sched_switch/enable instances/foo/events/sched/sched_switch/enable") \
        == "0\n1"
    assert console.run("cat events/sched/sched_wakeup/enable instances/foo/events/sched/sched_wakeup/enable") \
        == "1\n0"
    assert console.run("cat events/sched/enable instances/foo/events/sched/enable") == "X\nX"
    assert set(console.run("cat instances/foo/set_ftrace_filter").split()) >= {"vfs_open", "vfs_read", "vfs_close"}
    console.run("echo hello-foo > instances/foo/trace_marker")
    console.run("echo hello-global > trace_marker")
    wait_workload(console, start(console, "fs", 1, 1))
    console.run("echo 0 > tracing_on")
    console.run("echo 0 > instances/foo/tracing_on")
    mine, theirs = lines(console, "instances/foo/trace"), lines(console, "trace")
    assert console.run("cat instances/foo/current_tracer current_tracer") == "function\nfunction"
    kinds = {rest.split(" ")[0] for _, rest in mine}
    assert {"vfs_open", "vfs_read", "vfs_close", "sched_switch:", "tracing_mark_write:"} <= kinds
    assert all(k.startswith("vfs_") or k in ("sched_switch:", "tracing_mark_write:") for k in kinds), kinds
    assert ("sh", "tracing_mark_write: hello-foo") in mine and ("sh", "tracing_mark_write: hello-global") not in mine
    kinds = {rest.split(" ")[0] for _, rest in theirs}
    assert {"path_lookup", "sched_wakeup:", "tracing_mark_write:"} <= kinds
    assert kinds <= {"path_lookup", "sched_wakeup:", "tracing_mark_write:"}, kinds
    assert ("sh", "tracing_mark_write: hello-global") in theirs
    # Emptying one leaves the other.
    console.run("echo > instances/foo/trace")
    assert lines(console, "instances/foo/trace") == [] and len(lines(console, "trace")) == len(theirs)
    console.run("echo nop > current_tracer")
    console.run("echo 1 > tracing_on")
    assert console.run("rmdir instances/foo") == ""
    assert console.run("cat set_ftrace_filter set_event") == "path_lookup\nsched:sched_wakeup"


def test_event_in_two_instances_writes_to_both(console):
    console.run("mkdir instances/a")
    console.run("mkdir instances/b")
    console.run("echo 1 > instances/a/events/sched/sched_switch/enable")
    console.run("echo sched_switch > instances/b/set_event")
    pid = start(console, "fs", 1, 1)
    wait_workload(console, pid)
    console.run("echo 0 > instances/a/tracing_on")
    console.run("echo 0 > instances/b/tracing_on")
    # Every switch to or from the workload, which ran between the two enables and the two stops, is in both.
    a = [rest for comm, rest in lines(console, "instances/a/trace") if "pid=%d " % pid in rest]
    b = [rest for comm, rest in lines(console, "instances/b/trace") if "pid=%d " % pid in rest]
    assert a and a == b
    assert console.run("cat set_event") == ""
    assert lines(console, "trace") == []
    # Off in one, still on in the other.
    console.run("echo 0 > instances/a/events/sched/sched_switch/enable")
    assert console.run("cat instances/a/set_event instances/b/set_event") == "sched:sched_switch"
    assert console.run("rmdir instances/a instances/b") == ""


def test_set_event_pid_and_per_cpu_in_an_instance(console):
    console.run("mkdir instances/p")
    pid = start(console, "spin", 1, 3)
    console.run("echo %d > instances/p/set_event_pid" % pid)
    console.run("echo 1 > instances/p/events/sched/sched_switch/enable")
    wait_workload(console, pid)
    console.run("echo 0 > instances/p/tracing_on")
    got = lines(console, "instances/p/trace")
    assert got and all("pid=%d " % pid in rest for _, rest in got)
    assert console.run("cat instances/p/set_event_pid") == str(pid)
    assert console.run("cat set_event_pid") == ""
    per_cpu = sum(len(lines(console, "instances/p/per_cpu/cpu%d/trace" % c)) for c in range(SMP))
    assert per_cpu == len(got)
    stats = console.run("cat instances/p/per_cpu/cpu1/stats")
    assert re.search(r"^entries: \d+$", stats, re.M)
    assert console.run("rmdir instances/p") == ""


def test_function_tracer_in_an_instance_uses_the_fast_trampoline(console):
    console.run("mkdir instances/f")
    console.run("echo compute_fib > instances/f/set_ftrace_filter")
    console.run("echo function > instances/f/current_tracer")
    enabled = console.run("cat enabled_functions")
    assert re.fullmatch(r"compute_fib \(1\) +\ttramp: 0x[0-9a-f]+ \(function_trace_call\+0x0/0x[0-9a-f]+\) "
                        r"->function_trace_call\+0x0/0x[0-9a-f]+", enabled), enabled
    pid = start(console, "compute", 1, 1)
    wait_workload(console, pid)
    got = lines(console, "instances/f/trace")
    assert got and all(rest.startswith("compute_fib <-") for _, rest in got)
    assert lines(console, "trace") == []
    console.send(b"cat instances/f/trace_pipe\r")
    console.wait_for(r"compute_fib <-", timeout=60)
    console.send(b"\x03")
    console.wait_for_prompt(timeout=60)
    assert console.run("rmdir instances/f") == ""
    assert console.run("cat enabled_functions") == ""


def memory(console):
    """MemFree, Slab and each size class's live objects, after cached empty slabs went back."""
    console.run("echo 3 > /proc/sys/vm/drop_caches")
    mem = dict(re.findall(r"^(MemFree|Slab|TraceBuffers):\s+(\d+) kB", console.run("cat /proc/meminfo"), re.M))
    for name, active in re.findall(r"^(kmalloc-\d+)\s+(\d+)", console.run("cat /proc/slabinfo"), re.M):
        mem[name] = active
    return mem


def test_fifty_instances_under_load_give_memory_back(console):
    names = ["load%d" % i for i in range(50)]
    batches = [" ".join(names[i:i + 10]) for i in range(0, 50, 10)]
    before = memory(console)
    pid = start(console, "compute", 3, 20)
    console.run("cd instances")
    for batch in batches:
        assert console.run("mkdir " + batch) == ""
    assert console.run("ls").split() == sorted(n + "/" for n in names)
    # Some of them busy while the others come and go: events, the function tracer, a marker.
    console.run("echo 1 > load7/events/sched/enable")
    console.run("echo compute_* > load9/set_ftrace_filter")
    console.run("echo function > load9/current_tracer")
    console.run("echo function > load10/current_tracer")
    console.run("echo hi > load11/trace_marker")
    console.poll("cat load9/trace", lambda out: "compute_" in out, timeout=120)
    assert int(re.search(r"TraceBuffers:\s+(\d+)", console.run("cat /proc/meminfo")).group(1)) \
        >= int(before["TraceBuffers"]) * 50
    for batch in batches:
        assert console.run("rmdir " + batch) == ""
    assert console.run("ls") == ""
    console.run("cd /sys/kernel/tracing")
    console.run("kill %d" % pid)
    wait_workload(console, pid)
    assert console.run("cat enabled_functions") == ""
    after = memory(console)
    # Exact: every size class's live objects and the trace buffers' pages. Slab and MemFree may keep up to
    # four pages of slack: a slab page one live object of someone else's (the shell's, a workload's)
    # shares with freed ones cannot go back, whatever the instances did.
    exact = {k: v for k, v in before.items() if k not in ("Slab", "MemFree")}
    assert {k: after.get(k) for k in exact} == exact, \
        {k: (before[k], after.get(k)) for k in exact if before[k] != after.get(k)}
    for k in ("Slab", "MemFree"):
        assert abs(int(after[k]) - int(before[k])) <= 16, (k, before[k], after[k])


def test_function_graph_in_an_instance(console):
    """As Linux 6.1 (graph_trace has no allow_instances): an instance neither lists function_graph nor runs it,
    EINVAL with nothing changed, while the top level still does."""
    console.run("mkdir instances/g")
    assert "function_graph" not in console.run("cat instances/g/available_tracers").split()
    assert "function_graph" in console.run("cat available_tracers").split()
    assert console.run("echo function_graph > instances/g/current_tracer") == EINVAL
    assert console.run("cat instances/g/current_tracer") == "nop"
    assert console.run("echo function_graph > current_tracer") == ""
    assert console.run("echo function_graph > instances/g/current_tracer") == EINVAL
    assert console.run("cat current_tracer") == "function_graph"
    console.run("echo nop > current_tracer")
    assert console.run("rmdir instances/g") == ""


def test_busybox_mkdir_rmdir_and_read_through_the_system_calls(console):
    """mkdir(2) and rmdir(2) reach instances/ as the shell's commands do; a program's read() of an instance's
    trace_pipe consumes that instance's buffer, not the global one's."""
    from tests.console import LOG_LINE

    def program(cmd):
        return [l for l in console.run(cmd, timeout=60).split("\n") if not re.match(LOG_LINE, l)]

    top = "/sys/kernel/tracing/instances"
    assert program("/bin/busybox mkdir %s/bb" % top) == [""]
    assert console.run("ls instances") == "bb/"
    assert console.run("ls instances/bb").splitlines() == FILES
    assert program("/bin/busybox mkdir %s/bb" % top) == ["mkdir: can't create directory '%s/bb': File exists" % top]
    console.run("echo > trace")
    console.run("echo in-bb > instances/bb/trace_marker")
    console.run("echo in-top > trace_marker")
    got = program("/bin/busybox head -n 1 %s/bb/trace_pipe" % top)
    assert len(got) == 1 and got[0].endswith("tracing_mark_write: in-bb"), got
    assert lines(console, "instances/bb/trace") == []        # consumed
    assert ("sh", "tracing_mark_write: in-top") in lines(console, "trace")
    console.run("cd instances/bb")
    assert program("/bin/busybox rmdir %s/bb" % top) == ["rmdir: '%s/bb': Device or resource busy" % top]
    console.run("cd /sys/kernel/tracing")
    assert program("/bin/busybox rmdir %s/bb" % top) == [""]
    assert console.run("ls instances") == ""
