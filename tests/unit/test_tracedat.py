"""tests/unit/test_tracedat.py: tools/tracedat.py without a kernel: a trace.dat made of hand-built pages must read
back through the real `trace-cmd report` exactly as built, and our own decoder and JSON must agree with it.

The texts (header_page, header_event, format files) are the kernel's own, captured from a run into
tests/data/trace/; the pages are built here in the kernel's layout with known stamps, pids and addresses.
"""

import json
import os
import re
import struct
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import tracedat  # noqa: E402

DATA = os.path.join(ROOT, "tests", "data", "trace")
FTRACE = ["function", "funcgraph_entry", "funcgraph_exit", "print", "kernel_stack"]
TSC_KHZ = 2594849                    # "tsc: 2594.849 MHz", as a run printed it
TSC_BASE = 123456789                 # the TSC value time counts from
SYMS = {0xffffffff80001000: "compute_fib", 0xffffffff80001100: "compute_iteration",
        0xffffffff80001200: "work_thread", 0xffffffff80001300: "tracing_mark_write"}
KALLSYMS = "".join("%016x T %s\n" % (a, n) for a, n in sorted(SYMS.items()))
CMDLINES = "1 sh\n2 compute\n3 compute\n"
FIB, ITER, WORK, MARK = sorted(SYMS)

def trace_cmd(test):
    """trace-cmd reads the file too: tools/deps.sh installs it, so a missing one fails rather than skips."""
    return test


def text(name):
    with open(os.path.join(DATA, name)) as f:
        return f.read()


def ktime_ns(raw):
    """The kernel's tsc_to_ktime() (arch/x86/tsc.c), what `cat trace` prints for a stamp."""
    return ((raw - TSC_BASE) * ((10 ** 6 << 32) // TSC_KHZ)) >> 32


def function(pid, ip, parent):
    return struct.pack("<HBBiQQ", 1, 0, 0, pid, ip, parent)


def graph_entry(pid, func, depth):
    return struct.pack("<HBBiQi4x", 12, 0, 0, pid, func, depth)


def graph_exit(pid, func, depth, calltime, rettime):
    return struct.pack("<HBBiQi4xQQQQ", 11, 0, 0, pid, func, depth, 0, calltime, rettime, 0)


def marker(pid, msg):
    return struct.pack("<HBBiQ", 5, 0, 0, pid, MARK) + msg.encode() + b"\0"


# CPU 0: function events, one of them after a delta too big for 27 bits (a time extend), and a marker long
# enough (over 112 bytes) to need the type_len 0 header.  CPU 1: a function_graph call with a nested leaf.
LONG_MSG = "a trace_marker line long enough to need the length word of a type_len 0 event: " + "x" * 60 + "\n"
T0, T1 = TSC_BASE + 2_594_849_000, TSC_BASE + 2_600_000_000      # about 1.0 s after the base
CPU0 = [(0, function(2, ITER, WORK)), (2_600, function(2, FIB, ITER)), ((1 << 27) + 5, function(2, FIB, FIB)),
        (1_000, marker(1, LONG_MSG))]
CPU1 = [(0, graph_entry(3, ITER, 0)), (500, graph_entry(3, FIB, 1)), (300, graph_exit(3, FIB, 1, T1 + 500, T1 + 800)),
        (700, graph_exit(3, ITER, 0, T1, T1 + 1500))]


def expected():
    """[(cpu, raw stamp, pid, event name)] of the pages above, in page order per CPU."""
    out = []
    for cpu, (t0, evs) in enumerate(((T0, CPU0), (T1, CPU1))):
        ts = t0
        for delta, payload in evs:
            ts += delta
            out.append((cpu, ts, struct.unpack_from("<i", payload, 4)[0]))
    return out


@pytest.fixture(scope="module")
def dat(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("tracedat") / "trace.dat")
    pages = [tracedat.build_page(T0, CPU0), tracedat.build_page(T1, CPU1)]
    tracedat.write_dat(path, text("header_page"), text("header_event"),
                       [text("ftrace.%s.format" % e) for e in FTRACE],
                       {"sched": [text("sched.sched_switch.format")]}, KALLSYMS, "", CMDLINES, pages,
                       clock=tracedat.tsc2nsec(TSC_KHZ, TSC_BASE))
    return path, pages


def events_of(dat):
    path, pages = dat
    formats = [("ftrace", text("ftrace.%s.format" % e)) for e in FTRACE]
    evs = tracedat.parse_events(formats)
    return [tracedat.decode_cpu(p, evs, tracedat.header_page_layout(text("header_page"))) for p in pages]


def test_file_layout(dat):
    """The fixed parts sit where trace-cmd's v6 reader looks for them; the CPU data is page aligned."""
    with open(dat[0], "rb") as f:
        raw = f.read()
    assert raw[:12] == b"\x17\x08\x44tracing6\x00"
    assert raw[12:18] == b"\x00\x08" + struct.pack("<I", 4096)
    assert raw[18:30] == b"header_page\x00"
    fly = raw.index(b"flyrecord\x00") + 10
    for cpu in range(2):
        off, size = struct.unpack_from("<QQ", raw, fly + 16 * cpu)
        assert off % 4096 == 0 and size == 4096
        assert raw[off:off + size] == dat[1][cpu]


def test_decoder_reads_back_the_pages(dat):
    cpus = events_of(dat)
    got = [(cpu, e["ts"], e["pid"]) for cpu, evs in enumerate(cpus) for e in evs]
    assert got == expected()
    assert [e["name"] for e in cpus[0]] == ["function", "function", "function", "print"]
    assert cpus[0][1]["ip"] == FIB and cpus[0][1]["parent_ip"] == ITER
    assert cpus[0][3]["buf"] == LONG_MSG
    assert [(e["name"], e["func"], e["depth"]) for e in cpus[1]] == [
        ("funcgraph_entry", ITER, 0), ("funcgraph_entry", FIB, 1), ("funcgraph_exit", FIB, 1),
        ("funcgraph_exit", ITER, 0)]


REPORT_LINE = re.compile(r"\s*(\S+)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s*(.*)")


def report(path, *args):
    """trace-cmd report's stdout; it must exit 0 with nothing on stderr and know every event."""
    r = subprocess.run(["trace-cmd", "report"] + list(args) + [path], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == "", r.stderr
    assert "[UNKNOWN" not in r.stdout and "unknown event" not in r.stdout.lower(), r.stdout
    return r.stdout


@trace_cmd
def test_trace_cmd_report_raw_fields(dat):
    """-R: one line per event with its fields, so every event, CPU, pid, stamp and address can be checked."""
    out = report(dat[0], "-R", "-t")
    lines = [m.groups() for m in map(REPORT_LINE.match, out.splitlines()) if m]
    exp = sorted(expected(), key=lambda e: e[1])
    assert len(lines) == len(exp), out
    for (comm, p, c, s, ns, name, rest), (cpu, raw, pid) in zip(lines, exp):
        assert (int(c), int(p)) == (cpu, pid)
        assert comm == {1: "sh", 2: "compute", 3: "compute"}[pid]
        # trace-cmd scales then adds; the kernel subtracts then scales: at most 1 ns apart.
        assert abs(int(s) * 10 ** 9 + int(ns) - ktime_ns(raw)) <= 1, (rest, ktime_ns(raw))
    fields = [(ln[5], ln[6].strip()) for ln in lines]
    assert fields[0] == ("function", "ip=compute_iteration parent_ip=work_thread")
    assert fields[1] == ("function", "ip=compute_fib parent_ip=compute_iteration")
    assert fields[2] == ("funcgraph_entry", "func=compute_iteration depth=0")
    assert fields[4][1].startswith("func=compute_fib depth=1 ")
    assert fields[6] == ("function", "ip=compute_fib parent_ip=compute_fib")
    assert fields[7] == ("print", "ip=tracing_mark_write buf=" + LONG_MSG.rstrip("\n"))


@trace_cmd
def test_trace_cmd_report_plugins(dat):
    """Default output: trace-cmd's function_graph plugin folds the leaf call and its return into one line."""
    out = report(dat[0])
    assert "compute_iteration() {" in out and "compute_fib();" in out, out
    assert re.search(r"compute-2 +\[000\] +1\.000000: function: +compute_iteration", out), out


def test_json_pairs_graph_calls(dat):
    doc = tracedat.to_json(events_of(dat), lambda raw: ktime_ns(raw) / 1000.0,
                           tracedat.kallsyms_lookup(KALLSYMS), tracedat.parse_cmdlines(CMDLINES))
    doc = json.loads(json.dumps(doc))
    evs = doc["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == {(0, 2): "compute-2", (0, 1): "sh-1", (1, 3): "compute-3"}
    b = [e["name"] for e in evs if e["ph"] == "B"]
    assert b == ["compute_iteration", "compute_fib"]
    assert [e["ph"] for e in evs if e["ph"] in "BE"] == ["B", "B", "E", "E"]
    inst = [e for e in evs if e["ph"] == "i"]
    assert [e["name"] for e in inst] == ["compute_iteration", "compute_fib", "compute_fib", LONG_MSG.rstrip("\n")]
    check_json_tracks(doc)


def check_json_tracks(doc):
    """Every B has its E on the same track, and time never goes backwards on a track."""
    stacks, last = {}, {}
    for e in doc["traceEvents"]:
        if e["ph"] == "M":
            continue
        track = (e["pid"], e["tid"])
        assert e["ts"] >= last.get(track, 0), e
        last[track] = e["ts"]
        if e["ph"] == "B":
            stacks.setdefault(track, []).append(e.get("name"))
        elif e["ph"] == "E":
            assert stacks.get(track), e
            name = stacks[track].pop()
            assert e.get("name", name) == name, e
    assert not any(stacks.values()), stacks


def trace_record_module():
    """tools/trace-record, imported (it has no .py suffix)."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("trace_record", os.path.join(ROOT, "tools", "trace-record"))
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader("trace_record", loader))
    loader.exec_module(mod)
    return mod


def test_tsc_base_estimate_reproduces_printed_times():
    """From (stamp, printed µs) pairs alone the recorder finds a base that prints every stamp the same."""
    import random
    mod = trace_record_module()
    rng = random.Random(12)
    raws = sorted(TSC_BASE + rng.randrange(10 ** 6, 10 ** 9) for _ in range(300))
    events = [[{"ts": r, "name": "function"} for r in raws]]
    text = "".join("  compute-2  [000] .....  %d.%06d: f <-g\n" % divmod(ktime_ns(r) // 1000, 10 ** 6) for r in raws)
    base, spread = mod.estimate_tsc_base(TSC_KHZ, events, text, [""])
    assert abs(base - TSC_BASE) <= 30 and spread < 60, (base - TSC_BASE, spread)
    mult = (10 ** 6 << 32) // TSC_KHZ
    assert all(((r - base) * mult >> 32) // 1000 == ktime_ns(r) // 1000 for r in raws)


def test_frames_parse():
    """The second serial port's framing: magic, path, payload, CRC; a bad CRC is an error, not data."""
    import zlib
    mod = trace_record_module()
    payload = bytes(range(256)) * 20
    frame = (b"FTOSRAW1" + struct.pack("<I", 5) + b"/a/b1" + struct.pack("<Q", len(payload)) + payload
             + struct.pack("<I", zlib.crc32(payload)))
    assert mod.read_frames(b"noise" + frame + frame[:20]) == [("/a/b1", payload)]
    bad = frame[:-1] + bytes([frame[-1] ^ 1])
    with pytest.raises(RuntimeError):
        mod.read_frames(bad)
