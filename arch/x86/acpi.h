/* The little of ACPI the kernel reads: the MADT's list of CPUs and IOAPICs. */
#ifndef ARCH_X86_ACPI_H
#define ARCH_X86_ACPI_H

#include "lib/types.h"
#include "kernel/percpu.h"

struct madt_info {
	int nr_cpus;
	u8 apic_ids[NR_CPUS]; /* enabled CPUs, in MADT order; the boot CPU is among them */
	unsigned long lapic_pa;
	unsigned long ioapic_pa;
	u32 isa_gsi[16]; /* ISA IRQ -> global system interrupt, after overrides */
};

extern struct madt_info madt;

/* Finds the MADT from the RSDP GRUB passed; falls back to one CPU and PC defaults. */
void acpi_init(void);

#endif
