/* Local APIC and IOAPIC: where interrupts come from once the legacy PIC is masked, and how one
 * CPU interrupts another (IPIs). Addresses come from the ACPI MADT (arch/x86/acpi.c). */
#include "arch/x86/apic.h"
#include "arch/x86/acpi.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/traps.h"

#define LAPIC_ID 0x020
#define LAPIC_EOI 0x0b0
#define LAPIC_SVR 0x0f0
#define LAPIC_LVT_TIMER 0x320
#define LAPIC_TIMER_INIT 0x380
#define LAPIC_TIMER_CUR 0x390
#define LAPIC_TIMER_DIV 0x3e0
#define LVT_MASKED (1U << 16)
#define LVT_PERIODIC (1U << 17)

#define LAPIC_ICR_LOW 0x300
#define LAPIC_ICR_HIGH 0x310
#define ICR_PENDING (1U << 12)
#define ICR_DEST_SELF (1U << 18)
#define IOAPIC_REDTBL 0x10

static volatile u32 *lapic;
static volatile u32 *ioapic;

static inline u32 lapic_read(u32 reg)
{
	return lapic[reg / 4];
}

static inline void lapic_write(u32 reg, u32 v)
{
	lapic[reg / 4] = v;
}

void pic_disable(void)
{
	/* Remap first: a masked PIC can still raise a spurious IRQ 7, which must not look like #DF. */
	outb(0x20, 0x11);
	outb(0xa0, 0x11);
	outb(0x21, 0xf0);
	outb(0xa1, 0xf8);
	outb(0x21, 4);
	outb(0xa1, 2);
	outb(0x21, 1);
	outb(0xa1, 1);
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

void lapic_init(void)
{
	/* One mapping serves every CPU: each one's LAPIC answers at the same physical address. */
	if (!lapic)
		lapic = ioremap(madt.lapic_pa, 4096);
	wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | (1 << 11)); /* global enable */
	lapic_write(LAPIC_SVR, 0x100 | SPURIOUS_VECTOR);	/* software enable */
}

u32 lapic_id(void)
{
	return lapic_read(LAPIC_ID) >> 24;
}

void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

static void ioapic_write(u32 reg, u32 v)
{
	ioapic[0] = reg;
	ioapic[4] = v;
}

void ioapic_init(void)
{
	ioapic = ioremap(madt.ioapic_pa, 4096);
	ioapic[0] = 1; /* version register: bits 16..23 hold the last redirection entry */
	int n = ((ioapic[4] >> 16) & 0xff) + 1;
	for (int i = 0; i < n; i++) {
		ioapic_write(IOAPIC_REDTBL + 2 * i, LVT_MASKED);
		ioapic_write(IOAPIC_REDTBL + 2 * i + 1, 0);
	}
}

void ioapic_route(int irq, int vector)
{
	u32 gsi = madt.isa_gsi[irq]; /* QEMU moves ISA IRQ 0 to GSI 2, for instance */

	/* Fixed delivery, physical destination, edge triggered, active high: ISA defaults. */
	ioapic_write(IOAPIC_REDTBL + 2 * gsi + 1, lapic_id() << 24);
	ioapic_write(IOAPIC_REDTBL + 2 * gsi, vector);
}

void lapic_send_ipi(u32 apic_id, u32 low)
{
	unsigned long flags = local_irq_save();

	/* One ICR per CPU; wait until the previous IPI left before writing the next. */
	while (lapic_read(LAPIC_ICR_LOW) & ICR_PENDING)
		cpu_relax();
	lapic_write(LAPIC_ICR_HIGH, apic_id << 24);
	lapic_write(LAPIC_ICR_LOW, low);
	while (lapic_read(LAPIC_ICR_LOW) & ICR_PENDING)
		cpu_relax();
	local_irq_restore(flags);
}

void lapic_send_ipi_self(u32 vector)
{
	/* No wait for the ICR: a self IPI is accepted by this CPU's own APIC at once, and an NMI may
	 * land here while the code it interrupted waits on ICR_PENDING for its own IPI. */
	lapic_write(LAPIC_ICR_LOW, ICR_DEST_SELF | ICR_FIXED | vector);
}

u32 lapic_timer_ticks_per_sec;

void lapic_timer_init(unsigned int hz)
{
	lapic_write(LAPIC_TIMER_DIV, 0x3); /* divide by 16 */
	lapic_write(LAPIC_LVT_TIMER, TIMER_VECTOR | LVT_PERIODIC);
	lapic_write(LAPIC_TIMER_INIT, lapic_timer_ticks_per_sec / hz);
}

/* How long ago this CPU's periodic timer fired, from what its counter has left: timerlat's
 * measure of when the timer really expired (kernel/trace/trace_timerlat.c). */
u64 lapic_timer_elapsed_ns(void)
{
	u32 init = lapic_read(LAPIC_TIMER_INIT), left = lapic_read(LAPIC_TIMER_CUR);

	return left > init ? 0 : (u64)(init - left) * 1000000000ULL / lapic_timer_ticks_per_sec;
}

/* Used by the PIT calibration in tsc.c: count down from the maximum, read what is left. */
void lapic_timer_start_oneshot_max(void)
{
	lapic_write(LAPIC_TIMER_DIV, 0x3);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
	lapic_write(LAPIC_TIMER_INIT, 0xffffffff);
}

u32 lapic_timer_current(void)
{
	return lapic_read(LAPIC_TIMER_CUR);
}
