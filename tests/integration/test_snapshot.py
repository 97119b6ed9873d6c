"""tests/integration/test_snapshot.py: the snapshot (max) buffer, Linux's max_tr: the snapshot file's 0/1/2
semantics and help, per_cpu/cpuN/snapshot, the snapshot event trigger with a count, the snapshot function
command, switching tracers and resizing with a snapshot allocated; on 4 CPUs under load, every site verified
after."""

import re

SMP = 4
EINVAL = "echo: write error: Invalid argument"
EBUSY = "echo: write error: Device or resource busy"
FREED = "# * Snapshot is freed *"
ALLOCATED = "# * Snapshot is allocated *"


def events(text, what):
    """The lines of a trace (or snapshot) that record `what`."""
    return [l for l in text.splitlines() if not l.startswith("#") and what in l]


def marker(console, text):
    assert console.run("echo %s > trace_marker" % text) == ""


def verify_sites(console):
    out = console.run("cat verify_sites", timeout=60)
    assert re.search(r"^ftrace sites: \d+ checked, \d+ calling ftrace: ok$", out, re.M), out
    assert "ftrace_bug reports: 0, jump label bugs: 0" in out, out


def test_snapshot_file_help_when_freed(console):
    out = console.run("cat snapshot").splitlines()
    assert out[:6] == ["# tracer: nop", "#", "#", FREED, "#", "# Snapshot commands:"]
    assert out[6] == "# echo 0 > snapshot : Clears and frees snapshot buffer"
    assert out[-1] == "#                       is not a '0' or '1')"
    cpu = console.run("cat per_cpu/cpu1/snapshot").splitlines()
    assert cpu[6] == "# echo 0 > snapshot : Invalid for per_cpu snapshot file."


def test_echo_1_swaps_the_live_buffer_in(console):
    marker(console, "before-snapshot")
    assert console.run("echo 1 > snapshot") == ""
    snap = console.run("cat snapshot")
    assert len(events(snap, "before-snapshot")) == 1, snap
    assert snap.splitlines()[0] == "# tracer: nop"
    assert re.search(r"^# entries-in-buffer/entries-written: 1/1   #P:4$", snap, re.M), snap
    # The live buffer got the max buffer's (empty) pages: the marker is no longer there.
    assert events(console.run("cat trace"), "before-snapshot") == []
    marker(console, "after-snapshot")
    # A second swap brings the first snapshot back into the live buffer: a swap, not a copy.
    assert console.run("echo 1 > snapshot") == ""
    assert len(events(console.run("cat snapshot"), "after-snapshot")) == 1
    assert len(events(console.run("cat trace"), "before-snapshot")) == 1


def test_echo_2_clears_and_0_frees(console):
    marker(console, "kept")
    console.run("echo 1 > snapshot")
    assert events(console.run("cat snapshot"), "kept")
    assert console.run("echo 2 > snapshot") == ""
    out = console.run("cat snapshot").splitlines()
    assert out[3] == ALLOCATED, out
    assert console.run("echo 7 > snapshot") == ""      # any number but 0 and 1 clears
    assert console.run("echo 0 > snapshot") == ""
    assert console.run("cat snapshot").splitlines()[3] == FREED
    assert console.run("echo 2 > snapshot") == ""      # clearing a freed snapshot allocates nothing
    assert console.run("cat snapshot").splitlines()[3] == FREED


def test_bad_writes_change_nothing(console):
    marker(console, "stays")
    console.run("echo 1 > snapshot")
    for bad in ["x", "-1", "1x", ""]:
        assert console.run("echo '%s' > snapshot" % bad) == EINVAL, bad
    assert console.run("echo 0 > per_cpu/cpu0/snapshot") == EINVAL
    assert len(events(console.run("cat snapshot"), "stays")) == 1


def test_per_cpu_snapshot_swaps_one_cpu(console):
    console.run("echo 1 > events/sched/sched_switch/enable")
    console.run("run spin 1-3 1")
    console.run("selftest timer_ticks")
    console.run("echo 0 > events/sched/sched_switch/enable")
    assert console.run("echo 1 > per_cpu/cpu2/snapshot") == ""
    snap = console.run("cat snapshot")
    cpus = {int(m) for m in re.findall(r"^\s*\S.*?\[(\d{3})\]", snap, re.M)}
    assert cpus == {2}, snap[-2000:]
    assert events(console.run("cat per_cpu/cpu2/snapshot"), "sched_switch")
    assert events(console.run("cat per_cpu/cpu1/trace"), "sched_switch")
    assert events(console.run("cat per_cpu/cpu2/trace"), "sched_switch") == []
    assert console.run("echo 5 > per_cpu/cpu2/snapshot") == ""
    assert console.run("cat per_cpu/cpu2/snapshot").splitlines()[3] == ALLOCATED


def test_snapshot_trigger_with_a_count(console):
    trig = "events/sched/sched_switch/trigger"
    # A trigger fires even with its event off (soft mode, as Linux): a count no task switch can spend
    # shows the listing and the allocation at registration (Linux's register_snapshot_trigger()).
    assert console.run("echo 'snapshot:2 if next_pid == 99999' > %s" % trig) == ""
    assert console.run("cat %s" % trig) == "snapshot:count=2 if next_pid == 99999"
    assert console.run("cat snapshot").splitlines()[3] == ALLOCATED
    console.run("echo 1 > events/sched/sched_switch/enable")
    assert console.run("echo 'snapshot:2' > %s" % trig) == ""
    console.poll("cat %s" % trig, lambda out: out == "snapshot:count=0")
    console.run("echo 0 > events/sched/sched_switch/enable")
    assert events(console.run("cat snapshot"), "sched_switch")
    assert console.run("echo '!snapshot' >> %s" % trig) == ""
    assert console.run("cat %s" % trig).startswith("# Available triggers:")


def test_snapshot_trigger_with_a_filter(console):
    trig = "events/sched/sched_switch/trigger"
    assert console.run("echo 'snapshot if next_pid == 99999' > %s" % trig) == ""
    assert console.run("cat %s" % trig) == "snapshot:unlimited if next_pid == 99999"
    console.run("echo 1 > events/sched/sched_switch/enable")
    console.run("selftest timer_ticks")
    console.run("echo 0 > events/sched/sched_switch/enable")
    assert console.run("cat snapshot").splitlines()[3] == ALLOCATED   # allocated, never taken
    assert console.run("echo > %s" % trig) == ""


def test_snapshot_function_command(console):
    assert console.run("echo 'vfs_close:snapshot:1' >> set_ftrace_filter") == ""
    assert "vfs_close:snapshot:count=1" in console.run("cat set_ftrace_filter").splitlines()
    assert console.run("cat snapshot").splitlines()[3] == ALLOCATED
    marker(console, "before-vfs-close")
    console.run("run fs 1 1")
    console.poll("cat set_ftrace_filter", lambda out: "vfs_close:snapshot:count=0" in out)
    assert len(events(console.run("cat snapshot"), "before-vfs-close")) == 1
    assert console.run("echo '!vfs_close:snapshot' >> set_ftrace_filter") == ""
    assert console.run("echo 'vfs_close:snapshot:x' >> set_ftrace_filter") == EINVAL


def test_snapshot_function_command_in_an_instance(console):
    """The command swaps the buffers of the array it was written in, as Linux's ftrace_snapshot()."""
    console.run("mkdir instances/snap")
    try:
        assert console.run("echo 'vfs_close:snapshot:1' >> instances/snap/set_ftrace_filter") == ""
        assert console.run("cat instances/snap/snapshot").splitlines()[3] == ALLOCATED
        assert console.run("cat snapshot").splitlines()[3] == FREED
        console.run("echo in-the-instance > instances/snap/trace_marker")
        console.run("run fs 1 1")
        console.poll("cat instances/snap/set_ftrace_filter", lambda out: "vfs_close:snapshot:count=0" in out)
        assert len(events(console.run("cat instances/snap/snapshot"), "in-the-instance")) == 1
        assert console.run("cat snapshot").splitlines()[3] == FREED
    finally:
        console.run("echo '!vfs_close:snapshot' >> instances/snap/set_ftrace_filter")
        console.run("rmdir instances/snap")


def test_trigger_without_buffer_says_so(console):
    """The function command allocates at registration; freeing the buffer after makes the next
    snapshot say so in the trace and stop tracing, as Linux's tracing_snapshot_instance()."""
    # fs_iteration: only the fs workload calls it, so nothing the shell does between the two writes
    # can spend the command's one use while the buffer is still there.
    console.run("echo 'fs_iteration:snapshot:1' >> set_ftrace_filter")
    console.run("echo 0 > snapshot")
    console.run("run fs 1 1")
    console.poll("cat tracing_on", lambda out: out == "0")
    trace = console.run("cat trace")
    assert "*** SNAPSHOT NOT ALLOCATED ***" in trace and "*** stopping trace here!   ***" in trace
    console.run("echo '!fs_iteration:snapshot' >> set_ftrace_filter")


def test_tracer_switch_and_resize_keep_the_snapshot_usable(console):
    marker(console, "nop-era")
    console.run("echo 1 > snapshot")
    assert console.run("echo function > current_tracer") == ""
    assert len(events(console.run("cat snapshot"), "nop-era")) == 1   # kept across the switch
    console.run("echo nop > current_tracer")
    assert console.run("echo 128 > buffer_size_kb") == ""
    assert console.run("cat per_cpu/cpu3/buffer_size_kb") == "128"
    marker(console, "after-resize")
    assert console.run("echo 1 > snapshot") == ""
    assert len(events(console.run("cat snapshot"), "after-resize")) == 1
    console.run("echo 64 > buffer_size_kb")


def test_swaps_under_load_on_four_cpus(console):
    """Swaps while three CPUs write function events as fast as they can: every swap either takes
    or is refused whole, the snapshot always reads back, and every call site is intact after."""
    console.run("echo 'vfs_* hash_*' > set_ftrace_filter")
    console.run("echo function > current_tracer")
    pids = re.findall(r"^\[(\d+)\]", console.run("run fs 1-3") + "\n" + console.run("run hash 1-3"), re.M)
    for i in range(10):
        assert console.run("echo 1 > snapshot") == "", i
        snap = console.run("cat snapshot")
        assert snap.startswith("# tracer: function"), snap[:200]
        assert not events(snap, "[LINE TOO BIG]")
    console.run("kill " + " ".join(pids))
    console.run("echo nop > current_tracer")
    verify_sites(console)
