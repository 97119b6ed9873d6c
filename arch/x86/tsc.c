/* TSC and LAPIC-timer calibration against the PIT, and TSC-based time for printk and tracing.
 *
 * The PIT ticks at a known 1.193182 MHz. We gate its channel 2 for 10 ms and count how far the TSC
 * and the LAPIC timer move meanwhile. Under QEMU with -icount the TSC advances one tick per guest
 * instruction, so the same code then measures instructions: that is what `make bench` relies on.
 */
#include "kernel/time.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/events/perf_event.h"
#include "kernel/smp.h"
#include "arch/x86/trace/irq_vectors.h"

#define PIT_HZ 1193182UL
#define CALIBRATE_MS 10

volatile u64 jiffies;
u64 tsc_khz;
/* Not static: function_graph's return path (arch/x86/ftrace_fast.asm) converts with them too. */
u64 tsc_base;
u64 ns_mult; /* ns = cycles * ns_mult >> 32 */

static void pit_gate_start(u16 count)
{
	outb(0x61, (inb(0x61) & ~0x02) | 0x01); /* gate on, speaker off */
	outb(0x43, 0xb0);			/* channel 2, lo/hi byte, mode 0: one-shot */
	outb(0x42, count & 0xff);
	outb(0x42, count >> 8);
}

static bool pit_gate_done(void)
{
	return inb(0x61) & 0x20; /* OUT2 goes high when the count reaches zero */
}

void tsc_calibrate(void)
{
	u16 count = PIT_HZ * CALIBRATE_MS / 1000;
	u64 t0, t1;
	u32 l0, l1;

	pit_gate_start(count);
	lapic_timer_start_oneshot_max();
	t0 = rdtsc();
	l0 = lapic_timer_current();
	while (!pit_gate_done())
		cpu_relax();
	t1 = rdtsc();
	l1 = lapic_timer_current();

	tsc_khz = (t1 - t0) / CALIBRATE_MS;
	lapic_timer_ticks_per_sec = (l0 - l1) * (1000 / CALIBRATE_MS);
	ns_mult = (1000000ULL << 32) / tsc_khz;
	tsc_base = t0;
	pr_info("tsc: %llu.%03llu MHz, lapic timer %u Hz (divide by 16)\n", tsc_khz / 1000,
		tsc_khz % 1000, lapic_timer_ticks_per_sec);
}

notrace u64 tsc_to_ns(u64 cycles)
{
	return (u64)(((unsigned __int128)cycles * ns_mult) >> 32);
}

/* The time since boot at which the TSC read `tsc`: what the trace prints for a raw stamp. */
notrace u64 tsc_to_ktime(u64 tsc)
{
	return tsc > tsc_base ? tsc_to_ns(tsc - tsc_base) : 0;
}

notrace u64 ktime_get_ns(void)
{
	if (!ns_mult)
		return 0;
	return tsc_to_ns(rdtsc() - tsc_base);
}

void udelay(unsigned long us)
{
	u64 end = rdtsc() + us * tsc_khz / 1000;
	while (rdtsc() < end)
		cpu_relax();
}

static void timer_tick(struct pt_regs *regs)
{
	struct percpu *c = this_cpu();

	trace_local_timer_entry(TIMER_VECTOR);
	if (c->cpu == 0)
		jiffies++;
	c->ticks++;
	if (unlikely(READ_ONCE(perf_sw_events)))
		perf_sw_timer_tick(regs);
	account_process_tick(c->curr, user_mode(regs));
	scheduler_tick();
	trace_local_timer_exit(TIMER_VECTOR);
}

void timer_init(void)
{
	set_irq_handler(TIMER_VECTOR, timer_tick);
	lapic_timer_init(HZ);
}
