#!/usr/bin/python3
"""tools/mkinitramfs.py: writes the initramfs, a cpio archive in the "newc" format Linux unpacks.

    mkinitramfs.py OUT.cpio --busybox /bin/busybox [--tests PROG...] [--tree SRC DEST]...

It holds Debian's static busybox as /bin/busybox with every applet it lists (`busybox --list-full`)
as a symlink to it, our test programs in /tests/, and the empty directories a Unix tree starts with;
--tree adds a host directory as it is (files, modes, symlinks) under DEST (`make ftracetest` adds
Linux's tools/testing/selftests/ftrace as /ftrace).
Entries are written in a fixed order with zero times, so the same inputs give the same bytes.
"""

import argparse
import os
import subprocess
import sys

S_IFDIR, S_IFREG, S_IFLNK = 0o040000, 0o100000, 0o120000
PATH_TOOLS = {"chrt"}
DIRS = ["bin", "sbin", "usr", "usr/bin", "usr/sbin", "etc", "root", "tmp", "tests", "dev", "proc"]


class Cpio:
    def __init__(self):
        self.out = bytearray()
        self.ino = 1

    def entry(self, name, mode, data=b""):
        """One newc entry: a 110-byte header of hex fields, the name, the data, each padded to 4."""
        name_b = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, 2 if mode & S_IFDIR else 1, 0, len(data), 0, 0, 0, 0,
                  len(name_b), 0]
        self.ino += 1
        self.out += b"070701" + b"".join(b"%08x" % f for f in fields) + name_b
        self.out += b"\0" * (-len(self.out) % 4)
        self.out += data
        self.out += b"\0" * (-len(self.out) % 4)

    def finish(self):
        self.ino = 0
        self.entry("TRAILER!!!", 0)
        return bytes(self.out)


def applets(busybox):
    """Where each applet lives, as busybox itself says (usr/bin/awk, sbin/ifconfig, ...)."""
    out = subprocess.run([busybox, "--list-full"], check=True, capture_output=True, text=True).stdout
    return sorted(line for line in out.split() if line and line != "bin/busybox")


def add_tree(cpio, src, dest):
    """Every directory, file and symlink under src, as dest/..., in sorted order."""
    cpio.entry(dest, S_IFDIR | 0o755)
    for top, dirs, files in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(top, src)
        base = dest if rel == "." else dest + "/" + rel
        for name in dirs + sorted(files):
            path = os.path.join(top, name)
            st = os.lstat(path)
            if os.path.islink(path):
                cpio.entry(base + "/" + name, S_IFLNK | 0o777, os.readlink(path).encode())
            elif os.path.isdir(path):
                cpio.entry(base + "/" + name, S_IFDIR | (st.st_mode & 0o7777))
            else:
                with open(path, "rb") as f:
                    cpio.entry(base + "/" + name, S_IFREG | (st.st_mode & 0o7777), f.read())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--busybox", required=True)
    ap.add_argument("--tests", nargs="*", default=[])
    ap.add_argument("--tree", nargs=2, action="append", default=[], metavar=("SRC", "DEST"))
    args = ap.parse_args()

    cpio = Cpio()
    for d in DIRS:
        cpio.entry(d, S_IFDIR | 0o755)
    with open(args.busybox, "rb") as f:
        cpio.entry("bin/busybox", S_IFREG | 0o755, f.read())
    for path in applets(args.busybox):
        # A relative target, as Debian's own links would be: ../../bin/busybox from usr/bin/.
        target = os.path.relpath("bin/busybox", os.path.dirname(path))
        cpio.entry(path, S_IFLNK | 0o777, target.encode())
    for prog in sorted(args.tests):
        with open(prog, "rb") as f:
            cpio.entry("tests/" + os.path.basename(prog), S_IFREG | 0o755, f.read())
        # A command busybox-static lacks and scripts look for on PATH (ftracetest's `which chrt`).
        if os.path.basename(prog) in PATH_TOOLS:
            cpio.entry("usr/bin/" + os.path.basename(prog), S_IFLNK | 0o777,
                       b"../../tests/" + os.path.basename(prog).encode())
    for src, dest in args.tree:
        add_tree(cpio, src, dest.strip("/"))
    data = cpio.finish()
    tmp = args.out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, args.out)


if __name__ == "__main__":
    sys.exit(main())
