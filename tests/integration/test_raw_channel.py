"""tests/integration/test_raw_channel.py: per_cpu/cpuN/trace_pipe_raw pulled through /dev/ttyS1 (COM2,
QEMU's second -serial to a file): the FTOSRAW1 frame, its CRC, pages equal to the ring buffer's own
bytes shown in hex by `rbdump`, reading consumes, bad input refused with nothing lost; and a pure
Python decoder that reads the pages with header_page/header_event and finds what `cat trace` shows."""

import os
import re
import struct
import time
import zlib

import pytest

from tests.console import Console, ROOT

SMP = 2
T = "/sys/kernel/tracing"
RAW0 = T + "/per_cpu/cpu0/trace_pipe_raw"
TTYS1 = os.path.join(ROOT, "build", "test-raw-ttyS1.bin")
MARKERS = ["short %d" % i for i in range(20)] + ["long %02d " % i + "x" * 120 for i in range(30)]


@pytest.fixture(scope="module")
def console(request):
    """The module's QEMU, with COM2 written to TTYS1."""
    if os.path.exists(TTYS1):
        os.remove(TTYS1)
    c = Console(smp=SMP, name=request.node.nodeid, ttyS1=TTYS1)
    request.addfinalizer(c.close)
    c.start()
    c.ttyS1_pos = 0
    return c


def parse_frame(data):
    """One FTOSRAW1 frame at the start of data: (path, payload, bytes used)."""
    assert data[:8] == b"FTOSRAW1", data[:16]
    (name_len,) = struct.unpack_from("<I", data, 8)
    path = data[12:12 + name_len].decode()
    (length,) = struct.unpack_from("<Q", data, 12 + name_len)
    start = 20 + name_len
    payload = data[start:start + length]
    assert len(payload) == length
    (crc,) = struct.unpack_from("<I", data, start + length)
    assert crc == zlib.crc32(payload)
    return path, payload, start + length + 4


def pull(console, path):
    """`cat path > /dev/ttyS1`: nothing on the console, one frame in the file; its payload."""
    assert console.run("cat %s > /dev/ttyS1" % path) == ""
    deadline = time.monotonic() + 10
    while True:       # QEMU writes the file as the bytes come; the prompt came after the last one
        with open(TTYS1, "rb") as f:
            f.seek(console.ttyS1_pos)
            data = f.read()
        try:
            name, payload, used = parse_frame(data)
            break
        except (AssertionError, struct.error):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    assert used == len(data), "bytes after the frame"
    console.ttyS1_pos += used
    assert name == path
    return payload


def rbdump(console, cpu):
    """`rbdump CPU`: the unread pages as bytes (header and data up to commit)."""
    pages = []
    for line in console.run("rbdump %d" % cpu).splitlines():
        if line.startswith("page "):
            pages.append(bytearray())
        else:
            off, hexes = line.split(":")
            assert int(off, 16) == len(pages[-1])
            pages[-1] += bytes.fromhex(hexes)
    return pages


def header_layout(console):
    """Offsets and sizes from events/header_page and header_event, as trace-cmd reads them."""
    page = {}
    for m in re.finditer(r"field: [\w ]+? (\w+);\toffset:(\d+);\tsize:(\d+);",
                         console.run("cat %s/events/header_page" % T)):
        page.setdefault(m.group(1), (int(m.group(2)), int(m.group(3))))
    ev = console.run("cat %s/events/header_event" % T)
    bits = {k: int(v) for k, v in re.findall(r"(\w+)\s*:\s*(\d+) bits", ev)}
    types = {k: int(v) for k, v in re.findall(r"(\w+)\s*: type == (\d+)", ev)}
    maxlen = int(re.search(r"data max type_len\s*== (\d+)", ev).group(1))
    return page, bits, types, maxlen


def decode(pages_bytes, layout):
    """Every data event of the raw pages: (absolute TSC stamp, payload)."""
    page, bits, types, maxlen = layout
    ts_off, ts_size = page["timestamp"]
    commit_off, commit_size = page["commit"]
    data_off, data_size = page["data"]
    tl_bits = bits["type_len"]
    events = []
    for p in range(0, len(pages_bytes), 4096):
        pg = pages_bytes[p:p + 4096]
        ts = int.from_bytes(pg[ts_off:ts_off + ts_size], "little")
        commit = int.from_bytes(pg[commit_off:commit_off + commit_size], "little")
        assert 0 < commit <= data_size
        data = pg[data_off:data_off + commit]
        assert not any(pg[data_off + commit:]), "bytes past commit must be zero"
        off = 0
        while off < commit:
            (word,) = struct.unpack_from("<I", data, off)
            type_len, delta = word & ((1 << tl_bits) - 1), word >> tl_bits
            if type_len == types["time_extend"]:
                (hi,) = struct.unpack_from("<I", data, off + 4)
                ts += delta + (hi << bits["time_delta"])
                off += 8
                continue
            assert type_len != types["padding"] and type_len != types["time_stamp"]
            ts += delta
            if type_len == 0:
                (length,) = struct.unpack_from("<I", data, off + 4)
                length -= 4          # Linux's convention: the length word counts itself
                body = off + 8
            else:
                assert type_len <= maxlen
                length, body = type_len * 4, off + 4
            events.append((ts, bytes(data[body:body + length])))
            off = body + length
        assert off == commit
    return events


def test_raw_pages_are_the_buffer_bytes_and_reading_consumes(console):
    assert console.run("echo nop > %s/current_tracer" % T) == ""
    assert console.run("echo > %s/trace" % T) == ""
    assert console.run("echo 1 > %s/tracing_on" % T) == ""
    assert console.run("echo fs_resolve > %s/set_ftrace_filter" % T) == ""
    assert console.run("echo function > %s/current_tracer" % T) == ""
    for text in MARKERS:
        assert console.run("echo %s > %s/trace_marker" % (text, T)) == ""
    assert console.run("echo 0 > %s/tracing_on" % T) == ""
    trace = console.run("cat %s/per_cpu/cpu0/trace" % T)
    lines = [l for l in trace.splitlines() if not l.startswith("#")]
    marks = re.findall(r"tracing_mark_write: (.*)$", trace, re.M)
    assert marks == MARKERS
    assert any("fs_resolve <-" in l for l in lines)
    console.lines0 = lines

    dump = rbdump(console, 0)
    assert len(dump) >= 2
    raw = pull(console, RAW0)
    assert len(raw) == 4096 * len(dump)
    for i, mem in enumerate(dump):
        page = raw[i * 4096:(i + 1) * 4096]
        commit = struct.unpack_from("<Q", page, 8)[0]
        assert 0 < commit <= 4080 and len(mem) == 16 + commit
        assert page[:16 + commit] == mem          # the same bytes as in the buffer's memory
        assert not any(page[16 + commit:])
    console.raw0 = raw

    # What was read is gone: a second read is an empty frame, trace shows nothing of CPU 0.
    assert pull(console, RAW0) == b""
    assert rbdump(console, 0) == []
    assert [l for l in console.run("cat %s/per_cpu/cpu0/trace" % T).splitlines()
            if not l.startswith("#")] == []
    assert re.search(r"^read events: %d$" % len(lines), console.run("cat %s/per_cpu/cpu0/stats" % T),
                     re.M)


def test_decoded_pages_are_what_trace_showed(console):
    """Pure Python, from the text files alone: the events, the marker texts, time order."""
    layout = header_layout(console)
    events = decode(console.raw0, layout)
    assert len(events) == len(console.lines0)
    fmt = console.run("cat %s/events/ftrace/print/format" % T)
    print_id = int(re.search(r"^ID: (\d+)", fmt, re.M).group(1))
    buf_off = int(re.search(r"char buf\[\];\toffset:(\d+);", fmt).group(1))
    texts = [p[buf_off:].split(b"\0")[0].decode().rstrip("\n")
             for _, p in events if struct.unpack_from("<H", p)[0] == print_id]
    assert texts == MARKERS
    stamps = [ts for ts, _ in events]
    assert stamps == sorted(stamps)


def test_bad_input_is_refused_and_nothing_is_lost(console):
    assert console.run("echo nop > %s/current_tracer" % T) == ""
    assert console.run("echo 1 > %s/tracing_on" % T) == ""
    assert console.run("echo kept > %s/trace_marker" % T) == ""
    # Tracing on: busy, nothing read.
    assert console.run("cat %s > /dev/ttyS1" % RAW0) == "cat: %s: Device or resource busy" % RAW0
    assert console.run("echo 0 > %s/tracing_on" % T) == ""
    # To the console: refused, nothing read.
    assert console.run("cat %s" % RAW0) == \
        "cat: %s: binary file, redirect it to /dev/ttyS1" % RAW0
    assert console.run("cat %s/per_cpu/cpu99/trace_pipe_raw > /dev/ttyS1" % T) == \
        "cat: %s/per_cpu/cpu99/trace_pipe_raw: No such file or directory" % T
    assert console.run("cat %s > /dev/ttyS9" % RAW0) == "/dev/ttyS9: No such file or directory"
    assert console.run("cat %s > %s/trace_marker" % (RAW0, T)) == \
        "cat: output redirection goes to a device only, such as /dev/ttyS1"
    with open(TTYS1, "rb") as f:
        assert len(f.read()) == console.ttyS1_pos, "a refused read sent bytes"
    assert "kept" in console.run("cat %s/trace" % T)
    texts = [p[16:].split(b"\0")[0] for _, p in decode(pull(console, RAW0), header_layout(console))]
    assert texts == [b"kept\n"]
    assert console.run("echo ok") == "ok"


def test_without_com2_ttyS1_is_an_io_error(fresh_console):
    c = fresh_console
    assert c.run("echo 0 > %s/tracing_on" % T) == ""
    assert c.run("cat %s > /dev/ttyS1" % RAW0) == "cat: %s: Input/output error" % RAW0
    assert c.run("echo hi > /dev/ttyS1") == "echo: write error: Input/output error"
