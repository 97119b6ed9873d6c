"""Grader of exercise 13.1 (docs/13-trace-events.md): the event kmem:kmalloc_large."""

import re

TITLE = "an event of your own: kmem:kmalloc_large"
POINTS = 10
EVENT = "events/kmem/kmalloc_large"


def test_format(console):
    fmt = console.run("cat %s/format" % EVENT)
    assert "name: kmalloc_large" in fmt
    fields = re.findall(r"field:(.*?);\toffset:(\d+);\tsize:(\d+);\tsigned:(\d);", fmt)
    assert [f[0] for f in fields[4:]] == ["unsigned long call_site", "const void * ptr",
                                          "size_t bytes_req", "size_t bytes_alloc"], fmt
    assert [int(f[1]) for f in fields[4:]] == [8, 16, 24, 32], fmt
    assert 'print fmt: "call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu"' in fmt


def test_listed_in_available_events(console):
    assert "kmem:kmalloc_large" in console.run("cat available_events").splitlines()


def test_only_large_allocations(console):
    console.run("echo > trace")
    assert console.run("echo 1 > %s/enable" % EVENT) == ""
    console.run("echo small > trace_marker")          # a few bytes: a size class
    console.run("rbdump 1")                           # one buffer's pages: a run of pages
    console.run("echo 0 > %s/enable" % EVENT)
    events = [l for l in console.run("cat trace").splitlines() if "kmalloc_large:" in l]
    assert len(events) == 1, events
    m = re.search(r"kmalloc_large: call_site=cmd_rbdump\+0x[0-9a-f]+/0x[0-9a-f]+ ptr=[0-9a-f]{16} "
                  r"bytes_req=(\d+) bytes_alloc=(\d+)$", events[0])
    assert m, events[0]
    req, alloc = int(m.group(1)), int(m.group(2))
    assert req > 2048 and alloc >= req and alloc % 4096 == 0, events[0]
