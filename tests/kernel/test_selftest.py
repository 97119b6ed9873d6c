"""tests/kernel/test_selftest.py: run the in-kernel `selftest` once under -smp 2, one pytest test per KTAP case.

The kernel is booted while pytest collects this module (the list of cases is only known from the kernel's own
KTAP output), runs `selftest` and `selftest nomatch*`, and is shut down again.  Then:
    test_selftest_run          fails, with the serial log's tail, if the boot or the run broke (crash, timeout,
                               incomplete KTAP); when this fails there may be no per-case tests at all
    test_case[NAME]            one per KTAP result; a failed case shows its diagnostics
    test_selftest_glob_matching_nothing   `selftest nomatch*` plans 0 tests
"""

import re

import pytest

from tests.console import (ANNOUNCED_REPORTS, TIMEOUT_SCALE, Console, ConsoleError,
                           unannounced_reports)
from tests.ktap import KtapError, parse_ktap

SMP = 2                                   # exercise the SMP paths (stop_machine, IPIs) in the self-tests
SELFTEST_TIMEOUT = 120 * TIMEOUT_SCALE    # the whole `selftest` run under TCG
NOMATCH_GLOB = "nomatch*"
# A self-test that provokes an ftrace or jump label bug report on purpose (say, a patch site with unexpected
# bytes) needs this True; otherwise such a report during the run is a bad pattern and fails test_selftest_run.
SELFTEST_MAY_REPORT_FTRACE_BUGS = True


class SelftestRun:
    """What one boot produced: the KTAP results, the nomatch output, and what went wrong (error)."""

    def __init__(self):
        self.console = None       # closed after the run; kept for its serial log (saved when a test fails)
        self.results = []         # tests.ktap.KtapResult, possibly partial if the run broke
        self.nomatch = None       # output of `selftest nomatch*`
        self.error = None         # why the run is incomplete, with the log tail


_run = None


def selftest_run_once():
    """Boot, run the self-tests and shut down, the first time only."""
    global _run
    if _run is None:
        _run = _boot_and_run()
    return _run


def _boot_and_run():
    run = SelftestRun()
    run.console = Console(smp=SMP, name="tests/kernel/test_selftest.py (-smp %d)" % SMP)
    output = None
    errors = []
    try:
        run.console.start()
        # The lock validator's self-tests (lockdep_test.c) make reports on purpose, each announced first:
        # exactly those may appear, any other is a locking bug found during the run.
        with run.console.disable_check(*ANNOUNCED_REPORTS) as seen:
            if SELFTEST_MAY_REPORT_FTRACE_BUGS:
                with run.console.expected_bugs(), run.console.expected_jump_label_bugs():
                    output = run.console.run("selftest", timeout=SELFTEST_TIMEOUT)
            else:
                output = run.console.run("selftest", timeout=SELFTEST_TIMEOUT)
        errors += unannounced_reports(output, seen)
        run.nomatch = run.console.run("selftest " + NOMATCH_GLOB)
    except ConsoleError as e:
        errors.append(str(e))
    finally:
        run.console.close()
    try:
        # After a crash, parse what the serial line got: the parser skips everything before "KTAP version".
        run.results = parse_ktap(output if output is not None else run.console.log_text())
    except KtapError as e:
        run.results = e.results
        errors.insert(0, "incomplete KTAP output from `selftest`: %s" % e)
    if errors:
        run.error = "\n".join(errors)
        if "\n---- last" not in run.error:
            run.error += "\n---- last 60 lines of serial output ----\n" + run.console.log_tail(60)
    return run


def pytest_generate_tests(metafunc):
    if "ktap_case" in metafunc.fixturenames:
        results = selftest_run_once().results
        metafunc.parametrize("ktap_case", results, ids=[r.name for r in results])


@pytest.fixture(scope="module")
def selftest_run():
    """The SelftestRun; as a fixture so the failure hook in conftest finds its console and saves the log."""
    return selftest_run_once()


def test_selftest_run(selftest_run):
    if selftest_run.error:
        pytest.fail(selftest_run.error, pytrace=False)
    names = [r.name for r in selftest_run.results]
    assert names, "`selftest` ran no tests (1..0): no self-tests are registered"
    assert len(names) == len(set(names)), "two self-tests share a name: %s" % names


def test_case(selftest_run, ktap_case):
    diagnostics = "\n".join(ktap_case.diagnostics)
    if ktap_case.skip:
        pytest.skip(diagnostics or "skipped by the kernel")
    if not ktap_case.ok:
        pytest.fail("not ok %d %s\n%s" % (ktap_case.number, ktap_case.name, diagnostics or "(no diagnostics)"),
                    pytrace=False)


def test_selftest_glob_matching_nothing(selftest_run):
    if selftest_run.nomatch is None:
        pytest.skip("the selftest run broke before this command, see test_selftest_run")
    rows = selftest_run.nomatch.split("\n")
    assert "KTAP version 1" in rows, selftest_run.nomatch
    assert "1..0" in rows, "`selftest %s` does not plan 0 tests: %r" % (NOMATCH_GLOB, selftest_run.nomatch)
    assert not any(re.match(r"(not )?ok \d", r) for r in rows), selftest_run.nomatch
