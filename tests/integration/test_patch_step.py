"""tests/integration/test_patch_step.py: one ftrace site change held between the steps of the int3 protocol.

/sys/kernel/tracing/patch_step (ours) prepares `stress_target on` (NOP -> call of the ops's trampoline) while
the spin workload runs stress_target() on CPUs 1-3; each `next` runs one step.  The tests read the site with
`dis` after every step, check that CPUs trapping on the int3 are emulated while the patch is held, abort at
every step and compare the site with its original bytes, and check that bad input and a second patch are
refused without changing anything.  `FUNC on stop_machine` is the same change written by one rendezvous:
held before it, then shown CPU by CPU once it is over.
"""

import re

import pytest

from tests.integration.test_smp import start

SMP = 4
EINVAL = "echo: write error: Invalid argument"
EBUSY = "echo: write error: Device or resource busy"
STEP = "/sys/kernel/tracing/patch_step"
FUNC = "stress_target"
NOP5 = ["0f", "1f", "44", "00", "00"]


def site(console):
    """The 5 bytes at FUNC's fentry site, as `dis FUNC 5` prints them."""
    lines = console.run("dis %s 5" % FUNC).splitlines()[1:]
    out = []
    for l in lines:
        m = re.match(r"^[0-9a-f]+:  ((?:[0-9a-f]{2} )+)", l + " ")
        assert m, lines
        out += m.group(1).split()
    assert len(out) == 5, lines
    return out


def state(console):
    """cat patch_step as {field: value}."""
    out = {}
    for line in console.run("cat " + STEP).splitlines():
        key, _, value = line.partition(": ")
        out[key] = value
    return out


def write(console, text):
    return console.run("echo '%s' > %s" % (text, STEP)).strip()


def emulations(console):
    return int(state(console)["int3 emulations"])


def emulations_grow(console):
    """Do the emulations climb while the patch is held?  Reads cat a few times: no timing assumed."""
    e0 = emulations(console)
    return any(emulations(console) > e0 for _ in range(20))


@pytest.fixture(scope="module")
def spinning(console):
    """The spin workload on CPUs 1-3 for the whole module: other CPUs keep running FUNC."""
    pids = start(console, "run spin 1-3")
    yield console
    console.run("kill " + " ".join(str(p) for p, _ in pids))


def forward(console, steps):
    """Prepare `FUNC on` and run `steps` steps of it."""
    assert write(console, FUNC + " on") == ""
    for _ in range(steps):
        assert write(console, "next") == ""
    assert int(state(console)["state"].split()[0]) == steps


def test_bad_input_is_refused_and_changes_nothing(spinning):
    c = spinning
    before = state(c)
    for text in ("garbage", "next", "nosuchfunction on", FUNC + " sideways", FUNC + " on stop_the_world",
                 FUNC + " on breakpoint now", "stress_target off", "text_poke_bp_batch on"):
        assert write(c, text) == EINVAL, text
    assert state(c) == before
    assert site(c) == NOP5


def test_each_step_writes_what_the_protocol_says(spinning):
    c = spinning
    assert site(c) == NOP5
    forward(c, 0)
    s = state(c)
    assert s["function"].startswith(FUNC + " at 0x")
    assert s["method"] == "breakpoint"
    assert s["next"].startswith("step 1:")
    assert site(c) == NOP5 and s["site"].split() == NOP5

    assert write(c, "next") == ""
    one = site(c)
    assert one == ["cc"] + NOP5[1:]
    s = state(c)
    assert s["site"].split() == one and s["synced CPUs"].startswith("step 1: 4,")
    # Other CPUs still call FUNC: they trap, and the handler emulates the new call.
    assert emulations_grow(c)

    assert write(c, "next") == ""
    two = site(c)
    assert two[0] == "cc" and two[1:] != NOP5[1:]
    assert emulations_grow(c)
    assert int(state(c)["calls into patch_step ops"]) > 0

    assert write(c, "next") == ""
    three = site(c)
    assert three == ["e8"] + two[1:]
    s = state(c)
    assert s["state"] == "3 of 3 steps done" and s["synced CPUs"] == "step 1: 4, step 2: 4, step 3: 4"
    assert FUNC in c.run("cat /sys/kernel/tracing/enabled_functions")
    assert write(c, "next") == EINVAL

    # Off, stepped the same way, back to the NOP.
    assert write(c, FUNC + " off") == ""
    assert write(c, "next") == ""
    assert site(c) == ["cc"] + three[1:]
    assert write(c, "next") == ""
    assert site(c) == ["cc"] + NOP5[1:]
    assert write(c, "next") == ""
    assert site(c) == NOP5
    assert c.run("cat /sys/kernel/tracing/enabled_functions").strip() == ""


@pytest.mark.parametrize("steps", [0, 1, 2, 3])
def test_abort_restores_the_original_bytes(spinning, steps):
    c = spinning
    assert site(c) == NOP5
    forward(c, steps)
    assert write(c, "abort") == ""
    assert site(c) == NOP5
    s = state(c)
    assert s["state"] == "aborted after step %d, old bytes restored" % steps
    assert c.run("cat /sys/kernel/tracing/enabled_functions").strip() == ""
    assert write(c, "abort") == EINVAL
    assert write(c, "next") == EINVAL
    assert site(c) == NOP5


# A rendezvous is one step: the only point to abort it at is before it.
@pytest.mark.parametrize("method,steps", [("breakpoint", 0), ("breakpoint", 1), ("breakpoint", 2),
                                          ("stop_machine", 0)])
def test_abort_of_an_off_keeps_the_call(spinning, method, steps):
    """Unregister steered back before its commit: the ops stays live, its trampoline kept and called."""
    c = spinning
    forward(c, 3)
    call = site(c)
    assert write(c, "%s off %s" % (FUNC, method)) == ""
    for _ in range(steps):
        assert write(c, "next") == ""
    assert write(c, "abort") == ""
    assert site(c) == call
    s = state(c)
    assert s["state"] == "aborted after step %d, old bytes restored" % steps
    assert c.run("cat /sys/kernel/tracing/enabled_functions").startswith(FUNC + " (1)")
    calls = int(s["calls into patch_step ops"])
    assert any(int(state(c)["calls into patch_step ops"]) > calls for _ in range(20))
    # And a real off still works afterwards.
    assert write(c, FUNC + " off") == ""
    for _ in range(3):
        assert write(c, "next") == ""
    assert site(c) == NOP5
    assert c.run("cat /sys/kernel/tracing/enabled_functions").strip() == ""


RENDEZVOUS_ROW = re.compile(r"^ +(\d) +(\d) +(\d+) +(\d+) +(\d+) +(\d+)  (\w+)\+0x[0-9a-f]+/0x[0-9a-f]+( \(wrote the site\))?$")


def test_stop_machine_is_one_step_and_shows_the_rendezvous(spinning):
    c = spinning
    assert write(c, FUNC + " on stop_machine") == ""
    s = state(c)
    assert s["method"] == "stop_machine" and s["state"] == "0 of 1 steps done"
    assert s["rendezvous"] == "not yet" and s["next"].startswith("step 1: stop_machine")
    assert site(c) == NOP5
    assert write(c, "next") == ""
    new = site(c)
    assert new[0] == "e8"
    lines = c.run("cat " + STEP).splitlines()
    s = state(c)
    assert s["state"] == "1 of 1 steps done" and s["next"].startswith("none")
    assert re.fullmatch(r"4 CPUs, CPU (\d) wrote the site", s["rendezvous"])
    writer = int(re.search(r"CPU (\d) wrote", s["rendezvous"]).group(1))
    head = lines.index(" CPU arrived   arrive irqs_off      run    leave  stopped at")
    rows = [RENDEZVOUS_ROW.match(l) for l in lines[head + 1:head + 5]]
    assert all(rows), lines
    assert sorted(int(r.group(1)) for r in rows) == [0, 1, 2, 3]
    assert sorted(int(r.group(2)) for r in rows) == [1, 2, 3, 4]        # each arrived once
    for r in rows:
        acks = [int(r.group(i)) for i in range(3, 7)]
        assert acks == sorted(acks), r.group(0)                        # the states in order
        assert bool(r.group(8)) == (int(r.group(1)) == writer), r.group(0)
    assert rows[[int(r.group(1)) for r in rows].index(writer)].group(7) == "apply"  # text_patch's
    assert any(int(state(c)["calls into patch_step ops"]) > 0 for _ in range(20))  # the spinners call in
    # Back, the same way, then an abort before the rendezvous writes nothing.
    assert write(c, FUNC + " off stop_machine") == "" and write(c, "next") == ""
    assert site(c) == NOP5
    assert write(c, FUNC + " on stop_machine") == "" and write(c, "abort") == ""
    assert site(c) == NOP5 and state(c)["state"] == "aborted after step 0, old bytes restored"
    assert c.run("cat /sys/kernel/tracing/enabled_functions").strip() == ""


def test_a_second_update_while_held_is_busy(spinning):
    c = spinning
    forward(c, 1)
    held = state(c)
    assert write(c, "compute_fib on") == EBUSY
    assert write(c, FUNC + " on") == EBUSY
    for cmd in ("echo function > /sys/kernel/tracing/current_tracer",
                "echo compute_fib > /sys/kernel/tracing/set_ftrace_filter",
                "echo stop_machine > /sys/kernel/tracing/patch_method",
                "echo 1 > /proc/sys/kernel/jump_label_demo",
                "echo 1 > /sys/kernel/tracing/events/sched/sched_switch/enable",
                "echo 'p:sp " + FUNC + "' > /sys/kernel/tracing/kprobe_events",
                "echo 1 > /sys/kernel/tracing/function_profile_enabled",
                "echo 1 > /proc/sys/kernel/stack_tracer_enabled",
                "echo 1 > /sys/kernel/tracing/func_hits",
                "echo " + FUNC + " > /sys/kernel/tracing/direct_count",
                "echo demo_greeting > /sys/kernel/tracing/livepatch_enable",
                "echo traceon > /sys/kernel/tracing/events/sched/sched_switch/trigger"):
        assert c.run(cmd, timeout=30).strip() == EBUSY, cmd
    for cmd in ("selftest", "bench"):
        assert c.run(cmd, timeout=30).strip() == "%s: patch_step holds a patch: finish or abort it first" % cmd
    assert state(c)["site"] == held["site"] and site(c) == ["cc"] + NOP5[1:]
    assert write(c, "abort") == ""
    assert site(c) == NOP5
    # Free again: the same writers go through.
    assert c.run("echo function > /sys/kernel/tracing/current_tracer").strip() == ""
    assert c.run("echo nop > /sys/kernel/tracing/current_tracer").strip() == ""
    assert site(c) == NOP5
