"""tests/integration/test_ftrace.py: dynamic ftrace through the shell: records, filters, live patching.

One QEMU for the module. Every test puts the filter files and func_hits back as it found them (empty, off).
Expected function lists are computed here from available_filter_functions with Python's fnmatch, whose
`*`, `?`, `[...]` and `[!...]` mean what the kernel's globs mean, so nothing is hard-coded but names.
"""

import fnmatch
import os
import re

import pytest

from tests.console import ROOT

SMP = 1

EMPTY_FILTER = "#### all functions enabled ####"
EMPTY_NOTRACE = "#### no functions disabled ####"
EINVAL = "echo: write error: Invalid argument"
NOP5 = "0f 1f 44 00 00"
ENABLED_LINE = (r"^(?P<name>\w+) \((?P<count>\d+)\)(?P<flags>( R|  )( I|  )( D|  ))"
                r"(\ttramp: (?P<tramp>0x[0-9a-f]+) \((?P<func>\S+)\) ->(?P<callee>\S+))?$")
NOTRACE_FUNCS = ["ftrace_ops_list_func", "text_poke", "memcpy", "vsnprintf", "do_irq", "ftrace_modify_code"]


@pytest.fixture(autouse=True)
def clean_state(console):
    """Leave no filter and no live ops behind, whatever the test did."""
    yield
    for cmd in ("echo 0 > func_hits", "echo > set_ftrace_filter", "echo > set_ftrace_notrace",
                "echo 1 > /proc/sys/kernel/ftrace_enabled"):
        console.run(cmd)


@pytest.fixture(scope="module")
def functions(console):
    return console.run("cat available_filter_functions", timeout=60).splitlines()


def read_filter(console, name="set_ftrace_filter"):
    return console.run("cat " + name).splitlines()


def set_filter(console, text, op=">"):
    return console.run("echo '%s' %s set_ftrace_filter" % (text, op))


def dis_first(console, func):
    """Bytes and decoded text of the first instruction of func."""
    lines = console.run("dis %s 5" % func).splitlines()
    m = re.match(r"^[0-9a-f]{16}:  ((?:[0-9a-f]{2} ){4}[0-9a-f]{2})\s+(.*)$", lines[1])
    assert m, lines
    return m.group(1), re.sub(r"\s+", " ", m.group(2))


def hits(console):
    out = console.run("cat func_hits").splitlines()
    assert out[0] in ("# func_hits: on", "# func_hits: off"), out
    return {line.split()[0]: int(line.split()[1]) for line in out[2:]}


def test_boot_messages_count_every_site(console, functions):
    with console.disable_check("banner"):
        log = console.run("dmesg")
    alloc = re.search(r"ftrace: allocating (\d+) entries in (\d+) pages", log)
    conv = re.search(r"ftrace: converted (\d+) sites in \d+ us", log)
    assert alloc and conv, log
    assert int(alloc.group(1)) == int(conv.group(1)) == len(functions)
    assert int(alloc.group(2)) * 4096 // 16 >= len(functions)


def test_available_functions_in_address_order(functions):
    # Two static functions may share a name (Linux lists both too): take their addresses in order.
    addrs = {}
    with open(os.path.join(ROOT, "build", "kernel.sym")) as f:
        for line in f:
            a, kind, name = line.split()
            if kind in "tT":
                addrs.setdefault(name, []).append(int(a, 16))
    assert len(functions) > 100
    seen = {}
    listed = []
    for name in functions:
        listed.append(addrs[name][seen.get(name, 0)])
        seen[name] = seen.get(name, 0) + 1
    assert listed == sorted(listed) and len(set(listed)) == len(listed)
    for name in ("kmalloc", "kfree", "shell_exec", "cmd_cat"):
        assert name in functions
    for name in NOTRACE_FUNCS:
        assert name not in functions, name + " must not be traceable"


def test_every_site_is_a_nop_at_boot(console, functions):
    for name in functions[:: max(1, len(functions) // 12)]:
        assert dis_first(console, name) == (NOP5, "nopl 0x0(%rax,%rax,1)"), name
    assert console.run("cat enabled_functions") == ""


def test_empty_sets_read_like_linux(console):
    assert read_filter(console) == [EMPTY_FILTER]
    assert read_filter(console, "set_ftrace_notrace") == [EMPTY_NOTRACE]


@pytest.mark.parametrize("pattern", ["kmalloc", "k*alloc", "*alloc", "*alloc*", "sh?ll_*", "k[mz]alloc",
                                     "cmd_[!c]*", "*_show"])
def test_filter_globs_match_like_fnmatch(console, functions, pattern):
    assert set_filter(console, pattern) == ""
    want = [f for f in functions if fnmatch.fnmatchcase(f, pattern)]
    assert want, "pattern must match something in this kernel"
    assert read_filter(console) == want


def test_filter_tokens_append_remove_index(console, functions):
    assert set_filter(console, "kmalloc kfree") == ""
    assert read_filter(console) == [f for f in functions if f in ("kmalloc", "kfree")]
    assert set_filter(console, "kzalloc", ">>") == ""
    assert set(read_filter(console)) == {"kmalloc", "kfree", "kzalloc"}
    assert set_filter(console, "!kfree", ">>") == ""
    assert set(read_filter(console)) == {"kmalloc", "kzalloc"}
    assert set_filter(console, "3") == ""                     # `>` replaces; a number is a line number
    assert read_filter(console) == [functions[2]]
    assert set_filter(console, "*alloc* !kzalloc") == ""
    assert read_filter(console) == [f for f in functions if "alloc" in f and f != "kzalloc"]


@pytest.mark.parametrize("bad", ["no_such_function", "kmalloc no_such_function", "k[ma", "0", "99999",
                                 "!no_such_function", "kmalloc:nosuchcmd", "!"])
@pytest.mark.parametrize("op", [">", ">>"])
def test_bad_filter_is_refused_and_changes_nothing(console, bad, op):
    set_filter(console, "kfree")
    assert set_filter(console, bad, op) == EINVAL
    assert read_filter(console) == ["kfree"]


def test_notrace_wins_over_filter(console):
    set_filter(console, "k*alloc")
    assert console.run("echo kmalloc > set_ftrace_notrace") == ""
    assert read_filter(console, "set_ftrace_notrace") == ["kmalloc"]
    console.run("echo 1 > func_hits")
    enabled = [re.match(ENABLED_LINE, l).group("name") for l in console.run("cat enabled_functions").splitlines()]
    assert "kzalloc" in enabled and "kmalloc" not in enabled


def test_control_files_refuse_bad_writes(console):
    assert console.run("echo x > available_filter_functions") == "available_filter_functions: Permission denied"
    assert console.run("echo x > enabled_functions") == "enabled_functions: Permission denied"
    assert console.run("echo x > no_such_file") == "no_such_file: No such file or directory"
    for bad in ("2", "on", "-1", ""):
        assert console.run("echo '%s' > func_hits" % bad) == EINVAL
        assert console.run("echo '%s' > /proc/sys/kernel/ftrace_enabled" % bad) == EINVAL
    assert console.run("cat /proc/sys/kernel/ftrace_enabled") == "1"
    assert hits(console) == {}


def test_func_hits_patches_counts_and_unpatches(console):
    set_filter(console, "kmalloc kfree")
    assert dis_first(console, "kmalloc")[0] == NOP5
    assert console.run("echo 1 > func_hits") == ""
    insn_bytes, text = dis_first(console, "kmalloc")
    # func_hits is the only ops on the site: it calls func_hits's own trampoline.
    assert insn_bytes.startswith("e8 ") and text.endswith("<ftrace_trampoline>"), text
    lines = console.run("cat enabled_functions").splitlines()
    parsed = sorted((m.group("name"), m.group("count"), m.group("flags"), m.group("func"), m.group("callee"))
                    for m in (re.match(ENABLED_LINE, l) for l in lines) if m)
    assert len(parsed) == len(lines)
    cb = parsed[0][3]
    assert cb.startswith("func_hits_call+0x0/") and parsed[0][4] == cb
    assert parsed == [("kfree", "1", "      ", cb, cb), ("kmalloc", "1", "      ", cb, cb)]
    tramp = re.match(ENABLED_LINE, lines[0]).group("tramp")
    assert text.split()[-2] == tramp[2:], (text, tramp)
    # heap_reuse calls kmalloc twice and kzalloc (which calls kmalloc) once, kfree three times.
    assert "ok 1 heap_reuse" in console.run("selftest heap_reuse")
    assert hits(console) == {"kmalloc": 3, "kfree": 3}
    assert console.run("echo 0 > func_hits") == ""
    assert dis_first(console, "kmalloc") == (NOP5, "nopl 0x0(%rax,%rax,1)")
    assert console.run("cat enabled_functions") == ""
    console.run("selftest heap_reuse")
    assert hits(console) == {"kmalloc": 3, "kfree": 3}      # off: nothing more counted


def test_filter_change_while_live_repatches(console):
    set_filter(console, "kmalloc")
    console.run("echo 1 > func_hits")
    assert dis_first(console, "kfree")[0] == NOP5
    set_filter(console, "kfree")
    assert dis_first(console, "kmalloc")[0] == NOP5
    assert dis_first(console, "kfree")[1].endswith("<ftrace_trampoline>")


def test_ftrace_enabled_kill_switch(console):
    set_filter(console, "kmalloc")
    console.run("echo 1 > func_hits")
    assert console.run("echo 0 > /proc/sys/kernel/ftrace_enabled") == ""
    assert console.run("cat /proc/sys/kernel/ftrace_enabled") == "0"
    assert dis_first(console, "kmalloc")[0] == NOP5
    assert console.run("cat enabled_functions") == ""
    assert console.run("echo 1 > /proc/sys/kernel/ftrace_enabled") == ""
    assert dis_first(console, "kmalloc")[1].endswith("<ftrace_trampoline>")


def test_function_tracer_lines_match_the_static_build(console):
    """The lines test_static.py expects from the static build, here from the dynamic one."""
    from tests.integration.test_static import FS_ROWS, fs_rows
    assert fs_rows(console)[:len(FS_ROWS)] == FS_ROWS
