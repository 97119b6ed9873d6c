"""tests/conftest.py: fixtures that boot ftrace-os in QEMU, and the hook that keeps the serial log of failed tests.

Fixtures
    console        one QEMU per configuration, shared by the tests of every module of the pytest session that boots
                   that configuration (tools/run-tests runs small modules together); restarted, with a line on stderr,
                   if a test left it crashed or hung.  `SHARE_BOOT = False` in a module: a QEMU of its own
    fresh_console  a QEMU of its own for one test: for tests that end the machine (fault, poweroff, reboot)

Number of CPUs: a module sets `SMP = 4` or `pytestmark = pytest.mark.smp(4)`; a fresh_console test may use
`@pytest.mark.smp(2)` on itself.  Extra QEMU arguments: `QEMU_ARGS = [...]` or `@pytest.mark.qemu_args(...)`.
The ISO is a virtio disk (tests/serial_spec.py: boot_media), unless the module sets `CDROM = True` to boot from the
CD-ROM as `make run` does.  Which kernel: build/ftrace-os-test.iso (dynamic ftrace), unless the module sets
`ISO = ...`, as test_static.py does for the static-ftrace build; every other module tests the dynamic build only.
FTRACE_OS_ISO=path overrides both, to run a module once against another build, e.g. the stress test
at Linux's size: FTRACE_OS_ISO=build-scale40000/ftrace-os-test.iso tools/run-tests
tests/integration/test_smp.py -k stress (docs/02, "Scale").

On failure the whole serial log goes to build/test-logs/<test id>.log and its last lines into the report.
"""

import contextlib
import glob
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)     # so `from tests.console import ...` works however pytest was started

import pytest  # noqa: E402

from tests.console import LOG_DIR, TEST_ISO, Console, ConsoleError, log_path_for  # noqa: E402
from tests.tracing_state import boot_state, live_workloads, reset  # noqa: E402

LOG_TAIL_LINES = 60


def pytest_configure(config):
    config.addinivalue_line("markers", "smp(n): boot QEMU with -smp n (module-wide for `console`)")
    config.addinivalue_line("markers", "qemu_args(*args): extra QEMU command-line arguments")


def pytest_sessionstart(session):
    """Logs describe the last run only: drop those of earlier runs (tools/run-tests did it once for all its parts)."""
    if os.environ.get("FTRACE_OS_KEEP_LOGS"):
        return
    for path in glob.glob(os.path.join(LOG_DIR, "*.log")):
        os.remove(path)


def _smp(request):
    """-smp for this fixture: the closest smp marker, else the module's SMP variable, else 1."""
    marker = request.node.get_closest_marker("smp")
    if marker is not None:
        return int(marker.args[0])
    return int(getattr(request.module, "SMP", 1))


def _extra_args(request):
    args = list(getattr(request.module, "QEMU_ARGS", []))
    for marker in reversed(list(request.node.iter_markers("qemu_args"))):
        args += [str(a) for a in marker.args]
    return args


def _boot(request):
    """Start a Console for `request`; a failed boot saves its log before the error reaches pytest."""
    console = Console(smp=_smp(request), extra_args=_extra_args(request), name=request.node.nodeid,
                      iso=os.environ.get("FTRACE_OS_ISO") or getattr(request.module, "ISO", TEST_ISO),
                      cdrom=getattr(request.module, "CDROM", False))
    request.addfinalizer(console.close)
    try:
        console.start()
    except ConsoleError:
        console.save_log(log_path_for(request.node.nodeid + "--boot"))
        raise
    return console


# Boots shared across the modules of one pytest process (tools/run-tests runs small modules together): one per
# configuration, killed at the end of the session.  A module that sets `SHARE_BOOT = False` gets a boot of its own.
_shared_boots = {}


def _config(request):
    return (_smp(request), tuple(_extra_args(request)), os.environ.get("FTRACE_OS_ISO") or
            getattr(request.module, "ISO", TEST_ISO), bool(getattr(request.module, "CDROM", False)))


@pytest.fixture(scope="module")
def console(request):
    """The module's QEMU, at a prompt in the initial directory: shared with the session's other modules of the same
    configuration (the autouse guard puts the tracing state back between any two tests, of one module or two)."""
    if not getattr(request.module, "SHARE_BOOT", True):
        return _boot(request)
    key = _config(request)
    shared = _shared_boots.get(key)
    if shared is None:
        shared = _shared_boots[key] = Console(smp=key[0], extra_args=list(key[1]), name=request.node.nodeid,
                                              iso=key[2], cdrom=key[3])
        request.session.addfinalizer(shared.close)
        try:
            shared.start()
        except ConsoleError:
            shared.save_log(log_path_for(request.node.nodeid + "--boot"))
            raise
    elif shared.needs_restart():
        _restart_loudly(shared, request)
    return shared


def _restart_loudly(shared, request):
    """A shared boot that a test left crashed or hung: that test has failed; say so (past pytest's capture, in the
    part's output) before the next one boots it again."""
    line = "conftest: the shared QEMU (first booted for %s) exited or hung; booting it again for %s" % (
        shared.name, request.node.nodeid)
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        sys.stderr.write("\n" + line + "\n")
    shared.restart()
    shared.boot_state = None


@pytest.fixture
def fresh_console(request):
    """A QEMU for this test alone, killed after it."""
    return _boot(request)


@pytest.fixture(autouse=True)
def _console_guard(request):
    """Give each test a console at a prompt, its tracing state as at boot (tests/tracing_state.py); afterwards fail
    the test if late output holds a bad pattern, or if it left state that cannot be put back."""
    consoles = []
    shared = None
    if "console" in request.fixturenames:
        shared = request.getfixturevalue("console")
        if shared.needs_restart():
            _restart_loudly(shared, request)
        if getattr(shared, "boot_state", None) is None:
            boot_state(shared)
        shared.workloads_before = live_workloads(shared)
        consoles.append(shared)
    if "fresh_console" in request.fixturenames:
        consoles.append(request.getfixturevalue("fresh_console"))
    yield
    for console in consoles:
        if console.proc is not None and not console.dirty:   # a dirty console has already failed the test
            console.check()
    if shared is not None and shared.proc is not None and not shared.dirty:
        left = reset(shared)
        if left:
            pytest.fail("the test left tracing state that the reset cannot put back:\n" + left, pytrace=False)


def _consoles_of(item):
    """The Console objects a test used: fixture values that are consoles or have a `.console`."""
    found = []
    for value in getattr(item, "funcargs", {}).values():
        for candidate in (value, getattr(value, "console", None)):
            if isinstance(candidate, Console) and candidate not in found:
                found.append(candidate)
    return found


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """When a test fails, save the serial log of its consoles and put the log's tail into the report."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    consoles = _consoles_of(item)
    for i, console in enumerate(consoles):
        suffix = "" if len(consoles) == 1 else "-%d" % i
        name = item.nodeid + ("" if report.when == "call" else "--" + report.when) + suffix
        path = os.path.relpath(console.save_log(log_path_for(name)), ROOT)
        if call.excinfo is not None and call.excinfo.errisinstance(ConsoleError):
            # The error message already ends with the tail of the log.
            report.sections.append(("serial log", "whole log: %s" % path))
        else:
            report.sections.append(("serial log, last %d lines (whole log: %s)" % (LOG_TAIL_LINES, path),
                                    console.log_tail(LOG_TAIL_LINES)))
