"""Grader of exercise 14.1 (docs/14-trace-export.md): tsc_clock, the constants that turn a raw stamp into the
time `trace` prints: ns = (stamp - base) * mult >> shift."""

import re

TITLE = "the clock's constants in a file: tsc_clock"
POINTS = 10


def clock(console):
    text = console.run("cat tsc_clock")
    m = re.fullmatch(r"base: (\d+)\nmult: (\d+)\nshift: 32", text)
    assert m, text
    return int(m.group(1)), int(m.group(2))


def test_mult_is_the_calibrated_rate(console):
    with console.disable_check("banner"):            # dmesg starts with the boot banner
        log = console.run("dmesg")
    m = re.search(r"tsc: (\d+)\.(\d{3}) MHz", log)
    assert m, "no tsc line in dmesg"
    khz = int(m.group(1)) * 1000 + int(m.group(2))
    assert clock(console)[1] == (10 ** 6 << 32) // khz


def test_base_fixed_and_file_read_only(console):
    base, mult = clock(console)
    assert base > 0
    assert "Permission denied" in console.run("echo 1 > tsc_clock")
    assert clock(console) == (base, mult)
