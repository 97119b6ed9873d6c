"""Grader of exercise 12.2 (docs/12-jump-labels.md): a key that starts on, demo_true, with one likely and
one unlikely use in jump_label_demo_true(), flipped by /proc/sys/kernel/jump_label_demo_true."""

import re

TITLE = "a true key"
POINTS = 10
SYSCTL = "/proc/sys/kernel/jump_label_demo_true"


def key_block(console):
    """(header, [(len, form), ...]) of demo_true in /proc/jump_labels, sites in address order."""
    text = console.run("cat /proc/jump_labels")
    m = re.search(r"^demo_true: (.*)\n((?:  .*\n?)*)", text, re.M)
    assert m, "no demo_true in /proc/jump_labels:\n" + text
    sites = re.findall(r"^  0x[0-9a-f]+ jump_label_demo_true\+0x[0-9a-f]+/0x[0-9a-f]+ len (\d) (nop|jmp) -> "
                       r"jump_label_demo_true\+", m.group(2), re.M)
    return m.group(1), [(int(n), form) for n, form in sites]


def test_boots_on(console):
    assert console.run("cat %s" % SYSCTL) == "1"
    head, sites = key_block(console)
    assert head == "on, enabled 1, 2 sites"
    # The likely use falls through into its block; the unlikely one jumps over to its own.
    assert len(sites) == 2 and sites[0] == (5, "nop") and sites[1][1] == "jmp", sites


def test_off_and_on_again(console):
    assert console.run("echo 0 > %s" % SYSCTL) == ""
    assert console.run("cat %s" % SYSCTL) == "0"
    head, sites = key_block(console)
    assert head == "off, enabled 0, 2 sites"
    assert [form for _, form in sites] == ["jmp", "nop"], sites
    assert console.run("echo 1 > %s" % SYSCTL) == ""
    head, sites = key_block(console)
    assert head == "on, enabled 1, 2 sites" and [f for _, f in sites] == ["nop", "jmp"]


def test_bad_value_refused(console):
    assert "Invalid argument" in console.run("echo 2 > %s" % SYSCTL)
    assert console.run("cat %s" % SYSCTL) == "1"
