"""tools/tracedat.py: the host half of a recording: trace.dat (trace-cmd v6), ring-buffer page decoding, trace.json.

Used by tools/trace-record and by the tests.  Everything here works from what the kernel exports (the format
files, header_page, raw pages): the page layout is read from the texts where the texts say it, and from
Linux's rules where they do not.

    trace.dat, version 6 (all numbers little endian, the file's endianness byte says so):

    17 08 44 "tracing" "6" 00 | endian u8 | long size u8 | page size u32
    "header_page\\0"  u64 size, text       "header_event\\0"  u64 size, text
    u32 count, { u64 size, format text }                  the ftrace system's formats
    u32 systems, { "name\\0", u32 count, { u64 size, format text } }
    u32 size, /proc/kallsyms      u32 size, printk formats      u64 size, saved_cmdlines
    u32 cpus
    "options  \\0" { u16 id, u32 size, data } u16 0      CPUSTAT (one per CPU), TSC2NSEC and OFFSET
    "flyrecord\\0" { u64 offset, u64 size } per CPU
    ...zero fill to a page boundary, then each CPU's pages, back to back, as the kernel gave them
"""

import json
import re
import struct

MAGIC = b"\x17\x08\x44tracing6\x00"
PAGE_SIZE = 4096
OPTION_CPUSTAT = 2       # one CPU's per_cpu/cpuN/stats text, after a "CPU: N" line; NUL-terminated
OPTION_OFFSET = 7        # ASCII signed ns added to every converted stamp
OPTION_TSC2NSEC = 14     # int mult, int shift, u64 offset: ns = stamp * mult >> shift

# Ring-buffer event header (events/header_event): type_len in the low 5 bits, time delta above.
TYPE_PADDING, TYPE_TIME_EXTEND, TYPE_TIME_STAMP = 29, 30, 31
TS_SHIFT = 27


# ---- format files ------------------------------------------------------------------------------------------

class Event:
    """One events/.../format file: name, id, system and fields {name: (offset, size, signed, type)}."""

    def __init__(self, text, system):
        self.text = text
        self.system = system
        self.name = re.search(r"^name: (\S+)", text, re.M).group(1)
        self.id = int(re.search(r"^ID: (\d+)", text, re.M).group(1))
        self.fields = {}
        for m in re.finditer(r"field:(.*?);\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d+);", text):
            decl = m.group(1).strip()
            fname = re.search(r"(\w+)\s*(\[\d*\])?$", decl).group(1)
            self.fields[fname] = (int(m.group(2)), int(m.group(3)), m.group(4) == "1", decl)

    def value(self, data, name):
        """The integer (or, for char arrays, the string) of field `name` in payload `data`."""
        off, size, signed, decl = self.fields[name]
        if decl.startswith("char ") and "[" in decl:
            raw = data[off:off + size] if size else data[off:]
            return raw.split(b"\0", 1)[0].decode("latin-1")
        if size not in (1, 2, 4, 8):
            return data[off:off + size]
        return int.from_bytes(data[off:off + size], "little", signed=signed)


def parse_events(formats):
    """{id: Event} from [(system, text), ...]."""
    events = {}
    for system, text in formats:
        ev = Event(text, system)
        events[ev.id] = ev
    return events


# ---- pages -------------------------------------------------------------------------------------------------

def header_page_layout(text):
    """(timestamp offset, commit offset, commit size, data offset) from events/header_page."""
    f = {m.group(1): (int(m.group(2)), int(m.group(3)))
         for m in re.finditer(r"field: [\w ]*? (\w+);\s*offset:(\d+);\s*size:(\d+);", text)}
    return f["timestamp"][0], f["commit"][0], f["commit"][1], f["data"][0]


def decode_page(page, layout=(0, 8, 8, 16)):
    """Yield (raw stamp, payload bytes) for each data event of one page (Linux's buffer_data_page)."""
    ts_off, commit_off, commit_size, data_off = layout
    ts = int.from_bytes(page[ts_off:ts_off + 8], "little")
    # Linux keeps "events were lost" flags in the commit word's top bits; the size is below them.
    commit = int.from_bytes(page[commit_off:commit_off + commit_size], "little") & ((1 << 27) - 1)
    pos, end = data_off, data_off + commit
    while pos + 4 <= end:
        word = int.from_bytes(page[pos:pos + 4], "little")
        type_len, delta = word & 31, word >> 5
        if type_len == TYPE_PADDING:
            if delta == 0:          # the rest of the page is unused
                return
            pos += 4 + int.from_bytes(page[pos + 4:pos + 8], "little")
            continue
        if type_len in (TYPE_TIME_EXTEND, TYPE_TIME_STAMP):
            ext = (int.from_bytes(page[pos + 4:pos + 8], "little") << TS_SHIFT) | delta
            ts = ext if type_len == TYPE_TIME_STAMP else ts + ext
            pos += 8
            continue
        ts += delta
        if type_len == 0:
            # Linux: array[0] counts itself and the payload (kbuffer subtracts 4 again).
            length = int.from_bytes(page[pos + 4:pos + 8], "little") - 4
            start = pos + 8
        else:
            length = type_len * 4
            start = pos + 4
        yield ts, page[start:start + length]
        pos = start + length


def decode_cpu(data, events, layout=(0, 8, 8, 16), page_size=PAGE_SIZE):
    """Every event of one CPU's pages: dicts with ts (raw), id, name, pid and the named fields."""
    out = []
    for p in range(0, len(data) - page_size + 1, page_size):
        for ts, payload in decode_page(data[p:p + page_size], layout):
            eid = int.from_bytes(payload[0:2], "little")
            ev = events.get(eid)
            rec = {"ts": ts, "id": eid, "pid": int.from_bytes(payload[4:8], "little", signed=True)}
            if ev is None:
                rec["name"] = None
            else:
                rec["name"] = ev.name
                rec["system"] = ev.system
                for fname in ev.fields:
                    if not fname.startswith("common_"):
                        rec[fname] = ev.value(payload, fname)
            out.append(rec)
    return out


def build_page(first_ts, events, page_size=PAGE_SIZE):
    """A page in the kernel's layout from [(delta, payload)], for tests: the inverse of decode_page()."""
    body = bytearray()
    for delta, payload in events:
        payload = bytes(payload) + b"\0" * (-len(payload) % 4)
        if delta >> TS_SHIFT:
            body += struct.pack("<II", TYPE_TIME_EXTEND | ((delta & ((1 << TS_SHIFT) - 1)) << 5),
                                delta >> TS_SHIFT)
            delta = 0
        if len(payload) <= 28 * 4:
            body += struct.pack("<I", (len(payload) // 4) | (delta << 5)) + payload
        else:
            body += struct.pack("<II", delta << 5, len(payload) + 4) + payload
    page = struct.pack("<QQ", first_ts, len(body)) + body
    return page + b"\0" * (page_size - len(page))


# ---- trace.dat ---------------------------------------------------------------------------------------------

def tsc2nsec(tsc_khz, tsc_base):
    """(mult, shift, offset ns) such that stamp * mult >> shift + offset is the kernel's tsc_to_ktime().

    The kernel computes (stamp - base) * ns_mult >> 32 with ns_mult = (10^6 << 32) / tsc_khz; trace-cmd
    can only scale then add, so the base becomes an offset of -(base * ns_mult >> 32): the two differ by at
    most 1 ns.  trace-cmd's mult is 32 bits: a slower clock (under 1 GHz) gives up low bits of it."""
    mult, shift = (10 ** 6 << 32) // tsc_khz, 32
    while mult >= 1 << 31:
        mult, shift = mult >> 1, shift - 1
    return mult, shift, -((tsc_base * mult) >> shift)


def write_dat(path, header_page, header_event, ftrace_formats, system_formats, kallsyms, printk, cmdlines,
              cpu_data, clock=None, cpu_stats=None):
    """Write trace.dat v6.  *_formats are texts, system_formats {system: [texts]}, cpu_data [bytes per CPU];
    clock (mult, shift, offset) from tsc2nsec() turns the raw TSC stamps into the kernel's nanoseconds;
    cpu_stats [per_cpu/cpuN/stats text per CPU] is what `trace-cmd report --stat` prints (trace-cmd record
    reads them after draining the buffer, so its entries are 0; ours are read before, so entries counts the
    events in cpu_data)."""
    enc = lambda s: s.encode("latin-1") if isinstance(s, str) else s   # noqa: E731
    out = bytearray(MAGIC)
    out += struct.pack("<BBI", 0, 8, PAGE_SIZE)          # little endian, 8-byte long, 4 KiB pages
    for name, text in (("header_page", header_page), ("header_event", header_event)):
        out += name.encode() + b"\0" + struct.pack("<Q", len(enc(text))) + enc(text)
    out += struct.pack("<I", len(ftrace_formats))
    for text in ftrace_formats:
        out += struct.pack("<Q", len(enc(text))) + enc(text)
    out += struct.pack("<I", len(system_formats))
    for system, texts in system_formats.items():
        out += system.encode() + b"\0" + struct.pack("<I", len(texts))
        for text in texts:
            out += struct.pack("<Q", len(enc(text))) + enc(text)
    out += struct.pack("<I", len(enc(kallsyms))) + enc(kallsyms)
    out += struct.pack("<I", len(enc(printk))) + enc(printk)
    out += struct.pack("<Q", len(enc(cmdlines))) + enc(cmdlines)
    out += struct.pack("<I", len(cpu_data))
    out += b"options  \0"
    for cpu, text in enumerate(cpu_stats or []):
        # As trace-cmd record saves them: "CPU: N" then the file; the reader turns the NUL into a newline.
        data = b"CPU: %d\n" % cpu + enc(text) + b"\0"
        out += struct.pack("<HI", OPTION_CPUSTAT, len(data)) + data
    if clock is not None:
        mult, shift, offset = clock
        out += struct.pack("<HIiiQ", OPTION_TSC2NSEC, 16, mult, shift, 0)
        text = b"%d\0" % offset
        out += struct.pack("<HI", OPTION_OFFSET, len(text)) + text
    out += struct.pack("<H", 0)
    out += b"flyrecord\0"
    table = len(out)
    out += b"\0" * (16 * len(cpu_data))
    out += b"\0" * (-len(out) % PAGE_SIZE)
    for cpu, data in enumerate(cpu_data):
        struct.pack_into("<QQ", out, table + 16 * cpu, len(out), len(data))
        out += data
    with open(path, "wb") as f:
        f.write(out)


# ---- trace.json (Trace Event Format, for Perfetto / chrome://tracing) ---------------------------------------

def to_json(cpu_events, to_us, symbol, comms):
    """The Trace Event Format document: a process per CPU, a thread per task on it; graph entries and exits
    as B/E, every other event an instant.  `to_us(raw)` converts a stamp, `symbol(addr)` names one."""
    out = [{"ph": "M", "name": "process_name", "pid": cpu, "args": {"name": "CPU %d" % cpu}}
           for cpu in range(len(cpu_events))]
    threads = set()
    for cpu, events in enumerate(cpu_events):
        open_depths = []            # depths of the B events on this CPU's tracks still open
        for e in events:
            tid = e["pid"]
            if (cpu, tid) not in threads:
                threads.add((cpu, tid))
                out.append({"ph": "M", "name": "thread_name", "pid": cpu, "tid": tid,
                            "args": {"name": "%s-%d" % (comms.get(tid, "<...>"), tid)}})
            base = {"pid": cpu, "tid": tid, "ts": to_us(e["ts"])}
            if e["name"] == "funcgraph_entry":
                open_depths.append((tid, e["depth"]))
                out.append(dict(base, ph="B", name=symbol(e["func"]), cat="funcgraph"))
            elif e["name"] == "funcgraph_exit":
                # An exit whose entry was lost (overwritten page) has no B to close: drop it.
                if (tid, e["depth"]) in open_depths:
                    while open_depths[-1] != (tid, e["depth"]):
                        open_depths.pop()
                        out.append(dict(base, ph="E"))
                    open_depths.pop()
                    out.append(dict(base, ph="E", name=symbol(e["func"]), cat="funcgraph"))
            elif e["name"] == "function":
                out.append(dict(base, ph="i", s="t", name=symbol(e["ip"]), cat="function",
                                args={"parent": symbol(e["parent_ip"])}))
            elif e["name"] == "print":
                out.append(dict(base, ph="i", s="t", name=e["buf"].rstrip("\n"), cat="print"))
            else:
                args = {k: v for k, v in e.items() if k not in ("ts", "id", "pid", "name", "system")
                        and isinstance(v, (int, str))}
                out.append(dict(base, ph="i", s="t", name=e["name"] or "id %d" % e["id"],
                                cat=e.get("system", "?"), args=args))
        end = to_us(events[-1]["ts"]) if events else 0
        while open_depths:          # still running when tracing stopped
            tid, _ = open_depths.pop()
            out.append({"ph": "E", "pid": cpu, "tid": tid, "ts": end})
    return {"traceEvents": out, "displayTimeUnit": "ns"}


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=0)


def kallsyms_lookup(text):
    """A function address -> "name" (or "name+0xoff") lookup over /proc/kallsyms text."""
    import bisect
    syms = sorted((int(a, 16), n) for a, _, n in (line.split()[:3] for line in text.splitlines()
                                                  if len(line.split()) >= 3))
    addrs = [a for a, _ in syms]

    def lookup(addr):
        i = bisect.bisect_right(addrs, addr) - 1
        if i < 0:
            return "0x%x" % addr
        a, n = syms[i]
        return n if a == addr else "%s+0x%x" % (n, addr - a)
    return lookup


def parse_cmdlines(text):
    """{pid: comm} from saved_cmdlines."""
    comms = {}
    for line in text.splitlines():
        pid, _, comm = line.strip().partition(" ")
        if pid.isdigit():
            comms[int(pid)] = comm
    return comms
