"""tests/integration/test_uefi.py: the test ISO boots under UEFI firmware (Debian's OVMF) as it does under BIOS.

grub-mkrescue makes a hybrid ISO once Debian's grub-efi-amd64-bin is installed (tools/deps.sh): El Torito entries
for BIOS (GRUB's i386-pc) and for UEFI (an EFI system partition image with GRUB's x86_64-efi).  Under OVMF, GRUB
hands the kernel what UEFI has: the memory map and the ACPI tables as multiboot2 tags (no legacy BIOS area to
search for the RSDP), no VGA text mode (grub.cfg keeps the firmware's framebuffer), and the serial console.  One
boot, -smp 2: the firmware is seen on the serial line, then the dynamic-ftrace and patching self-tests pass.
"""

import os
import re
import shutil

import pytest

from tests.console import ROOT, TIMEOUT_SCALE
from tests.integration.patching_selftests import failures, run_patching_selftests

OVMF_CODE = "/usr/share/OVMF/OVMF_CODE.fd"
OVMF_VARS = "/usr/share/OVMF/OVMF_VARS.fd"
# The firmware writes its variables (the boot order) to the second flash: a fresh copy per run.
VARS = os.path.join(ROOT, "build", "uefi", "OVMF_VARS.%d.fd" % os.getpid())


def _fresh_vars():
    os.makedirs(os.path.dirname(VARS), exist_ok=True)
    shutil.copyfile(OVMF_VARS, VARS)
    return VARS


SMP = 2
CDROM = True            # booted as make run boots: OVMF's boot manager names the DVD-ROM
QEMU_ARGS = ["-drive", "if=pflash,format=raw,readonly=on,file=" + OVMF_CODE,
             "-drive", "if=pflash,format=raw,file=" + _fresh_vars()]
SELFTEST_TIMEOUT = 120 * TIMEOUT_SCALE


@pytest.fixture(scope="module", autouse=True)
def _drop_vars():
    yield
    if os.path.exists(VARS):
        os.remove(VARS)


def test_booted_by_uefi_firmware(console):
    # OVMF's boot manager names the DVD it starts GRUB's EFI image from; SeaBIOS (the BIOS boot) prints nothing.
    assert re.search(r"BdsDxe: starting Boot\w+ \"UEFI QEMU DVD-ROM", console.boot_text), console.boot_text[-2000:]
    assert console.run("cat /proc/cmdline") == "test"
    meminfo = console.run("cat /proc/meminfo")
    total = int(re.search(r"^MemTotal: +(\d+) kB$", meminfo, re.M).group(1))
    assert 200 * 1024 < total <= 256 * 1024, meminfo       # UEFI's memory map, less what the firmware keeps
    assert "smp: Brought up 1 node, 2 CPUs" in console.boot_text      # the ACPI tables GRUB handed over


def test_dynamic_ftrace_and_patching_selftests(console):
    results = run_patching_selftests(console, SELFTEST_TIMEOUT)
    assert len(results) >= 25, [r.name for r in results]
    assert not failures(results), "\n".join(failures(results))
