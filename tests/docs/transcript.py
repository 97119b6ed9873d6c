"""tests/docs/transcript.py: the console transcripts in docs/*.md, read as scripts the tests can replay.

A transcript is a fenced block whose first line starts with the shell prompt. Each prompt line is a
command; the lines after it, up to the next prompt line or the end of the block, are what the command
printed. Everything here is pure text: tests/docs/replay.py types the commands into a kernel.

Directives are HTML comments (invisible in rendered Markdown) that start with `replay:`; several may share
one comment, separated by `;`. Written on the lines just before a block, they apply to that block:

    <!-- replay: skip WHY -->          not replayed (it needs a host tool, shows a panic, ...): WHY is required
    <!-- replay: boot smp=4 -->        boot a fresh kernel before this block (also: mem=512M, iso=plain)
    <!-- replay: setup CMD -->         type CMD first without showing it (repeatable; its output is not checked)
    <!-- replay: vary num dur -->      these classes of text may differ from the chapter (below)
    <!-- replay: unordered -->         the lines may come in any order (a hash table's walk)
    <!-- replay: expect banner -->     this block prints what the console otherwise fails on at once:
                                       banner (dmesg shows the boot banner again), ftrace_bug,
                                       jump_label_bug, crash (an Oops and a panic), might_sleep,
                                       lockdep (a lock validator report)
    <!-- replay: let 118 = line of kfree in available_filter_functions -->
                                       a build-dependent number in a command, computed before typing it
    <!-- replay: let 0xffffffff8020971a = address of kmain+0xa -->
                                       the same for an address: `ksym kmain` plus the offset
    <!-- replay: let 0x14a0 = file offset of uprobe_target in /tests/tracee -->
                                       the same for a uprobe's offset, read from the built program
                                       (build/user/tracee) on the host

A chapter replays in one boot from its first transcript on, `smp=1` unless a `boot` says otherwise.

A block whose first line starts with `$ ` is a host transcript: commands typed at a shell on the host, in the
repository (tests/docs/host.py runs them with bash in a scratch copy of the tree that shares its build outputs).
A command line ending in `\\` goes on on the next line.  A command shown with no output must succeed (exit status
0) and its output is not compared: a build's or a recording's progress.  `skip`, `setup` (a host command),
`vary` and `unordered` work there as in the kernel's transcripts.

What may differ is marked, never ignored wholesale. These classes always vary, in every block, because
any change to the code or any run changes them:
    addr   a kernel address: 16 hex digits (ffffffff8020da20), or 0x and 8 or more hex digits
    ts     a timestamp with microseconds: 12.345678 (trace lines, the printk prefix)
    rel    the 4 displacement bytes of a call or jmp rel32 in `dis` (e8 db 25 df 1f)
    size   a symbol's size after the slash in sym+0x0/0x55
These vary only in a block that names them:
    num    any other decimal number (counts, pids, sizes)
    dur    a duration: the number before "us" (function_graph's DURATION column), with its +/! mark
    lat    latency-format's time column: the microseconds and the mark after them (1234us+:)
    hex    any other 0x number, and the bytes `dis` prints
    task   a trace line's TASK-PID column: which task an interrupt happened to land in
    lines  how many lines: each line printed must match some line of the block (and one must be printed)
A line that is exactly `...` in the expected output matches any number of lines. A run of spaces matches
any run of spaces, since columns widen with their numbers.
"""

import re
from dataclasses import dataclass, field

PROMPT = "root@ftrace-os:/sys/kernel/tracing# "
PROMPT_RX = re.compile(r"^root@ftrace-os:(?P<cwd>[^#\n]*)# (?P<cmd>.*)$")
HOST_PROMPT_RX = re.compile(r"^\$ (?P<cmd>.*)$")
ELLIPSIS = "..."
CTRL_C = "^C"

ALWAYS = ("addr", "ts", "tsns", "rel", "size")
CLASSES = {
    # class: (regex over the expected text, regex that replaces it); order matters: first match wins.
    "ts": (r"\b\d+\.\d{6}\b", r"\d+\.\d{6}"),
    # A time in seconds to the nanosecond (hwlat's ts:, the osnoise events' start, as Linux prints them).
    "tsns": (r"\b\d+\.\d{9}\b", r"\d+\.\d{9}"),
    "addr": (r"\b(?:0x)?[0-9a-f]{16}\b|\b0x[0-9a-f]{8,}\b", r"(?:0x)?[0-9a-f]{8,16}"),
    "rel": (r"(?<=\be[89] )[0-9a-f]{2} [0-9a-f]{2} [0-9a-f]{2} [0-9a-f]{2}\b", r"[0-9a-f]{2}(?: [0-9a-f]{2}){3}"),
    "size": (r"(?<=[0-9a-f]/)0x[0-9a-f]+\b", r"0x[0-9a-f]+"),
    # A duration with the mark function_graph puts before it (+ over 10 us, ! over 100 us, ...), which
    # follows from the number: "+ 53.349 us" may be printed as "! 109.271 us" or "  9.870 us".
    "dur": (r"(?:[$@*#!+] )?\b\d+\.\d{1,3}(?= us\b)", r"(?:[$@*#!+] +)?\d+\.\d+"),
    # latency-format's "%4lluus%c: ": the time since the section began, and the mark for the gap to the next.
    "lat": (r"\b\d+us[$@*#!+ ](?=:)", r"\d+us[$@*#!+ ]"),
    # A trace line's TASK-PID column (before the [CPU] column): the task an interrupt found running.
    "task": (r"(?<!\S)[^\s\[]+-\d+(?= +\[\d{3}\])", r"[^\s\[]+-\d+"),
    "hex": (r"\b0x[0-9a-f]+\b|(?<![\w.])[0-9a-f]{2}(?= |$)", r"(?:0x[0-9a-f]+|[0-9a-f]{2})"),
    # A count, or a figure with decimals (osnoise's "% OF CPU AVAILABLE" column).
    "num": (r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", r"\d+(?:\.\d+)?"),
}
LINE_CLASSES = {"lines"}
KNOWN = set(CLASSES) | LINE_CLASSES


class TranscriptError(ValueError):
    """A transcript or directive the replay cannot understand: the chapter must be fixed."""


@dataclass
class Step:
    cmd: str                      # what is typed, after any `let` substitution
    expected: list                # lines the chapter shows after it
    line: int                     # 1-based line of the command in the chapter
    shown: str = None             # the command as the chapter shows it, when a `let` changed it


@dataclass
class Block:
    path: str
    line: int                     # 1-based line of the opening fence
    end: int                      # 1-based line of the closing fence
    steps: list
    skip: str = None              # why it is not replayed
    boot: dict = None             # settings of a fresh boot before it
    setup: list = field(default_factory=list)
    vary: set = field(default_factory=set)
    unordered: bool = False
    lets: list = field(default_factory=list)   # (number as shown, function, file or 0x offset)
    expect: set = field(default_factory=set)   # bad patterns this block is allowed to print
    host: bool = False            # `$` commands for the host's shell, not the kernel's

    def where(self):
        return "%s:%d" % (self.path, self.line)


DIRECTIVE_RX = re.compile(r"<!--\s*replay:(.*?)-->", re.S)
EXPECTABLE = {"banner": ("banner",), "ftrace_bug": ("ftrace_bug",), "jump_label_bug": ("jump_label_bug",),
              "crash": ("oops", "panic"), "might_sleep": ("might_sleep",), "lockdep": ("lockdep",)}
LET_RX = re.compile(r"^(\d+) = line of (\S+) in (\S+)$")
LET_ADDR_RX = re.compile(r"^(0x[0-9a-f]+) = address of (\w+)\+(0x[0-9a-f]+)$")
LET_FILE_RX = re.compile(r"^(0x[0-9a-f]+) = file offset of (\w+) in /tests/(\w+)$")


def parse_directives(text, where):
    """The directives of one comment's text, as a dict of block settings."""
    got = {"setup": [], "vary": set(), "lets": [], "expect": set()}
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        word, _, rest = part.partition(" ")
        rest = rest.strip()
        if word == "skip":
            if not rest:
                raise TranscriptError("%s: `skip` needs a reason" % where)
            got["skip"] = rest
        elif word == "boot":
            got["boot"] = parse_boot(rest, where)
        elif word == "setup":
            if not rest:
                raise TranscriptError("%s: `setup` needs a command" % where)
            got["setup"].append(rest)
        elif word == "vary":
            names = set(rest.split())
            if not names or names - KNOWN:
                raise TranscriptError("%s: vary %r: known classes are %s" % (where, rest, " ".join(sorted(KNOWN))))
            got["vary"] |= names
        elif word == "expect":
            names = set(rest.split())
            if not names or names - set(EXPECTABLE):
                raise TranscriptError("%s: expect %r: known are %s" % (where, rest, " ".join(sorted(EXPECTABLE))))
            got["expect"] |= {p for n in names for p in EXPECTABLE[n]}
        elif word == "unordered" and not rest:
            got["unordered"] = True
        elif word == "let":
            m = LET_RX.match(rest) or LET_ADDR_RX.match(rest)
            if LET_FILE_RX.match(rest):
                m = LET_FILE_RX.match(rest)
                got["lets"].append((m.group(1), m.group(2), "elf:" + m.group(3)))
                continue
            if not m:
                raise TranscriptError("%s: let %r: expected `N = line of FUNC in FILE` or "
                                      "`0xADDR = address of FUNC+0xOFF`" % (where, rest))
            # (as shown, function, file) for a line number; (as shown, function, offset) for an address
            got["lets"].append((m.group(1), m.group(2), m.group(3)))
        else:
            raise TranscriptError("%s: unknown directive %r" % (where, part))
    return got


def parse_boot(text, where):
    settings = {"smp": 1, "mem": "256M", "iso": "test"}
    for item in text.split():
        key, eq, value = item.partition("=")
        if not eq or key not in settings:
            raise TranscriptError("%s: boot %r: expected smp=N mem=SIZE iso=test|plain" % (where, item))
        settings[key] = int(value) if key == "smp" else value
    if not 1 <= settings["smp"] <= 8 or settings["iso"] not in ("test", "plain"):
        raise TranscriptError("%s: boot %r: smp is 1 to 8, iso test or plain" % (where, text))
    return settings


def parse_steps(lines, first_line, host=False):
    steps, more = [], False
    for i, text in enumerate(lines):
        m = (HOST_PROMPT_RX if host else PROMPT_RX).match(text)
        if more:                               # a host command's continuation line
            steps[-1].cmd = steps[-1].cmd[:-1] + "\n" + text
        elif m:
            steps.append(Step(m.group("cmd"), [], first_line + i))
        else:
            steps[-1].expected.append(text)
        more = host and steps[-1].cmd.endswith("\\") and not steps[-1].expected
    return steps


def read_chapter(path, text):
    """Every transcript in a chapter, in order, with the directives written just before it."""
    lines = text.split("\n")
    blocks, pending, i = [], None, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("<!--") and "replay:" in line:
            j = i
            while "-->" not in lines[j]:
                j += 1
            comment = "\n".join(lines[i:j + 1])
            where = "%s:%d" % (path, i + 1)
            found = parse_directives(" ".join(m.group(1) for m in DIRECTIVE_RX.finditer(comment)), where)
            pending = merge(pending, found)
            i = j + 1
            continue
        if line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[i + 1:j]
            if body and (PROMPT_RX.match(body[0]) or HOST_PROMPT_RX.match(body[0])):
                blocks.append(make_block(path, i + 1, j + 1, body, pending or {}))
            elif pending:
                raise TranscriptError("%s:%d: replay directives before a block that is not a transcript" %
                                      (path, i + 1))
            pending = None
            i = j + 1
            continue
        if pending and line.strip() and not line.startswith("<!--"):
            raise TranscriptError("%s:%d: replay directives must stand just before their block" % (path, i + 1))
        i += 1
    return blocks


def merge(old, new):
    if old is None:
        return new
    old["setup"] += new.pop("setup")
    old["vary"] |= new.pop("vary")
    old["lets"] += new.pop("lets")
    old["expect"] |= new.pop("expect")
    old.update(new)
    return old


def make_block(path, line, end, body, d):
    host = bool(HOST_PROMPT_RX.match(body[0]))
    block = Block(path, line, end, parse_steps(body, line + 1, host), skip=d.get("skip"), boot=d.get("boot"),
                  setup=d.get("setup", []), vary=d.get("vary", set()), unordered=d.get("unordered", False),
                  lets=d.get("lets", []), expect=d.get("expect", set()), host=host)
    if host and (block.boot or block.lets or block.expect):
        raise TranscriptError("%s: boot, let and expect are for the kernel's transcripts" % block.where())
    for shown, _, _ in block.lets:
        if not any(re.search(r"\b%s\b" % shown, s.cmd) for s in block.steps):
            raise TranscriptError("%s: let %s: no command of the block holds that number" % (block.where(), shown))
    return block


def line_pattern(text, vary):
    """A regex for one expected line: the classes that vary become patterns of their shape."""
    classes = [c for c in CLASSES if c in ALWAYS or c in vary]
    rx = re.compile("|".join("(?P<%s>%s)" % (c, CLASSES[c][0]) for c in classes))
    out, pos = [], 0
    for m in rx.finditer(text):
        out.append(literal(text[pos:m.start()]))
        out.append(CLASSES[m.lastgroup][1])
        pos = m.end()
    out.append(literal(text[pos:]))
    return re.compile("".join(out) + r"\Z")


def literal(text):
    """Escaped text in which a run of spaces matches any run of spaces."""
    return " +".join(re.escape(part) for part in re.split(r" +", text)) if text else ""


def normalize(line):
    return line.rstrip()


def compare(expected, got, vary, unordered=False):
    """None when the printed lines `got` fit the chapter's `expected`; otherwise a message saying where not."""
    expected = [normalize(l) for l in expected]
    got = [normalize(l) for l in got]
    if unordered:
        expected, got = sorted(expected), sorted(got)
    pats = [None if l == ELLIPSIS else line_pattern(l, vary) for l in expected]
    if "lines" in vary:
        concrete = [p for p in pats if p is not None]
        if expected and not got:
            return "printed nothing"
        for n, g in enumerate(got):
            if not any(p.match(g) for p in concrete):
                return "printed line %d fits no line of the chapter: %r" % (n + 1, g)
        return None
    return match_lines(pats, expected, got)


def match_lines(pats, expected, got):
    """Line by line, `...` matching any run of lines (smallest first, with backtracking)."""
    memo = {}

    def fits(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(pats):
            ok = j == len(got)
        elif pats[i] is None:
            ok = any(fits(i + 1, k) for k in range(j, len(got) + 1))
        else:
            ok = j < len(got) and bool(pats[i].match(got[j])) and fits(i + 1, j + 1)
        memo[(i, j)] = ok
        return ok

    if fits(0, 0):
        return None
    # Say where: the first expected line, in order, that no printed line from there on matches.
    j = 0
    for i, p in enumerate(pats):
        if p is None:
            continue
        k = next((k for k in range(j, len(got)) if p.match(got[k])), None)
        if k is None:
            shown = got[j] if j < len(got) else "(nothing more)"
            return "chapter line %d %r: printed %r" % (i + 1, expected[i], shown)
        if i + 1 < len(pats) and pats[i + 1] is not None and k != j and (i == 0 or pats[i - 1] is not None):
            return "printed %r where the chapter has %r" % (got[j], expected[i])
        j = k + 1
    return "printed %d lines where the chapter has %d" % (len(got), len(expected))
