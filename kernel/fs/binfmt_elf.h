/* ELF64 as exec reads it: the file header and the program headers of a static x86-64 executable. */
#ifndef KERNEL_FS_BINFMT_ELF_H
#define KERNEL_FS_BINFMT_ELF_H

#include "lib/types.h"

struct elf64_hdr {
	u8 e_ident[16]; /* "\x7fELF", class 2 (64-bit), data 1 (little endian), version 1 */
	u16 e_type;	/* ET_EXEC 2, ET_DYN 3 */
	u16 e_machine;	/* EM_X86_64 62 */
	u32 e_version;
	u64 e_entry, e_phoff, e_shoff;
	u32 e_flags;
	u16 e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx;
};

struct elf64_phdr {
	u32 p_type;  /* PT_LOAD 1, PT_INTERP 3 */
	u32 p_flags; /* PF_X 1, PF_W 2, PF_R 4 */
	u64 p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align;
};

#define ET_EXEC 2
#define EM_X86_64 62
#define PT_LOAD 1
#define PT_INTERP 3
#define PF_X 1
#define PF_W 2
#define PF_R 4

/* The auxiliary vector's keys (Linux's include/uapi/linux/auxvec.h values). */
#define AT_NULL 0
#define AT_PHDR 3
#define AT_PHENT 4
#define AT_PHNUM 5
#define AT_PAGESZ 6
#define AT_BASE 7
#define AT_FLAGS 8
#define AT_ENTRY 9
#define AT_UID 11
#define AT_EUID 12
#define AT_GID 13
#define AT_EGID 14
#define AT_PLATFORM 15
#define AT_HWCAP 16
#define AT_CLKTCK 17
#define AT_SECURE 23
#define AT_RANDOM 25
#define AT_HWCAP2 26
#define AT_EXECFN 31

#endif
