"""tests/integration/test_kprobe_events.py: kprobe_events as a Linux user drives it: definitions and
their listing, default names, format files, the events/ tree and lists they join, refused lines
with their exact error_log entries (and nothing changed after them), removal and `>`, filters,
then real hits: trace lines from the fs and compute workloads, $retval, strings, kprobe_profile;
and on 4 CPUs, a probe switched on and off 200 times under load."""

import bisect
import os
import re
import subprocess
import sys
import time

import pytest

from tests.integration.test_events_defs import LINE, lines_of

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

EINVAL = "echo: write error: Invalid argument"
ENOENT = "echo: write error: No such file or directory"
EEXIST = "echo: write error: File exists"
EBUSY = "echo: write error: Device or resource busy"
EILSEQ = "echo: write error: Invalid or incomplete multibyte or wide character"
CMD_PREFIX = "  Command: "


def define(console, line, append=True):
    out = console.run("echo '%s' %s kprobe_events" % (line, ">>" if append else ">"))
    assert out == "", "%s: %s" % (line, out)


def state(console):
    """Everything a refused write must leave as it was."""
    return {cmd: console.run(cmd) for cmd in ("cat kprobe_events", "cat available_events", "ls events",
                                              "cat kprobe_profile", "cat set_event",
                                              "cat /sys/kernel/debug/kprobes/list")}


def last_error(console):
    """The newest error_log entry as (message line, command, caret column) or None."""
    lines = console.run("cat error_log").splitlines()
    if not lines:
        return None
    head, cmd, caret = lines[-3:]
    head = re.sub(r"^\[ *\d+\.\d{6}\] ", "", head)
    assert cmd.startswith(CMD_PREFIX) and caret.strip() == "^"
    return head, cmd[len(CMD_PREFIX):], len(caret) - 1 - len(CMD_PREFIX)


def events(console, name=None):
    """`cat trace`'s event lines (all, or only the event called name), parsed as chapter 13's are."""
    return [e for e in lines_of(console) if name is None or e["rest"].startswith(name + ": ")]


def ksym(console, name):
    for line in console.run("cat /proc/kallsyms", timeout=60).splitlines():
        addr, _, sym = line.split()[:3]
        if sym == name:
            return int(addr, 16)
    raise AssertionError("no symbol %s" % name)


def run_workload(console, cmd, timeout=60):
    """Starts `run ...` and waits for its tasks to end."""
    pids = re.findall(r"^\[(\d+)\] ", console.run(cmd), re.M)
    assert pids, cmd
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        live = set(re.findall(r"^\s*(\d+)\s", console.run("ps"), re.M))
        if not live & set(pids):
            return
        time.sleep(0.2)
    raise AssertionError("%s still running" % cmd)


# --- definitions and what they show ---------------------------------------------------------------------

GOOD = [
    # (line written, line kprobe_events shows)
    ("p vfs_read", "p:kprobes/p_vfs_read_0 vfs_read"),
    ("p:myprobe vfs_read f=%di n=%dx:u32", "p:kprobes/myprobe vfs_read f=%di n=%dx:u32"),
    # The core sets a return probe's default MAXACTIVE (max(10, 2 * CPUs)) and, as in Linux, the
    # listing shows it.
    ("r vfs_read $retval", "r10:kprobes/r_vfs_read_0 vfs_read arg1=$retval"),
    ("r8:grp/ret vfs_read ret=$retval:s64", "r8:grp/ret vfs_read ret=$retval:s64"),
    ("p:grp.dot vfs_open path=+0(%si):string", "p:grp/dot vfs_open path=+0(%si):string"),
    ("p vfs_open%return", "r10:kprobes/r_vfs_open_0 vfs_open"),
    ("p:args compute_square $arg1 x=$arg1:u32 $stack0 $stack $comm +8($stack):x16",
     "p:kprobes/args compute_square arg1=$arg1 x=$arg1:u32 arg3=$stack0 arg4=$stack arg5=$comm "
     "arg6=+8($stack):x16"),
    ("p:types compute_square %di:u8 %di:s16 %di:x32 %di:s64 %ip:symbol @jiffies:u64",
     "p:kprobes/types compute_square arg1=%di:u8 arg2=%di:s16 arg3=%di:x32 arg4=%di:s64 "
     "arg5=%ip:symbol arg6=@jiffies:u64"),
]


def test_good_definitions_are_listed_as_linux_shows_them(console):
    for line, _ in GOOD:
        define(console, line)
    assert console.run("cat kprobe_events").splitlines() == [shown for _, shown in GOOD]
    profile = console.run("cat kprobe_profile").splitlines()
    names = ["p_vfs_read_0", "myprobe", "r_vfs_read_0", "ret", "dot", "r_vfs_open_0", "args", "types"]
    assert profile == ["  %-44s %15d %15d" % (n, 0, 0) for n in names]


def test_address_probe_and_default_names(console):
    addr = ksym(console, "vfs_close")
    define(console, "p 0x%x" % addr)
    define(console, "p vfs_read+5")
    assert console.run("cat kprobe_events").splitlines() == [
        "p:kprobes/p_0x%x 0x%x" % (addr, addr), "p:kprobes/p_vfs_read_5 vfs_read+5"]
    assert "kprobes:p_0x%x" % addr in console.run("cat available_events").splitlines()


def test_group_alone_takes_the_default_event_name(console):
    # Linux 6.1's traceprobe_parse_event_name(): `GROUP/` names the group only; -:GROUP/ removes it.
    define(console, "p:grp/ vfs_read")
    define(console, "r:grp/ vfs_read")
    assert console.run("cat kprobe_events").splitlines() == [
        "p:grp/p_vfs_read_0 vfs_read", "r10:grp/r_vfs_read_0 vfs_read"]  # 6.1 shows maxactive
    assert console.run("ls events/grp").split() == ["enable", "filter", "p_vfs_read_0/",
                                                    "r_vfs_read_0/"]
    define(console, "-:grp/")
    assert console.run("cat kprobe_events") == ""
    assert "No such file" in console.run("ls events/grp")


def test_format_files(console):
    define(console, "p:fmt vfs_open f=%di path=+0(%si):string n=%dx:s32 s=%ip:symbol")
    define(console, "r:rfmt vfs_read ret=$retval:u64 c=$comm")
    ident = console.run("cat events/kprobes/fmt/id")
    common = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
              "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
              "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
              "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
    assert console.run("cat events/kprobes/fmt/format") == (
        "name: fmt\nID: %s\nformat:\n" % ident + common +
        "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
        "\tfield:u64 f;\toffset:16;\tsize:8;\tsigned:0;\n"
        "\tfield:__data_loc char[] path;\toffset:24;\tsize:4;\tsigned:1;\n"
        "\tfield:s32 n;\toffset:28;\tsize:4;\tsigned:1;\n"
        "\tfield:u64 s;\toffset:32;\tsize:8;\tsigned:0;\n\n"
        "print fmt: \"(%lx) f=0x%Lx path=\\\"%s\\\" n=%d s=%pS\", REC->__probe_ip, REC->f, "
        "__get_str(path), REC->n, REC->s")
    rident = console.run("cat events/kprobes/rfmt/id")
    assert int(rident) == int(ident) + 1
    assert console.run("cat events/kprobes/rfmt/format") == (
        "name: rfmt\nID: %s\nformat:\n" % rident + common +
        "\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
        "\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
        "\tfield:u64 ret;\toffset:24;\tsize:8;\tsigned:0;\n"
        "\tfield:__data_loc char[] c;\toffset:32;\tsize:4;\tsigned:1;\n\n"
        "print fmt: \"(%lx <- %lx) ret=%Lu c=\\\"%s\\\"\", REC->__probe_func, REC->__probe_ret_ip, "
        "REC->ret, __get_str(c)")


def test_events_tree_lists_and_ids(console):
    before = console.run("cat available_events").splitlines()
    define(console, "p:a vfs_read")
    define(console, "p:grp/b vfs_open")
    assert console.run("ls events/kprobes").split() == ["a/", "enable", "filter"]
    assert console.run("ls events/kprobes/a").split() == ["enable", "filter", "format", "hist", "id",
                                                          "trigger"]
    assert console.run("ls events/grp").split() == ["b/", "enable", "filter"]
    assert console.run("cat available_events").splitlines() == sorted(
        before + ["kprobes:a", "grp:b"], key=lambda s: s.split(":"))
    ida = int(console.run("cat events/kprobes/a/id"))
    static = [int(console.run("cat events/%s/id" % e.replace(":", "/"))) for e in before]
    assert ida > max(static)
    # set_event and its globs know them
    assert console.run("echo 'kprobes:*' > set_event") == ""
    assert console.run("cat set_event") == "kprobes:a"
    assert console.run("cat events/kprobes/a/enable") == "1"
    assert console.run("echo 'grp:b' >> set_event") == ""
    assert console.run("cat set_event").splitlines() == ["grp:b", "kprobes:a"]
    assert console.run("cat events/enable") == "X"
    assert console.run("echo '!grp:' >> set_event") == ""
    assert console.run("cat set_event") == "kprobes:a"
    assert console.run("echo 0 > events/kprobes/enable") == ""
    assert console.run("cat set_event") == ""
    # an id is not given twice: a new definition of the same name gets a new one
    define(console, "-:a")
    assert console.run("ls events/kprobes") == "ls: cannot access 'events/kprobes': No such file or directory"
    define(console, "p:a vfs_read")
    assert int(console.run("cat events/kprobes/a/id")) > int(console.run("cat events/grp/b/id"))
    define(console, "-:grp/")
    assert "grp/" not in console.run("ls events").split()
    assert console.run("cat kprobe_events") == "p:kprobes/a vfs_read"


def test_enable_remove_and_truncate_refused_while_busy(console):
    define(console, "p:busy vfs_read")
    define(console, "p:idle vfs_open")
    assert console.run("echo 1 > events/kprobes/busy/enable") == ""
    listed = console.run("cat kprobe_events")
    s = state(console)
    assert console.run("echo > kprobe_events") == EBUSY
    assert console.run("echo '-:busy' >> kprobe_events") == EBUSY
    assert console.run("echo 'p:new vfs_close' > kprobe_events") == EBUSY   # nothing added either
    assert state(console) == s and console.run("cat kprobe_events") == listed
    assert console.run("echo 0 > events/kprobes/busy/enable") == ""
    # a trigger holds the event too (soft mode, enable reads 0*)
    assert console.run("echo traceoff > events/kprobes/busy/trigger") == ""
    assert console.run("cat events/kprobes/busy/enable") == "0*"
    assert console.run("echo '-:busy' >> kprobe_events") == EBUSY
    assert console.run("echo '!traceoff' > events/kprobes/busy/trigger") == ""
    # the shell standing in the directory holds it
    assert console.run("cd events/kprobes/busy") == ""
    assert console.run("echo '-:busy' >> /sys/kernel/tracing/kprobe_events") == EBUSY
    assert console.run("cat enable") == "0"
    assert console.run("cd /sys/kernel/tracing") == ""
    define(console, "-:busy")
    assert console.run("cat kprobe_events") == "p:kprobes/idle vfs_open"
    assert console.run("echo '-:busy' >> kprobe_events") == ENOENT
    assert console.run("echo '-:' >> kprobe_events") == EINVAL
    define(console, "p:second vfs_read", append=False)   # `>` clears, then adds
    assert console.run("cat kprobe_events") == "p:kprobes/second vfs_read"


def test_filter_on_probe_fields(console):
    define(console, "p:f compute_square x=%di:u32 name=$comm")
    assert console.run("echo 'x > 5' > events/kprobes/f/filter") == ""
    assert console.run("cat events/kprobes/f/filter") == "x > 5"
    assert console.run("echo 'name ~ \"comp*\" && x < 3' > events/kprobes/f/filter") == ""
    assert console.run("echo 'y > 5' > events/kprobes/f/filter") == EINVAL
    assert last_error(console) == ("event filter parse error: error: Field not found", "y > 5", 2)
    # Linux 6.1 keeps a refused filter's text, disabled, with the caret and the reason.
    assert console.run("cat events/kprobes/f/filter") == "y > 5\n  ^\nparse_error: Field not found"
    assert console.run("echo 'x > 5' > events/kprobes/filter") == ""     # the group's filter
    assert console.run("cat events/kprobes/f/filter") == "x > 5"


# (line, what echo says, error_log's message or None, the caret's column in the command)
BAD = [
    ("p:bad no_such_function", ENOENT, "Invalid probed address or symbol", 6),
    ("p:bad vfs_read+3", EILSEQ, "Probe point is not an instruction boundary", 6),
    ("p:bad strlen", EINVAL, "Failed to register probe event", 6),     # notrace code: kprobes refuse it
    ("p:bad vfs_read %zz", EINVAL, "Invalid register name", 15),
    ("p:bad vfs_read %rax", EINVAL, "Invalid register name", 15),
    ("p:bad vfs_read di", EINVAL, "Invalid fetch argument", 15),
    ("p:bad vfs_read x=%di:u128", EINVAL, "Unknown type is specified", 21),
    ("p:bad vfs_read %di:string", EINVAL, "String accepts only memory argument", 19),
    ("p:bad vfs_read $retval", EINVAL, "$retval is not available on probe", 15),
    ("p:bad vfs_read+5 $arg1", EINVAL, "Invalid $-valiable specified", 17),
    ("p:bad vfs_read $stack9999", EINVAL, "Invalid stack number", 15),
    ("p:bad vfs_read +8(%di", EINVAL, "Dereference brace is not closed", 21),
    ("p:bad vfs_read +8(%zz)", EINVAL, "Invalid register name", 18),
    ("p:bad vfs_read +0($comm)", EINVAL, "$comm can not be dereferenced", 18),
    ("p:bad vfs_read @no_such_symbol", ENOENT, "Invalid probed address or symbol", 6),
    ("p:bad vfs_read a=%di a=%si", EINVAL, "This argument name is already used", 21),
    ("p:bad vfs_read 1a=%di", EINVAL, "Argument name must follow the same rules as C identifiers", 15),
    ("p:bad vfs_read __probe_ip=%di", EINVAL, "This argument name is already used", 15),
    ("p:bad vfs_read x=", EINVAL, "No argument expression", 17),
    ("p:bad vfs_read%ret", EINVAL, "Invalid probed address suffix", 14),
    ("p:bad vfs_read+x", EINVAL, "Invalid probed address or symbol", 6),
    ("r:bad vfs_read+5", EINVAL, "Retprobe address must be an function entry", 6),
    ("r9999:bad vfs_read", EINVAL, "Maxactive is too big", 1),
    ("r0:bad vfs_read", EINVAL, "Invalid maxactive number", 1),
    ("p5:bad vfs_read", EINVAL, "Maxactive is not for kprobe", 1),
    ("p:1bad vfs_read", EINVAL, "Event name must follow the same rules as C identifiers", 2),
    ("p:g-x/ev vfs_read", EINVAL, "Group name must follow the same rules as C identifiers", 2),
    ("p:/ev vfs_read", EINVAL, "Group name is not specified", 2),
    ("p:sched/sched_switch vfs_read", EEXIST, "Given group/event name is already used by another event", 0),
    ("p:bad vfs_read $comm:u32", EINVAL, None, 0),     # Linux 6.1 logs nothing for this one
    ("x:bad vfs_read", EINVAL, None, 0),
    ("p:bad", EINVAL, None, 0),
]


@pytest.mark.parametrize("line,said,message,caret", BAD, ids=[b[0] for b in BAD])
def test_bad_definitions_are_refused_and_change_nothing(console, line, said, message, caret):
    define(console, "p:keep vfs_read x=%di")
    before = state(console)
    assert console.run("echo > error_log") == ""
    assert console.run("echo '%s' >> kprobe_events" % line) == said
    if message is None:
        assert console.run("cat error_log") == ""
    else:
        assert last_error(console) == ("trace_kprobe: error: " + message, line, caret)
    assert state(console) == before


def test_duplicate_names(console):
    define(console, "p:dup vfs_read x=%di")
    before = state(console)
    for line, message, caret in (
            ("r:dup vfs_read", "Probe type is different from existing probe", 0),
            ("p:dup vfs_read y=%di", "Argument type or name is different from existing probe", 15),
            ("p:dup vfs_read x=%di:u8", "Argument type or name is different from existing probe", 15),
            ("p:dup vfs_read x=%di", "There is already the exact same probe event", 0)):
        assert console.run("echo '%s' >> kprobe_events" % line) == EEXIST
        assert last_error(console) == ("trace_kprobe: error: " + message, line, caret)
        assert state(console) == before
    # Same names and types elsewhere: Linux appends a second probe to the event
    define(console, "p:dup vfs_open x=%di")
    assert console.run("cat kprobe_events").splitlines() == ["p:kprobes/dup vfs_read x=%di",
                                                            "p:kprobes/dup vfs_open x=%di"]
    assert console.run("ls events/kprobes").split() == ["dup/", "enable", "filter"]


# --- real hits --------------------------------------------------------------------------------------------

def test_hits_arguments_strings_and_profile(console):
    define(console, "p:rd vfs_read f=%di n=%dx:u64 c=$comm")
    define(console, "p:op vfs_open path=+0(%si):string")
    define(console, "r:rdret vfs_read ret=$retval:u64")
    assert console.run("echo 1 > events/kprobes/enable") == ""
    run_workload(console, "run fs 0 1")
    assert console.run("echo 0 > events/kprobes/enable") == ""
    rd, op, ret = events(console, "rd"), events(console, "op"), events(console, "rdret")
    assert rd and op and ret
    for e in rd:
        assert e["comm"].strip() == "fs"
        assert re.match(r"^rd: \(vfs_read\+0x0/0x[0-9a-f]+\) f=0x[0-9a-f]+ n=32 c=\"fs\"$", e["rest"]), e
    paths = {"/etc/hostname", "/usr/lib/os-release", "/var/log/messages"}
    for e in op:
        m = re.match(r"^op: \(vfs_open\+0x0/0x[0-9a-f]+\) path=\"(.*)\"$", e["rest"])
        assert m and m[1] in paths, e
    assert {re.search(r'path="(.*)"', e["rest"])[1] for e in op} == paths
    for e in ret:
        assert re.match(r"^rdret: \(fs_iteration\+0x[0-9a-f]+/0x[0-9a-f]+ <- vfs_read\) ret=32$",
                        e["rest"]), e
    profile = {l.split()[0]: (int(l.split()[1]), int(l.split()[2]))
               for l in console.run("cat kprobe_profile").splitlines()}
    assert profile == {"rd": (len(rd), 0), "op": (len(op), 0), "rdret": (len(ret), 0)}
    assert len(rd) == len(ret) == len(op)


def test_user_memory_fetches_on_open_and_faults_on_kernel_memory(console):
    # ftracetest's kprobe_args_user.tc, with the values checked: the path a program opens is user memory
    # behind do_sys_openat2()'s second argument, read by `ustring` and by `+u` ahead of `string`; its
    # third, the struct open_how, is kernel memory read as any dereference reads it.
    line = "p:op2 do_sys_openat2 dfd=$arg1:s32 path=+0($arg2):ustring path2=+u0($arg2):string " \
           "c=+u0($arg2):u8 flags=+0($arg3):x64"
    define(console, line)
    assert console.run("cat kprobe_events") == line.replace("p:op2", "p:kprobes/op2")
    assert console.run("echo 1 > events/kprobes/op2/enable") == ""
    console.run("/bin/sh -c 'echo > /dev/null'")
    assert console.run("echo 0 > events/kprobes/op2/enable") == ""
    hits = [re.match(r'^op2: \(do_sys_openat2\+0x0/0x[0-9a-f]+\) dfd=(-?\d+) path="(.*)" path2="(.*)" '
                     r'c=(\d+) flags=0x([0-9a-f]+)$', e["rest"]) for e in events(console, "op2")]
    assert hits and all(hits), events(console, "op2")
    mine = [m for m in hits if m[2] == "/dev/null"]
    assert mine, [m[0] for m in hits]
    for m in mine:
        assert (m[1], m[3], m[4]) == ("-100", "/dev/null", str(ord("/")))
        assert int(m[5], 16) & 0x241 == 0x241          # O_WRONLY | O_CREAT | O_TRUNC, as ash opens it
    # vfs_symlink()'s third and fourth arguments are the kernel's copies: as user memory, a fault
    assert console.run("echo > trace") == ""
    define(console, "p:sl vfs_symlink path=+0($arg3):ustring path2=+u0($arg3):string "
                    "name=+0($arg3):string target=+0($arg4):string", append=False)
    assert console.run("echo 1 > events/kprobes/sl/enable") == ""
    console.run("/bin/sh -c 'ln -s foo /tmp/kp_user_bar'")
    assert console.run("echo 0 > events/kprobes/sl/enable") == ""
    sl = [e["rest"] for e in events(console, "sl")]
    assert len(sl) == 1 and re.match(r'^sl: \(vfs_symlink\+0x0/0x[0-9a-f]+\) path=\(fault\) path2=\(fault\) '
                                     r'name="kp_user_bar" target="foo"$', sl[0]), sl
    console.run("rm /tmp/kp_user_bar")


def test_retval_of_a_known_function(console):
    # room for every pair: the workload writes about 3200 events, more than the 64 KiB default holds, and
    # an overrun that drops the page with a call's entry but keeps its return's leaves the lists unequal
    assert console.run("echo 1024 > buffer_size_kb") == ""
    define(console, "p:sq compute_square x=%di:u64")
    define(console, "r:sqret compute_square ret=$retval:u64")
    assert console.run("echo 'kprobes:*' > set_event") == ""
    run_workload(console, "run compute 0 1")
    assert console.run("echo > set_event") == ""
    xs = [int(re.search(r" x=(\d+)$", e["rest"])[1]) for e in events(console, "sq")]
    rets = [int(re.search(r" ret=(\d+)$", e["rest"])[1]) for e in events(console, "sqret")]
    assert xs and len(xs) == len(rets)
    assert rets == [x * x for x in xs]
    assert sorted(set(xs)) == list(range(1, 17))   # compute_sum_squares(16)


def test_filter_keeps_only_matching_hits(console):
    define(console, "p:sq compute_square x=%di:u32")
    assert console.run("echo 'x > 12' > events/kprobes/sq/filter") == ""
    assert console.run("echo 1 > events/kprobes/sq/enable") == ""
    run_workload(console, "run compute 0 1")
    assert console.run("echo 0 > events/kprobes/sq/enable") == ""
    xs = {int(re.search(r" x=(\d+)$", e["rest"])[1]) for e in events(console, "sq")}
    assert xs == {13, 14, 15, 16}
    hits = int(console.run("cat kprobe_profile").split()[1])
    assert hits >= 4 * len(events(console, "sq"))   # the filter drops records, not hits


def test_symbol_and_stack_fetches(console):
    define(console, "p:sy vfs_read ip=%ip:symbol ret=+0($stack):symbol")
    assert console.run("echo 1 > events/kprobes/sy/enable") == ""
    run_workload(console, "run fs 0 1")
    assert console.run("echo 0 > events/kprobes/sy/enable") == ""
    sy = events(console, "sy")
    assert sy
    for e in sy:
        assert re.match(r"^sy: \(vfs_read\+0x0/0x[0-9a-f]+\) ip=vfs_read\+0x[0-9a-f]+/0x[0-9a-f]+ "
                        r"ret=fs_iteration\+0x[0-9a-f]+/0x[0-9a-f]+$", e["rest"]), e


def test_symbol_argument_reads_linux_proc_banner(console):
    # @SYM of a data symbol: /proc/version's format, named linux_proc_banner as Linux names it
    # (ftracetest's kprobe_args_symbol.tc reads it). Its first four bytes are "%s v".
    define(console, "p:ban vfs_read c=@linux_proc_banner:u8 w=@linux_proc_banner:x32 "
                    "b=@linux_proc_banner:b4@4/8")
    assert console.run("echo 1 > events/kprobes/ban/enable") == ""
    run_workload(console, "run fs 0 1")
    assert console.run("echo 0 > events/kprobes/ban/enable") == ""
    ban = events(console, "ban")
    assert ban
    for e in ban:
        assert re.fullmatch(r"ban: \(vfs_read\+0x0/0x[0-9a-f]+\) c=37 w=0x76207325 b=2", e["rest"]), e


def test_non_unique_symbol_is_refused_and_its_address_taken(console):
    # Two static functions of one name (kallsyms lists both): Linux 6.1.y refuses the name with
    # EADDRNOTAVAIL, ftracetest's kprobe_non_uniq_symbol.tc; an address still names either one.
    names = {}
    for line in console.run("cat /proc/kallsyms", timeout=60).splitlines():
        addr, kind, sym = line.split()[:3]
        if kind == "t":
            names.setdefault(sym, []).append(int(addr, 16))
    dup = sorted(n for n, a in names.items() if len(a) > 1 and n in AVAILABLE(console))[0]
    before = state(console)
    assert console.run("echo > error_log") == ""
    for line in ("p:dup %s" % dup, "p:dup %s+4" % dup, "r:dup %s" % dup):   # nor +offs, nor a return
        assert console.run("echo '%s' >> kprobe_events" % line) == \
            "echo: write error: Cannot assign requested address"
        assert last_error(console) == ("trace_kprobe: error: The symbol is not unique", line, 6)
    assert state(console) == before
    # the one with an fentry site (the other may be notrace: kprobes/blacklist)
    taken = [a for a in names[dup]
             if console.run("echo 'p:dup 0x%x' >> kprobe_events" % a) == ""]
    assert len(taken) == 1, taken
    assert console.run("cat kprobe_events") == "p:kprobes/dup 0x%x" % taken[0]


def AVAILABLE(console):
    return set(console.run("cat available_filter_functions", timeout=60).split())


WAIT_FOR_MODULE = "This probe might be able to register after target module is loaded. Continue."


def test_module_symbol_waits_for_a_module_that_never_loads(console):
    # MOD:SYM as Linux takes it when the module is not loaded: the event is made and listed, its
    # probe waits unregistered (no kprobe in kprobes/list, no hit), enabling it is allowed.
    assert console.run("echo > error_log") == ""
    for line in ("p:modp nosuchmod:vfs_read", "r:modr nosuchmod:vfs_read", "p nosuchmod:helper+4"):
        out = console.run("echo '%s' >> kprobe_events" % line)
        assert out in ("", WAIT_FOR_MODULE) or out.endswith("] " + WAIT_FOR_MODULE), out
    assert console.run("cat kprobe_events").splitlines() == [
        "p:kprobes/modp nosuchmod:vfs_read", "r:kprobes/modr nosuchmod:vfs_read",
        "p:kprobes/p_nosuchmod_helper_4 nosuchmod:helper+4"]
    assert console.run("cat error_log") == ""
    with console.disable_check("banner"):                # dmesg replays the banner line
        assert WAIT_FOR_MODULE in console.run("dmesg")
    assert console.run("ls events/kprobes").split() == ["enable", "filter", "modp/", "modr/",
                                                      "p_nosuchmod_helper_4/"]
    assert console.run("echo 1 > events/kprobes/enable") == ""
    assert console.run("cat /sys/kernel/debug/kprobes/list") == ""
    run_workload(console, "run fs 0 1")
    assert console.run("echo 0 > events/kprobes/enable") == ""
    assert events(console) == []
    assert [l.split()[1:] for l in console.run("cat kprobe_profile").splitlines()] == [["0", "0"]] * 3
    # a second probe on a waiting event: a real one records, the waiting one still does not
    define(console, "p:modp vfs_read")
    assert console.run("echo 1 > events/kprobes/modp/enable") == ""
    run_workload(console, "run fs 0 1")
    assert console.run("echo 0 > events/kprobes/modp/enable") == ""
    assert events(console, "modp")
    assert all(re.match(r"modp: \(vfs_read\+0x0/0x[0-9a-f]+\)$", e["rest"]) for e in events(console))
    define(console, "-:modr nosuchmod:vfs_read")
    define(console, "-:modp nosuchmod:vfs_read")
    assert console.run("cat kprobe_events").splitlines() == [
        "p:kprobes/p_nosuchmod_helper_4 nosuchmod:helper+4", "p:kprobes/modp vfs_read"]
    define(console, "", append=False)
    assert console.run("cat kprobe_events") == ""


def test_probe_inside_a_function_and_the_kprobes_list(console):
    # The int3 stays an int3: optimized kprobes (tests/integration/test_optprobes.py) would turn +5 into a jmp.
    assert "jump-optimization is disabled" in console.run("echo 0 > /proc/sys/debug/kprobes-optimization")
    define(console, "p:mid vfs_read+5 n=%dx:u64")
    define(console, "p:top vfs_read")
    armed = r"^[0-9a-f]{16}  k  vfs_read\+0x%s +%s$"
    # The list walks kprobes' address hash, so which site comes first moves with the kernel's layout.
    lines = sorted(console.run("cat /sys/kernel/debug/kprobes/list").splitlines(), key=lambda l: l[:16])
    assert re.match(armed % ("0", r"\[DISABLED\]\[FTRACE\]"), lines[0]) and re.match(armed % ("5", r"\[DISABLED\]"),
                                                                                  lines[1]), lines
    assert console.run("echo 1 > events/kprobes/mid/enable") == ""
    lines = sorted(console.run("cat /sys/kernel/debug/kprobes/list").splitlines(), key=lambda l: l[:16])
    assert re.match(armed % ("5", ""), lines[1]), lines
    run_workload(console, "run fs 0 1")
    assert console.run("echo 0 > events/kprobes/mid/enable") == ""
    mid = events(console, "mid")
    assert mid and all(re.match(r"^mid: \(vfs_read\+0x5/0x[0-9a-f]+\) n=32$", e["rest"]) for e in mid)
    assert console.run("cat kprobe_profile").splitlines()[0].split() == ["mid", str(len(mid)), "0"]
    define(console, "-:mid")
    define(console, "-:top")
    assert console.run("cat /sys/kernel/debug/kprobes/list") == ""


def test_disabled_probe_records_nothing(console):
    define(console, "p:off vfs_read")
    run_workload(console, "run fs 0 1")
    assert events(console) == []
    assert console.run("cat kprobe_profile").split()[1:] == ["0", "0"]


# --- 4 CPUs: switched on and off under load -------------------------------------------------------------

@pytest.mark.smp(4)
def test_toggled_200_times_under_load_on_4_cpus(fresh_console):
    c = fresh_console
    assert c.run("echo 4096 > buffer_size_kb") == ""
    define(c, "p:tog vfs_read n=%dx:u64")
    assert len(re.findall(r"^\[\d+\] fs on CPU \d$", c.run("run fs all 600"), re.M)) == 4
    for _ in range(200):
        assert c.run("echo 1 > events/kprobes/tog/enable") == ""
        assert c.run("echo 0 > events/kprobes/tog/enable") == ""
    hits = int(c.run("cat kprobe_profile").split()[1])
    # Disarmed: the workload goes on calling vfs_read (each `fs` iteration reads), the probe no longer sees it.
    iterations = fs_iterations(c)
    c.poll("cat /proc/workloads", lambda out: fs_iterations(c, out) >= iterations + 40, timeout=60)
    assert c.run("cat kprobe_profile").split()[1:] == [str(hits), "0"]
    c.run("kill all")
    recs = events(c, "tog")
    for e in recs:
        assert re.match(r"^tog: \(vfs_read\+0x0/0x[0-9a-f]+\) n=32$", e["rest"]), e
    assert {e["cpu"] for e in recs} == {"000", "001", "002", "003"}
    for cpu in range(4):
        assert "overrun: 0" in c.run("cat per_cpu/cpu%d/stats" % cpu).splitlines()
    # Every record is a hit; a hit may go unrecorded only if it raced with the event being switched
    # off (counted, as Linux's kprobe_dispatcher counts it, then refused by the off event): at most
    # one per CPU per switch.
    assert 0 < len(recs) <= hits <= len(recs) + 4 * 200
    assert c.run("cat kprobe_profile").split()[2] == "0"
    assert c.run("echo > kprobe_events") == ""


def fs_iterations(c, text=None):
    """The `fs` workloads' iterations so far (/proc/workloads: PID CPU NAME ITERATIONS ...)."""
    text = c.run("cat /proc/workloads") if text is None else text
    return sum(int(r[3]) for r in (l.split() for l in text.splitlines()[1:]) if len(r) > 3 and r[2] == "fs")


# --- trace.dat: trace-cmd reads kprobe events from their format files -----------------------------------

def kernel_symbols():
    """name -> address, and a sorted [(address, name)] of the text symbols, from build/kernel.sym."""
    by_name, text = {}, []
    with open(os.path.join(ROOT, "build", "kernel.sym")) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                by_name[parts[2]] = int(parts[0], 16)
                if parts[1] in "tT":
                    text.append((int(parts[0], 16), parts[2]))
    return by_name, sorted(text)


def test_trace_cmd_reports_kprobe_events(tmp_path):
    cmds = ("echo 'p:rd vfs_read n=%dx:u64' > kprobe_events; "
            "echo 'r:rdret vfs_read ret=$retval:u64' >> kprobe_events; "
            "echo 'p:op vfs_open path=+0(%si):string' >> kprobe_events; "
            "echo 1 > events/kprobes/enable; run fs 1 1; sleep 2; echo 0 > events/kprobes/enable")
    out = str(tmp_path)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "trace-record"), "--smp", "2", "-o", out,
                        cmds], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-4000:]
    txt = [m["rest"] for m in map(re.compile(LINE).match, open(os.path.join(out, "trace.txt")).read().splitlines())
           if m]
    rep = subprocess.run(["trace-cmd", "report", os.path.join(out, "trace.dat")], capture_output=True, text=True,
                         timeout=120)
    assert rep.returncode == 0 and rep.stderr.strip() == "", rep.stderr
    lines = [re.match(r"^\s*fs-\d+\s+\[\d+\]\s+\d+\.\d+: (\w+):\s+(.*)$", l) for l in rep.stdout.splitlines()[1:]]
    assert all(lines) and len(lines) == len(txt) > 9, rep.stdout[:2000]
    by_name, text = kernel_symbols()

    def sym(addr):
        i = bisect.bisect_right(text, (addr, "\xff")) - 1
        return "%s+0x%x" % (text[i][1], addr - text[i][0])

    # The same events in the same order; trace-cmd prints the print fmt's "%lx" as hex, the
    # kernel prints symbols: they must name the same places.
    for (name, fields), ours in zip([l.groups() for l in lines], txt):
        m = re.match(r"^\((\w+)(?: <- (\w+))?\) (.*)$", fields)
        assert m, fields
        if name == "rdret":
            # print fmt: "(%lx <- %lx)", REC->__probe_func, REC->__probe_ret_ip (Linux's order)
            assert int(m[1], 16) == by_name["vfs_read"]
            assert ours.startswith("rdret: (%s/" % sym(int(m[2], 16))) and ours.endswith(" <- vfs_read) " + m[3])
        else:
            func = {"rd": "vfs_read", "op": "vfs_open"}[name]
            assert int(m[1], 16) == by_name[func] and ours.startswith("%s: (%s+0x0/" % (name, func))
            assert ours.endswith(") " + m[3])
