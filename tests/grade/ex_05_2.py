"""Grader of exercise 05.2 (docs/05-live-patching.md): text_poke_bp_hits and text_poke_bp_stale in /proc/text_poke_bp."""

import re

TITLE = "counters in a file: /proc/text_poke_bp"
POINTS = 10
SELFTEST = "jump_label_flip_while_other_cpu_runs_it"   # CPU 1 runs the sites while CPU 0 flips them


def counters(console):
    text = console.run("cat /proc/text_poke_bp")
    m = re.fullmatch(r"hits (\d+)\nstale (\d+)", text)
    assert m, text
    return int(m.group(1)), int(m.group(2))


def test_format(console):
    counters(console)


def test_int3s_on_another_cpu_are_counted(console):
    hits0, stale0 = counters(console)
    out = console.run("selftest " + SELFTEST, timeout=120)
    assert "ok 1 " + SELFTEST in out, out
    hits1, stale1 = counters(console)
    assert hits1 > hits0 and stale1 >= stale0, (hits0, hits1, stale0, stale1)
    # Nothing patches now: the counts stay.
    assert counters(console) == (hits1, stale1)
