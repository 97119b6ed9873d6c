"""Grader of exercise 10.9 (docs/10-trampolines.md): live trampolines listed in /proc/kallsyms, as Linux lists
them (ftrace_mod_get_kallsym(): `ftrace_trampoline [__builtin__ftrace]`)."""

import re

TITLE = "trampolines in /proc/kallsyms"
POINTS = 10
LINE = re.compile(r"^([0-9a-f]{16}) t ftrace_trampoline\t\[__builtin__ftrace\]$")


def trampoline_lines(console):
    """(addresses of the trampoline lines, whether they all come after the kernel's own symbols)."""
    lines = console.run("cat /proc/kallsyms", timeout=60).splitlines()
    found = [i for i, l in enumerate(lines) if LINE.match(l)]
    return [int(LINE.match(lines[i]).group(1), 16) for i in found], found == list(range(len(lines) - len(found), len(lines)))


def test_a_live_trampoline_is_listed(console):
    console.run("echo cmd_pwd > set_ftrace_filter")
    assert console.run("echo function > current_tracer") == ""
    m = re.search(r"tramp: 0x([0-9a-f]+) ", console.run("cat enabled_functions"))
    assert m, "no trampoline in enabled_functions"
    addrs, last = trampoline_lines(console)
    assert int(m.group(1), 16) in addrs and last, addrs


def test_gone_when_freed(console):
    console.run("echo cmd_pwd > set_ftrace_filter")
    console.run("echo function > current_tracer")
    tramp = int(re.search(r"tramp: 0x([0-9a-f]+) ", console.run("cat enabled_functions")).group(1), 16)
    assert tramp in trampoline_lines(console)[0]
    console.run("echo nop > current_tracer")
    addrs, _ = trampoline_lines(console)
    assert tramp not in addrs, addrs
