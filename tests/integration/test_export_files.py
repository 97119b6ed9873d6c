"""tests/integration/test_export_files.py: the text files a trace recorder copies beside the raw
pages: events/header_page, events/header_event, events/ftrace/*/format and id, trace_clock,
saved_cmdlines(_size), per_cpu/cpuN/{trace,trace_pipe,buffer_size_kb,stats} and /proc/kallsyms,
each in Linux's layout with our numbers; bad input refused with nothing changed."""

import os
import re

import pytest

SMP = 2
T = "/sys/kernel/tracing"
EINVAL = "echo: write error: Invalid argument"
LINE = (r"^(?P<comm>[ -~]{16})-(?P<pid>\d+) *(?<= )\[(?P<cpu>\d{3})\] "
        r"(?P<flags>[d.][N.][hzZ.][0-9a-f.][.]) +(?P<ts>\d+\.\d{6}): (?P<rest>.*)$")
COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
STATS = [r"entries: (\d+)", r"overrun: (\d+)", r"commit overrun: (\d+)", r"bytes: (\d+)",
         r"oldest event ts: +(\d+\.\d{6})", r"now ts: +(\d+\.\d{6})", r"dropped events: (\d+)",
         r"read events: (\d+)"]
KERNEL_SYM = os.path.join(os.path.dirname(__file__), "..", "..", "build", "kernel.sym")


def cat(console, path):
    return console.run("cat " + path)


def stats(console, cpu):
    lines = cat(console, "%s/per_cpu/cpu%d/stats" % (T, cpu)).splitlines()
    assert len(lines) == len(STATS), lines
    values = []
    for pattern, line in zip(STATS, lines):
        m = re.fullmatch(pattern, line)
        assert m, (pattern, line)
        values.append(m.group(1))
    return dict(zip(["entries", "overrun", "commit", "bytes", "oldest", "now", "dropped", "read"],
                    values))


def events(text):
    return [m for m in (re.match(LINE, l) for l in text.splitlines()) if m]


def test_header_page_is_linux_text_with_our_page(console):
    assert cat(console, T + "/events/header_page") == (
        "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
        "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"     # local_t is a long, as Linux says
        "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
        "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;")


def test_header_event_is_linux_text(console):
    assert cat(console, T + "/events/header_event") == (
        "# compressed entry header\n"
        "\ttype_len    :    5 bits\n"
        "\ttime_delta  :   27 bits\n"
        "\tarray       :   32 bits\n\n"
        "\tpadding     : type == 29\n"
        "\ttime_extend : type == 30\n"
        "\ttime_stamp : type == 31\n"
        "\tdata max type_len  == 28")


def test_ftrace_function_format_is_linux_format(console):
    assert cat(console, T + "/events/ftrace/function/format") == (
        "name: function\nID: 1\nformat:\n" + COMMON +
        "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
        "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
        'print fmt: " %ps <-- %ps", (void *)REC->ip, (void *)REC->parent_ip')


@pytest.mark.parametrize("name,id_,fields,fmt", [
    ("funcgraph_entry", 12, ["unsigned long func;\toffset:8;\tsize:8;\tsigned:0;",
                             "int depth;\toffset:16;\tsize:4;\tsigned:1;"],
     '"--> %ps (%d)", (void *)REC->func, REC->depth'),
    ("funcgraph_exit", 11, ["unsigned long func;\toffset:8;", "int depth;\toffset:16;",
                            "unsigned long overrun;\toffset:24;",
                            "unsigned long long calltime;\toffset:32;",
                            "unsigned long long rettime;\toffset:40;",
                            "unsigned long retval;\toffset:48;"],
     '"<-- %ps (%d) (start: %llx  end: %llx) over: %d retval: %lx", (void *)REC->func, '),
    ("print", 5, ["unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;",
                  "char buf[];\toffset:16;\tsize:0;\tsigned:1;"],
     '"%ps: %s", (void *)REC->ip, REC->buf'),
    ("kernel_stack", 4, ["int size;\toffset:8;\tsize:4;\tsigned:1;",
                         "unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;"],
     r'"\t=> %ps\n\t=> %ps\n'),
])
def test_ftrace_formats_and_ids(console, name, id_, fields, fmt):
    text = cat(console, "%s/events/ftrace/%s/format" % (T, name))
    head, _, tail = text.partition(COMMON)
    assert head == "name: %s\nID: %d\nformat:\n" % (name, id_)
    own = tail.split("\n\nprint fmt: ")[0].splitlines()
    assert len(own) == len(fields)
    for line, want in zip(own, fields):
        assert line.startswith("\tfield:" + want), (line, want)
    assert text.split("\nprint fmt: ")[1].startswith(fmt)
    assert cat(console, "%s/events/ftrace/%s/id" % (T, name)) == str(id_)


def test_ftrace_events_cannot_be_switched(console):
    assert console.run("ls %s/events/ftrace/function" % T).split() == ["format", "id"]
    assert "enable" not in console.run("ls %s/events/ftrace" % T)
    assert "ftrace:" not in cat(console, T + "/available_events")
    assert console.run("echo ftrace:function > %s/set_event" % T) == EINVAL
    assert console.run("echo 1 > %s/events/enable" % T) == ""
    assert "ftrace" not in cat(console, T + "/set_event")
    assert console.run("echo 0 > %s/events/enable" % T) == ""
    assert cat(console, T + "/set_event") == ""


def test_trace_clock_lists_linux_clocks(console):
    """Each clock's behaviour is tests/integration/test_trace_clock.py's; here the file a recorder copies."""
    listing = "local global counter uptime perf mono mono_raw boot tai x86-tsc"
    assert cat(console, T + "/trace_clock") == listing.replace("local", "[local]", 1)
    assert console.run("echo > %s/trace_clock" % T) == EINVAL
    assert console.run("echo x86-tsc > %s/trace_clock" % T) == ""
    assert cat(console, T + "/trace_clock") == listing.replace("x86-tsc", "[x86-tsc]")
    assert console.run("echo local > %s/trace_clock" % T) == ""


def test_read_only_files_refuse_writes(console):
    # per_cpu/cpuN/buffer_size_kb is writable as in Linux (tests/integration/test_buffer_resize.py).
    # saved_cmdlines_size is writable as in Linux (test_saved_cmdlines_size_resizes below).
    for path in ("saved_cmdlines",
                 "per_cpu/cpu1/stats", "events/header_page", "events/ftrace/function/format"):
        before = re.sub(r"now ts: .*", "", cat(console, "%s/%s" % (T, path)))
        assert console.run("echo 5 > %s/%s" % (T, path)) == "%s/%s: Permission denied" % (T, path)
        assert re.sub(r"now ts: .*", "", cat(console, "%s/%s" % (T, path))) == before
    assert cat(console, T + "/saved_cmdlines_size") == "128"
    assert cat(console, T + "/per_cpu/cpu1/buffer_size_kb") == cat(console, T + "/buffer_size_kb")


def test_per_cpu_dirs_for_each_cpu_only(console):
    assert console.run("ls %s/per_cpu" % T).split() == ["cpu0/", "cpu1/"]
    assert console.run("ls %s/per_cpu/cpu0" % T).split() == ["buffer_size_kb", "snapshot", "snapshot_raw",
                                                            "stats", "trace", "trace_pipe",
                                                            "trace_pipe_raw"]
    path = T + "/per_cpu/cpu2/stats"
    assert cat(console, path) == "cat: %s: No such file or directory" % path


@pytest.fixture
def compute_on_cpu1(console):
    """function tracer on compute_*, one second of `compute` on CPU 1, then tracing off."""
    console.run("echo > %s/trace" % T)
    console.run("echo 'compute_*' > %s/set_ftrace_filter" % T)
    console.run("echo function > %s/current_tracer" % T)
    out = console.run("run compute 1 1")
    m = re.match(r"^\[(\d+)\] compute on CPU 1$", out)
    assert m, out
    console.poll("ps", lambda ps: not re.search(r"^ *%s " % m.group(1), ps, re.M), timeout=60)   # it ran its second
    console.run("echo 0 > %s/tracing_on" % T)
    yield int(m.group(1))
    console.run("echo nop > %s/current_tracer" % T)
    console.run("echo > %s/set_ftrace_filter" % T)
    console.run("echo 1 > %s/tracing_on" % T)
    console.run("echo > %s/trace" % T)


def test_per_cpu_trace_stats_and_cmdlines(console, compute_on_cpu1):
    pid = compute_on_cpu1
    whole = events(cat(console, T + "/trace"))
    cpu1_text = cat(console, T + "/per_cpu/cpu1/trace")
    cpu1 = events(cpu1_text)
    assert cpu1 and all(e.group("cpu") == "001" for e in cpu1)
    assert all(int(e.group("pid")) == pid and e.group("comm").strip() == "compute" for e in cpu1)
    assert [e.group(0) for e in cpu1] == [e.group(0) for e in whole if e.group("cpu") == "001"]
    assert events(cat(console, T + "/per_cpu/cpu0/trace")) == []

    s1, s0 = stats(console, 1), stats(console, 0)
    assert int(s1["entries"]) == len(cpu1) and int(s0["entries"]) == 0
    assert s1["commit"] == s1["read"] == s0["overrun"] == "0"
    # A second of compute overruns 64 KiB: written = kept + overwritten, as the header counts.
    written = int(s1["entries"]) + int(s1["overrun"])
    total = "# entries-in-buffer/entries-written: %d/%d   #P:2" % (len(whole), written)
    assert total in cpu1_text.splitlines()
    extra = int(s1["bytes"]) - 28 * len(cpu1)  # a function event: 4 header + 24 bytes
    assert extra >= 0 and extra % 8 == 0       # time extends, 8 bytes each
    assert s0["bytes"] == "0" and s0["oldest"] == "0.000000"
    assert 0 < float(s1["oldest"]) <= float(e_ts(cpu1[0])) + 1e-6 <= float(s1["now"])

    assert "%d compute" % pid in cat(console, T + "/saved_cmdlines").splitlines()

    assert console.run("echo > %s/per_cpu/cpu1/trace" % T) == ""
    assert stats(console, 1)["entries"] == "0"
    assert events(cat(console, T + "/trace")) == []


def e_ts(m):
    return m.group("ts")


def test_proc_kallsyms_layout_and_addresses(console):
    lines = cat(console, "/proc/kallsyms").splitlines()
    rows = [re.fullmatch(r"([0-9a-f]{16}) ([TtDdBbRrWw]) (\S+)", l) for l in lines]
    assert all(rows), [l for l, r in zip(lines, rows) if not r][:5]
    addrs = [int(r.group(1), 16) for r in rows]
    assert addrs == sorted(addrs)
    mine = {r.group(3): (r.group(1), r.group(2)) for r in rows}
    with open(KERNEL_SYM) as f:
        nm = {p[2]: (p[0], p[1]) for p in (l.split() for l in f) if len(p) == 3}
    for name in ("compute_fib", "trace_show_cpu", "global_trace", "percpu_area", "linux_proc_banner"):
        assert mine[name] == nm[name], name


def test_saved_cmdlines_size_resizes(console):
    """A write to saved_cmdlines_size (Linux's tracing_resize_saved_cmdlines()) gives the table that many slots,
    1 to 32768; the names it held are hashed in again (ours; Linux starts empty); bad sizes change nothing."""
    EINVAL = "echo: write error: Invalid argument"
    before = cat(console, T + "/saved_cmdlines").splitlines()
    assert before, "the boot saved some names"
    try:
        assert console.run("echo 1000 > %s/saved_cmdlines_size" % T) == ""
        assert cat(console, T + "/saved_cmdlines_size") == "1000"
        assert sorted(cat(console, T + "/saved_cmdlines").splitlines()) == sorted(before)
        assert console.run("echo 1 > %s/saved_cmdlines_size" % T) == ""
        assert len(cat(console, T + "/saved_cmdlines").splitlines()) == 1
        for bad in ("0", "32769", "abc", "-1"):
            assert console.run("echo %s > %s/saved_cmdlines_size" % (bad, T)) == EINVAL, bad
            assert cat(console, T + "/saved_cmdlines_size") == "1"
    finally:
        console.run("echo 128 > %s/saved_cmdlines_size" % T)
    assert cat(console, T + "/saved_cmdlines_size") == "128"
