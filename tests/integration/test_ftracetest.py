"""tests/integration/test_ftracetest.py: a quick part of Linux's own ftracetest, so a regression shows up.

`make ftracetest` runs all of Linux 6.1's tools/testing/selftests/ftrace inside the kernel and writes
docs/FTRACETEST.md; this runs, the same way (tools/ftracetest.py: extracted from Debian's linux-source-6.1
into build/, packed into an initramfs, `./ftracetest` under busybox's sh), the cases of test.d/00basic and
test.d/ftrace that passed in that run, and asserts that each still passes. The list is the run's, not a
wish: a case that starts passing is added here when docs/FTRACETEST.md is regenerated.
"""

import importlib.util
import os

import pytest

from tests.console import Console

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("ftracetest", os.path.join(ROOT, "tools", "ftracetest.py"))
ftracetest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ftracetest)

# test.d file -> its description, for every case that passed in docs/FTRACETEST.md's run.
PASSING = {
    "00basic/basic2.tc": "Basic test for tracers",
    "00basic/basic4.tc": "Basic event tracing check",
}


@pytest.fixture(scope="module")
def ftrace_console():
    ftracetest.extract()
    con = Console(smp=2, extra_args=["-m", "1G"], iso=ftracetest.build_iso(), name="ftracetest")
    con.start()
    yield con
    con.close()


def test_cases_that_pass_keep_passing(ftrace_console):
    cases = " ".join("test.d/" + f for f in sorted(PASSING))
    out = ftrace_console.run("/bin/sh -c 'cd /ftrace && ./ftracetest %s'" % cases, timeout=1800)
    results, summary = ftracetest.parse(out)
    got = {desc: res for _, desc, res in results if not desc.startswith("(instance)")}
    assert got == {desc: "PASS" for desc in PASSING.values()}, out
    assert summary.get("passed", 0) >= len(PASSING), out
