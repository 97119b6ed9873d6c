"""Host unit tests of lib/: build the KTAP runner, run it, one pytest test per KTAP case.

    /usr/bin/python3 -m pytest -q tests/unit
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from ktap import KtapError, parse_ktap  # noqa: E402

RUNNER = ROOT / "build" / "host" / "unit-tests"
_outcome = None


def _build_and_run():
    """(results, None) from a clean build and run, or ([], text explaining what broke)."""
    build = subprocess.run(["make", "-s", "-f", "tests/unit/Makefile"], cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
    if build.returncode:
        return [], f"build failed:\n{build.stdout}{build.stderr}"
    try:
        run = subprocess.run([str(RUNNER)], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
    except subprocess.TimeoutExpired as e:
        return [], f"{RUNNER} timed out after {e.timeout} s:\n{e.stdout or ''}"
    log = f"--- stdout ---\n{run.stdout}--- stderr ---\n{run.stderr}"
    try:
        results = parse_ktap(run.stdout)
    except KtapError as e:
        return [], f"{RUNNER} (exit status {run.returncode}): {e}\n{log}"
    # 0: all passed, 1: some failed; anything else is a crash (a sanitizer aborts).
    if run.returncode != int(any(not r.ok for r in results)):
        return [], f"{RUNNER} exited with status {run.returncode}\n{log}"
    return results, None


def _unit_results():
    """Build and run only once, however many tests are collected."""
    global _outcome
    if _outcome is None:
        _outcome = _build_and_run()
    return _outcome


def pytest_generate_tests(metafunc):
    if "ktap_case" not in metafunc.fixturenames:
        return
    results, error = _unit_results()
    if error:
        metafunc.parametrize("ktap_case", [error], ids=["build_and_run"])
    else:
        metafunc.parametrize("ktap_case", results, ids=[r.name for r in results])


def test_lib(ktap_case):
    if isinstance(ktap_case, str):
        pytest.fail(ktap_case, pytrace=False)
    if ktap_case.skip:
        pytest.skip(" ".join(ktap_case.diagnostics) or "skipped by the runner")
    if not ktap_case.ok:
        pytest.fail("\n".join(ktap_case.diagnostics) or "failed (no diagnostics)",
                    pytrace=False)
