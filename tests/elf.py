"""tests/elf.py: where a function of a static ELF64 program lies in its file, for uprobe definitions
(tests/integration/test_uprobes.py, tools/bench.py): Linux's uprobe_events take a file offset."""

import struct


def elf_symbol_offset(path, name):
    """(file offset, vaddr) of a function symbol: its address through the PT_LOAD that maps it."""
    data = open(path, "rb").read()
    phoff, shoff = struct.unpack_from("<QQ", data, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", data, 0x36)
    vaddr = None
    for i in range(shnum):
        sh = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        if sh[1] != 2:                      # SHT_SYMTAB
            continue
        strtab = struct.unpack_from("<IIQQQQIIQQ", data, shoff + sh[6] * shentsize)
        for k in range(sh[5] // 24):
            st_name, _, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", data, sh[4] + k * 24)
            end = data.index(b"\0", strtab[4] + st_name)
            if data[strtab[4] + st_name:end].decode() == name:
                vaddr = st_value
    assert vaddr is not None, name
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_vaddr <= vaddr < p_vaddr + p_filesz:
            return vaddr - p_vaddr + p_offset, vaddr
    raise AssertionError("no PT_LOAD maps " + name)


def elf_mapping_start(path, vaddr):
    """Where the area mapping vaddr begins, as exec maps a PT_LOAD: its p_vaddr rounded down to a page."""
    data = open(path, "rb").read()
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _, _, p_vaddr, _, _, p_memsz = struct.unpack_from("<IIQQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and p_vaddr <= vaddr < p_vaddr + p_memsz:
            return p_vaddr & ~0xfff
    raise AssertionError("no PT_LOAD maps %#x" % vaddr)
