/* ACPI, just enough of it: RSDP -> RSDT/XSDT -> MADT ("APIC") -> CPUs and IOAPIC.
 *
 *   RSDP (GRUB's copy) --rsdt/xsdt--> [ hdr | table ptr | table ptr | ... ]
 *                                                  |
 *                                  MADT: [ hdr | lapic addr | flags | entry | entry | ... ]
 *                                          entry 0: a CPU (ACPI id, APIC id, enabled)
 *                                          entry 1: an IOAPIC (id, address, first GSI)
 *                                          entry 2: ISA IRQ n is really GSI m
 */
#include "arch/x86/acpi.h"
#include "arch/x86/paging.h"
#include "kernel/mm/mm.h"
#include "kernel/multiboot.h"
#include "kernel/printk/printk.h"
#include "lib/string.h"

struct madt_info madt;

struct sdt_header {
	char signature[4];
	u32 length;
	u8 revision;
	u8 checksum;
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;

static bool checksum_ok(const void *p, size_t len)
{
	u8 sum = 0;
	for (size_t i = 0; i < len; i++)
		sum += ((const u8 *)p)[i];
	return sum == 0;
}

/*
 * Tables often sit in memory the firmware marks reserved, outside the direct map: map each one
 * (its header first, to learn its length). The mappings stay; there are only a handful.
 */
static const struct sdt_header *table_at(u64 pa)
{
	const struct sdt_header *h;

	if (!pa)
		return NULL;
	h = ioremap(pa, sizeof(*h));
	if (h->length < sizeof(*h) || h->length > (1U << 20))
		return NULL;
	return ioremap(pa, h->length);
}

static const struct sdt_header *find_table(const char *sig)
{
	const u8 *rsdp = boot_info.rsdp;
	bool xsdt = rsdp[15] >= 2;
	u64 root_pa = xsdt ? *(const u64 *)(rsdp + 24) : *(const u32 *)(rsdp + 16);
	const struct sdt_header *root = table_at(root_pa);
	size_t entry = xsdt ? 8 : 4;

	if (!root || !checksum_ok(root, root->length))
		return NULL;
	for (size_t off = sizeof(*root); off + entry <= root->length; off += entry) {
		const u8 *p = (const u8 *)root + off;
		u64 pa = xsdt ? *(const u64 *)p : *(const u32 *)p;
		const struct sdt_header *t = table_at(pa);
		if (t && !memcmp(t->signature, sig, 4) && checksum_ok(t, t->length))
			return t;
	}
	return NULL;
}

static void parse_madt(const struct sdt_header *h)
{
	const u8 *p = (const u8 *)h + sizeof(*h);
	const u8 *end = (const u8 *)h + h->length;

	madt.lapic_pa = *(const u32 *)p;
	for (p += 8; p + 2 <= end && p[1] >= 2; p += p[1]) {
		switch (p[0]) {
		case 0: /* processor local APIC: acpi id, apic id, flags (bit 0: enabled) */
			if ((*(const u32 *)(p + 4) & 1) && madt.nr_cpus < NR_CPUS)
				madt.apic_ids[madt.nr_cpus++] = p[3];
			break;
		case 1: /* IOAPIC: id, reserved, address, GSI base */
			if (!madt.ioapic_pa)
				madt.ioapic_pa = *(const u32 *)(p + 4);
			break;
		case 2: /* interrupt source override: bus, ISA source, GSI, flags */
			if (p[3] < 16)
				madt.isa_gsi[p[3]] = *(const u32 *)(p + 4);
			break;
		}
	}
}

void acpi_init(void)
{
	const struct sdt_header *h = NULL;

	for (int i = 0; i < 16; i++)
		madt.isa_gsi[i] = i;
	madt.lapic_pa = 0xfee00000;
	madt.ioapic_pa = 0xfec00000;
	if (boot_info.has_rsdp)
		h = find_table("APIC");
	if (!h) {
		pr_warn("ACPI: no MADT, assuming one CPU\n");
		madt.nr_cpus = 1;
		return;
	}
	parse_madt(h);
	pr_info("ACPI: MADT lists %d CPU%s, IOAPIC at %#lx, LAPIC at %#lx\n", madt.nr_cpus,
		madt.nr_cpus == 1 ? "" : "s", madt.ioapic_pa, madt.lapic_pa);
}
