"""tests/unit/test_insn_objdump.py: arch/x86/insn.c against objdump, on every instruction of build/kernel.elf.

objdump -D, over the executable sections, lists each instruction with its address and bytes; the bytes are read again
from the ELF file, handed to build/host/insn-dump (the decoder behind a stdin/stdout loop), and the length it finds
must be objdump's. Where objdump names what a displacement or a branch offset points at, the decoder's field at its
offset must point there too. Every executable byte must lie in a compared instruction or in a range named in
NOT_64BIT: a line objdump cannot decode ((bad), .byte) fails the test.

    /usr/bin/python3 -m pytest -q tests/unit/test_insn_objdump.py     (after `make`: needs build/kernel.elf)
"""

import os
import re
import struct
import subprocess
from dataclasses import dataclass, field

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNEL = os.path.join(ROOT, "build", "kernel.elf")
INSN_DUMP = os.path.join(ROOT, "build", "host", "insn-dump")
OBJDUMP = os.environ.get("OBJDUMP", "objdump")
MAX_INSN_SIZE = 15
SHOW = 10                       # mismatches printed in full

# What executable sections hold besides 64-bit code, from boot/boot.asm, as [first label, end label): objdump, told the
# file is x86-64, reads both as 64-bit code (and finds (bad) in them); our decoder has no 32-bit mode.
NOT_64BIT = [("mb2_header", "_start", "multiboot2 header (data)"),
             ("_start", "long_mode", "32-bit code (bits 32)")]

LABEL = re.compile(r"^([0-9a-f]+) <(.+)>:$")
SECTION = re.compile(r"^Disassembly of section (\S+):$")
INSN = re.compile(r"^ *([0-9a-f]+):\t((?:[0-9a-f]{2} )+) *\t(.*)$")
# A wrapped instruction's further bytes: address and bytes, each byte followed by one space, nothing after. A data
# line (objdump -d dumps objects in code as hex and ASCII) always has more after its bytes. Two spaces and no bytes:
# the instruction ran into the next symbol, where objdump stops printing its bytes.
CONTINUATION = re.compile(r"^ *([0-9a-f]+):\t((?:[0-9a-f]{2} )+|  )$")
DATA = re.compile(r"^ *([0-9a-f]+):\t[0-9a-f]{2}[0-9a-f ]*  .*$")


@dataclass
class Insn:
    addr: int
    raw: bytes                  # as objdump printed them, continuation lines included
    text: str
    symbol: str
    section: str
    cut: bool = False           # runs into the next symbol: objdump printed only some of its bytes

    @property
    def bad(self):
        """objdump could not decode these bytes, or did not show them all."""
        return "(bad)" in self.text or self.text.startswith(".byte") or self.cut


@dataclass
class Listing:
    insns: list = field(default_factory=list)       # every instruction line, (bad) ones too
    labels: dict = field(default_factory=dict)      # symbol: address
    data_lines: int = 0                             # hex dumps of data objects (objdump -d, not -D)
    zero_runs: int = 0                              # "..." (objdump skips runs of zero bytes)


def parse_objdump(text):
    """The Listing of an objdump -d or -D text: instructions with wrapped bytes joined, the rest counted."""
    out = Listing()
    section = symbol = last = None
    for line in text.splitlines():
        if m := SECTION.match(line):
            section = m.group(1)
        elif m := LABEL.match(line):
            symbol, last = m.group(2), None
            out.labels[symbol] = int(m.group(1), 16)
        elif line.strip() == "...":
            out.zero_runs += 1
        elif m := INSN.match(line):
            last = Insn(int(m.group(1), 16), bytes.fromhex(m.group(2)), m.group(3).strip(), symbol, section)
            out.insns.append(last)
        elif m := CONTINUATION.match(line):
            if last is None or (m.group(2) != "  " and last.addr + len(last.raw) != int(m.group(1), 16)):
                raise ValueError("continuation line follows no instruction: %r" % line)
            last.raw += bytes.fromhex(m.group(2))
            last.cut = m.group(2) == "  "
        elif DATA.match(line):
            out.data_lines += 1
        elif line.strip() and not line.endswith("file format elf64-x86-64"):
            raise ValueError("unexpected objdump line: %r" % line)
    return out


def not_64bit(listing):
    """NOT_64BIT as address ranges [(start, end, why)]."""
    missing = [name for r in NOT_64BIT for name in r[:2] if name not in listing.labels]
    assert not missing, "labels of boot/boot.asm not found: %s" % missing
    return [(listing.labels[a], listing.labels[b], why) for a, b, why in NOT_64BIT]


def code_sections(path):
    """{name: (address, bytes)} of the ELF file's executable sections, read with struct from its headers."""
    with open(path, "rb") as f:
        elf = f.read()
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        raise ValueError("%s: not a little-endian ELF64 file" % path)
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3a)
    headers = [struct.unpack_from("<IIQQQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    sections = {}
    for name, kind, flags, addr, offset, size in headers:
        if kind == 1 and flags & 4:                     # SHT_PROGBITS, SHF_EXECINSTR
            name = elf[names + name:elf.index(b"\0", names + name)].decode()
            sections[name] = (addr, elf[offset:offset + size])
    return sections


@dataclass
class Decoded:
    length: int                 # or the negative errno insn_decode returned
    rip: int = 0
    disp_offset: int = 0
    disp_size: int = 0
    disp: int = 0
    imm_offset: int = 0
    imm_size: int = 0
    imm: int = 0


def decode_all(chunks):
    """insn-dump's Decoded for each byte string."""
    build = subprocess.run(["make", "-s", "-f", "tests/unit/Makefile", "insn-dump"], cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, "building insn-dump failed:\n" + build.stdout + build.stderr
    run = subprocess.run([INSN_DUMP], input="".join(c.hex() + "\n" for c in chunks), capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, "insn-dump exited with %d:\n%s" % (run.returncode, run.stderr[-3000:])
    lines = run.stdout.splitlines()
    assert len(lines) == len(chunks), "insn-dump answered %d lines for %d" % (len(lines), len(chunks))
    return [Decoded(*map(int, line.split())) for line in lines]


BRANCH = re.compile(r"^(?:bnd )?(?:j[a-z]+|call|loop[a-z]*|xbegin)\s+([0-9a-f]+)(?: <.*>)?$")
RIP_TARGET = re.compile(r"\(%[re]ip\).*# ([0-9a-f]+)")


def disagreements(insn, ours):
    """What objdump's line says that the decoder's answer contradicts, as (what, objdump's, ours)."""
    if ours.length != len(insn.raw):
        return [("length", len(insn.raw), ours.length)]
    found = []
    end = insn.addr + ours.length
    rip = "(%rip)" in insn.text or "(%eip)" in insn.text
    if rip != bool(ours.rip):
        found.append(("rip_relative", rip, bool(ours.rip)))
    if (m := RIP_TARGET.search(insn.text)) and ours.rip:
        target = (end + ours.disp) & (2**64 - 1)
        if ours.disp_offset + ours.disp_size > ours.length or target != int(m.group(1), 16):
            found.append(("rip target", m.group(1), "%x (disp %d at +%d)" % (target, ours.disp,
                                                                             ours.disp_offset)))
    if m := BRANCH.match(insn.text):
        target = (end + ours.imm) & (2**64 - 1)
        if ours.imm_offset + ours.imm_size != ours.length or target != int(m.group(1), 16):
            found.append(("branch target", m.group(1), "%x (rel %d at +%d)" % (target, ours.imm,
                                                                               ours.imm_offset)))
    return found


@dataclass
class Comparison:
    listing: Listing
    sections: dict              # name: (address, bytes), the executable ones
    excluded: list              # (start, end, why) from NOT_64BIT
    pairs: list                 # (Insn, Decoded) for every 64-bit instruction objdump decoded
    bad: list                   # 64-bit lines objdump could not decode


_comparison = None


def in_ranges(addr, ranges):
    return any(start <= addr < end for start, end, _ in ranges)


def comparison():
    """The Comparison for build/kernel.elf, made once per session."""
    global _comparison
    if _comparison is not None:
        return _comparison
    if not os.path.exists(KERNEL):
        pytest.fail("%s does not exist: run `make` first" % KERNEL, pytrace=False)
    sections = code_sections(KERNEL)
    # -D, not -d: -d shows symbols typed as objects as data, and nasm types the code label
    # higher_half.hang (boot/boot.asm) as one. -j keeps -D to the executable sections.
    cmd = [OBJDUMP, "-D"] + [a for name in sections for a in ("-j", name)] + [KERNEL]
    listing = parse_objdump(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    excluded = not_64bit(listing)
    code = [i for i in listing.insns if not in_ranges(i.addr, excluded)]
    good = [i for i in code if not i.bad]
    chunks = []
    for insn in good:
        base, data = sections[insn.section]
        chunks.append(data[insn.addr - base:insn.addr - base + MAX_INSN_SIZE])
        assert chunks[-1][:len(insn.raw)] == insn.raw, "objdump's bytes at %#x are not the file's" % insn.addr
    _comparison = Comparison(listing, sections, excluded, list(zip(good, decode_all(chunks))),
                             [i for i in code if i.bad])
    return _comparison


def symbolize(listing, addr):
    """<symbol+off> for addr, from objdump's labels."""
    name, at = max(((n, a) for n, a in listing.labels.items() if a <= addr), key=lambda x: x[1],
                   default=("?", addr))
    return "%s+%#x" % (name, addr - at)


def gaps(c):
    """[(start, end)] of executable bytes neither in a compared instruction nor in an excluded range."""
    found = []
    for base, data in c.sections.values():
        spans = sorted([(i.addr, i.addr + len(i.raw)) for i, _ in c.pairs if base <= i.addr < base + len(data)] +
                       [(s, e) for s, e, _ in c.excluded if base <= s < base + len(data)])
        pos = base
        for start, end in spans:
            if start != pos:
                found.append((pos, start))
            pos = max(pos, end)
        if pos != base + len(data):
            found.append((pos, base + len(data)))
    return found


def test_objdump_parser():
    """Wrapped bytes join their instruction; data lines and zero runs are counted, labels kept."""
    text = "\n".join([
        "build/kernel.elf:     file format elf64-x86-64", "",
        "Disassembly of section .boot.text:", "",
        "0000000000200000 <mb2_header>:",
        "  200000:\td6 50 52 e8 00 00 00 00 18 00 00 00 12 af ad 17     .PR.............",
        "  200010:\t20 20 20 20 20 20 20 20                                     ",
        "0000000000200018 <_start>:",
        "  200018:\ta3 00 20 20 00 b8 00 \tmovabs %eax,0x204000b800202000",
        "  20001f:\t40 20 ",
        "  200021:\t2f                   \t(bad)",
        "  200022:\ta2 00 20 00 08 00  \tmovabs %al,0x89ff890008002000",
        "  200029:\t  ",
        "\t...", "",
        "Disassembly of section .text:", "",
        "ffffffff80207000 <f>:",
        "ffffffff80207000:\t48 b8 00 70 20 80 ff \tmovabs $0xffffffff80207000,%rax",
        "ffffffff80207007:\tff ff ff ",
    ])
    listing = parse_objdump(text)
    assert [(i.addr, i.raw.hex(), i.symbol, i.section, i.bad) for i in listing.insns] == [
        (0x200018, "a300202000b8004020", "_start", ".boot.text", False),
        (0x200021, "2f", "_start", ".boot.text", True),
        (0x200022, "a20020000800", "_start", ".boot.text", True),
        (0xffffffff80207000, "48b800702080ffffffff", "f", ".text", False)]
    assert listing.labels == {"mb2_header": 0x200000, "_start": 0x200018, "f": 0xffffffff80207000}
    assert (listing.data_lines, listing.zero_runs) == (2, 1)
    with pytest.raises(ValueError):
        parse_objdump("  200018:\t40 20 ")       # a continuation of nothing
    with pytest.raises(ValueError):
        parse_objdump(text.replace("ffffffff80207007:", "ffffffff80207008:"))


def test_decoder_agrees_with_objdump(capsys):
    """Every 64-bit instruction objdump finds in the kernel: same length, same rip and branch targets."""
    c = comparison()
    wrong = [(insn, d) for insn, ours in c.pairs for d in disagreements(insn, ours)]
    targets = sum(1 for insn, _ in c.pairs if BRANCH.match(insn.text) or RIP_TARGET.search(insn.text))
    skipped = ", ".join("%d bytes of %s" % (e - s, why) for s, e, why in c.excluded)
    with capsys.disabled():
        print("\ninsn: %d instructions of build/kernel.elf compared with objdump (%d rip or branch targets too), "
              "%d (bad); not compared: %s" % (len(c.pairs), targets, len(c.bad), skipped))
    assert len(c.pairs) > 10000, "only %d instructions found: is objdump's output parsed?" % len(c.pairs)
    report = ["%#x <%s> %s: %s: objdump %s, ours %s   (%s)" % (
        insn.addr, symbolize(c.listing, insn.addr), insn.raw.hex(" "), what, theirs, ours, insn.text)
        for insn, (what, theirs, ours) in wrong[:SHOW]]
    if wrong:
        pytest.fail("%d disagreements, the first %d:\n%s" % (len(wrong), len(report), "\n".join(report)),
                    pytrace=False)


def test_every_code_byte_compared():
    """objdump decodes all the kernel's 64-bit code, so the comparison above leaves no byte out."""
    c = comparison()
    report = ["%#x <%s>: %s  %s" % (i.addr, symbolize(c.listing, i.addr), i.raw.hex(" "), i.text)
              for i in c.bad[:SHOW]]
    if c.bad:
        pytest.fail("%d lines objdump cannot decode:\n%s" % (len(c.bad), "\n".join(report)), pytrace=False)
    holes = ["%#x..%#x <%s>" % (s, e, symbolize(c.listing, s)) for s, e in gaps(c)[:SHOW]]
    if holes:
        pytest.fail("executable bytes no instruction covers:\n" + "\n".join(holes), pytrace=False)
