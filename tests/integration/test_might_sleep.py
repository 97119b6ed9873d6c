"""tests/integration/test_might_sleep.py: in the test kernel, sleeping with a spinlock held is reported loudly.

`fault sleep` (test mode) takes a spinlock nobody else uses and calls msleep(1) under it.  might_sleep() in
msleep() prints Linux's "BUG: sleeping function called from invalid context" with the count of spinlocks held
and a symbolized backtrace; the console fixture counts that line as a failure (BAD_PATTERNS["might_sleep"]), so
every other test proves its own paths never do it.  The shell lives on, and the report is not repeated for the
same caller in a row.
"""

import re

from tests.console import LOG_LINE

REPORT = r"^BUG: sleeping function called from invalid context at kernel/sched/core\.c:\d+$"
CONTEXT = r"^in_atomic\(\): 1, irqs_disabled\(\): 0, pid: \d+, name: sh$"
HELD = r"^spinlocks held: 1, expected: 0 \(called from msleep\+0x[0-9a-f]+/0x[0-9a-f]+\)$"
CALL_TRACE = r"^Call Trace:$"
FRAME = r"^ +(?:\? )?(?P<sym>[\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+"
# Its reports stay in the kernel log (a later module's `dmesg` would see them): a boot of its own, never shared.
SHARE_BOOT = False


def lines(text):
    return [re.sub(LOG_LINE, "", l) for l in text.split("\n")]


def test_sleep_with_spinlock_held_is_reported(console):
    with console.disable_check("might_sleep") as seen:
        out = console.run("fault sleep")
    assert seen.hits["might_sleep"], "no might_sleep report:\n" + out
    rows = lines(out)
    start = next(i for i, r in enumerate(rows) if re.match(REPORT, r))
    assert re.match(CONTEXT, rows[start + 1]), rows[start:start + 3]
    assert re.match(HELD, rows[start + 2]), rows[start:start + 3]
    assert re.match(CALL_TRACE, rows[start + 3]), rows[start:start + 4]
    frames = [m.group("sym") for m in (re.match(FRAME, r) for r in rows[start + 4:]) if m]
    assert "fault_sleep_locked" in frames and "cmd_fault" in frames, frames   # the sleeper, then who asked
    # The lock validator names the lock held across the sleep, and where it was taken.
    held = next(i for i, r in enumerate(rows) if re.match(r"^1 lock held by sh/\d+:$", r))
    assert re.match(r"^ #0: [0-9a-f]{16} \(fault_lock\), at: fault_sleep_locked\+0x[0-9a-f]+/0x[0-9a-f]+$",
                    rows[held + 1]), rows[held:held + 2]
    assert rows[-1] == "fault: slept 1 ms holding a spinlock", rows[-1]        # it slept, and came back
    # The same caller again in a row is not reported twice (a loop would flood the console)...
    with console.disable_check("might_sleep") as seen:
        assert console.run("fault sleep") == "fault: slept 1 ms holding a spinlock"
    assert not seen.hits["might_sleep"], seen.hits
    assert re.search(r"\bsh$", console.run("ps"), re.M)                          # the shell lives on
