"""tests/integration/test_trace_printk.py: trace_printk() as Linux's: a bputs record for a constant string, a bprint
record (format address + binary arguments, formatted when read) for a constant format with arguments, a print record
for a format that may not last; Linux's banner once, on first use; the formats in printk_formats; the trace_printk
and printk-msg-only options; trace_pipe; trace_marker_raw's bytes."""

import re

CTX = r"^ +sh-1 +\[000\] \.{5} +\d+\.\d{6}: "
LINES = [CTX + r"cmd_trace_printk: hello from the shell$",
         CTX + r"cmd_trace_printk: argc=2 first=word ip=cmd_trace_printk big=123456789abc c=z neg=-2$",
         CTX + r"cmd_trace_printk: dynamic-2$"]
BANNER = "** trace_printk() being used. Allocating extra memory.  **"


def body(console, path="trace"):
    return [l for l in console.run("cat " + path).splitlines() if not l.startswith("#")]


def test_records_print_as_linux_and_the_banner_comes_once(console):
    assert BANNER not in console.boot_text
    assert console.run("tprintk word").count(BANNER) == 1
    got = body(console)
    assert len(got) == 3 and all(re.match(p, l) for p, l in zip(LINES, got)), got
    assert console.run("tprintk word") == ""              # the notice is said once
    assert len(body(console)) == 6
    # Each kind keeps its own record type: bputs 14, bprint 6, print 5 (raw shows type and pid first).
    console.run("echo raw > trace_options")
    raw = body(console)[:3]
    console.run("echo noraw > trace_options")
    assert [r.split(" ", 3)[3].split(" ")[0] for r in raw[:1]] == ["type:"] and raw[0].endswith("type: 14")
    assert raw[1].endswith("type: 6") and re.match(r"^1 0 \d+ # [0-9a-f]+ dynamic-2$", raw[2]), raw


def test_printk_formats_lists_the_constant_formats(console):
    formats = console.run("cat printk_formats").splitlines()
    assert any(re.fullmatch(r'0x[0-9a-f]+ : "hello from the shell\\n"', l) for l in formats), formats[:5]
    assert any(re.fullmatch(r'0x[0-9a-f]+ : "argc=%d first=%s ip=%ps big=%llx c=%c neg=%hd\\n"', l)
               for l in formats)
    assert not any("%s-%d" in l for l in formats)                # the variable format is not listed


def test_options_switch_and_shape_it(console):
    console.run("echo > trace")
    console.run("echo printk-msg-only > trace_options")
    console.run("tprintk word")
    assert body(console) == ["hello from the shell",
                             "argc=2 first=word ip=cmd_trace_printk big=123456789abc c=z neg=-2", "dynamic-2"]
    console.run("echo noprintk-msg-only > trace_options")
    console.run("echo notrace_printk > trace_options")
    console.run("echo > trace")
    console.run("tprintk word")
    assert body(console) == []
    console.run("echo trace_printk > trace_options")
    console.run("echo sym-offset > trace_options")
    console.run("tprintk word")
    assert re.match(CTX + r"cmd_trace_printk\+0x[0-9a-f]+/0x[0-9a-f]+: hello from the shell$", body(console)[0])
    console.run("echo nosym-offset > trace_options")


def test_trace_pipe_consumes_them(console):
    console.run("echo > trace")
    console.run("tprintk word")
    console.send(b"cat trace_pipe\r")
    console.wait_for(r"cmd_trace_printk: dynamic-2", timeout=60)
    console.send(b"\x03")
    console.wait_for_prompt(timeout=60)
    assert body(console) == []


def test_trace_marker_raw_keeps_bytes(console):
    console.run("echo > trace")
    assert console.run("echo abcd1234 > trace_marker_raw") == ""   # 17 bytes: read to 20, as Linux reads it
    assert re.match(CTX + r"# 64636261 buf: 31 32 33 34 0a 00 00 00$", body(console)[0]), body(console)
    assert console.run("echo ab > trace_marker_raw") == "echo: write error: Invalid argument"   # no whole id
    assert console.run("cat trace_marker_raw") == "cat: trace_marker_raw: Permission denied"
