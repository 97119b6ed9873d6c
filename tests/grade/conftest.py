"""tests/grade/conftest.py: the QEMU that every kernel grader shares, and the host graders' runner.

One machine for the whole `make grade` run instead of one per exercise: a boot and its shell cost
more than most graders' commands, and `make test` grades two trees.  A grader therefore leaves the
machine as it found it (tests/tracing_state.py puts the tracing state back after each); a kernel that crashes is
booted again for the next test by tests/conftest.py's guard.  Two CPUs, so that graders can see
IPIs and cross-CPU patching.
"""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from tests.console import TEST_ISO, Console, ConsoleError, log_path_for  # noqa: E402
from ktap import KtapError, parse_ktap  # noqa: E402

SMP = 2


@pytest.fixture(scope="session")
def console(request):
    if os.environ.get("FTRACE_OS_GRADE_NO_KERNEL"):
        pytest.fail("the kernel did not build", pytrace=False)
    con = Console(smp=SMP, name="grade", iso=os.environ.get("FTRACE_OS_ISO") or TEST_ISO)
    request.addfinalizer(con.close)
    try:
        con.start()
    except ConsoleError:
        con.save_log(log_path_for("grade--boot"))
        raise
    return con


def host_cases(exercise):
    """The KTAP results of tests/grade/host/ex_NN_M.c, linked with the unit tests' objects (lib/
    and the pure kernel files, tests/unit/Makefile), or a string saying why there are none."""
    target = os.path.join(ROOT, "build", "host", "grade", exercise)
    build = subprocess.run(["make", "-s", "-f", "tests/unit/Makefile", target], cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
    if build.returncode:
        return "does not build:\n" + (build.stdout + build.stderr)[-3000:]
    run = subprocess.run([target, "grade_*"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    try:
        results = parse_ktap(run.stdout)
    except KtapError as e:
        return "%s: %s\n%s%s" % (target, e, run.stdout[-2000:], run.stderr[-2000:])
    if not results:
        return "%s ran no case" % target
    return results


def parametrize_host(metafunc, exercise):
    """One test per KTAP case of a host grader (the `case` argument), or one failing test."""
    if "case" in metafunc.fixturenames:
        results = host_cases(exercise)
        if isinstance(results, str):
            metafunc.parametrize("case", [results], ids=["build"])
        else:
            metafunc.parametrize("case", results, ids=[r.name for r in results])


def check_host_case(case):
    if isinstance(case, str):
        pytest.fail(case, pytrace=False)
    if not case.ok or case.skip:
        pytest.fail("\n".join(case.diagnostics) or "failed", pytrace=False)
