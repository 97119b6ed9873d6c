/* What GRUB tells the kernel through multiboot2: command line, memory map, ACPI root pointer, initramfs. */
#ifndef KERNEL_MULTIBOOT_H
#define KERNEL_MULTIBOOT_H

#include "lib/types.h"
#include "kernel/mm/mm.h"

#define MB2_BOOTLOADER_MAGIC 0x36d76289
#define MB2_MAX_REGIONS 32

struct boot_info {
	char cmdline[2048]; /* Linux's COMMAND_LINE_SIZE on x86: boot-time tracing takes room */
	struct mem_region ram[MB2_MAX_REGIONS]; /* usable RAM only */
	int nr_ram;
	u64 info_pa, info_len; /* the info block itself, to keep it reserved */
	u64 map_top;	       /* end of RAM and ACPI tables: the direct map's reach */
	u8 rsdp[36];	       /* copy of the ACPI RSDP, if GRUB gave one */
	bool has_rsdp;
	u64 initrd_start, initrd_len; /* the first module GRUB loaded (the initramfs), physical */
};

extern struct boot_info boot_info;

/* Copies what the kernel needs out of GRUB's info block (read through the boot mapping). */
void multiboot_parse(u32 magic, unsigned long info_pa);

/* True if the word appears as a whole word in the kernel command line. */
bool cmdline_has(const char *word);

#endif
