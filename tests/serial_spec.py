"""tests/serial_spec.py: what the test harness expects of the kernel's serial line and how it starts QEMU.

Every assumption tests/console.py makes about the kernel (its banner, prompt, line endings, printk prefix, the
reports that mean a bug, the exit codes of the debug-exit port) and every QEMU argument and timeout it uses is
here, so that a change of the kernel's serial behaviour is made in one place.  tests/console.py re-exports all
of it: tests import these names from there.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


TEST_ISO = os.path.join(ROOT, "build", "ftrace-os-test.iso")   # built by `make iso-test`; command line has `test`
QEMU = "qemu-system-x86_64"
QEMU_ARGS = [                                   # TCG only: never -accel kvm (nested KVM hangs or aborts on these machines)
    "-m", "256M",
    "-display", "none",
    "-serial", "stdio",                         # COM1 <-> our pipes
    "-monitor", "none",
    "-no-reboot",                               # a reset (reboot, triple fault) ends QEMU with status 0
    "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",   # outb(V, 0xf4) ends QEMU with status (V << 1) | 1
]

BANNER = r"ftrace-os version"                   # first kernel line; seen twice = the machine rebooted
PROMPT = r"root@ftrace-os:(?P<cwd>[^#\r\n]*)# "  # the shell prompt; the group is the current directory
INITIAL_CWD = "/sys/kernel/tracing"
ENTER = b"\r"                                   # what a terminal sends for the Enter key
NEWLINE = "\r\n"                                # what the kernel sends at the end of a line
LOG_LINE = r"^\[(?=[ \d]{5}) *\d+\.\d{6}\] "     # printk prefix "[%5lu.%06lu] "

BAD_PATTERNS = {                                # name -> regex; a test may disable some with disable_check()
    "panic": r"Kernel panic - not syncing",
    "oops": r"Oops:",
    "ftrace_bug": r"\[ ftrace bug \]",          # "------------[ ftrace bug ]------------"
    "jump_label_bug": r"\[ jump label bug \]",  # "------------[ jump label bug ]------------"
    "might_sleep": r"BUG: sleeping function called from invalid context",  # a sleep with a spinlock held
    # The lock validator (kernel/locking/lockdep.c): any of its reports is a locking bug.
    "lockdep": r"WARNING: (possible circular locking dependency detected|inconsistent lock state|"
               r"possible recursive locking detected|bad unlock balance detected!)|"
               r"INFO: trying to register non-static key|BUG: MAX_LOCK\w* too low!",
    "banner": BANNER,                           # only from the second one on
}


# Self-tests that make a report on purpose announce each one first with a KTAP diagnostic line (the lock
# validator's in tests/kernel/lockdep_test.c): a `selftest` run may print exactly those, and no other.
ANNOUNCED_REPORTS = {"lockdep": "a lock validator", "might_sleep": "a sleeping-in-atomic"}


def unannounced_reports(output, seen):
    """After `selftest` ran inside disable_check(*ANNOUNCED_REPORTS) yielding `seen`: what does not add up."""
    errors = []
    for name, what in ANNOUNCED_REPORTS.items():
        announced = len(re.findall(r"^# \w+: %s report follows, on purpose" % what, output, re.M))
        if len(seen.hits[name]) != announced:
            errors.append("%d %s report(s) announced by the self-tests, %d printed:\n%s"
                          % (announced, name, len(seen.hits[name]), "\n".join(seen.hits[name])))
    return errors


def debug_exit_status(value):
    """QEMU's exit status after the guest writes `value` to the isa-debug-exit port."""
    return (value << 1) | 1


EXIT_POWEROFF = 0                               # ACPI power off, and reboot under -no-reboot
EXIT_PANIC = debug_exit_status(1)               # 3: the test-mode kernel writes 1 to the port after a panic

TIMEOUT_SCALE = float(os.environ.get("FTRACE_OS_TIMEOUT_SCALE", "1"))   # for very slow hosts
# The stress loops (flips, toggles, switches): their `make test` size, bounded so that the suite stays quick, or,
# with FTRACE_OS_STRESS=N, N tenths of their long form (`make stress` sets 10: the long form itself).
STRESS = int(os.environ.get("FTRACE_OS_STRESS", "1"))


def stress_rounds(test_size, long_size):
    """How many rounds a stress loop makes: `test_size` in `make test`, `long_size` in `make stress`."""
    return test_size if STRESS <= 1 else max(1, long_size * STRESS // 10)
BOOT_TIMEOUT = 60 * TIMEOUT_SCALE               # QEMU start to the first prompt (TCG on a loaded 2-core host)
COMMAND_TIMEOUT = 20 * TIMEOUT_SCALE            # one shell command
EXIT_TIMEOUT = 30 * TIMEOUT_SCALE               # a crash or poweroff until QEMU has exited

# FTRACE_OS_LOG_DIR: another place, for a run inside a run (tools/grade keeps its own: build/grade-logs/).
LOG_DIR = os.environ.get("FTRACE_OS_LOG_DIR") or os.path.join(ROOT, "build", "test-logs")

# Development aid: FTRACE_OS_FAKE_KERNEL=1 runs tests/fake_kernel.py (a Python imitation of the shell) in place
# of QEMU, so the harness can be worked on without a kernel.  Never set by `make test`.
FAKE_KERNEL = os.environ.get("FTRACE_OS_FAKE_KERNEL", "") not in ("", "0")
FAKE_KERNEL_SCRIPT = os.path.join(ROOT, "tests", "fake_kernel.py")


def boot_media(iso, cdrom=False):
    """QEMU's arguments that make `iso` the boot disk.  The tests attach the (hybrid) ISO as a virtio disk: GRUB then
    reads the kernel and the initramfs through SeaBIOS's virtio driver, which costs QEMU about 0.8 CPU seconds less
    per boot than reading them from the emulated IDE CD-ROM, as `make run` does.  cdrom=True boots `make run`'s way
    (the firmware's boot entry names the DVD-ROM: tests/integration/test_uefi.py)."""
    if cdrom:
        return ["-cdrom", iso, "-boot", "d"]
    return ["-drive", "file=%s,format=raw,if=virtio,readonly=on" % iso]


def qemu_command(smp=1, extra_args=(), iso=TEST_ISO, cdrom=False):
    """The argument vector that boots the test ISO with `smp` CPUs."""
    if FAKE_KERNEL:
        return [sys.executable, FAKE_KERNEL_SCRIPT, "-smp", str(smp)] + list(extra_args)
    return [QEMU] + QEMU_ARGS + ["-smp", str(smp)] + boot_media(iso, cdrom) + list(extra_args)
