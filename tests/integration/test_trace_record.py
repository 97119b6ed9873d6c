"""tests/integration/test_trace_record.py: tools/trace-record end to end: a real kernel, real pages, trace-cmd.

What trace-cmd report reads from trace.dat must be what the kernel printed in trace.txt for the same buffer:
the same events, on the same CPUs, by the same pids, at the same µs, naming the same functions.  And the JSON
must be well formed: every B closed on its own track, time never going backwards on a track.  A buffer that
overwrote its oldest pages must come home as what was left, and `trace-cmd report --stat` must show the
per_cpu/cpuN/stats the kernel gave just before the pages were read, whose entries are the events trace-cmd reads.

These need the binary channel (per_cpu/cpuN/trace_pipe_raw and `cat FILE > /dev/ttyS1`); on a tree without
it they are skipped, saying so.
"""

import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "unit"))
from test_tracedat import check_json_tracks  # noqa: E402


MARK = "trace-record test marker"
# `sleep 1` (on the host) lets the workload run: on one CPU the shell and compute share it, and without
# the pause tracing may stop before compute ran at all (no function event), or with every call still
# open (no duration to compare): both happened once.
FUNCTION = "echo 'compute_*' > set_ftrace_filter; echo function > current_tracer; run compute all; " \
           "sleep 1; echo %s > trace_marker" % MARK
GRAPH = "echo 'compute_*' > set_ftrace_filter; echo function_graph > current_tracer; run compute all; " \
        "sleep 1; echo %s > trace_marker" % MARK
# The smallest buffer the kernel takes (buffer_size_kb refuses under 8: two 4 KiB pages per CPU) and the
# function tracer on every function: `run compute all` wraps CPU 0's buffer many times over. The filter then
# narrows to a function the shell never calls, so the shell's own work after the marker cannot wrap it away.
OVERRUN = ("echo 8 > buffer_size_kb; echo function > current_tracer; run compute all; "
           "echo compute_fib > set_ftrace_filter; echo %s > trace_marker" % MARK)
TXT_LINE = re.compile(r"^\s*(?P<comm>.*)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+(?P<s>\d+)\.(?P<us>\d{6}): "
                      r"(?P<rest>.*)$")
REPORT_LINE = re.compile(r"^\s*(\S+)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s*(.*)$")


def record(tmp_path, smp, cmds):
    out = str(tmp_path)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "trace-record"), "--smp", str(smp),
                        "-o", out, cmds], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-4000:]
    for name in ("trace.txt", "trace.dat", "trace.json"):
        assert os.path.exists(os.path.join(out, name)), r.stdout + r.stderr[-4000:]
    assert "trace-cmd report" in r.stdout
    # Every stamp the kernel printed must fit one TSC base: a wrong decoder or clock would not.
    assert "do not fit one TSC base" not in r.stderr, r.stderr[-4000:]
    return out


def report(path):
    r = subprocess.run(["trace-cmd", "report", "-R", "-t", path], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == "", r.stderr
    assert "[UNKNOWN" not in r.stdout and "unknown event" not in r.stdout.lower()
    return [m.groups() for m in map(REPORT_LINE.match, r.stdout.splitlines()) if m]


def check_same_events(txt, rep):
    """trace.txt's lines (TXT_LINE matches) and trace-cmd's (report() tuples) are the same events."""
    # Both merge the CPUs by time, but equal stamps on two CPUs may come in either order: compare each
    # CPU's sequence, which both keep in buffer order.
    txt_cpu, rep_cpu = {}, {}
    for m in txt:
        txt_cpu.setdefault(int(m["cpu"]), []).append((int(m["s"]) * 10 ** 6 + int(m["us"]), int(m["pid"]), m["rest"]))
    for _, p, c, s, ns, name, rest in rep:
        rep_cpu.setdefault(int(c), []).append((int(s) * 10 ** 9 + int(ns), int(p), name, rest))
    assert sorted(txt_cpu) == sorted(rep_cpu)
    for cpu in txt_cpu:
        assert len(txt_cpu[cpu]) == len(rep_cpu[cpu]), cpu
        for (us, pid, rest), (ns, rpid, name, fields) in zip(txt_cpu[cpu], rep_cpu[cpu]):
            assert pid == rpid, (cpu, rest, fields)
            # Same µs as the kernel printed; trace-cmd may be 1 ns off (it scales, then offsets).
            assert us * 1000 - 1 <= ns <= us * 1000 + 1000, (cpu, us, ns, rest)
            if name == "function":
                func, parent = re.match(r"ip=(\S+) parent_ip=(\S+)", fields).groups()
                assert rest == "%s <-%s" % (func, parent), (cpu, rest, fields)
            else:
                assert name == "print" and MARK in rest and MARK in fields, (rest, fields)
    return rep_cpu


def check_json(out):
    with open(os.path.join(out, "trace.json")) as f:
        doc = json.load(f)
    check_json_tracks(doc)
    return doc


@pytest.mark.parametrize("smp", [1, 4])
def test_function_tracer_dat_matches_text(tmp_path, smp):
    out = record(tmp_path, smp, FUNCTION)
    txt = [m for m in map(TXT_LINE.match, open(os.path.join(out, "trace.txt")).read().splitlines()) if m]
    rep = report(os.path.join(out, "trace.dat"))
    assert len(txt) > 10 and len(rep) == len(txt)
    check_same_events(txt, rep)
    assert any(name == "print" for *_, name, _ in rep)
    doc = check_json(out)
    assert any(e.get("name") == MARK for e in doc["traceEvents"])


@pytest.mark.parametrize("smp", [1, 4])
def test_function_graph_dat_matches_text(tmp_path, smp):
    out = record(tmp_path, smp, GRAPH)
    text = open(os.path.join(out, "trace.txt")).read()
    rep = report(os.path.join(out, "trace.dat"))
    # The graph layout: "N) ... func() {" an entry, "N) ... }" an exit, "N) ... func();" both (a leaf).
    entries, exits = {}, {}
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+)\)(.*)$", line)
        if not m:
            continue
        cpu, body = int(m.group(1)), m.group(2)
        leaf = re.search(r"(\w+)\(\);\s*$", body)
        call = re.search(r"(\w+)\(\) \{\s*$", body)
        if leaf or call:
            entries.setdefault(cpu, []).append((leaf or call).group(1))
        if leaf or re.search(r"\}\s*(/\*.*\*/)?\s*$", body):
            exits[cpu] = exits.get(cpu, 0) + 1
    rep_entries, rep_exits = {}, {}
    for _, p, c, s, ns, name, fields in rep:
        if name == "funcgraph_entry":
            rep_entries.setdefault(int(c), []).append(re.match(r"func=(\S+)", fields).group(1))
        elif name == "funcgraph_exit":
            rep_exits[int(c)] = rep_exits.get(int(c), 0) + 1
    assert entries and rep_entries == entries
    assert rep_exits == exits
    assert any(name == "print" and MARK in fields for *_, name, fields in rep)
    # Durations: trace-cmd's graph plugin prints rettime - calltime from the events as ns; the kernel the
    # same difference. Both fold a leaf's entry and return into one line, so the lists must be equal.
    kernel = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+)\)\s*[!+#*@$ ]?\s*([\d.]+) us\s*\|", line)
        if m:
            kernel.setdefault(int(m[1]), []).append(m[2])
    r = subprocess.run(["trace-cmd", "report", os.path.join(out, "trace.dat")], capture_output=True, text=True,
                       timeout=120)
    tc = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*\S+-\d+\s+\[(\d+)\]\s+\S+\s+funcgraph_\w+:\s*[!+#*@$ ]?\s*([\d.]+) us\s*\|", line)
        if m:
            tc.setdefault(int(m[1]), []).append(m[2])
    assert kernel and tc == kernel
    doc = check_json(out)
    assert sum(e["ph"] == "B" for e in doc["traceEvents"]) > 0


def read_stats(text):
    """{key: value} of a per_cpu/cpuN/stats text: ints, and the two "s.us" stamps as µs."""
    out = {}
    for line in text.splitlines():
        key, sep, val = line.partition(":")
        if not sep:
            continue
        val = val.strip()
        m = re.fullmatch(r"(\d+)\.(\d{6})", val)
        out[key.strip()] = int(m[1]) * 10 ** 6 + int(m[2]) if m else int(val)
    return out


@pytest.fixture(scope="module")
def overrun(tmp_path_factory):
    """One recording whose buffer overwrote its oldest pages: (outdir, [stats per CPU])."""
    out = record(tmp_path_factory.mktemp("overrun"), 2, OVERRUN)
    stats = []
    for cpu in range(2):
        path = os.path.join(out, "stats.cpu%d" % cpu)
        assert os.path.exists(path), "trace-record saved no %s" % path
        stats.append(read_stats(open(path).read()))
    # Read before trace_pipe_raw consumed the pages: nothing read yet, and CPU 0 (the shell's) wrapped.
    assert all(st["read events"] == 0 for st in stats), stats
    assert stats[0]["overrun"] > 0, stats
    return out, stats


def test_overrun_dat_matches_text(overrun):
    out, stats = overrun
    text = open(os.path.join(out, "trace.txt")).read()
    # The kernel's own header counts the same: in buffer = entries, written = entries + overrun.
    m = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", text)
    assert m and int(m[1]) == sum(st["entries"] for st in stats), (m and m[0], stats)
    assert int(m[2]) == sum(st["entries"] + st["overrun"] for st in stats), (m[0], stats)
    txt = [m for m in map(TXT_LINE.match, text.splitlines()) if m]
    rep = report(os.path.join(out, "trace.dat"))
    assert len(txt) > 10 and len(rep) == len(txt)
    rep_cpu = check_same_events(txt, rep)
    for cpu, st in enumerate(stats):
        assert len(rep_cpu.get(cpu, [])) == st["entries"], (cpu, st)
        if st["entries"]:
            # What was left starts at the oldest event the kernel still had, not at the start of the run.
            ns = rep_cpu[cpu][0][0]
            assert st["oldest event ts"] * 1000 - 1 <= ns <= st["oldest event ts"] * 1000 + 1000, (cpu, st, ns)
    assert any(name == "print" for *_, name, _ in rep)
    check_json(out)


def test_report_stat_matches_kernel_stats(overrun):
    out, stats = overrun
    dat = os.path.join(out, "trace.dat")
    r = subprocess.run(["trace-cmd", "report", "--stat", dat], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr.strip() == "", r.stderr
    print(r.stdout)
    # trace-cmd prints each CPUSTAT option: "CPU: N", then that CPU's stats file, then a blank line.
    shown = {}
    for m in re.finditer(r"^CPU: (\d+)\n(.*?)(?:\n\n|\Z)", r.stdout, re.M | re.S):
        shown[int(m[1])] = read_stats(m[2])
    assert shown == dict(enumerate(stats)), r.stdout
    assert re.search(r"^cpus=%d$" % len(stats), r.stdout, re.M), r.stdout
    for cpu, st in enumerate(stats):
        # The pages trace-cmd holds for the CPU carry at least the kernel's bytes of events.
        m = re.search(r"^CPU%d data recorded at offset=0x[0-9a-f]+\n\s+(\d+) bytes in size" % cpu, r.stdout, re.M)
        assert m and int(m[1]) >= st["bytes"], (cpu, st, r.stdout)
        # entries: what the buffer held when the pages were read, so what trace-cmd reads for the CPU.
        rc = subprocess.run(["trace-cmd", "report", "--cpu", str(cpu), "-R", "-t", dat], capture_output=True,
                            text=True, timeout=120)
        assert rc.returncode == 0 and rc.stderr.strip() == "", rc.stderr
        events = [m.groups() for m in map(REPORT_LINE.match, rc.stdout.splitlines()) if m]
        assert all(int(c) == cpu for _, _, c, *_ in events)
        assert len(events) == st["entries"], (cpu, st, len(events))
    assert shown[0]["overrun"] == stats[0]["overrun"] > 0


def test_event_strings_by_address_come_out_as_text(tmp_path):
    """ipi_raise records its reason as a pointer; printk_formats, copied into trace.dat, lets
    trace-cmd print the text the kernel printed (as Linux's tracepoint_string() strings)."""
    out = record(tmp_path, 2, "echo 1 > events/ipi/ipi_raise/enable; run spin 1 1; "
                              "echo 1 > events/bench/bench_event/enable; echo 0 > events/enable")
    txt = [l for l in open(os.path.join(out, "trace.txt")) if "ipi_raise: " in l]
    assert txt
    r = subprocess.run(["trace-cmd", "report", os.path.join(out, "trace.dat")], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and r.stderr.strip() == "", r.stderr
    rep = [l for l in r.stdout.splitlines() if "ipi_raise:" in l]
    assert len(rep) == len(txt)
    want = [re.search(r"target_mask=\w+ \(([^)]*)\)", l).group(1) for l in txt]
    got = [re.search(r"\(([^)]*)\)\s*$", l).group(1) for l in rep]
    assert got == want and "Function call interrupts" in got, (got[:5], want[:5])


AFTER = "trace-record after the snapshot"
# The snapshot is taken between two markers: the first is in it, the second only in the live buffer.
SNAPSHOT = ("echo 'compute_*' > set_ftrace_filter; echo function > current_tracer; run compute all; "
            "sleep 1; echo %s > trace_marker; echo 1 > snapshot; echo %s > trace_marker" % (MARK, AFTER))


def test_snapshot_dat_matches_snapshot_text(tmp_path):
    """--snapshot (make trace SNAPSHOT=1) brings the snapshot buffer home: trace-cmd reads from
    snapshot_raw's pages what `cat snapshot` printed, the marker written before `echo 1 > snapshot` and
    not the one after it."""
    out = str(tmp_path)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "trace-record"), "--smp", "2", "--snapshot",
                        "-o", out, SNAPSHOT], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-4000:]
    assert "pulling per_cpu/cpuN/snapshot_raw" in r.stderr, r.stderr[-4000:]
    assert "do not fit one TSC base" not in r.stderr, r.stderr[-4000:]
    text = open(os.path.join(out, "trace.txt")).read()
    assert MARK in text and AFTER not in text, text[-2000:]
    txt = [m for m in map(TXT_LINE.match, text.splitlines()) if m]
    rep = report(os.path.join(out, "trace.dat"))
    assert len(txt) > 10 and len(rep) == len(txt)
    check_same_events(txt, rep)
    assert any(name == "print" and MARK in fields for *_, name, fields in rep)
    assert not os.path.exists(os.path.join(out, "stats.cpu0"))
    check_json(out)


def test_snapshot_of_a_latency_tracer_is_busy(tmp_path):
    """While irqsoff owns the max buffer, snapshot_raw is EBUSY (Linux's snapshot_raw_open()): trace-record
    says so and fails, writing nothing."""
    out = str(tmp_path)
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "trace-record"), "--smp", "2", "--snapshot",
                        "-o", out, "echo irqsoff > current_tracer; noirq 1000"],
                       capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 1, r.stdout + r.stderr[-4000:]
    assert re.search(r"snapshot_raw: Device or resource busy", r.stderr), r.stderr[-4000:]
    assert not os.path.exists(os.path.join(out, "trace.dat"))
