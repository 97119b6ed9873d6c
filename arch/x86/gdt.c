/* Each CPU's GDT (kernel and user segments, its TSS with the kernel stack for ring 3) and the IST stacks. */
#include "arch/x86/traps.h"
#include "arch/x86/segment.h"
#include "lib/compiler.h"
#include "lib/string.h"
#include "kernel/percpu.h"

#define IST_STACK_SIZE 8192

/* 64-bit TSS: in long mode it only holds stack pointers, for privilege changes and the IST. */
struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

struct desc_ptr {
	u16 limit;
	u64 base;
} __packed;

/* A TSS is busy while loaded, so every CPU needs its own, and its own GDT to point at it. */
static struct tss tss_of[NR_CPUS];
static u64 gdt_of[NR_CPUS][GDT_ENTRIES] __aligned(16);
/* A double fault often means the stack is gone, and an NMI can land anywhere: give each its own. */
static u8 ist_stacks[NR_CPUS][3][IST_STACK_SIZE] __aligned(16);

void gdt_init(void)
{
	int cpu = smp_processor_id();
	struct tss *tss = &tss_of[cpu];
	u64 *gdt = gdt_of[cpu];
	u64 base = (u64)tss;
	u64 limit = sizeof(*tss) - 1;
	struct desc_ptr p = { sizeof(gdt_of[0]) - 1, (u64)gdt };

	tss->ist[0] = (u64)ist_stacks[cpu][0] + IST_STACK_SIZE; /* IST1: #DF */
	tss->ist[1] = (u64)ist_stacks[cpu][1] + IST_STACK_SIZE; /* IST2: NMI */
	tss->ist[2] = (u64)ist_stacks[cpu][2] + IST_STACK_SIZE; /* IST3: #MC */
	tss->iomap_base = sizeof(*tss);

	gdt[0] = 0;
	gdt[1] = 0x00af9a000000ffffULL; /* 0x08 kernel code: present, DPL 0, long mode */
	gdt[2] = 0x00cf92000000ffffULL; /* 0x10 kernel data */
	/* 0x18: the TSS descriptor takes two slots in long mode. */
	gdt[3] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ULL << 40) |
		 (((limit >> 16) & 0xf) << 48) | (((base >> 24) & 0xff) << 56);
	gdt[4] = base >> 32;
	gdt[5] = 0;			/* 0x28: 32-bit user code, never used (no IA32 emulation) */
	gdt[6] = 0x00cff2000000ffffULL; /* 0x30 user data: DPL 3 */
	gdt[7] = 0x00affa000000ffffULL; /* 0x38 user code: DPL 3, long mode */

	__asm__ volatile("lgdt %0" : : "m"(p));
	/* Reload CS with a far return, and the data segments, so nothing refers to the boot GDT.
	 * GS is not reloaded: its base (this CPU's percpu area) lives in an MSR, not the GDT. */
	__asm__ volatile("pushq $0x08\n\t"
			 "leaq 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "lretq\n"
			 "1:\n\t"
			 "movw $0x10, %%ax\n\t"
			 "movw %%ax, %%ds\n\t"
			 "movw %%ax, %%es\n\t"
			 "movw %%ax, %%ss\n\t"
			 "ltr %w0"
			 :
			 : "r"(GDT_TSS)
			 : "rax", "memory");
}

/*
 * The stack the CPU switches to when an interrupt or exception arrives from ring 3: the top of the
 * running task's kernel stack. Set at every task switch, as Linux's switch_to() updates sp0.
 */
void tss_set_sp0(unsigned long sp0)
{
	tss_of[smp_processor_id()].rsp[0] = sp0;
}
