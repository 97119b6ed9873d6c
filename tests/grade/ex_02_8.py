"""Grader of exercise 02.8 (docs/02-mcount-loc.md): Linux's dyn_ftrace_total_info."""

import re

TITLE = "dyn_ftrace_total_info"
POINTS = 10


def info(console):
    text = console.run("cat dyn_ftrace_total_info")
    m = re.fullmatch(r"(\d+) pages:(\d+) groups: (\d+)", text)
    assert m, text
    return [int(g) for g in m.groups()]


def test_sites_are_the_available_functions(console):
    sites, _, _ = info(console)
    assert sites == len(console.run("cat available_filter_functions").splitlines())


def test_pages_and_groups_as_boot_allocated_them(console):
    _, pages, groups = info(console)
    with console.disable_check("banner"):            # dmesg starts with the boot banner
        log = console.run("dmesg")
    m = re.search(r"ftrace: allocating (\d+) entries in (\d+) pages", log)
    assert m, "no allocation line in dmesg"
    assert pages == int(m.group(2))
    # Runs of up to 16 pages: at least one group, never more groups than pages.
    assert 1 <= groups <= pages and groups >= (pages + 15) // 16


def test_read_only(console):
    before = info(console)
    assert "Permission denied" in console.run("echo 1 > dyn_ftrace_total_info")
    assert info(console) == before
