/* Reads the multiboot2 information block GRUB leaves in memory, before anything overwrites it. */
#include "kernel/multiboot.h"
#include "kernel/panic.h"
#include "lib/string.h"

struct boot_info boot_info;

enum {
	MB2_TAG_END = 0,
	MB2_TAG_CMDLINE = 1,
	MB2_TAG_MODULE = 3,
	MB2_TAG_MMAP = 6,
	MB2_TAG_ACPI_OLD = 14,
	MB2_TAG_ACPI_NEW = 15,
};

struct mb2_tag {
	u32 type;
	u32 size;
};

struct mb2_mmap_entry {
	u64 base;
	u64 len;
	u32 type; /* 1 = available RAM */
	u32 reserved;
};

static void parse_mmap(const struct mb2_tag *tag)
{
	const u32 *hdr = (const u32 *)(tag + 1); /* entry_size, entry_version */
	u32 entry_size = hdr[0];
	const u8 *p = (const u8 *)(hdr + 2);
	const u8 *end = (const u8 *)tag + tag->size;

	for (; p + entry_size <= end; p += entry_size) {
		const struct mb2_mmap_entry *e = (const void *)p;
		/* RAM (1) and ACPI tables (3, 4) must be reachable through the direct map. */
		if ((e->type == 1 || e->type == 3 || e->type == 4) &&
		    e->base + e->len > boot_info.map_top)
			boot_info.map_top = e->base + e->len;
		if (e->type != 1 || boot_info.nr_ram == MB2_MAX_REGIONS)
			continue;
		boot_info.ram[boot_info.nr_ram].base = e->base;
		boot_info.ram[boot_info.nr_ram].len = e->len;
		boot_info.nr_ram++;
	}
}

void multiboot_parse(u32 magic, unsigned long info_pa)
{
	const u8 *info = __va(info_pa);
	const struct mb2_tag *tag;

	if (magic != MB2_BOOTLOADER_MAGIC)
		panic("not booted by a multiboot2 loader (magic %#x)", magic);
	boot_info.info_pa = info_pa;
	boot_info.info_len = *(const u32 *)info;

	/* Tags follow the 8-byte header, each padded to 8 bytes. */
	for (tag = (const void *)(info + 8); tag->type != MB2_TAG_END;
	     tag = (const void *)((const u8 *)tag + ALIGN(tag->size, 8))) {
		switch (tag->type) {
		case MB2_TAG_CMDLINE:
			strscpy(boot_info.cmdline, (const char *)(tag + 1),
				sizeof(boot_info.cmdline));
			break;
		case MB2_TAG_MODULE:
			if (!boot_info.initrd_len) { /* mod_start, mod_end, then its command line */
				const u32 *mod = (const u32 *)(tag + 1);
				boot_info.initrd_start = mod[0];
				boot_info.initrd_len = mod[1] - mod[0];
			}
			break;
		case MB2_TAG_MMAP:
			parse_mmap(tag);
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			if (!boot_info.has_rsdp) {
				memcpy(boot_info.rsdp, tag + 1,
				       MIN(tag->size - 8, sizeof(boot_info.rsdp)));
				boot_info.has_rsdp = true;
			}
			break;
		}
	}
}

bool cmdline_has(const char *word)
{
	size_t n = strlen(word);
	const char *p = boot_info.cmdline;

	while ((p = strstr(p, word)) != NULL) {
		bool starts = p == boot_info.cmdline || p[-1] == ' ';
		bool ends = p[n] == '\0' || p[n] == ' ';
		if (starts && ends)
			return true;
		p += n;
	}
	return false;
}
