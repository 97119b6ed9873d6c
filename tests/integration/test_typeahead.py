"""tests/integration/test_typeahead.py: what is typed while a command prints is kept for the shell,
as Linux's tty keeps it: a paste of several lines during the longest output (a full trace) runs
every line, on 1 and on 4 CPUs; Ctrl-C still stops the output and, like a tty's ^C, drops what was
typed before it."""

import re

import pytest

from tests.console import Console

ENTER = b"\r"


def fill_trace(con):
    """The function tracer on every function until the buffer has wrapped: the longest `cat trace`."""
    con.run("echo function > current_tracer")
    con.run("run compute 0 1")
    # The workload runs on: until it has wrapped the buffer.
    con.poll("cat per_cpu/cpu0/stats", lambda s: int(re.search(r"^overrun: (\d+)$", s, re.M).group(1)) > 0,
             timeout=60)
    con.run("echo 0 > tracing_on")
    stats = con.run("cat per_cpu/cpu0/stats")
    assert int(re.search(r"^overrun: (\d+)$", stats, re.M).group(1)) > 0, stats
    assert int(re.search(r"^entries: (\d+)$", stats, re.M).group(1)) > 1000, stats


@pytest.mark.parametrize("smp", [1, 4])
def test_paste_during_long_output_runs_every_line(request, smp):
    con = Console(smp=smp, name=request.node.nodeid)
    request.addfinalizer(con.close)
    con.start()
    fill_trace(con)
    lines = ["echo one", "echo two", "cat tracing_on", "echo done"]
    # One write, as a paste: every line is in the receive ring before `cat trace` has printed much.
    con.send(b"cat trace" + ENTER + b"".join(l.encode() + ENTER for l in lines))
    outs = [con.wait_for(re.escape(l) + r"\r\n(?P<out>[^\r]*)\r\n", timeout=60).group("out")
            for l in lines]
    assert outs == ["one", "two", "0", "done"], outs
    con.wait_for_prompt()
    assert con.run("echo still here") == "still here"


def test_ctrl_c_stops_output_and_drops_what_came_before(fresh_console):
    con = fresh_console
    fill_trace(con)
    con.send(b"cat trace" + ENTER + b"echo lost" + ENTER + b"\x03")
    out = con.wait_for_prompt(timeout=60)
    assert "\nlost\n" not in out
    assert con.run("echo after") == "after"
