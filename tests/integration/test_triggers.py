"""tests/integration/test_triggers.py: function commands in set_ftrace_filter (traceon, traceoff,
stacktrace, dump, cpudump): how they are listed, counted, removed (by a glob over the functions that have
them), kept across a `>` of plain functions, and refused when malformed; the mod command kept pending."""

import re

import pytest

SMP = 2
EINVAL = "echo: write error: Invalid argument"
EMPTY = "#### all functions enabled ####"


def filt(console):
    return console.run("cat set_ftrace_filter").splitlines()


def test_commands_are_listed_like_linux(console):
    assert console.run("echo 'vfs_read:traceoff' >> set_ftrace_filter") == ""
    assert console.run("echo 'vfs_open:stacktrace:5' >> set_ftrace_filter") == ""
    assert filt(console) == [EMPTY, "vfs_read:traceoff:unlimited", "vfs_open:stacktrace:count=5"]


def test_commands_survive_a_plain_filter_write(console):
    console.run("echo 'vfs_read:traceoff' >> set_ftrace_filter")
    assert console.run("echo 'vfs_open vfs_close' > set_ftrace_filter") == ""
    assert filt(console) == ["vfs_open", "vfs_close", "vfs_read:traceoff:unlimited"]
    assert console.run("echo '!vfs_read:traceoff' >> set_ftrace_filter") == ""
    assert filt(console) == ["vfs_open", "vfs_close"]


def test_traceoff_turns_tracing_off_and_counts(console):
    console.run("echo 'vfs_*' > set_ftrace_filter")
    console.run("echo function > current_tracer")
    assert console.run("echo 'vfs_close:traceoff:3' >> set_ftrace_filter") == ""
    pid = int(re.match(r"^\[(\d+)\]", console.run("run fs 1 1")).group(1))
    console.run("selftest timer_ticks")
    assert console.run("cat tracing_on") == "0"
    # Only a call that changes the state counts (as Linux): one so far.
    assert "vfs_close:traceoff:count=2" in filt(console)
    lines = console.run("cat trace").splitlines()[12:]
    # The commands' ops is called before the tracer's: the last event is the call before vfs_close.
    assert lines and lines[-1].endswith("vfs_read <-fs_iteration"), lines[-3:]
    assert console.run("echo 1 > tracing_on") == ""
    console.run("selftest timer_ticks")
    assert console.run("cat tracing_on") == "0"
    assert "vfs_close:traceoff:count=1" in filt(console)
    console.run("kill %d" % pid)


def test_traceon_turns_it_back_on(console):
    console.run("echo function > current_tracer")
    console.run("echo 0 > tracing_on")
    assert console.run("echo 'kmalloc:traceon:1' >> set_ftrace_filter") == ""
    console.run("selftest heap_reuse")
    assert console.run("cat tracing_on") == "1"
    assert "kmalloc:traceon:count=0" in filt(console)


def test_stacktrace_records_the_callers(console):
    console.run("echo 'vfs_read' > set_ftrace_filter")
    console.run("echo function > current_tracer")
    assert console.run("echo 'vfs_read:stacktrace:1' >> set_ftrace_filter") == ""
    pid = int(re.match(r"^\[(\d+)\]", console.run("run fs 1 1")).group(1))
    console.run("selftest timer_ticks")
    text = console.run("cat trace")
    m = re.search(r"fs-%d +\[001\] \.\.\.\.\. +\d+\.\d{6}: <stack trace>\n => vfs_read\n => fs_iteration\n"
                  r" => work_thread\n" % pid, text)
    assert m, text
    assert text.count("<stack trace>") == 1                       # :1 means once
    console.run("kill %d" % pid)


def test_dump_prints_the_buffer(console):
    console.run("echo 'kmalloc' > set_ftrace_filter")
    console.run("echo function > current_tracer")
    console.run("selftest heap_reuse")
    # Adding the command frees memory (kfree): the dump comes at once, from the echo itself.
    out = console.run("echo 'kfree:dump:1' >> set_ftrace_filter")
    assert re.search(r"Dumping ftrace buffer:\n-+\n( +sh-1 +\[000\] .*kmalloc <-.*\n)+-+$", out), out
    assert console.run("cat tracing_on") == "0"


@pytest.mark.parametrize("bad", ["kfree:bogus", "nosuch:traceoff", "kfree:traceoff:0", "kfree:traceoff:x",
                                 "kfree:", "!kfree:traceoff:x", "!kfree:traceoff:-1", "!kfree:traceoff:3",
                                 "kfree:traceoff vfs_nothing"])
def test_malformed_commands_change_nothing(console, bad):
    console.run("echo 'vfs_open' > set_ftrace_filter")
    console.run("echo 'vfs_read:traceoff' >> set_ftrace_filter")
    before = filt(console)
    assert console.run("echo '%s' >> set_ftrace_filter" % bad) == EINVAL
    assert filt(console) == before


def test_removal_in_linux_documented_forms(console):
    """Documentation/trace/ftrace.rst removes a counted traceoff with `!func:traceoff:0` and an
    uncounted one with `!func:traceoff`; both work, for every command."""
    console.run("echo 'vfs_open' > set_ftrace_filter")
    for cmd in ("traceon", "traceoff", "stacktrace", "dump", "cpudump"):
        assert console.run("echo 'vfs_read:%s:5' >> set_ftrace_filter" % cmd) == ""
        assert console.run("echo '!vfs_read:%s:0' >> set_ftrace_filter" % cmd) == ""
        assert console.run("echo 'vfs_read:%s' >> set_ftrace_filter" % cmd) == ""
        assert console.run("echo '!vfs_read:%s' >> set_ftrace_filter" % cmd) == ""
    assert filt(console) == ["vfs_open"]
    assert console.run("echo '!vfs_read:traceoff' >> set_ftrace_filter") == EINVAL  # none there


def test_removal_of_what_set_ftrace_filter_lists(console):
    """ftracetest's reset_ftrace_filter writes back each listed probe with a `!`: `!f:cmd:count=N`, and
    `!f:enable_event:sys:ev:count=N`; Linux's removal ignores what follows the command."""
    console.run("echo 'vfs_open' > set_ftrace_filter")
    assert console.run("echo 'vfs_read:traceoff:3' >> set_ftrace_filter") == ""
    assert console.run("echo 'vfs_read:enable_event:kmem:kmalloc:2' >> set_ftrace_filter") == ""
    listed = [l for l in filt(console) if ":" in l]
    assert sorted(listed) == ["vfs_read:enable_event:kmem:kmalloc:count=2", "vfs_read:traceoff:count=3"], listed
    for line in listed:
        assert console.run("echo '!%s' >> set_ftrace_filter" % line) == ""
    assert filt(console) == ["vfs_open"]
    assert console.run("echo '!vfs_read:traceoff:count=3' >> set_ftrace_filter") == EINVAL  # gone


def test_removal_globs_over_the_functions_that_have_the_command(console):
    """Linux's unregister_ftrace_function_probe_func(): a removal's glob is matched against the functions
    with that command, `!*:cmd` takes them all, and one that finds nothing is EINVAL."""
    funcs = [f for f in console.run("cat available_filter_functions").splitlines() if f.startswith("vfs_")]
    assert "vfs_open" in funcs and len(funcs) > 2, funcs
    assert console.run("echo 'vfs_*:traceoff' > set_ftrace_filter") == ""
    # Listed in the order of the set's hash, as Linux's t_probe_next() walks it.
    assert sorted(filt(console)) == sorted([EMPTY] + ["%s:traceoff:unlimited" % f for f in funcs])
    assert console.run("echo '!*open:traceoff' >> set_ftrace_filter") == ""
    assert sorted(filt(console)) == sorted([EMPTY] + ["%s:traceoff:unlimited" % f for f in funcs
                                                      if not f.endswith("open")])
    assert console.run("echo '!*open:traceoff' >> set_ftrace_filter") == EINVAL      # none left to remove
    assert console.run("echo '!*open:stacktrace' >> set_ftrace_filter") == EINVAL    # not that command
    assert console.run("echo '!*:traceoff' >> set_ftrace_filter") == ""
    assert filt(console) == [EMPTY]


def test_mod_command_is_kept_pending(console):
    """No module is ever loaded here: as Linux does for a module not loaded, `func:mod:module` is kept as
    written (newest first, after the functions), filters nothing, and goes with `!` or a `>`."""
    assert console.run("echo 'non_exist_func:mod:non_exist_module' > set_ftrace_filter") == ""
    assert filt(console) == [EMPTY, "non_exist_func:mod:non_exist_module"]
    assert console.run("echo '*:mod:trace_printk' >> set_ftrace_filter") == ""
    assert console.run("echo 'vfs_read vfs_read:traceoff' >> set_ftrace_filter") == ""
    assert filt(console) == ["vfs_read", "*:mod:trace_printk", "non_exist_func:mod:non_exist_module",
                             "vfs_read:traceoff:unlimited"]
    for bad in ("!other:mod:non_exist_module", "x:mod:", "x:mod:a:b"):
        assert console.run("echo '%s' >> set_ftrace_filter" % bad) == EINVAL
    assert console.run("echo '!*:mod:non_exist_module' >> set_ftrace_filter") == ""
    assert filt(console) == ["vfs_read", "*:mod:trace_printk", "vfs_read:traceoff:unlimited"]
    assert console.run("echo > set_ftrace_filter") == ""
    assert filt(console) == [EMPTY, "vfs_read:traceoff:unlimited"]
    assert console.run("echo 'x:mod:m' > set_ftrace_notrace") == ""
    assert console.run("cat set_ftrace_notrace").splitlines() == ["#### no functions disabled ####", "x:mod:m"]
    assert console.run("echo 'vfs_read:traceoff' >> set_ftrace_notrace") == EINVAL
    assert console.run("echo > set_ftrace_notrace") == ""
    assert console.run("cat set_ftrace_notrace") == "#### no functions disabled ####"
