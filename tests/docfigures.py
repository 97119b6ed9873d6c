"""tests/docfigures.py: the benchmark figures the course quotes, for tests/unit/test_doc_figures.py and
tools/doc-figures: the markers before them, the cells of docs/BENCHMARKS.md they name, and costs written in
prose with no marker. The prose it reads is found by tests/docscan.py."""

import math
import re
from typing import List, NamedTuple

from tests.docscan import _HEADING, _SENTENCE_END, _SPAN, Ref, _paragraphs


# ---- figures quoted from the benchmarks ------------------------------------------------------------------
#
# A chapter that quotes a figure of docs/BENCHMARKS.md or docs/BENCHMARKS-scale.md puts a marker just before it:
#
#     <!-- bench: function tracer, filter: bench_target; +base -->+81
#     <!-- bench [Static ftrace]: function tracer, every function; +base -->+178
#     <!-- bench-scale [enable every site, breakpoint: guest]: 393; 4 -->1376
#     <!-- bench: boot conversion; # ticks per 1000 sites; /1000 -->131
#     <!-- bench: 1 ops SAVE_REGS, ftrace_regs_caller; ticks; - [1 ops, its own trampoline; ticks] -->37
#
# `bench` reads docs/BENCHMARKS.md, `bench-scale` docs/BENCHMARKS-scale.md, `soak` docs/SOAK.md (make soak).
# [SECTION] is the start of one heading of that file (default: `-smp 1` for bench, the whole file for
# bench-scale's prose, `Soak` for soak). Then ROW; COLUMN:
#   - a table cell: ROW is a row's first cell, exactly; COLUMN a header cell of its table (a table without a
#     header row uses the last header above it with as many columns). ROW and COLUMN together must name exactly one cell.
#   - a number in a line of prose: ROW is how the line starts, COLUMN the text around the number with `#` in
#     its place ("dynamic # us"). Lines that repeat (one per -smp section) must agree.
# A third field, optional, works on the value before it is compared: `/1000`, `*40394/1e6`, `- [ROW; COLUMN]`
# (another cell of the same section), `~3%` (an approximate figure: "about 700"). The figure is the number
# right after the marker: a sign, digits with thousands commas, decimals; it must equal the value rounded to
# as many decimals as the figure shows.

NUMBER = r"[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"     # 81, +459, 114,131, 4.5
BENCH_FILES = {"bench": "docs/BENCHMARKS.md", "bench-scale": "docs/BENCHMARKS-scale.md", "soak": "docs/SOAK.md"}
DEFAULT_SECTION = {"bench": "-smp 1", "bench-scale": "", "soak": "Soak"}
MARKER = re.compile(r"<!--\s*(bench-scale|bench|soak)\s*(?:\[([^\]]*)\])?\s*:\s*(.*?)\s*-->(\**`?)(" + NUMBER + ")?")


class Figure(NamedTuple):
    doc: str
    line: int
    source: str     # "bench" or "bench-scale"
    section: str    # may be ""
    spec: str       # ROW; COLUMN[; ops]
    figure: str     # as written, or "" when no number follows the marker
    text: str


def figures(doc: str, text: str) -> List[Figure]:
    """The markers of one Markdown file, outside code blocks (where a marker would show, and is an example)."""
    out = []
    fenced, fence = set(), False
    for i, line in enumerate(text.split("\n"), 1):
        if line.strip().startswith("```"):
            fence = not fence
            fenced.add(i)
        elif fence:
            fenced.add(i)
    for m in MARKER.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        if line in fenced:
            continue
        out.append(Figure(doc, line, m.group(1), (m.group(2) or "").strip(), m.group(3), m.group(5) or "",
                          text.split("\n")[line - 1].strip()))
    return out


class BenchError(Exception):
    pass


def _cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


class BenchFile:
    """One benchmarks file: its sections (by heading), their tables and prose lines."""

    def __init__(self, text: str):
        self.sections = []          # [heading, [(header cells or None, row cells)], [prose lines]]
        current = ["", [], []]
        self.sections.append(current)
        header, headers = None, []
        lines = text.split("\n")
        for i, line in enumerate(lines):
            h = _HEADING.match(line)
            if h:
                current = [h.group(2).strip(), [], []]
                self.sections.append(current)
                header, headers = None, []
                continue
            if line.startswith("|"):
                nxt = lines[i + 1] if i + 1 < len(lines) else ""
                if re.match(r"\|[\s:|-]*-[\s:|-]*\|?\s*$", line):
                    continue                                    # the separator row
                if re.match(r"\|[\s:|-]*-[\s:|-]*\|?\s*$", nxt):
                    header = _cells(line)
                    headers.append(header)
                    continue
                cells = _cells(line)
                if not lines[i - 1].startswith("|"):
                    # A table without a header row reads with the last header of as many columns.
                    header = next((h for h in reversed(headers) if len(h) == len(cells)), None)
                current[1].append((header, cells))
            elif line.strip():
                current[2].append(line.strip())

    def section(self, name, whole_file_ok=False):
        if not name:
            if whole_file_ok:
                return [None, [r for s in self.sections for r in s[1]], [p for s in self.sections for p in s[2]]]
            raise BenchError("no section given")
        found = [s for s in self.sections if s[0].startswith(name)]
        if len(found) != 1:
            raise BenchError("section [%s] matches %d headings (%s)" % (name, len(found),
                                                                      ", ".join(s[0] for s in found) or "none"))
        return found[0]

    def cell(self, section, row, column):
        """The number a (row, column) names in `section` (a table cell, or a number in a prose line)."""
        if "#" in column:
            if column.count("#") != 1:
                raise BenchError("%r: one # stands for the number" % column)
            pattern = re.escape(column).replace(r"\#", "(" + NUMBER + ")")
            values = set()
            for line in section[2]:
                if line.startswith(row):
                    values.update(re.findall(pattern, line))
            if len(values) != 1:
                raise BenchError("prose line starting %r with %r: %s" % (
                    row, column, "found %s" % sorted(values) if values else "no such line or number"))
            return float(values.pop().replace(",", ""))
        hits = []
        for header, cells in section[1]:
            if cells and cells[0] == row and header and column in header:
                k = header.index(column)
                if k < len(cells):
                    hits.append(cells[k])
        if len(hits) != 1:
            rows = sum(1 for _, cells in section[1] if cells and cells[0] == row)
            raise BenchError("row %r, column %r: %s" % (
                row, column, "%d cells match" % len(hits) if hits else
                ("no such row" if not rows else "the row has no column %r" % column)))
        try:
            return float(hits[0].replace(",", ""))
        except ValueError:
            raise BenchError("row %r, column %r holds %r, not a number" % (row, column, hits[0]))


def _split_spec(spec):
    """ROW; COLUMN; ops -- a `;` inside [...] belongs to the operand."""
    parts, depth, cur = [], 0, ""
    for ch in spec:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == ";" and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def resolve(fig: Figure, bench: BenchFile):
    """(value, tolerance in %) the marker names; BenchError when it names nothing or is malformed."""
    parts = _split_spec(fig.spec)
    if len(parts) not in (2, 3):
        raise BenchError("a marker holds ROW; COLUMN[; ops], not %r" % fig.spec)
    default = DEFAULT_SECTION[fig.source]
    sec = bench.section(fig.section or default, whole_file_ok=not (fig.section or default))
    value = bench.cell(sec, parts[0], parts[1])
    tolerance = 0.0
    ops = parts[2] if len(parts) == 3 else ""
    for m in re.finditer(r"\s*(?:([*/+-])\s*(?:\[([^\]]*)\]|(-?[\d.e]+))|~\s*([\d.]+)%)", ops):
        if m.group(4):
            tolerance = float(m.group(4))
            continue
        if m.group(2) is not None:
            sub = _split_spec(m.group(2))
            if len(sub) != 2:
                raise BenchError("operand [%s] is not [ROW; COLUMN]" % m.group(2))
            operand = bench.cell(sec, sub[0], sub[1])
        else:
            operand = float(m.group(3))
        value = {"*": value * operand, "/": value / operand, "+": value + operand, "-": value - operand}[m.group(1)]
    leftover = re.sub(r"\s*(?:([*/+-])\s*(?:\[([^\]]*)\]|(-?[\d.e]+))|~\s*([\d.]+)%)", "", ops).strip()
    if leftover:
        raise BenchError("cannot read %r in %r" % (leftover, ops))
    return value, tolerance


def figure_matches(written: str, value: float, tolerance: float) -> bool:
    number = float(written.replace(",", ""))
    if tolerance:
        return abs(number - value) <= abs(value) * tolerance / 100
    decimals = len(written.split(".")[1]) if "." in written else 0
    rounded = math.floor(value * 10 ** decimals + 0.5) / 10 ** decimals      # half up, as people round
    return abs(rounded - number) < 1e-9


# ---- figures that look quoted but carry no marker ---------------------------------------------------------

_COST = re.compile(r"(?<![\w.+`-])(\+\d[\d,]*|\d[\d,]*(?= guest instructions| instructions (?:a|per|above)))(?![\w`])")
HISTORY = re.compile(r"\b(was|were|used to|before|earlier|scratch|old)\b", re.I)
SKIPPED_SECTIONS = ("Lab", "Exercises", "How Linux does it")


def unmarked_costs(doc: str, text: str) -> List[Ref]:
    """Costs written like the benchmarks' ("+81", "93 guest instructions") in a chapter's prose, outside
    Lab, Exercises and How Linux does it, with no marker before them and no word in their sentence that
    makes them history ("it was 157, +145, before ..."). Code spans, code blocks and `+0x..` offsets are
    not costs."""
    refs = []
    skip_level = 0
    fence = False
    for start, block in _paragraphs(text.split("\n")):
        first = block[0]
        if first.strip().startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        h = _HEADING.match(first)
        if h:
            level = len(h.group(1))
            if skip_level and level <= skip_level:
                skip_level = 0
            if any(h.group(2).strip().startswith(s) for s in SKIPPED_SECTIONS):
                skip_level = level
            continue
        if skip_level:
            continue
        para = " ".join(block)
        masked = _SPAN.sub(lambda m: " " * len(m.group(0)), para)
        for m in _COST.finditer(masked):
            if re.search(r"-->\s*$", para[:m.start()]):
                continue
            ends = [e.end() for e in _SENTENCE_END.finditer(para[:m.start()])]
            rest = para[m.start():]
            stop = re.search(r"[.?!](\s|$)", rest)
            sentence = para[ends[-1] if ends else 0: m.start() + (stop.end() if stop else len(rest))]
            if HISTORY.search(sentence):
                continue
            k = 0
            off = 0
            for k, l in enumerate(block):
                if off + len(l) >= m.start():
                    break
                off += len(l) + 1
            refs.append(Ref(doc, start + k, "figure", m.group(1), False, block[k].strip()))
    return refs
