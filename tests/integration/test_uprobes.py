"""tests/integration/test_uprobes.py: uprobes and uretprobes on a program file (docs/20-tracing-programs.md).

tests/user/tracee.c's uprobe_target(a, s) returns a + strlen(s): called with (10, "probe me"), (20, ...),
(30, ...). Its file offsets come from the built ELF (build/user/tracee: the symbol and the program headers),
so the test follows the binary. Checked: fetched registers, user strings and $retval; the int3 in the text
while the event is on and the original byte after (the program reads its own text); the probe in processes
that were running before it was enabled; a stepped (XOL) instruction and an emulated one; Linux's error_log
lines for bad definitions.
"""

import os
import re

import pytest

from tests.console import LOG_LINE
from tests.elf import elf_mapping_start, elf_symbol_offset

SMP = 2
QEMU_ARGS = ["-cpu", "max"]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRACEE = os.path.join(ROOT, "build", "user", "tracee")
LINE = r"^ *(?P<comm>[ -~]{1,16})-(?P<pid>\d+) +\[\d{3}\] [d.][N.][hzZ.][0-9a-f.][.] +\d+\.\d{6}: (?P<rest>.*)$"


OFF, VADDR = elf_symbol_offset(TRACEE, "uprobe_target")
SEM, _ = elf_symbol_offset(TRACEE, "tracee_semaphore")


def trace_body(console):
    return [(m.group("comm").strip(), int(m.group("pid")), m.group("rest"))
            for m in (re.match(LINE, l) for l in console.run("cat trace", timeout=60).split("\n")) if m]


def program_lines(text):
    return [line for line in text.split("\n") if not re.match(LOG_LINE, line)]


@pytest.fixture(autouse=True)
def clean(console):
    yield
    console.run("echo 0 > events/enable")
    console.run("echo > uprobe_events")
    console.run("echo > trace")


def test_uprobe_and_uretprobe_fetch_values(console):
    console.run(f"echo 'p:myup /tests/tracee:{OFF:#x} a=%di s=+0(%si):ustring t=+0(%si):string' > uprobe_events")
    console.run(f"echo 'r:uprobes/myret /tests/tracee:{OFF:#x} ret=$retval:s64' >> uprobe_events")
    assert console.run("cat uprobe_events").split("\n") == [
        f"p:uprobes/myup /tests/tracee:0x{OFF:016x} a=%di s=+0(%si):ustring t=+0(%si):string",
        f"r:uprobes/myret /tests/tracee:0x{OFF:016x} ret=$retval:s64"]
    console.run("echo 1 > events/uprobes/enable")
    assert program_lines(console.run("/tests/tracee")) == ["tracee"]
    body = [r for c, p, r in trace_body(console) if c == "tracee"]
    calls = []
    for a, total in ((10, 18), (20, 28), (30, 38)):
        calls.append(f'myup: ({VADDR:#x}) a={a:#x} s="probe me" t="probe me"')
        calls.append(rf"myret: \(0x[0-9a-f]+ <- {VADDR:#x}\) ret={total}")   # Linux: where it returned, first
    assert len(body) == 6 and all(re.fullmatch(p if "myret" in p else re.escape(p), r) for p, r in zip(calls, body)), body
    profile = console.run("cat uprobe_profile").split("\n")
    assert sorted(l.split() for l in profile) == [["/tests/tracee", "myret", "3"], ["/tests/tracee", "myup", "3"]]


def test_int3_in_the_text_and_removal_restores_it(console):
    original = program_lines(console.run("/tests/tracee peek"))
    assert original == ["uprobe_target[0] = 53"]        # push %rbx
    console.run(f"echo 'p:pk /tests/tracee:{OFF:#x}' > uprobe_events")
    assert program_lines(console.run("/tests/tracee peek")) == original     # defined, not enabled: no int3
    console.run("echo 1 > events/uprobes/pk/enable")
    assert program_lines(console.run("/tests/tracee peek")) == ["uprobe_target[0] = cc"]
    console.run("echo 0 > events/uprobes/pk/enable")
    assert program_lines(console.run("/tests/tracee peek")) == original
    console.run("echo '-:pk' >> uprobe_events")
    assert console.run("cat uprobe_events") == ""
    assert console.run("ls events/uprobes") != "pk/"


def test_probe_reaches_processes_already_running(console):
    """tracee forks a child that sleeps, then enables the event itself: both processes mapped the file
    before the int3 existed, and both hit it."""
    console.run(f"echo 'p:late /tests/tracee:{OFF:#x} s=+0(%si):ustring' > uprobe_events")
    out = program_lines(console.run("/tests/tracee enable /sys/kernel/tracing/events/uprobes/late/enable"))
    assert out == ["uprobe_target[0] = cc", "uprobe_target[0] = cc"]
    hits = [(p, r) for c, p, r in trace_body(console)]
    assert len({p for p, r in hits}) == 2 and [r for p, r in hits] == [f'late: ({VADDR:#x}) s="late"'] * 2


def test_stepped_out_of_line_instruction(console):
    """uprobe_target's second instruction (mov %rdi,%rbx) runs in the XOL slot; a uretprobe shows the
    function still returns the right sums, so the stepped move did its work and rip came back."""
    console.run(f"echo 'p:step /tests/tracee:{OFF + 1:#x} a=%di' > uprobe_events")
    console.run(f"echo 'r:ret /tests/tracee:{OFF:#x} ret=$retval:u32' >> uprobe_events")
    console.run("echo 1 > events/uprobes/enable")
    assert program_lines(console.run("/tests/tracee")) == ["tracee"]
    rests = [re.sub(r"0x[0-9a-f]+ <- ", "", r) for c, p, r in trace_body(console)]
    assert rests == [line for a in (10, 20, 30) for line in
                     (f"step: ({VADDR + 1:#x}) a={a:#x}", f"ret: ({VADDR:#x}) ret={a + 8}")]


def test_bad_definitions_are_refused_with_linux_errors(console):
    console.run("echo > error_log")
    for line in ("p:bad /tests/nosuch:0x10", f"p:bad /tests/tracee:{OFF:#x} $retval", "p:bad /tests/tracee:zz",
                 "p:bad /tests:0x10"):
        assert "write error" in console.run(f"echo '{line}' >> uprobe_events")
    log = [re.sub(r"^\[ *\d+\.\d+\] ", "", l) for l in console.run("cat error_log").split("\n")]
    assert log == [
        "trace_uprobe: error: Failed to find the given file", "  Command: p:bad /tests/nosuch:0x10",
        "                 ^",
        "trace_uprobe: error: $retval is not available on probe",
        f"  Command: p:bad /tests/tracee:{OFF:#x} $retval", " " * (17 + len(f"/tests/tracee:{OFF:#x} ")) + "^",
        "trace_uprobe: error: Invalid uprobe offset", "  Command: p:bad /tests/tracee:zz",
        " " * 31 + "^",
        "trace_uprobe: error: Not a regular file", "  Command: p:bad /tests:0x10", " " * 17 + "^"]
    assert console.run("cat uprobe_events") == ""
    # no ':' after the path: not a uprobe command at all (Linux: -EINVAL, nothing logged)
    assert "write error" in console.run("echo 'p:bad /tests/tracee' >> uprobe_events")
    assert console.run("cat uprobe_events") == ""


def test_several_probes_on_one_event_and_events_sharing_a_place(console):
    """Linux's append_trace_uprobe(): a definition naming an existing event adds a probe to it (listed apart,
    counted apart, recorded as the one event); another event on the same place shares its breakpoint; the kind,
    the arguments' names and types, and the very same probe again are refused with Linux's errors; the probe
    added while the event is on is in at once; removing one probe keeps the event."""
    a, b, c = OFF, OFF + 1, OFF + 4              # push %rbx; mov %rdi,%rbx (stepped); mov %rsi,%rdi
    for line in (f"p:multi /tests/tracee:{a:#x} x=%di", f"p:multi /tests/tracee:{b:#x} x=%di",
                 f"p:other /tests/tracee:{a:#x}"):
        assert console.run(f"echo '{line}' >> uprobe_events") == ""
    listing = [f"p:uprobes/multi /tests/tracee:0x{a:016x} x=%di", f"p:uprobes/multi /tests/tracee:0x{b:016x} x=%di",
               f"p:uprobes/other /tests/tracee:0x{a:016x}"]
    assert console.run("cat uprobe_events").split("\n") == listing
    assert console.run("ls events/uprobes").split() == ["enable", "filter", "multi/", "other/"]
    console.run("echo > error_log")
    refused = ((f"r:multi /tests/tracee:{c:#x} x=%di", "Probe type is different from existing probe", 0),
               (f"p:multi /tests/tracee:{c:#x} y=%di", "Argument type or name is different from existing probe",
                len(f"p:multi /tests/tracee:{c:#x} ")),
               (f"p:multi /tests/tracee:{c:#x} x=%di:u8", "Argument type or name is different from existing probe",
                len(f"p:multi /tests/tracee:{c:#x} ")),
               (f"p:multi /tests/tracee:{c:#x}", "Argument type or name is different from existing probe",
                len(f"p:multi /tests/tracee:{c:#x} ")),
               (f"p:multi /tests/tracee:{b:#x} x=%di", "There is already the exact same probe event", 0))
    for line, _, _ in refused:
        assert "File exists" in console.run(f"echo '{line}' >> uprobe_events"), line
    log = [re.sub(r"^\[ *\d+\.\d+\] ", "", l) for l in console.run("cat error_log").split("\n")]
    assert log == [x for line, why, caret in refused
                   for x in ("trace_uprobe: error: " + why, "  Command: " + line, " " * (11 + caret) + "^")]
    assert console.run("cat uprobe_events").split("\n") == listing
    console.run("echo 1 > events/uprobes/enable")
    assert program_lines(console.run("/tests/tracee")) == ["tracee"]
    body = [r for comm, pid, r in trace_body(console) if comm == "tracee"]
    for n, x in enumerate((10, 20, 30)):        # per call: both events at a, in either order, then multi at b
        assert sorted(body[3 * n:3 * n + 2]) == [f"multi: ({VADDR:#x}) x={x:#x}", f"other: ({VADDR:#x})"], body
        assert body[3 * n + 2] == f"multi: ({VADDR + 1:#x}) x={x:#x}", body
    assert len(body) == 9, body
    assert sorted(l.split() for l in console.run("cat uprobe_profile").split("\n")) == \
        [["/tests/tracee", "multi", "3"], ["/tests/tracee", "multi", "3"], ["/tests/tracee", "other", "3"]]
    # added while the event is on: in at once; removing one probe while on: EBUSY
    assert console.run(f"echo 'p:multi /tests/tracee:{c:#x} x=%di' >> uprobe_events") == ""
    assert "Device or resource busy" in console.run(f"echo '-:multi /tests/tracee:{a:#x} x=%di' >> uprobe_events")
    console.run("echo > trace")
    assert program_lines(console.run("/tests/tracee")) == ["tracee"]
    body = [r for comm, pid, r in trace_body(console) if comm == "tracee"]
    assert len(body) == 12 and [r for r in body if f"({VADDR + 4:#x})" in r] == \
        [f"multi: ({VADDR + 4:#x}) x={x:#x}" for x in (10, 20, 30)], body
    console.run("echo 0 > events/uprobes/enable")
    # the event's first probe removed: the event stays, with the others
    assert console.run(f"echo '-:multi /tests/tracee:{a:#x} x=%di' >> uprobe_events") == ""
    assert console.run("cat uprobe_events").split("\n") == listing[1:] + [
        f"p:uprobes/multi /tests/tracee:0x{c:016x} x=%di"]
    console.run("echo > trace")
    console.run("echo 1 > events/uprobes/multi/enable")
    assert program_lines(console.run("/tests/tracee")) == ["tracee"]
    body = [r for comm, pid, r in trace_body(console) if comm == "tracee"]
    assert body == [f"multi: ({v:#x}) x={x:#x}" for x in (10, 20, 30) for v in (VADDR + 1, VADDR + 4)], body
    console.run("echo 0 > events/uprobes/multi/enable")
    assert console.run("echo '-:multi' >> uprobe_events") == ""
    assert console.run("cat uprobe_events") == listing[2]
    assert console.run("ls events/uprobes").split() == ["enable", "filter", "other/"]


def test_probes_added_and_switched_while_the_program_runs_on_the_other_cpu(console):
    """Text written under load: a tracee calls loop_function() without end on the other CPU while six probes are
    added to its enabled event (each an int3 written into the running process) and the event goes off and on 20
    times (every int3 out and in again). The process must live through it, and every probe must count hits."""
    lf, _ = elf_symbol_offset(TRACEE, "loop_function")
    places = [lf, lf + 2, lf + 5, lf + 8, lf + 0xb, lf + 0x10, lf + 0x13]     # its instructions before syscall
    console.run(f"echo 'p:lp /tests/tracee:{lf:#x}' > uprobe_events")
    assert console.run("echo 1 > events/uprobes/lp/enable") == ""
    out = console.run("/bin/sh -c '/tests/tracee loop 1000 1000000000 > /dev/null 2>&1 & echo $!'")
    pid = int(program_lines(out)[-1])
    try:
        for p in places[1:]:
            assert console.run(f"echo 'p:lp /tests/tracee:{p:#x}' >> uprobe_events") == ""
        for _ in range(20):
            assert console.run("echo 0 > events/uprobes/lp/enable") == ""
            assert console.run("echo 1 > events/uprobes/lp/enable") == ""
        def profile_hits(out):
            return [int(l.split()[-1]) for l in out.split("\n")]

        # A bounded wait on the kernel's state: every probe's first hit counted.
        out = console.poll("cat uprobe_profile", lambda out: len(profile_hits(out)) == len(places)
                           and all(profile_hits(out)), timeout=120)
        assert all(profile_hits(out)), out
        assert re.search(rf"^\s*{pid}\s", console.run("ps"), re.M), "the tracee died"
    finally:
        console.run(f"/bin/busybox kill -9 {pid}")
    console.run("echo 0 > events/uprobes/lp/enable")


def test_ref_ctr_offset_counts_in_each_process_while_installed(console):
    """`(REF_CTR_OFFSET)`: tracee's USDT semaphore is 1 in a process exec'd while the probe is on and in
    one that was running when it went on, 0 otherwise; the program calls the probed function only then."""
    # @+OFFS reads the file's offset where this process maps it: the semaphore itself
    console.run(f"echo 'p:sem /tests/tracee:{OFF:#x}({SEM:#x}) a=%di s=@+{SEM:#x}:u16' > uprobe_events")
    assert console.run("cat uprobe_events") == \
        f"p:uprobes/sem /tests/tracee:0x{OFF:016x}({SEM:#x}) a=%di s=@+{SEM:#x}:u16"
    assert program_lines(console.run("/tests/tracee sem")) == ["tracee_semaphore = 0"]
    console.run("echo 1 > events/uprobes/sem/enable")
    assert program_lines(console.run("/tests/tracee sem")) == ["tracee_semaphore = 1"]
    console.run("echo 0 > events/uprobes/sem/enable")
    assert program_lines(console.run("/tests/tracee sem")) == ["tracee_semaphore = 0"]
    out = console.run("/tests/tracee sem /sys/kernel/tracing/events/uprobes/sem/enable")
    assert program_lines(out) == ["tracee_semaphore = 1"]
    console.run("echo 0 > events/uprobes/sem/enable")
    assert [r for c, p, r in trace_body(console)] == [f"sem: ({VADDR:#x}) a=0x5 s=1"] * 2
    # the same place with another semaphore: refused, nothing logged (Linux's validate_ref_ctr_offset())
    console.run("echo > error_log")
    assert "Invalid argument" in console.run(f"echo 'p:sem2 /tests/tracee:{OFF:#x}({SEM + 2:#x})' >> uprobe_events")
    assert console.run("cat error_log") == ""
    console.run("echo '-:sem' >> uprobe_events")
    assert console.run("cat uprobe_events") == ""


def test_percent_return_is_a_uretprobe(console):
    console.run(f"echo 'p:pr /tests/tracee:{OFF:#x}%return ret=$retval:s32' > uprobe_events")
    assert console.run("cat uprobe_events") == f"r:uprobes/pr /tests/tracee:0x{OFF:016x} ret=$retval:s32"
    console.run("echo 1 > events/uprobes/pr/enable")
    assert program_lines(console.run("/tests/tracee")) == ["tracee"]
    rests = [re.sub(r"0x[0-9a-f]+ <- ", "", r) for c, p, r in trace_body(console)]
    assert rests == [f"pr: ({VADDR:#x}) ret={a + 8}" for a in (10, 20, 30)]


def test_file_offset_and_symbol_arguments(console):
    console.run("echo > error_log")
    for arg in ("@+ab", "@symbol"):
        assert "write error" in console.run(f"echo 'p /tests/tracee:{OFF:#x} {arg}' >> uprobe_events")
    log = [re.sub(r"^\[ *\d+\.\d+\] ", "", l) for l in console.run("cat error_log").split("\n")]
    caret = " " * len(f"  Command: p /tests/tracee:{OFF:#x} ") + "^"
    assert log == ["trace_uprobe: error: Invalid file offset value", f"  Command: p /tests/tracee:{OFF:#x} @+ab",
                   caret, "trace_uprobe: error: Symbol is not available with uprobe",
                   f"  Command: p /tests/tracee:{OFF:#x} @symbol", caret]


@pytest.mark.parametrize("place,caret,message", [
    ("10(1a)", 3, "Invalid reference counter offset"),
    ("10(10", 5, "Reference counter brace is not closed"),
    ("10(10)a", 6, "Reference counter has wrong suffix"),
    ("10(10)%return", 6, "Reference counter has wrong suffix"),
    ("10%hoge", 2, "Invalid probed address suffix"),
])
def test_place_suffix_errors(console, place, caret, message):
    """ftracetest's uprobe_syntax_errors.tc cases, with Linux's carets: counted from after the ':'."""
    console.run("echo > error_log")
    assert "write error" in console.run(f"echo 'p /tests/tracee:{place}' >> uprobe_events")
    log = [re.sub(r"^\[ *\d+\.\d+\] ", "", l) for l in console.run("cat error_log").split("\n")]
    assert log == [f"trace_uprobe: error: {message}", f"  Command: p /tests/tracee:{place}",
                   " " * (len("  Command: p /tests/tracee:") + caret) + "^"]
    assert console.run("cat uprobe_events") == ""


def test_uprobe_events_in_dynamic_events(console):
    """dynamic_events takes `p:... /path:offset` as Linux's does: listed in both files, beside a kprobe event
    (kprobe_events lists only its own), hits recorded, removal by name or by place and arguments, EBUSY while
    enabled, `>` on uprobe_events removing only uprobe events."""
    console.run("echo > dynamic_events")
    assert console.run(f"echo 'p:du /tests/tracee:{OFF:#x} a=%di' >> dynamic_events") == ""
    assert console.run("echo 'p:kp vfs_read' >> dynamic_events") == ""
    assert console.run(f"echo 'r:uprobes/dr /tests/tracee:{OFF:#x} ret=$retval:s64' >> uprobe_events") == ""
    du = f"p:uprobes/du /tests/tracee:0x{OFF:016x} a=%di"
    dr = f"r:uprobes/dr /tests/tracee:0x{OFF:016x} ret=$retval:s64"
    assert console.run("cat dynamic_events").split("\n") == [du, "p:kprobes/kp vfs_read", dr]
    assert console.run("cat uprobe_events").split("\n") == [du, dr]
    assert console.run("cat kprobe_events") == "p:kprobes/kp vfs_read"
    console.run("echo 1 > events/uprobes/du/enable")
    assert program_lines(console.run("/tests/tracee")) == ["tracee"]
    body = [r for c, p, r in trace_body(console) if c == "tracee"]
    assert body == [f"du: ({VADDR:#x}) a={a:#x}" for a in (10, 20, 30)]
    assert "Device or resource busy" in console.run("echo '-:du' >> dynamic_events")
    assert "Device or resource busy" in console.run("echo > uprobe_events")
    assert console.run("cat dynamic_events").split("\n") == [du, "p:kprobes/kp vfs_read", dr]
    console.run("echo 0 > events/uprobes/du/enable")
    assert "No such file or directory" in console.run(f"echo '-:du /tests/tracee:{OFF:#x} a=%si' >> dynamic_events")
    assert console.run(f"echo '-:uprobes/du /tests/tracee:{OFF:#x} a=%di' >> dynamic_events") == ""
    assert console.run("echo > uprobe_events") == ""
    assert console.run("cat dynamic_events") == "p:kprobes/kp vfs_read"
    console.run("echo > error_log")
    assert "No such file or directory" in console.run("echo 'p:bad /tests/nosuch:0x10' >> dynamic_events")
    assert re.sub(r"^\[ *\d+\.\d+\] ", "", console.run("cat error_log").split("\n")[0]) == \
        "trace_uprobe: error: Failed to find the given file"
    assert console.run("echo > dynamic_events") == ""


def test_userstacktrace_below_events(console):
    """The userstacktrace option: each event of the process is followed by its user stack, Linux's lines
    (tracee is built without frame pointers, so the stack is where ring 3 was: the probe, the syscall's
    return address)."""
    console.run(f"echo 'p:us /tests/tracee:{OFF:#x}' > uprobe_events")
    console.run("echo 1 > events/uprobes/us/enable")
    console.run("echo 1 > events/syscalls/sys_enter_getppid/enable")
    console.run("echo userstacktrace > trace_options")
    try:
        console.run("/tests/tracee")
    finally:
        console.run("echo nouserstacktrace > trace_options")
    out = [l for l in console.run("cat trace", timeout=60).split("\n") if not l.startswith("#")]
    rest = [re.match(LINE, l).group("rest") if re.match(LINE, l) else l for l in out]
    assert rest[0] == "sys_getppid()" and rest[1] == "<user stack trace>"
    assert re.fullmatch(r" =>  <00000000004[0-9a-f]{5}>", rest[2])
    assert rest[3:] == [f"us: ({VADDR:#x})", "<user stack trace>", f" =>  <{VADDR:016x}>"] * 3
    assert "nouserstacktrace" in console.run("cat trace_options").split("\n")


def test_sym_userobj_names_the_file(console):
    """sym-userobj: a user address inside a file's mapping prints as the file and its offset from the mapping's
    start (Linux's seq_print_user_ip()), looked up while `trace` is read: tracee reads it itself, alive; read
    after it exited, the raw form again. sym-addr adds the address; the option is per instance."""
    obj = "/tests/tracee[+0x%x]" % (VADDR - elf_mapping_start(TRACEE, VADDR))
    console.run(f"echo 'p:us /tests/tracee:{OFF:#x}' > uprobe_events")
    console.run("echo 1 > events/uprobes/us/enable")
    assert console.run("cat options/sym-userobj") == "0"
    console.run("echo userstacktrace > trace_options")
    console.run("echo 1 > options/sym-userobj")
    try:
        shown = program_lines(console.run("/tests/tracee show trace", timeout=60))
        console.run("echo > trace")
        console.run("echo sym-addr > trace_options")
        with_addr = program_lines(console.run("/tests/tracee show trace", timeout=60))
        after = [l for l in console.run("cat trace", timeout=60).split("\n") if not l.startswith("#")]
    finally:
        console.run("echo nouserstacktrace > trace_options")
        console.run("echo nosym-addr > trace_options")
        console.run("echo 0 > options/sym-userobj")
    body = [re.match(LINE, l).group("rest") if re.match(LINE, l) else l for l in shown if not l.startswith("#")]
    assert body == [f"us: ({VADDR:#x})", "<user stack trace>", " => " + obj]
    body = [re.match(LINE, l).group("rest") if re.match(LINE, l) else l for l in with_addr if not l.startswith("#")]
    assert body == [f"us: ({VADDR:#x})", "<user stack trace>", f" => {obj} <{VADDR:016x}>"]
    body = [re.match(LINE, l).group("rest") if re.match(LINE, l) else l for l in after]
    assert body[1:] == ["<user stack trace>", f" =>  <{VADDR:016x}>"]      # the process is gone
    assert "nosym-userobj" in console.run("cat trace_options").split("\n")
    console.run("mkdir instances/uo")
    try:
        assert console.run("echo 1 > instances/uo/options/sym-userobj") == ""
        assert "sym-userobj" in console.run("cat instances/uo/trace_options").split("\n")
        assert console.run("cat options/sym-userobj") == "0"
    finally:
        console.run("rmdir instances/uo")
