"""tests/integration/test_docs_labs.py: a chapter's lab, typed again, must print what the chapter says.

Every fenced block under a chapter's "## Lab" heading whose lines start with the shell prompt is a
transcript: each prompt line is a command, the lines after it (up to the next prompt or the end of the block)
what it printed. We type the commands in order, in one boot, and compare. What a build or a run changes is
masked on both sides before comparing: addresses and other long hex numbers, timestamps, decimal numbers
(pids, ids, counts), the bytes `dis` prints, and runs of spaces (padding follows number widths). The words,
the flags, the order of lines (except in files listed in hash order) and how many there are must match.
After a `run` we wait for the workload's tasks to end, as a reader does before looking at what it left.
"""

import re
from pathlib import Path

import pytest

from tests.integration.test_smp import wait_gone

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "root@ftrace-os:/sys/kernel/tracing# "
SMP = 2
CHAPTERS = ["docs/15-kprobes.md"]

# Files listed in hash-table order: the order follows the addresses, so any change to the kernel's text may
# reorder them; the lines themselves must still match.
HASH_ORDERED = {"cat /sys/kernel/debug/kprobes/list"}

MASKS = [
    (re.compile(r"\b\d+\.\d{6}\b"), "T"),            # timestamps
    (re.compile(r"0x[0-9a-f]+"), "0xH"),              # 0x-numbers
    (re.compile(r"\b[0-9a-f]{8,16}\b"), "H"),         # addresses
    (re.compile(r"\b[0-9a-f]{2}\b"), "B"),            # bytes (dis), two-digit numbers
    (re.compile(r"\b\d+\b"), "N"),                     # other numbers
    (re.compile(r"[ \t]+"), " "),                      # padding
]


def mask(line):
    for rx, repl in MASKS:
        line = rx.sub(repl, line)
    return line.strip()


def lab_transcript(path):
    """[(command, [expected lines])] from the chapter's Lab section, in order."""
    text = (ROOT / path).read_text()
    lab = text[text.index("\n## Lab\n"):]
    end = re.search(r"\n## (?!#)", lab[1:])
    lab = lab[:end.start() + 1] if end else lab
    steps = []
    for block in re.findall(r"^```\n(.*?)^```", lab, re.S | re.M):
        lines = block.splitlines()
        if not lines or not lines[0].startswith(PROMPT):
            continue
        for line in lines:
            if line.startswith(PROMPT):
                steps.append((line[len(PROMPT):], []))
            else:
                steps[-1][1].append(line)
    return steps


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_lab_transcript_is_what_the_shell_prints(console, chapter):
    steps = lab_transcript(chapter)
    assert len(steps) >= 10, "%s: the lab has too few commands to be a lab" % chapter
    for cmd, expected in steps:
        out = console.run(cmd, timeout=300)
        if cmd.startswith("run "):
            pids = [int(m) for m in re.findall(r"^\[(\d+)\] \w+ on CPU \d+$", out, re.M)]
            assert pids and wait_gone(console, pids), "%s: `%s` did not end: %s" % (chapter, cmd, out)
        got = [mask(l) for l in out.splitlines()]
        want = [mask(l) for l in expected]
        if cmd in HASH_ORDERED:
            got, want = sorted(got), sorted(want)
        assert got == want, "%s: `%s` printed\n%s\nthe chapter says\n%s" % (
            chapter, cmd, "\n".join(got), "\n".join(want))


def test_masks_keep_words_and_flags():
    """The masks hide numbers, never the words a lab is about."""
    assert mask("ffffffff80225af0  k  vfs_read+0x0    [DISABLED][FTRACE]") == "H k vfs_read+0xH [DISABLED][FTRACE]"
    assert mask("  step                                                       3               0") == "step N N"
    assert mask("ffffffff80225af6:  cc                       int3   # kprobe: int3 over 48") == \
        "H: B int3 # kprobe: int3 over B"
    assert mask("[    0.083462] trace_kprobe: error: Probe point") == "[ T] trace_kprobe: error: Probe point"
