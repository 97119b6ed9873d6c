/* The IDT: every vector points at its stub in entry.asm; a few exceptions get their own IST stack. */
#include "arch/x86/traps.h"
#include "lib/compiler.h"

struct idt_gate {
	u16 off_lo;
	u16 selector;
	u8 ist;
	u8 type_attr;
	u16 off_mid;
	u32 off_hi;
	u32 reserved;
} __packed;

struct idt_ptr {
	u16 limit;
	u64 base;
} __packed;

extern const u64 isr_stub_table[256];
static struct idt_gate idt[256] __aligned(16);

static void set_gate(int vec, u64 handler, int ist)
{
	idt[vec].off_lo = handler & 0xffff;
	idt[vec].selector = 0x08;
	idt[vec].ist = ist;
	idt[vec].type_attr = 0x8e; /* present, DPL 0, interrupt gate: IF is cleared on entry */
	idt[vec].off_mid = (handler >> 16) & 0xffff;
	idt[vec].off_hi = handler >> 32;
	idt[vec].reserved = 0;
}

void idt_init(void)
{
	for (int v = 0; v < 256; v++)
		set_gate(v, isr_stub_table[v], 0);
	set_gate(X86_TRAP_DF, isr_stub_table[X86_TRAP_DF], 1);
	set_gate(X86_TRAP_NMI, isr_stub_table[X86_TRAP_NMI], 2);
	set_gate(X86_TRAP_MC, isr_stub_table[X86_TRAP_MC], 3);
	/* int3 may be executed in ring 3 (a debugger's or uprobes' breakpoint): DPL 3. Every other
	 * `int N` from user space, int 0x80 included, is then a #GP: Linux without IA32 emulation. */
	idt[X86_TRAP_BP].type_attr = 0xee;
	idt_load();
}

void idt_load(void)
{
	struct idt_ptr p = { sizeof(idt) - 1, (u64)idt };
	__asm__ volatile("lidt %0" : : "m"(p));
}
