"""tests/integration/patching_selftests.py: the dynamic-ftrace and patching self-tests, for a kernel booted another way.

test_uefi.py (OVMF) and test_bochs.py (Bochs) boot the same ISO under other firmware or another emulator and run
these, where a difference in how code is modified (self-modifying code, cross-modifying code on two CPUs, the int3
protocol, stop_machine) would show.  Two of them break a site on purpose, so their bug reports are expected.
"""

from tests.ktap import parse_ktap

# The globs `selftest` runs: call sites after boot and filters, trampolines and direct calls, text_poke_bp's
# emulation, both patch methods, jump labels flipped while another CPU runs them.
GLOBS = ("ftrace_*", "trampoline_*", "direct_call*", "text_poke*", "patch_methods*", "jump_label*")


def run_patching_selftests(console, timeout):
    """Run every glob; return the KTAP results, all of them (a test asserts they are ok)."""
    results = []
    with console.expected_bugs(), console.expected_jump_label_bugs():
        for glob in GLOBS:
            results += parse_ktap(console.run("selftest '%s'" % glob, timeout=timeout))
    return results


def failures(results):
    return ["not ok %s\n%s" % (r.name, "\n".join(r.diagnostics)) for r in results if not r.ok and not r.skip]
