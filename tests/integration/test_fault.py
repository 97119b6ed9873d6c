"""tests/integration/test_fault.py: `fault KIND` ends in an Oops dump with a symbolized backtrace and exit status 3;
`poweroff` and `reboot` end QEMU with status 0.

Each test kills its machine, so each boots its own (`fresh_console`).  The expected dump is in the FAULT SPEC block.
"""

import re

import pytest

from tests.console import EXIT_PANIC, EXIT_POWEROFF, LOG_LINE

# ---------------------------------------------------------------------------------------------------------------
# FAULT SPEC: what the crash dump looks like.  A line may carry a printk timestamp; it is removed before matching.
# ---------------------------------------------------------------------------------------------------------------

OOPS_HEADER = {                                    # fault KIND -> regex of the first dump line
    "pf": r"^Oops: #PF page fault",
    "wx": r"^Oops: #PF page fault",                # a write to (read-only) kernel text
    "gp": r"^Oops: #GP\b",
    "ud": r"^Oops: #UD\b",
    "de": r"^Oops: #DE\b",
}
RIP_LINE = r"^RIP: .*\bfault_\w*\+0x[0-9a-f]+/0x[0-9a-f]+"       # symbolized: in the function that faulted
GPRS = ["RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP", "RSP",
        "R0?8", "R0?9", "R10", "R11", "R12", "R13", "R14", "R15"]     # Linux writes R08, R09
REG_VALUE = r"\b{reg}: (?:[0-9a-f]{{4}}:)?(?:0x)?[0-9a-f]{{16}}\b"   # RSP may carry "0018:" like Linux
CR2 = r"\bCR2: (?:0x)?[0-9a-f]{16}\b"
CALL_TRACE = r"^Call Trace:$"
TRACE_ENTRY = r"^ +(?:\? )?(?P<sym>[\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+"   # " shell_exec+0x70/0x120"
TRACE_MUST_CONTAIN = "shell"                       # the fault was requested from the shell
PANIC_LINE = r"^Kernel panic - not syncing: \S"
POWER_DOWN = "Power down."

# ---------------------------------------------------------------------------------------------------------------


def dump_lines(text):
    """Output lines with any printk timestamp prefix removed."""
    return [re.sub(LOG_LINE, "", line) for line in text.split("\n")]


def first_index(rows, pattern, start=0, what=None):
    for i in range(start, len(rows)):
        if re.search(pattern, rows[i]):
            return i
    raise AssertionError("no %s (/%s/) in the output after line %d" % (what or "line", pattern, start))


def check_oops(text, kind):
    """The dump is: header, registers (RIP symbolized), CR2, Call Trace with shell frames, then the panic line."""
    rows = dump_lines(text)
    oops = first_index(rows, OOPS_HEADER[kind], what="Oops header")
    trace = first_index(rows, CALL_TRACE, oops, what="Call Trace")
    panic = first_index(rows, PANIC_LINE, trace, what="panic line after the Call Trace")
    regs = "\n".join(rows[oops:trace])
    assert re.search(RIP_LINE, regs, re.M), "RIP line missing or not symbolized as fault_*+0x../0x.."
    for reg in GPRS:
        assert re.search(REG_VALUE.format(reg=reg), regs), "register %s missing from the dump" % reg
    assert re.search(CR2, regs), "CR2 missing from the dump"
    frames = [m["sym"] for m in (re.match(TRACE_ENTRY, r) for r in rows[trace + 1:panic]) if m]
    assert frames, "Call Trace has no SYMBOL+0xOFF/0xSIZE lines"
    assert any(TRACE_MUST_CONTAIN in f for f in frames), "no %s frame in the trace: %s" % (TRACE_MUST_CONTAIN,
                                                                                          frames)


@pytest.mark.parametrize("kind", sorted(OOPS_HEADER))
def test_fault_dumps_and_exits(fresh_console, kind):
    with fresh_console.expected_crash() as seen:
        status, out = fresh_console.run_to_exit("fault " + kind)
    check_oops(out, kind)
    assert seen.hits["panic"], "the harness did not see the panic line"
    assert status == EXIT_PANIC, "QEMU exit status %d, want %d (panic in test mode)" % (status, EXIT_PANIC)


@pytest.mark.smp(2)
def test_fault_on_smp_still_exits(fresh_console):
    """With a second CPU running, a fault must still dump and end QEMU (the other CPU must not keep it alive)."""
    with fresh_console.expected_crash():
        status, out = fresh_console.run_to_exit("fault pf")
    check_oops(out, "pf")
    assert status == EXIT_PANIC


def test_fault_panic(fresh_console):
    with fresh_console.expected_crash():
        status, out = fresh_console.run_to_exit("fault panic")
    first_index(dump_lines(out), PANIC_LINE, what="panic line")
    assert status == EXIT_PANIC


def test_poweroff(fresh_console):
    status, out = fresh_console.run_to_exit("poweroff")
    assert any(row.rstrip().endswith(POWER_DOWN) for row in dump_lines(out)), out
    assert status == EXIT_POWEROFF


def test_reboot_ends_qemu(fresh_console):
    """Under -no-reboot a reset ends QEMU with status 0; a second banner would fail the test (bad pattern)."""
    status, _ = fresh_console.run_to_exit("reboot")
    assert status == EXIT_POWEROFF
