"""tests/integration/test_dynevents.py: dynamic_events, the one file for every kind of dynamic event (Linux's
trace_dynevent.c): definitions of each kind listed in it and in the kind's own file, removal by `-:` and `!` with
Linux 6.1's matching (group, event, place, arguments), EBUSY for an enabled event, refused lines with the error_log
words kprobe_events uses; several probes on one event name, and their hits."""

import re

import pytest

from tests.integration.test_kprobe_events import (EBUSY, EEXIST, EINVAL, ENOENT, events, last_error,
                                                   run_workload)

ENODEV = "echo: write error: No such device"


@pytest.fixture(autouse=True)
def reset(console):
    yield
    for cmd in ("cd /sys/kernel/tracing", "echo 0 > events/enable", "echo > dynamic_events",
                "echo > error_log", "echo nop > current_tracer", "echo 1 > tracing_on", "echo > trace",
                "kill all"):
        console.run(cmd)
    assert console.run("cat dynamic_events") == ""


def dyn(console, line, append=True):
    out = console.run("echo '%s' %s dynamic_events" % (line, ">>" if append else ">"))
    assert out == "", "%s: %s" % (line, out)


def state(console):
    return {cmd: console.run(cmd) for cmd in ("cat dynamic_events", "cat kprobe_events", "ls events",
                                              "cat available_events", "cat kprobe_profile")}


def refused(console, line, said, loc, message, caret):
    """line written to dynamic_events is refused with said, logged as loc's message at caret, and changes
    nothing."""
    before = state(console)
    console.run("echo > error_log")
    assert console.run("echo '%s' >> dynamic_events" % line) == said
    assert last_error(console) == ("%s: error: %s" % (loc, message), line, caret)
    assert state(console) == before


def test_definitions_listed_in_both_files(console):
    dyn(console, "p:a vfs_read f=%di")
    console.run("echo 'r:grp/b vfs_read ret=$retval' >> kprobe_events")
    dyn(console, "p vfs_open")
    listing = ["p:kprobes/a vfs_read f=%di", "r10:grp/b vfs_read ret=$retval", "p:kprobes/p_vfs_open_0 vfs_open"]
    assert console.run("cat dynamic_events").splitlines() == listing
    assert console.run("cat kprobe_events").splitlines() == listing
    assert {"kprobes:a", "grp:b", "kprobes:p_vfs_open_0"} <= set(console.run("cat available_events").splitlines())
    # comments and blank lines, as Linux's trace_parse_run_command() takes them
    assert console.run("echo '  # nothing here' >> dynamic_events") == ""
    assert console.run("cat dynamic_events").splitlines() == listing


REMOVALS = [
    # (removal line, what stays of a, grp/b, c, and the second probe of a)
    ("-:a", ["r10:grp/b vfs_read ret=$retval", "p:kprobes/c vfs_open"]),
    ("!p:a", ["r10:grp/b vfs_read ret=$retval", "p:kprobes/c vfs_open"]),
    ("-:kprobes/a", ["r10:grp/b vfs_read ret=$retval", "p:kprobes/c vfs_open"]),
    ("-:grp/", ["p:kprobes/a vfs_read x=%di", "p:kprobes/c vfs_open", "p:kprobes/a vfs_close x=%di"]),
    ("-:kprobes/", ["r10:grp/b vfs_read ret=$retval"]),
    ("-:a vfs_close", ["p:kprobes/a vfs_read x=%di", "r10:grp/b vfs_read ret=$retval", "p:kprobes/c vfs_open"]),
    ("-:a vfs_read x=%di", ["r10:grp/b vfs_read ret=$retval", "p:kprobes/c vfs_open",
                            "p:kprobes/a vfs_close x=%di"]),
    ("!r:b", ["p:kprobes/a vfs_read x=%di", "p:kprobes/c vfs_open", "p:kprobes/a vfs_close x=%di"]),
]


@pytest.mark.parametrize("line,left", REMOVALS, ids=[r[0] for r in REMOVALS])
def test_removal_forms(console, line, left):
    for d in ("p:a vfs_read x=%di", "r:grp/b vfs_read ret=$retval", "p:c vfs_open", "p:a vfs_close x=%di"):
        dyn(console, d)
    dyn(console, line)
    assert console.run("cat dynamic_events").splitlines() == left


@pytest.mark.parametrize("line,said", [
    ("-:nosuch", ENOENT), ("-:a vfs_open", ENOENT), ("-:a vfs_read y=%di", ENOENT),
    ("-:a vfs_read x=%di z=%si", ENOENT), ("-:nogrp/", ENOENT), ("-:", EINVAL), ("-a", EINVAL), ("!a", EINVAL),
    ("x:bad vfs_read", EINVAL), ("p:bad", EINVAL), ("p", EINVAL)])
def test_removal_and_kinds_refused(console, line, said):
    dyn(console, "p:a vfs_read x=%di")
    before = state(console)
    console.run("echo > error_log")
    assert console.run("echo '%s' >> dynamic_events" % line) == said
    assert console.run("cat error_log") == ""      # removals and unknown kinds log nothing, as in Linux
    assert state(console) == before


def test_kprobe_events_takes_no_bang_form(console):
    dyn(console, "p:a vfs_read")
    assert console.run("echo '!p:a' >> kprobe_events") == EINVAL    # Linux: only dynamic_events knows `!`
    assert console.run("cat kprobe_events") == "p:kprobes/a vfs_read"


def test_removing_an_enabled_event_is_refused(console):
    dyn(console, "p:busy vfs_read")
    dyn(console, "p:busy vfs_open")
    dyn(console, "p:idle vfs_close")
    assert console.run("echo 1 > events/kprobes/busy/enable") == ""
    before = state(console)
    for line in ("-:busy", "-:busy vfs_open", "!p:busy", "-:kprobes/"):
        assert console.run("echo '%s' >> dynamic_events" % line) == EBUSY, line
    assert console.run("echo > dynamic_events") == EBUSY
    assert console.run("echo > kprobe_events") == EBUSY
    assert state(console) == before
    assert console.run("echo 0 > events/kprobes/busy/enable") == ""
    dyn(console, "-:busy vfs_open")                 # one probe of two: the event stays
    assert console.run("cat dynamic_events").splitlines() == ["p:kprobes/busy vfs_read", "p:kprobes/idle vfs_close"]
    assert "busy/" in console.run("ls events/kprobes").split()
    dyn(console, "-:busy")
    assert console.run("ls events/kprobes").split() == ["enable", "filter", "idle/"]


# The same bad lines as kprobe_events', through dynamic_events: the same words, at the same caret.
BAD = [
    ("p:bad no_such_function", ENOENT, "Invalid probed address or symbol", 6),
    ("p:bad vfs_read %zz", EINVAL, "Invalid register name", 15),
    ("p:bad vfs_read x=%di:u128", EINVAL, "Unknown type is specified", 21),
    ("r9999:bad vfs_read", EINVAL, "Maxactive is too big", 1),
    ("p:g-x/ev vfs_read", EINVAL, "Group name must follow the same rules as C identifiers", 2),
    ("p:sched/sched_switch vfs_read", EEXIST, "Given group/event name is already used by another event", 0),
    ("r:keep vfs_read", EEXIST, "Probe type is different from existing probe", 0),
    ("p:keep vfs_open y=%di", EEXIST, "Argument type or name is different from existing probe", 16),
    ("p:keep vfs_open x=%di x2=%si", EEXIST, "Argument type or name is different from existing probe", 22),
    ("p:keep vfs_read x=%di", EEXIST, "There is already the exact same probe event", 0),
]


@pytest.mark.parametrize("line,said,message,caret", BAD, ids=[b[0] for b in BAD])
def test_bad_definitions_log_as_kprobe_events_does(console, line, said, message, caret):
    dyn(console, "p:keep vfs_read x=%di")
    before = state(console)
    for f in ("dynamic_events", "kprobe_events"):
        assert console.run("echo > error_log") == ""
        assert console.run("echo '%s' >> %s" % (line, f)) == said
        assert last_error(console) == ("trace_kprobe: error: " + message, line, caret)
        assert state(console) == before


def test_several_probes_on_one_event(console):
    dyn(console, "p:two compute_square x=%di:u64")
    dyn(console, "p:two compute_sum_squares x=%di:u64")
    assert console.run("cat dynamic_events").splitlines() == [
        "p:kprobes/two compute_square x=%di:u64", "p:kprobes/two compute_sum_squares x=%di:u64"]
    assert console.run("cat kprobe_profile").split() == ["two", "0", "0", "two", "0", "0"]
    assert console.run("echo 1 > events/kprobes/two/enable") == ""
    # a probe appended while the event is on is armed at once
    dyn(console, "p:two compute_fib x=%di:u64")
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/kprobes/two/enable") == ""
    hits = {}
    for e in events(console, "two"):
        m = re.fullmatch(r"two: \((\w+)\+0x0/0x[0-9a-f]+\) x=(\d+)", e["rest"])
        assert m, e
        hits.setdefault(m[1], []).append(int(m[2]))
    assert sorted(set(hits["compute_square"])) == list(range(1, 17))
    assert set(hits["compute_sum_squares"]) == {16}
    assert 8 in hits["compute_fib"] and set(hits["compute_fib"]) <= set(range(0, 9))  # gcc may inline a leaf
    # per probe, every hit counted (the ring buffer may have wrapped: records are not counted)
    profile = console.run("cat kprobe_profile").split()
    assert profile[0::3] == ["two"] * 3
    square, sums, fib = [int(x) for x in profile[1::3]]
    assert sums > 0 and square == 16 * sums and fib >= sums
    # the first probe goes, the event and its format stay with the others
    fmt = console.run("cat events/kprobes/two/format")
    dyn(console, "-:two compute_square")
    assert console.run("cat events/kprobes/two/format") == fmt
    assert console.run("echo > trace") == ""
    assert console.run("echo 1 > events/kprobes/two/enable") == ""
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/kprobes/two/enable") == ""
    funcs = {re.match(r"two: \((\w+)\+", e["rest"])[1] for e in events(console, "two")}
    assert funcs == {"compute_sum_squares", "compute_fib"}


# --- the rest of kprobe_events' syntax: arrays, bitfields, symstr ------------------------------------------

TYPED = ("p:typed vfs_open head=+0(%si):u8[4] lo=+1(%si):b4@0/8 hi=+1(%si):b4@4/8 "
         "ev=@event_kmalloc:string[2] ip=%ip:symstr ret=+0($stack):symstr")


def test_arrays_bitfields_and_symstr_format(console):
    dyn(console, TYPED)
    assert console.run("cat kprobe_events") == TYPED.replace("p:typed", "p:kprobes/typed")
    ident = console.run("cat events/kprobes/typed/id")
    fields = [l for l in console.run("cat events/kprobes/typed/format").splitlines()
              if "field:" in l and "common_" not in l]
    assert fields == [
        "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;",
        "\tfield:u8 head[4];\toffset:16;\tsize:4;\tsigned:0;",
        "\tfield:u8 lo;\toffset:20;\tsize:1;\tsigned:0;",
        "\tfield:u8 hi;\toffset:21;\tsize:1;\tsigned:0;",
        "\tfield:__data_loc char[][2] ev;\toffset:22;\tsize:8;\tsigned:1;",
        "\tfield:__data_loc char[] ip;\toffset:30;\tsize:4;\tsigned:1;",
        "\tfield:__data_loc char[] ret;\toffset:34;\tsize:4;\tsigned:1;"]
    fmt = console.run("cat events/kprobes/typed/format").splitlines()[-1]
    assert fmt == ('print fmt: "(%lx) head={%u,%u,%u,%u} lo=%u hi=%u ev={\\"%s\\",\\"%s\\"} '
                   'ip=\\"%s\\" ret=\\"%s\\"", REC->__probe_ip, REC->head[0], REC->head[1], REC->head[2], '
                   'REC->head[3], REC->lo, REC->hi, __get_str(ev[0]), __get_str(ev[1]), '
                   '__get_str(ip), __get_str(ret)')
    assert ident


def test_arrays_bitfields_and_symstr_hits(console):
    dyn(console, TYPED)
    assert console.run("echo 1 > events/kprobes/typed/enable") == ""
    run_workload(console, "run fs 0 1")
    assert console.run("echo 0 > events/kprobes/typed/enable") == ""
    seen = set()
    paths = ["/etc/hostname", "/usr/lib/os-release", "/var/log/messages"]
    for e in events(console, "typed"):
        m = re.fullmatch(r'typed: \(vfs_open\+0x0/0x[0-9a-f]+\) head=\{(\d+),(\d+),(\d+),(\d+)\} lo=(\d+) '
                         r'hi=(\d+) ev=\{"(.*)","(.*)"\} ip="(vfs_open\+0x[0-9a-f]+/0x[0-9a-f]+)" '
                         r'ret="(fs_iteration\+0x[0-9a-f]+/0x[0-9a-f]+)"', e["rest"])
        assert m, e
        head = bytes(int(m[i]) for i in range(1, 5)).decode()
        path = [p for p in paths if p.startswith(head)]
        assert len(path) == 1, head
        second = ord(path[0][1])
        assert (int(m[5]), int(m[6])) == (second & 0xf, second >> 4)
        assert [m[7], m[8]] == ["kmalloc", "kmem"]    # event_kmalloc's name and system pointers
        seen.add(path[0])
    assert seen == set(paths)


ARG_ERRORS = [
    # (argument, message, caret from the argument's start)
    ("a=+0(%si):u8[4", "Array is not closed", 14),
    ("a=+0(%si):u8[4]x", "Array has wrong suffix", 15),
    ("a=+0(%si):u8[0]", "Invalid array size", 13),
    ("a=+0(%si):u8[65]", "Array number is too big", 13),
    ("a=%si:u8[2]", "String accepts only memory argument", 6),
    ("a=%si:b4@6/8", "Invalid bitfield", 6),
    ("a=%si:b0@0/8", "Invalid bitfield", 6),
    ("a=%si:b4@0/12", "Unknown type is specified", 6),
    ("a=$stack:symstr", "Symbol String doesn't accept data/userdata", 9),
]


@pytest.mark.parametrize("arg,message,caret", ARG_ERRORS, ids=[a[0] for a in ARG_ERRORS])
def test_typed_argument_errors(console, arg, message, caret):
    line = "p:bad vfs_open " + arg
    refused(console, line, EINVAL, "trace_kprobe", message, len("p:bad vfs_open ") + caret)


# --- eprobes ----------------------------------------------------------------------------------------------

ENODEV_ = "echo: write error: No such device"


def test_eprobe_definitions_listing_and_format(console):
    dyn(console, "e:sw sched.sched_switch prev=$prev_pid:s32 next=$next_comm:string")
    dyn(console, "e sched/sched_wakeup")
    dyn(console, "p:kp vfs_read")
    assert console.run("cat dynamic_events").splitlines() == [
        "e:eprobes/sw sched.sched_switch prev=$prev_pid:s32 next=$next_comm:string",
        "e:eprobes/sched_wakeup sched.sched_wakeup", "p:kprobes/kp vfs_read"]
    assert console.run("cat kprobe_events") == "p:kprobes/kp vfs_read"     # kprobes only
    assert console.run("ls events/eprobes").split() == ["enable", "filter", "sched_wakeup/", "sw/"]
    ident = console.run("cat events/eprobes/sw/id")
    assert console.run("cat events/eprobes/sw/format").splitlines() == [
        "name: sw", "ID: " + ident, "format:",
        "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;",
        "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;",
        "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;",
        "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;", "",
        "\tfield:s32 prev;\toffset:8;\tsize:4;\tsigned:1;",
        "\tfield:__data_loc char[] next;\toffset:12;\tsize:4;\tsigned:1;", "",
        'print fmt: " prev=%d next=\\"%s\\"", REC->prev, __get_str(next)']
    assert "eprobes:sw" in console.run("cat available_events").splitlines()


def test_eprobe_hits_match_their_base_records(console):
    dyn(console, "e:sw sched.sched_switch prev=$prev_pid:s32 next=$next_comm:string st=$prev_state:x64")
    assert console.run("echo 1 > events/eprobes/sw/enable") == ""
    assert console.run("cat events/sched/sched_switch/enable") == "0*"   # attached, in soft mode
    assert console.run("echo 0 > events/eprobes/sw/enable") == ""
    assert console.run("cat events/sched/sched_switch/enable") == "0"     # detached again
    # the base event on first and off last: every sw record has its base record before it
    assert console.run("echo > trace") == ""
    assert console.run("echo 1 > events/sched/sched_switch/enable") == ""
    assert console.run("echo 1 > events/eprobes/sw/enable") == ""
    run_workload(console, "run spin 0 1")
    assert console.run("echo 0 > events/eprobes/sw/enable") == ""
    assert console.run("echo 0 > events/sched/sched_switch/enable") == ""
    last = {}
    pairs = 0
    for e in events(console):
        if e["rest"].startswith("sched_switch: "):
            last[e["cpu"]] = re.search(r"prev_pid=(\d+) .* next_comm=(\S+) ", e["rest"]).groups()
        elif e["rest"].startswith("sw: "):
            m = re.fullmatch(r'sw: \(sched\.sched_switch\) prev=(-?\d+) next="(.*)" st=0x[0-9a-f]+', e["rest"])
            assert m, e
            assert last.pop(e["cpu"]) == (m[1], m[2])    # the base record just before, on that CPU
            pairs += 1
    assert pairs > 0


def test_eprobe_fields_strings_dereferences_and_if(console):
    dyn(console, "e:it workload.workload_iteration n=$name:string c=+0($name):u8 tail=+1($name):string "
                 "i=$iteration:u64 who=$comm:string if iteration > 2")
    assert console.run("echo 1 > events/eprobes/it/enable") == ""
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/eprobes/it/enable") == ""
    its = []
    for e in events(console, "it"):
        m = re.fullmatch(r'it: \(workload\.workload_iteration\) n="compute" c=99 tail="ompute" i=(\d+) '
                         r'who="compute"', e["rest"])
        assert m, e
        its.append(int(m[1]))
    assert its and min(its) == 3 and its == list(range(3, 3 + len(its)))   # the `if` dropped 0, 1, 2


def test_eprobe_filter_and_trigger_on_the_new_event(console):
    dyn(console, "e:it workload.workload_iteration i=$iteration:u64")
    assert console.run("echo 'i < 4' > events/eprobes/it/filter") == ""
    # a command on the base event, and `>` to its trigger file: the eprobe's hook stays
    assert console.run("echo 1 > events/eprobes/it/enable") == ""
    assert console.run("echo stacktrace > events/workload/workload_iteration/trigger") == ""
    assert console.run("echo > events/workload/workload_iteration/trigger") == ""
    assert console.run("cat events/workload/workload_iteration/trigger") == ""
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/eprobes/it/enable") == ""
    assert [re.search(r"i=(\d+)", e["rest"])[1] for e in events(console, "it")] == ["1", "2", "3"]
    # a trigger on the eprobe's event holds the base event in soft mode by itself
    assert console.run("echo > trace") == ""
    assert console.run("echo 'traceoff if i == 2' > events/eprobes/it/trigger") == ""
    assert console.run("cat events/eprobes/it/enable") == "0*"
    assert console.run("cat events/workload/workload_iteration/enable") == "0*"
    run_workload(console, "run compute 0 1")
    assert console.run("cat tracing_on") == "0"
    assert console.run("echo '!traceoff' > events/eprobes/it/trigger") == ""
    assert console.run("cat events/workload/workload_iteration/enable") == "0"


def test_eprobe_busy_and_removal(console):
    dyn(console, "e:sw sched.sched_switch prev=$prev_pid:s32")
    dyn(console, "e:grp/sw2 sched.sched_switch")
    assert console.run("echo 1 > events/eprobes/sw/enable") == ""
    before = state(console)
    for line in ("-:sw", "-:eprobes/", "!e:sw"):
        assert console.run("echo '%s' >> dynamic_events" % line) == EBUSY, line
    assert console.run("echo > dynamic_events") == EBUSY
    assert state(console) == before
    assert console.run("echo 0 > events/eprobes/sw/enable") == ""
    assert console.run("echo '-:sw sched.sched_wakeup' >> dynamic_events") == ENOENT
    assert console.run("echo '-:sw sched.sched_switch prev=$next_pid:s32' >> dynamic_events") == ENOENT
    dyn(console, "-:sw sched.sched_switch prev=$prev_pid:s32")
    dyn(console, "!e:grp/sw2")
    assert console.run("cat dynamic_events") == ""


EPROBE_BAD = [
    # (line, what echo says, message, caret)
    ("e:bad sched_switch", EINVAL, "This requires both group and event name to attach", 6),
    ("e:bad sched.nosuch", ENODEV_, "Attached event does not exist", 6),
    ("e:bad kprobes.kp", ENODEV_, "Attached event does not exist", 6),      # no eprobe on a probe event
    ("e:bad sched.sched_switch x=$nosuch", ENOENT, "Attached event does not have this field", 25),
    ("e:bad sched.sched_switch x=%di", EINVAL, "Invalid $-valiable specified", 27),
    ("e:bad sched.sched_switch x=$prev_pid:u128", EINVAL, "Unknown type is specified", 37),
    ("e:bad sched.sched_switch if", EINVAL, "No filter rule after 'if'", 28),
    ("e:sched/sched_switch sched.sched_wakeup", EEXIST, "Given group/event name is already used by another event", 0),
    ("e:1bad sched.sched_switch", EINVAL, "Event name must follow the same rules as C identifiers", 2),
    # Linux 6.1: `SYSTEM.` alone names no event, and the error points at the word
    ("e a.", EINVAL, "This requires both group and event name to attach", 2),
    ("e .b", EINVAL, "Group name is not specified", 2),
]


@pytest.mark.parametrize("line,said,message,caret", EPROBE_BAD, ids=[b[0] for b in EPROBE_BAD])
def test_eprobe_bad_definitions(console, line, said, message, caret):
    dyn(console, "p:kp vfs_read")
    refused(console, line, said, "event_probe", message, caret)


def test_eprobe_on_a_syscall_event_reads_the_user_string(console):
    # A syscall event is a base like any other (Linux refuses only kprobe, uprobe and eprobe
    # events); its filename field is a user pointer, read with ustring. `e:GRP/` takes the base's name.
    dyn(console, "e:eopen syscalls/sys_enter_openat file=+0($filename):ustring")
    dyn(console, "e:mine/ syscalls.sys_enter_openat")
    assert console.run("cat dynamic_events").splitlines() == [
        "e:eprobes/eopen syscalls.sys_enter_openat file=+0($filename):ustring",
        "e:mine/sys_enter_openat syscalls.sys_enter_openat"]
    assert console.run("echo 1 > events/eprobes/eopen/enable") == ""
    assert console.run("cat events/syscalls/sys_enter_openat/enable") == "0*"
    assert console.run("/bin/busybox wc -c /proc/uptime").endswith(" /proc/uptime")
    assert console.run("echo 0 > events/eprobes/eopen/enable") == ""
    files = [e["rest"] for e in events(console) if e["rest"].startswith("eopen: ")]
    assert 'eopen: (syscalls.sys_enter_openat) file="/proc/uptime"' in files, files


# --- fprobe events ----------------------------------------------------------------------------------------

def test_fprobe_events_entry_and_exit(console):
    dyn(console, "f:sq compute_square x=$arg1:u64")
    dyn(console, "f compute_square%return r=$retval:u64")
    assert console.run("cat dynamic_events").splitlines() == [
        "f:fprobes/sq compute_square x=$arg1:u64",
        "f:fprobes/compute_square__exit compute_square%return r=$retval:u64"]
    assert console.run("cat kprobe_events") == ""
    assert console.run("ls events/fprobes").split() == ["compute_square__exit/", "enable", "filter", "sq/"]
    assert console.run("cat events/fprobes/sq/format").splitlines()[-1] == \
        'print fmt: "(%lx) x=%Lu", REC->__probe_ip, REC->x'
    assert console.run("cat events/fprobes/compute_square__exit/format").splitlines()[-1] == \
        'print fmt: "(%lx <- %lx) r=%Lu", REC->__probe_func, REC->__probe_ret_ip, REC->r'
    assert console.run("echo 1 > events/fprobes/enable") == ""
    assert console.run("echo '-:sq' >> dynamic_events") == EBUSY
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/fprobes/enable") == ""
    pairs, last, xs = 0, None, set()
    for e in events(console):
        m = re.fullmatch(r"sq: \(compute_square\+0x0/0x[0-9a-f]+\) x=(\d+)", e["rest"])
        if m:
            last = int(m[1])
            xs.add(last)
            continue
        m = re.fullmatch(r"compute_square__exit: \(compute_sum_squares\+0x[0-9a-f]+/0x[0-9a-f]+ <- "
                         r"compute_square\) r=(\d+)", e["rest"])
        assert m, e
        if last is not None:
            assert int(m[1]) == last * last     # the exit of the call just entered
            pairs += 1
        last = None
    assert pairs > 0 and xs == set(range(1, 17))
    dyn(console, "-:fprobes/compute_square__exit compute_square%return")
    dyn(console, "-:sq")
    assert console.run("cat dynamic_events") == ""


@pytest.mark.parametrize("kind", ["f:ex compute_square%return", "r:ex compute_square"])
def test_entry_arguments_at_the_exit(console, kind):
    # $argN at a function's return (Linux 6.9, fprobe and kretprobe events alike): the argument as the
    # function got it, kept by the entry for this call, beside $retval and a dereference made at the exit.
    group = "fprobes" if kind[0] == "f" else "kprobes"
    dyn(console, kind + " x=$arg1:u64 r=$retval:u64 x2=$arg1:u8")
    shown = kind.replace("f:ex", "f:fprobes/ex").replace("r:ex", "r10:kprobes/ex")   # 6.1 shows maxactive
    assert console.run("cat dynamic_events") == shown + " x=$arg1:u64 r=$retval:u64 x2=$arg1:u8"
    assert console.run("echo 1 > events/%s/ex/enable" % group) == ""
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/%s/ex/enable" % group) == ""
    xs = set()
    for e in events(console, "ex"):
        m = re.fullmatch(r"ex: \(compute_sum_squares\+0x[0-9a-f]+/0x[0-9a-f]+ <- compute_square\) "
                         r"x=(\d+) r=(\d+) x2=(\d+)", e["rest"])
        assert m, e
        x, r, x2 = int(m[1]), int(m[2]), int(m[3])
        assert r == x * x and x2 == x, e
        xs.add(x)
    assert xs == set(range(1, 17))


def test_several_probes_on_one_fprobe_event(console):
    # Linux's append_trace_fprobe(), as for kprobe events: the same kind, the same argument names and types,
    # not the same probe again; a probe added while the event is on is on at once; the first removed, the
    # event stays with the others.
    dyn(console, "f:two compute_square x=$arg1:u64")
    dyn(console, "f:two compute_sum_squares x=$arg1:u64")
    refused(console, "f:two compute_square%return x=$retval:u64", EEXIST, "trace_fprobe",
            "Probe type is different from existing probe", 0)
    refused(console, "f:two compute_fib y=$arg1:u64", EEXIST, "trace_fprobe",
            "Argument type or name is different from existing probe", len("f:two compute_fib "))
    refused(console, "f:two compute_fib", EEXIST, "trace_fprobe",
            "Argument type or name is different from existing probe", len("f:two compute_fib "))
    refused(console, "f:two compute_sum_squares x=$arg1:u64", EEXIST, "trace_fprobe",
            "There is already the exact same probe event", 0)
    assert console.run("cat dynamic_events").splitlines() == [
        "f:fprobes/two compute_square x=$arg1:u64", "f:fprobes/two compute_sum_squares x=$arg1:u64"]
    assert console.run("ls events/fprobes").split() == ["enable", "filter", "two/"]
    assert console.run("echo 1 > events/fprobes/two/enable") == ""
    dyn(console, "f:two compute_fib x=$arg1:u64")
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/fprobes/two/enable") == ""
    hits = {}
    for e in events(console, "two"):
        m = re.fullmatch(r"two: \((\w+)\+0x0/0x[0-9a-f]+\) x=(\d+)", e["rest"])
        assert m, e
        hits.setdefault(m[1], []).append(int(m[2]))
    assert sorted(set(hits["compute_square"])) == list(range(1, 17))
    assert set(hits["compute_sum_squares"]) == {16}
    assert 8 in hits["compute_fib"] and set(hits["compute_fib"]) <= set(range(0, 9))
    assert console.run("echo '-:two compute_square x=$arg1:u64' >> dynamic_events") == ""
    assert console.run("echo > trace") == ""
    assert console.run("echo 1 > events/fprobes/two/enable") == ""
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/fprobes/two/enable") == ""
    funcs = {re.match(r"two: \((\w+)\+", e["rest"])[1] for e in events(console, "two")}
    assert funcs == {"compute_sum_squares", "compute_fib"}
    dyn(console, "-:two")
    assert console.run("cat dynamic_events") == "" and "two" not in console.run("ls events/fprobes")


E2BIG = "echo: write error: Argument list too long"
EARGS_17 = "f:bad compute_square%return " + " ".join("$arg%d" % i for i in range(1, 18))

FPROBE_BAD = [
    ("f:bad no_such_function", EINVAL, "Invalid probed address or symbol", 6),
    ("f:bad compute_square+4", EINVAL, "Invalid probed address or symbol", 6),
    ("f:bad compute_square%ret", EINVAL, "Invalid probed address suffix", 20),
    ("f:bad strlen", ENOENT, "Invalid probed address or symbol", 6),       # no ftrace site: notrace code
    ("f:bad compute_square $retval", EINVAL, "$retval is not available on probe", 21),
    ("f:bad compute_square%return $arg0", EINVAL, "Invalid argument number", 28),
    ("f:bad compute_square%return $argx", EINVAL, "Invalid $-valiable specified", 28),
    # 17 different $argN at the exit: the entry keeps at most 16 (later Linux's TOO_MANY_EARGS)
    (EARGS_17, E2BIG, "Too many entry arguments specified", len(EARGS_17) - len("$arg17")),
    ("f:sched/sched_switch compute_square", EEXIST, "Given group/event name is already used by another event", 0),
]


@pytest.mark.parametrize("line,said,message,caret", FPROBE_BAD, ids=[b[0] for b in FPROBE_BAD])
def test_fprobe_bad_definitions(console, line, said, message, caret):
    refused(console, line, said, "trace_fprobe", message, caret)


# --- tracepoint probes ------------------------------------------------------------------------------------

def test_tracepoint_probe_fetches_the_tracepoint_arguments(console):
    dyn(console, "t:wi workload_iteration n=+0($arg1):string c=$arg2:s32 i=$arg3:u64")
    dyn(console, "t sched_switch prev=$arg2:x64")
    assert console.run("cat dynamic_events").splitlines() == [
        "t:tracepoints/wi workload_iteration n=+0($arg1):string c=$arg2:s32 i=$arg3:u64",
        "t:tracepoints/sched_switch sched_switch prev=$arg2:x64"]
    assert console.run("echo 1 > events/tracepoints/wi/enable") == ""
    assert console.run("echo '-:wi' >> dynamic_events") == EBUSY
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/tracepoints/wi/enable") == ""
    its = []
    for e in events(console, "wi"):
        m = re.fullmatch(r'wi: \(__traceiter_workload_iteration\+0x[0-9a-f]+/0x[0-9a-f]+\) n="compute" c=0 i=(\d+)',
                         e["rest"])
        assert m, e
        its.append(int(m[1]))
    assert its and its == list(range(its[0], its[0] + len(its)))
    dyn(console, "-:tracepoints/")
    assert console.run("cat dynamic_events") == ""


def test_two_tracepoints_behind_one_tracepoint_probe_event(console):
    # the append rule of fprobe events for `t` lines: one event, a probe on each tracepoint, both recording
    dyn(console, "t:tw workload_iteration a=$arg1:x64")
    dyn(console, "t:tw sched_switch a=$arg1:x64")
    refused(console, "t:tw sched_switch a=$arg1:x64", EEXIST, "trace_fprobe",
            "There is already the exact same probe event", 0)
    assert console.run("cat dynamic_events").splitlines() == [
        "t:tracepoints/tw workload_iteration a=$arg1:x64", "t:tracepoints/tw sched_switch a=$arg1:x64"]
    assert console.run("echo 1 > events/tracepoints/tw/enable") == ""
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/tracepoints/tw/enable") == ""
    where = {re.match(r"tw: \(__traceiter_(\w+)\+0x[0-9a-f]+/0x[0-9a-f]+\) a=0x[0-9a-f]+$", e["rest"])[1]
             for e in events(console, "tw")}
    assert where == {"workload_iteration", "sched_switch"}
    dyn(console, "-:tw")
    assert console.run("cat dynamic_events") == ""


@pytest.mark.parametrize("line,message,caret", [
    ("t:bad no_such_tracepoint", "Tracepoint is not found", 6),
    ("t:bad vfs_read", "Tracepoint is not found", 6),
    ("t:bad workload_iteration $retval", "$retval is not available on probe", 25),
])
def test_tracepoint_probe_bad_definitions(console, line, message, caret):
    refused(console, line, EINVAL, "trace_fprobe", message, caret)


# --- probes appended to enabled events under load ----------------------------------------------------------

@pytest.mark.smp(4)
def test_probes_appended_to_enabled_events_under_load_on_4_cpus(fresh_console):
    """A probe appended to an event that is on is armed at once (a kprobe's int3 written, an fprobe's ops
    switched on) while `compute` runs on every CPU: 20 rounds of append, off, remove, on, for a kprobe event and
    an fprobe event; every record is well formed and every CPU recorded from both functions."""
    c = fresh_console
    assert c.run("echo 4096 > buffer_size_kb") == ""
    dyn(c, "p:kp compute_square x=%di:u64")
    dyn(c, "f:fp compute_square x=$arg1:u64")
    assert c.run("echo 1 > events/kprobes/kp/enable") == "" and c.run("echo 1 > events/fprobes/fp/enable") == ""
    assert len(re.findall(r"^\[\d+\] compute on CPU \d$", c.run("run compute all 600"), re.M)) == 4
    for _ in range(20):
        dyn(c, "p:kp compute_sum_squares x=%di:u64")
        dyn(c, "f:fp compute_sum_squares x=$arg1:u64")
        assert c.run("echo 0 > events/kprobes/kp/enable") == "" and c.run("echo 0 > events/fprobes/fp/enable") == ""
        dyn(c, "-:kp compute_sum_squares x=%di:u64")
        dyn(c, "-:fp compute_sum_squares x=$arg1:u64")
        assert c.run("echo 1 > events/kprobes/kp/enable") == "" and c.run("echo 1 > events/fprobes/fp/enable") == ""
    dyn(c, "p:kp compute_sum_squares x=%di:u64")
    dyn(c, "f:fp compute_sum_squares x=$arg1:u64")
    c.poll("cat kprobe_profile", lambda out: all(int(l.split()[1]) > 0 for l in out.splitlines()), timeout=60)
    c.run("kill all")
    assert c.run("echo 0 > events/kprobes/kp/enable") == "" and c.run("echo 0 > events/fprobes/fp/enable") == ""
    seen = set()
    for e in events(c):
        m = re.fullmatch(r"(kp|fp): \((compute_square|compute_sum_squares)\+0x0/0x[0-9a-f]+\) x=(\d+)", e["rest"])
        assert m, e
        seen.add((m[1], m[2]))
    assert seen == {(k, f) for k in ("kp", "fp") for f in ("compute_square", "compute_sum_squares")}
