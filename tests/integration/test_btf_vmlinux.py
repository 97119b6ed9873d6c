"""tests/integration/test_btf_vmlinux.py: the kernel's own BTF (docs/23-bpf.md, "The kernel's BTF").

pahole made build/vmlinux.btf from the kernel's DWARF and the link put it in .BTF; the kernel parsed it at boot and
serves it at /sys/kernel/btf/vmlinux. Here: the file is that blob byte for byte, it is BTF id 1 for bpf(), and
libbpf's CO-RE relocates a program's field read against it (tests/bpf/corefile.bpf.c). struct task's offsets
against the compiler's: the self-test btf_vmlinux_matches_the_compiler (tests/kernel/btf_vmlinux_test.c).
"""

import hashlib
import os
import re
import struct

from tests.console import LOG_LINE, ROOT
from tests.integration.test_libbpf import load

SMP = 1
QEMU_ARGS = ["-cpu", "max"]
BLOB = os.path.join(ROOT, "build", "vmlinux.btf")


def lines(console, cmd):
    return [line for line in console.run(cmd, timeout=120).split("\n") if not re.match(LOG_LINE, line)]


def test_sysfs_vmlinux_is_pahole_blob(console):
    blob = open(BLOB, "rb").read()
    magic, version, flags, hdr_len = struct.unpack("<HBBI", blob[:8])
    assert (magic, version, flags, hdr_len) == (0xeb9f, 1, 0, 24)
    assert lines(console, "/bin/busybox wc -c /sys/kernel/btf/vmlinux") == [
        "%d /sys/kernel/btf/vmlinux" % len(blob)]
    # its stat size too, as Linux's sysfs file has (libbpf's fseek to the end believes it)
    assert lines(console, "/bin/busybox stat -c %s /sys/kernel/btf/vmlinux") == [str(len(blob))]
    assert lines(console, "/bin/busybox md5sum /sys/kernel/btf/vmlinux") == [
        "%s  /sys/kernel/btf/vmlinux" % hashlib.md5(blob).hexdigest()]
    # read-only, as Linux's 0444 file
    out = lines(console, "/bin/busybox sh -c 'echo x > /sys/kernel/btf/vmlinux; echo rc=$?'")
    assert out[-1] != "rc=0", out
    assert lines(console, "/bin/busybox md5sum /sys/kernel/btf/vmlinux")[0].startswith(hashlib.md5(blob).hexdigest())


def test_vmlinux_is_btf_id_1(console):
    """tests/user/btf.c's ids lab: the kernel's BTF comes first, id 1, with the file's size; the loaded one after."""
    size = os.path.getsize(BLOB)
    out = lines(console, "/tests/btf ids")
    ids = [re.match(r"^BPF_BTF_GET_NEXT_ID: id (\d+), BPF_BTF_GET_FD_BY_ID: fd \d+, "
                    r"OBJ_GET_INFO_BY_FD: id (\d+) btf_size (\d+)$", line) for line in out[1:-1]]
    assert all(ids) and len(ids) == 2, out
    assert [int(x) for x in ids[0].groups()] == [1, 1, size], out
    # The loaded blob's id is the next never used: 2 in a fresh boot, more after other BTFs in a shared one.
    assert int(ids[1].group(1)) > 1 and ids[1].group(1) == ids[1].group(2) and int(ids[1].group(3)) < size, out


def test_core_read_relocated_against_vmlinux_btf(console):
    """corefile.bpf.c declares struct file with f_pos alone at offset 0; the kernel's is elsewhere. Each read of
    /proc/version starts at 0 and then at its length: those are the keys only if libbpf moved the read."""
    length = int(lines(console, "/bin/busybox wc -c /proc/version")[0].split()[0])
    pid, maps, out = load(console, "corefile.bpf.o", "read", 20)
    mine = {key & 0xffffffff: n for key, n in maps["positions"].items() if key >> 32 == pid}
    assert mine.get(length) == 20 and mine.get(0, 0) >= 20, (length, mine, out)
