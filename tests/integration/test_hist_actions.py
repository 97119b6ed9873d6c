"""tests/integration/test_hist_actions.py: synthetic events and the hist triggers' actions on one CPU, typed as
Linux's histogram.rst and ftracetest type them: the wakeup-latency recipe (onmatch() feeding a synthetic event, its
histogram holding exactly the latencies the events carried), onmax().save(), onchange().snapshot(), variables of
another event's histogram named by system.event.$var, char[] fields and `s:` lines in dynamic_events, and a field of
the matching event as an action's parameter. The counting examples and refused specs are test_hist.py's.
"""

import re

from tests.integration.test_hist import D, EINVAL, hist, last_error, trace_lines

SMP = 1


def test_wakeup_latency_recipe(console):
    """histogram.rst's wakeup_latency recipe, typed verbatim (one line each), fed by /tests/cyclictest."""
    loops = 8
    cmds = [
        "echo 'wakeup_latency u64 lat; pid_t pid; int prio' >> %s/synthetic_events" % D,
        "echo 'hist:keys=$saved_pid:saved_pid=pid:ts0=common_timestamp.usecs if comm==\"cyclictest\"' >> "
        "%s/events/sched/sched_waking/trigger" % D,
        "echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking)"
        ".wakeup_latency($wakeup_lat,$saved_pid,next_prio) if next_comm==\"cyclictest\"' >> "
        "%s/events/sched/sched_switch/trigger" % D,
        "echo 'hist:keys=pid,prio,lat:sort=pid,lat' >> %s/events/synthetic/wakeup_latency/trigger" % D,
    ]
    try:
        for cmd in cmds:
            assert console.run(cmd) == "", cmd
        assert console.run("cat synthetic_events") == "wakeup_latency\tu64 lat; pid_t pid; int prio"
        fmt = console.run("cat events/synthetic/wakeup_latency/format")
        assert "\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;" in fmt
        assert "\tfield:pid_t pid;\toffset:16;\tsize:4;\tsigned:1;" in fmt
        assert 'print fmt: "lat=%llu, pid=%d, prio=%d", REC->lat, REC->pid, REC->prio' in fmt
        assert console.run("echo 1 > events/synthetic/wakeup_latency/enable") == ""
        console.run("echo > trace")
        console.run("/tests/cyclictest %d 1000" % loops, timeout=60)
        lines = trace_lines(console, "wakeup_latency")
        assert len(lines) == loops, lines
        head, entries, hits, n, _ = hist(console, "synthetic/wakeup_latency")
        assert hits == loops
        # The histogram holds exactly the latencies the events carried.
        lats = sorted(int(re.search(r"lat=(\d+) ", l).group(1)) for l in lines)
        got = []
        for e in entries:
            m = re.match(r"^\{ pid: +(\d+), prio: +120, lat: +(\d+) \} hitcount: +(\d+)$", e)
            assert m, e
            got += [int(m.group(2))] * int(m.group(3))
        assert got == lats
        switch = hist(console, "sched/sched_switch")
        assert switch[2] == loops and "onmatch(sched.sched_waking).wakeup_latency($wakeup_lat,$saved_pid," \
            "next_prio)" in switch[0][2] and ":wakeup_lat=common_timestamp.usecs-$ts0" in switch[0][2]
        waking = hist(console, "sched/sched_waking")
        assert "saved_pid=pid,ts0=common_timestamp.usecs" in waking[0][2] and waking[2] == loops
        # In use: the synthetic event cannot go, and a bad spec changes nothing.
        assert console.run("echo '!wakeup_latency' >> synthetic_events") == "echo: write error: Device or " \
            "resource busy"
    finally:
        console.run("echo 0 > events/synthetic/wakeup_latency/enable")
        console.run("echo > events/synthetic/wakeup_latency/trigger")
        console.run("echo > events/sched/sched_switch/trigger")
        console.run("echo > events/sched/sched_waking/trigger")
        console.run("echo '!wakeup_latency' >> synthetic_events")
    assert console.run("cat synthetic_events") == ""
    assert "No such file" in console.run("ls events/synthetic/wakeup_latency")


def test_onmax_save(console):
    try:
        assert console.run("echo 'hist:keys=pid:ts0=common_timestamp.usecs if comm==\"cyclictest\"' >> "
                           "events/sched/sched_waking/trigger") == ""
        assert console.run("echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0:onmax($wakeup_lat)"
                           ".save(next_comm,prev_pid,prev_prio,prev_comm) if next_comm==\"cyclictest\"' >> "
                           "events/sched/sched_switch/trigger") == ""
        console.run("/tests/cyclictest 5 1000", timeout=60)
        out = console.run("cat events/sched/sched_switch/hist")
        m = re.search(r"^\{ next_pid: +\d+ \} hitcount: +5\n\tmax: +(\d+)  next_comm: cyclictest {22}"
                      r"  prev_pid: +\d+  prev_prio: +\d+  prev_comm: \S+ *$", out, re.M)
        assert m and int(m.group(1)) > 0, out
    finally:
        console.run("echo > events/sched/sched_switch/trigger")
        console.run("echo > events/sched/sched_waking/trigger")


def test_onchange_snapshot_takes_the_buffer(console):
    """onchange($var).snapshot(): the first value of an entry (and every change) swaps the trace into the
    snapshot buffer, and the hist file says what triggered it, as Linux's conditional snapshot."""
    trig = "events/sched/sched_waking/trigger"
    try:
        console.run("echo 1 > events/sched/sched_waking/enable")
        console.run("echo > trace")
        assert console.run("echo 'hist:keys=comm:newprio=prio:onchange($newprio).save(comm,prio):"
                           "onchange($newprio).snapshot() if comm==\"cyclictest\"' >> " + trig) == ""
        assert console.run("cat " + trig).startswith(
            "hist:keys=comm:vals=hitcount:newprio=prio:sort=hitcount:size=2048:onchange($newprio).save(comm,prio)"
            ":onchange($newprio).snapshot() if comm==\"cyclictest\" [active]")
        # One histogram at a time may hold the snapshot.
        assert console.run("echo 'hist:keys=pid:p=prio:onmax($p).snapshot()' >> " + trig) == \
            "echo: write error: Device or resource busy"
        console.run("/tests/cyclictest 3 1000", timeout=60)
        out = console.run("cat events/sched/sched_waking/hist")
        assert re.search(r"^\{ comm: cyclictest {41}\} hitcount: +\d+\n\tchanged: +120  comm: cyclictest {22}"
                         r"  prio: +120\n\tchanged: +120$", out, re.M), out
        assert re.search(r"\nSnapshot taken \(see tracing/snapshot\)\.  Details:\n\ttriggering value "
                         r"\{ onchange\(\$newprio\) \}: +120\ttriggered by event with key: "
                         r"\{ comm: cyclictest {41}\}\n", out), out
        snap = console.run("cat snapshot")
        assert re.search(r"sched_waking: comm=cyclictest pid=\d+ prio=120", snap), snap[-800:]
        # The onmatch handler takes no snapshot (Linux refuses it: the xfail case of ftracetest).
        assert console.run("echo 'hist:keys=comm:onmatch(sched.sched_wakeup).snapshot()' >> " + trig) != ""
        assert last_error(console)[0].endswith("error: Handler doesn't support action")
    finally:
        console.run("echo > " + trig)
        console.run("echo 0 > events/sched/sched_waking/enable")
        console.run("echo 0 > snapshot")
        console.run("echo > error_log")


def test_qualified_references_and_actions_tell_triggers_apart(console):
    """ftracetest's multiple-actions case: `sched.sched_switch.$wakeup_lat` names another histogram's
    variable, and two triggers that differ only in their actions are two triggers."""
    sw = "events/sched/sched_switch/trigger"
    try:
        assert console.run("echo 'wakeup_latency u64 lat; pid_t pid' >> synthetic_events") == ""
        assert console.run("echo 'hist:keys=pid:ts0=common_timestamp.usecs if comm==\"cyclictest\"' > "
                           "events/sched/sched_wakeup/trigger") == ""
        assert console.run("echo 'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0 if "
                           "next_comm==\"cyclictest\"' >> " + sw) == ""
        for who in ("next_pid", "prev_pid"):
            assert console.run("echo 'hist:keys=next_pid:onmatch(sched.sched_wakeup).wakeup_latency("
                               "sched.sched_switch.$wakeup_lat,%s) if next_comm==\"cyclictest\"' >> %s"
                               % (who, sw)) == "", who
        assert console.run("echo 'hist:keys=next_pid:onmatch(sched.sched_wakeup).wakeup_latency("
                           "sched.sched_switch.$wakeup_lat,prev_pid) if next_comm==\"cyclictest\"' >> " + sw) == \
            "echo: write error: File exists"
        assert console.run("echo 1 > events/synthetic/wakeup_latency/enable") == ""
        console.run("echo > trace")
        console.run("/tests/cyclictest 2 1000", timeout=60)
        lat = trace_lines(console, "wakeup_latency")
        # both actions fire at each switch to cyclictest after a wakeup (2 at least)
        assert len(lat) >= 4 and len(lat) % 2 == 0, lat
    finally:
        console.run("echo 0 > events/synthetic/wakeup_latency/enable")
        for t in (sw, sw, "events/sched/sched_wakeup/trigger"):
            console.run("echo > " + t)
        console.run("echo '!wakeup_latency' >> synthetic_events")


def test_dynamic_strings_and_synthetic_dynamic_events(console):
    """char[] fields (histogram.rst's `char name[]`): a __data_loc in the format, the string after the fixed
    fields, fed from a string variable of another event, printed and keyed as Linux does; `s:` lines in
    dynamic_events; refused definitions logged with Linux's words and carets (ftracetest's cases)."""
    assert console.run("echo 'exec_lat u64 lat; char filename[]' > synthetic_events") == ""
    assert console.run("cat synthetic_events") == "exec_lat\tu64 lat; char[] filename"
    fmt = console.run("cat events/synthetic/exec_lat/format").split("\n")
    assert "\tfield:u64 lat;\toffset:8;\tsize:8;\tsigned:0;" in fmt
    assert "\tfield:__data_loc char[] filename;\toffset:16;\tsize:8;\tsigned:1;" in fmt
    assert fmt[-1] == 'print fmt: "lat=%llu, filename=%s", REC->lat, __get_str(filename)'
    exec_trig, exit_trig = "events/sched/sched_process_exec/trigger", "events/sched/sched_process_exit/trigger"
    try:
        assert console.run("echo 'hist:key=pid:filenamevar=filename:ts0=common_timestamp.usecs' > " + exec_trig) == ""
        assert console.run("echo 'hist:key=pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_process_exec)"
                           ".exec_lat($lat,$filenamevar) if comm == \"cyclictest\"' > " + exit_trig) == ""
        assert console.run("echo 'hist:keys=filename,lat:sort=filename,lat' > "
                           "events/synthetic/exec_lat/trigger") == ""
        console.run("echo > trace")
        console.run("echo 1 > events/synthetic/exec_lat/enable")
        console.run("/tests/cyclictest 3 1000", timeout=120)
        lines = trace_lines(console, "exec_lat")
        assert len(lines) == 1 and re.search(r" exec_lat: lat=(\d+) filename=/tests/cyclictest$", lines[0]), lines
        lat = int(re.search(r"lat=(\d+)", lines[0]).group(1))
        head, entries, hits, n, dropped = hist(console, "synthetic/exec_lat")
        assert hits == 1 and dropped == 0
        assert re.match(r"^\{ filename: /tests/cyclictest +, lat: +%d \} hitcount: +1$" % lat, entries[0]), entries
        # dynamic_events lists synthetic events with s:synthetic/ and defines and removes them too.
        assert console.run("echo 's:latency1 u64 lat; pid_t pid;' >> dynamic_events") == ""
        assert console.run("echo 's:synthetic/latency2 u64 lat; pid_t pid;' >> dynamic_events") == ""
        listing = ["s:synthetic/exec_lat\tu64 lat; char[] filename", "s:synthetic/latency1\tu64 lat; pid_t pid",
                   "s:synthetic/latency2\tu64 lat; pid_t pid"]
        assert console.run("cat dynamic_events").split("\n") == listing
        assert console.run("echo '-:synthetic/latency2' >> dynamic_events") == ""
        assert console.run("cat dynamic_events").split("\n") == listing[:2]
        # exec_lat has a hist: `>` removes none of them (Linux's all or nothing).
        assert console.run("echo > synthetic_events") == "echo: write error: Device or resource busy"
        assert console.run("cat synthetic_events").split("\n") == [l[12:] for l in listing[:2]]
    finally:
        console.run("echo 0 > events/synthetic/exec_lat/enable")
        console.run("echo > events/synthetic/exec_lat/trigger")
        console.run("echo > " + exit_trig)
        console.run("echo > " + exec_trig)
    assert console.run("echo > dynamic_events") == ""
    assert console.run("cat synthetic_events") == ""
    for spec, text, at, path in [("mye;vent char str[]", "Command must be of the form: <name> field[;field] ...", 0,
                                  "synthetic_events"),
                                 ("myevent char str[257]", "Invalid array specification", 13, "synthetic_events"),
                                 ("myevent char str; int", "Invalid field", 18, "synthetic_events"),
                                 ("myevent char st-r[]", "Illegal name", 13, "synthetic_events"),
                                 ("s:junk/myevent char str[", "Command must be of the form: s or "
                                  "-:[synthetic/]<name> field[;field] ...", 0, "dynamic_events")]:
        assert console.run("echo '%s' >> %s" % (spec, path)) == EINVAL
        head, cmd, caret = last_error(console)
        assert head.endswith("] synthetic_events: error: " + text) and cmd == "  Command: " + spec, head
        assert caret == " " * (11 + at) + "^", spec
    assert console.run("cat synthetic_events") == ""
    console.run("echo > error_log")


def test_field_of_the_matching_event_as_an_action_parameter(console):
    """ftracetest's field-variable case with cyclictest for ping: `sched.sched_waking.prio` in sched_switch's
    onmatch() makes a second hist on sched_waking (the first one's keys and filter, `synthetic_prio=prio`), which
    stays while the hist that made it does; its value reaches the synthetic event. A field no hist can hold is
    refused with Linux's errors, and nothing stays behind."""
    waking, switch = "events/sched/sched_waking/trigger", "events/sched/sched_switch/trigger"
    spec = ("hist:keys=next_comm:wakeup_lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_waking).wakeup_latency("
            "$wakeup_lat,next_pid,sched.sched_waking.prio,next_comm) if next_comm==\"cyclictest\"")
    assert console.run("echo 'wakeup_latency u64 lat; pid_t pid; int prio; char comm[16]' > synthetic_events") == ""
    try:
        assert console.run("echo 'hist:keys=comm:ts0=common_timestamp.usecs if comm==\"cyclictest\"' > "
                           + waking) == ""
        assert console.run("echo '%s' > %s" % (spec, switch)) == ""
        made = "hist:keys=comm:vals=hitcount:synthetic_prio=prio:sort=hitcount:size=2048 if comm==\"cyclictest\""
        assert console.run("cat " + waking).split("\n")[1] == made + " [active]"
        assert console.run("echo 'hist:keys=pid,prio,comm:vals=lat:sort=pid,prio' > "
                           "events/synthetic/wakeup_latency/trigger") == ""
        console.run("echo > trace")
        console.run("echo 1 > events/synthetic/wakeup_latency/enable")
        console.run("echo 1 > events/sched/sched_waking/enable")
        console.run("/tests/cyclictest 3 1000", timeout=120)
        console.run("echo 0 > events/sched/sched_waking/enable")
        lines = trace_lines(console, "wakeup_latency")
        wakings = [l for l in trace_lines(console, "sched_waking") if "comm=cyclictest " in l]
        assert len(lines) == 3 and wakings, lines
        prio = re.search(r" prio=(\d+) ", wakings[-1]).group(1)
        for l in lines:
            assert re.search(r" wakeup_latency: lat=\d+ pid=\d+ prio=%s comm=cyclictest$" % prio, l), l
        assert hist(console, "synthetic/wakeup_latency")[2] == 3
        # The made hist is read by the one that made it: it cannot go alone.
        assert console.run("echo > " + waking) == "echo: write error: Device or resource busy"
        assert console.run("echo '!%s' >> %s" % (spec, switch)) == ""
        assert "synthetic_prio" not in console.run("cat " + waking)
        # No hist on sched_waking keyed like next_pid, then no field there: refused, nothing made.
        for bad, text, at in [(spec.replace("keys=next_comm", "keys=next_pid"), "Matching event histogram not found",
                               "prio"),
                              (spec.replace("waking.prio", "waking.nosuch"), "Couldn't create histogram for field",
                               "nosuch")]:
            assert console.run("echo '%s' >> %s" % (bad, switch)) == EINVAL
            head, cmd, caret = last_error(console)
            assert head.endswith("] hist:sched:sched_switch: error: " + text) and cmd == "  Command: " + bad, head
            assert caret == " " * (11 + bad.index(at)) + "^", bad
            assert len(console.run("cat " + waking).split("\n")) == 1
    finally:
        console.run("echo 0 > events/synthetic/wakeup_latency/enable")
        console.run("echo > events/synthetic/wakeup_latency/trigger")
        console.run("echo > " + switch)
        console.run("echo > " + waking)
        console.run("echo > synthetic_events")
        console.run("echo > error_log")
