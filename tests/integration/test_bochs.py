"""tests/integration/test_bochs.py: the ISO boots under Bochs, a second x86-64 emulator, and passes the patching self-tests.

QEMU's TCG and Bochs model the CPU apart (Bochs interprets every instruction, checks descriptor and page accesses
as the manuals say, and has its own model of self-modifying code), so a kernel that only ever ran under QEMU can
depend on what QEMU lets pass.  Bochs found one such thing: the AP trampoline's GDT (arch/x86/trampoline.asm).

Bochs runs headless: Debian's build has no `nogui` display, so it gets its VNC server (`rfb`) with no client
awaited; the internal debugger it is built with is told to `continue` at once; COM1 goes to a file.  Nobody can
type there, so the self-tests come from the command line (`selftest=GLOB,...`, kernel/selftest.c:
selftest_from_cmdline()) of an ISO made for this test.  Two CPUs; bounded by BOCHS_TIMEOUT.
"""

import os
import re
import shutil
import subprocess
import time

from tests.console import BAD_PATTERNS, ROOT, TIMEOUT_SCALE, printable
from tests.integration.patching_selftests import GLOBS
from tests.ktap import parse_ktap

WORK = os.path.join(ROOT, "build", "bochs-%d" % os.getpid())
BOCHS_TIMEOUT = 300 * TIMEOUT_SCALE    # BIOS, GRUB, the boot and every self-test: about a minute on a loaded host
BOCHSRC = """\
megs: 256
cpu: model=corei7_sandy_bridge_2600k, count=2, ips=10000000
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/vgabios/vgabios.bin
ata0-master: type=cdrom, path={iso}, status=inserted
boot: cdrom
display_library: rfb, options="timeout=0"
com1: enabled=1, mode=file, dev={com1}
log: {log}
clock: sync=none, time0=local
plugin_ctrl: usb_uhci=0, speaker=0, parallel=0, gameport=0, e1000=0, ne2k=0, sb16=0, es1370=0
sound: waveoutdrv=dummy, waveindrv=dummy, midioutdrv=dummy
"""
# What ends the wait early: the machine died or rebooted (a second GRUB line), or a report we never expect.
FATAL = {name: BAD_PATTERNS[name] for name in ("panic", "oops", "lockdep", "might_sleep")}


def boot_bochs():
    """Make the ISO, run Bochs until every glob has reported or something fatal shows; return COM1's text."""
    os.makedirs(WORK, exist_ok=True)
    iso, com1 = os.path.join(WORK, "ftrace-os-bochs.iso"), os.path.join(WORK, "com1.txt")
    subprocess.run([os.path.join(ROOT, "tools", "mkiso.sh"), os.path.join(ROOT, "build", "kernel.elf"),
                    "test selftest=" + ",".join(GLOBS), iso, os.path.join(ROOT, "build", "initramfs.cpio")],
                   check=True)
    rc, cont = os.path.join(WORK, "bochsrc"), os.path.join(WORK, "continue.rc")
    with open(rc, "w") as f:
        f.write(BOCHSRC.format(iso=iso, com1=com1, log=os.path.join(WORK, "bochs.log")))
    with open(cont, "w") as f:
        f.write("continue\n")
    if os.path.exists(com1):
        os.remove(com1)
    proc = subprocess.Popen(["bochs", "-q", "-f", rc, "-rc", cont], cwd=WORK, stdin=subprocess.DEVNULL,
                            stdout=open(os.path.join(WORK, "bochs.out"), "w"), stderr=subprocess.STDOUT)
    text = ""
    try:
        deadline = time.monotonic() + BOCHS_TIMEOUT
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(1)
            if os.path.exists(com1):
                with open(com1, errors="replace") as f:
                    text = f.read()
            if text.count("# Totals:") == len(GLOBS) or text.count("Booting `ftrace-os'") > 1 or \
                    any(re.search(rx, text) for rx in FATAL.values()):
                break
    finally:
        proc.kill()
        proc.wait()
    return text


def test_patching_selftests_under_bochs():
    text = boot_bochs().replace("\r", "")
    tail = "\n---- COM1 (%s), last 60 lines ----\n%s" % (os.path.join(WORK, "com1.txt"),
                                                      printable("\n".join(text.split("\n")[-60:])))
    for name, rx in FATAL.items():
        assert not re.search(rx, text, re.M), "bad pattern %r under Bochs%s" % (name, tail)
    assert text.count("Booting `ftrace-os'") == 1, "the machine reset under Bochs" + tail
    assert "smp: Brought up 1 node, 2 CPUs" in text, "the second CPU did not come up" + tail
    reports = text.split("KTAP version 1")[1:]
    assert len(reports) == len(GLOBS), "%d of %d self-test runs reported in %d s%s" % (
        len(reports), len(GLOBS), BOCHS_TIMEOUT, tail)
    results = [r for report in reports for r in parse_ktap("KTAP version 1" + report)]
    bad = ["not ok %s\n%s" % (r.name, "\n".join(r.diagnostics)) for r in results if not r.ok or r.skip]
    assert not bad, "\n".join(bad) + tail
    assert len(results) >= 25, [r.name for r in results]
    shutil.rmtree(WORK)      # kept when a check above failed: its bochs.log says what Bochs saw
