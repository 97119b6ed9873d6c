"""tests/unit/test_doc_figures.py: every figure the course quotes from docs/BENCHMARKS.md,
docs/BENCHMARKS-scale.md or docs/SOAK.md carries a marker (`<!-- bench: ROW; COLUMN -->81`, syntax in tests/docfigures.py and
docs/README.md) and still says what those files say. `make bench` rewrites the files; this test then names
each chapter figure that no longer matches. Host only."""

import os

import pytest

from tests import docfigures, docscan
from tests.docscan import ROOT


def _bench(source):
    return docfigures.BenchFile(open(os.path.join(ROOT, docfigures.BENCH_FILES[source])).read())


def _all_figures():
    figs = []
    for doc in docscan.doc_files():
        if doc in docfigures.BENCH_FILES.values():
            continue
        figs += docfigures.figures(doc, open(os.path.join(ROOT, doc)).read())
    return figs


def _describe(fig):
    section = fig.section or docfigures.DEFAULT_SECTION[fig.source] or "the whole file"
    return "%s:%d: figure %s, marker <!-- %s%s: %s -->, read in %s, section %s" % (
        fig.doc, fig.line, fig.figure or "(none)", fig.source, " [%s]" % fig.section if fig.section else "",
        fig.spec, docfigures.BENCH_FILES[fig.source], section)


def test_chapters_quote_marked_figures():
    figs = _all_figures()
    # Chapters 02, 03, 05, 06, 07, 08, 10, 15 and README quote benchmarks: losing the markers must fail.
    docs = {f.doc for f in figs}
    assert {"docs/02-mcount-loc.md", "docs/05-live-patching.md", "docs/07-function-tracer.md",
            "docs/08-function-graph.md", "docs/10-trampolines.md"} <= docs, sorted(docs)
    assert len(figs) >= 50


def test_every_quoted_figure_matches_the_benchmarks():
    benches = {s: _bench(s) for s in docfigures.BENCH_FILES}
    bad = []
    for fig in _all_figures():
        if not fig.figure:
            bad.append(_describe(fig) + "\n      no number right after the marker")
            continue
        try:
            value, tolerance = docfigures.resolve(fig, benches[fig.source])
        except docfigures.BenchError as e:
            bad.append(_describe(fig) + "\n      the marker names nothing: %s" % e)
            continue
        if not docfigures.figure_matches(fig.figure, value, tolerance):
            bad.append(_describe(fig) + "\n      %s says %s%s: write that, or rerun the benchmark" % (
                docfigures.BENCH_FILES[fig.source], ("%.3f" % value).rstrip("0").rstrip("."),
                " (within %g%%)" % tolerance if tolerance else ""))
    if bad:
        pytest.fail("%d quoted figure(s) disagree with the benchmarks:\n%s" % (len(bad), "\n".join(bad)),
                    pytrace=False)


def test_costs_in_prose_are_marked_or_history():
    """A cost written the benchmarks' way ("+81", "93 guest instructions") in a chapter's explanation is
    either marked, and so checked, or said to be history in its sentence ("it was 157, +145, before ...")."""
    bad = []
    for doc in docscan.doc_files():
        if doc in docfigures.BENCH_FILES.values():
            continue
        bad += docfigures.unmarked_costs(doc, open(os.path.join(ROOT, doc)).read())
    if bad:
        pytest.fail("%d cost(s) that look quoted from the benchmarks but carry no marker (mark them, see "
                    "docs/README.md, or say in the sentence that they are history):\n%s" % (
                        len(bad), "\n".join("%s:%d: %s\n      %s" % (r.doc, r.line, r.name, r.text) for r in bad)),
                    pytrace=False)
    sample = "\n".join([
        "## 2. Costs", "",
        "A call costs 93 guest instructions, <!-- bench: x; +base -->+81 above the loop. It was 157, +145, before.",
        "The offset `+0x5` and `+12` in code are not costs; neither is +0x10.", "",
        "## Lab", "", "It costs +99 here.",
    ])
    assert [r.name for r in docfigures.unmarked_costs("docs/99-x.md", sample)] == ["93"]


SAMPLE = """# Benchmarks

For scale: Linux costs 542 guest instructions per event.

## -smp 1

| configuration (per call) | ticks | +base | ns |
|---|---:|---:|---:|
| baseline | 12 | 0 | 12 |
| function tracer, filter: bench_target | 93 | 81 | 93 |

boot conversion: 393 sites in 51495 ticks, 131030 ticks per 1000 sites

| ring buffer: reserve + commit | 62 | 50 | 62 |

## -smp 4

| configuration (per call) | ticks | +base | ns |
|---|---:|---:|---:|
| function tracer, filter: bench_target | 95 | 83 | 95 |
"""


@pytest.mark.parametrize("marker, ok", [
    ("<!-- bench: function tracer, filter: bench_target; +base -->+81", True),
    ("<!-- bench: function tracer, filter: bench_target; +base -->+80", False),
    ("<!-- bench [-smp 4]: function tracer, filter: bench_target; +base -->+83", True),
    ("<!-- bench [-smp 4]: function tracer, filter: bench_target; +base -->+81", False),
    ("<!-- bench: ring buffer: reserve + commit; ticks -->62", True),      # a table without its own header
    ("<!-- bench: boot conversion; # ticks per 1000 sites; /1000 -->131", True),
    ("<!-- bench: boot conversion; # ticks per 1000 sites; /1000 -->130", False),
    ("<!-- bench: function tracer, filter: bench_target; ticks; - [baseline; ticks] -->81", True),
    ("<!-- bench [Benchmarks]: For scale; costs # guest -->542", True),
    ("<!-- bench: function tracer, filter: bench_target; ticks; ~5% -->90", True),
    ("<!-- bench: function tracer, filter: bench_target; ticks; ~1% -->90", False),
    ("<!-- bench: function tracer, every function; +base -->+81", None),    # no such row: an error
    ("<!-- bench [-smp]: baseline; ticks -->12", None),                     # two sections: an error
    ("<!-- bench: baseline; cycles -->12", None),                           # no such column: an error
])
def test_marker_resolution_can_fail(marker, ok):
    bench = docfigures.BenchFile(SAMPLE)
    [fig] = docfigures.figures("docs/x.md", marker)
    if ok is None:
        with pytest.raises(docfigures.BenchError):
            docfigures.resolve(fig, bench)
        return
    value, tolerance = docfigures.resolve(fig, bench)
    assert docfigures.figure_matches(fig.figure, value, tolerance) is ok
