/* Starting the other CPUs: INIT-SIPI-SIPI into the real-mode trampoline, one CPU at a time.
 *
 *   boot CPU                                      application processor (AP)
 *   copy trampoline to 0x8000, identity-map it
 *   fill CR3, stack, entry, cpu number
 *   INIT, wait 10 ms, SIPI(0x08), SIPI(0x08) -->  wakes in real mode at 0x8000
 *                                                 trampoline.asm: -> long mode -> ap_entry()
 *   wait for percpu[cpu].online  <--------------  per-CPU GDT/TSS, IDT, LAPIC + timer, online
 *   next AP ...                                   idle loop, then whatever the scheduler gives it
 */
#include "arch/x86/acpi.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/traps.h"
#include "kernel/mm/mm.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/string.h"

#define TRAMPOLINE_PA 0x8000UL
#define SIPI_VECTOR (TRAMPOLINE_PA >> 12)
#define AP_STACK_PAGES 4

extern const u8 trampoline_start[], trampoline_end[];
extern const u8 tr_cr3[], tr_stack[], tr_entry[], tr_percpu[];

int nr_cpus_online = 1;
int nr_cpus_possible = 1;

/* Writes a 64-bit slot of the trampoline's copy at 0x8000. */
static void tramp_set(const u8 *slot, u64 value)
{
	*(u64 *)((u8 *)__va(TRAMPOLINE_PA) + (slot - trampoline_start)) = value;
}

/* Where an AP arrives in C, on its own stack, with interrupts off. */
static void __noreturn ap_entry(long cpu)
{
	percpu_setup(cpu);
	gdt_init();
	idt_load();
	syscall_init();
	lapic_init();
	timer_init();
	sched_init_cpu(cpu);
	__atomic_store_n(&this_cpu()->online, true, __ATOMIC_RELEASE);
	__atomic_fetch_add(&nr_cpus_online, 1, __ATOMIC_RELEASE);
	cpu_idle();
}

static bool boot_ap(int cpu, u8 apic_id)
{
	unsigned long stack = alloc_pages_for(AP_STACK_PAGES, PAGE_USER_STACK);
	u64 deadline;

	if (!stack)
		return false;
	percpu_area[cpu].apic_id = apic_id;
	percpu_area[cpu].kernel_stack = (unsigned long)__va(stack) + AP_STACK_PAGES * PAGE_SIZE;
	tramp_set(tr_stack, percpu_area[cpu].kernel_stack);
	tramp_set(tr_percpu, cpu);

	lapic_send_ipi(apic_id, ICR_INIT | ICR_LEVEL_ASSERT);
	udelay(10000);
	/* The second SIPI is what the MP spec asks for; a CPU already running ignores it. */
	for (int i = 0; i < 2 && !cpu_online(cpu); i++) {
		lapic_send_ipi(apic_id, ICR_STARTUP | SIPI_VECTOR);
		udelay(200);
	}
	deadline = rdtsc() + tsc_khz * 2000; /* two seconds of TSC time, generous for TCG */
	while (!cpu_online(cpu) && rdtsc() < deadline)
		cpu_relax();
	return cpu_online(cpu);
}

void smp_init(void)
{
	int cpu = 1;

	percpu_area[0].apic_id = lapic_id();
	percpu_area[0].online = true;
	nr_cpus_possible = madt.nr_cpus;
	memcpy(__va(TRAMPOLINE_PA), trampoline_start, trampoline_end - trampoline_start);
	tramp_set(tr_cr3, read_cr3());
	tramp_set(tr_entry, (u64)ap_entry);
	/* The AP turns paging on while running at 0x8000: that page must map to itself. */
	if (map_page(TRAMPOLINE_PA, TRAMPOLINE_PA, 0))
		panic("smp: cannot map the trampoline");

	for (int i = 0; i < madt.nr_cpus && cpu < NR_CPUS; i++) {
		if (madt.apic_ids[i] == percpu_area[0].apic_id)
			continue;
		if (boot_ap(cpu, madt.apic_ids[i]))
			cpu++;
		else
			pr_err("smp: CPU with APIC id %d did not start\n", madt.apic_ids[i]);
	}
	unmap_page(TRAMPOLINE_PA);
	pr_info("smp: Brought up %d node, %d CPU%s\n", 1, num_online_cpus(),
		num_online_cpus() == 1 ? "" : "s");
}
