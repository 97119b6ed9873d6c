/* Making other CPUs do things: function-call IPIs (interrupts on), NMI calls (even with them off).
 *
 * Each CPU has one mailbox per kind. A sender takes call_lock, fills the target's mailbox, sends
 * the IPI and waits until the target marks it done, so one mailbox per CPU is enough.
 *
 *   pending: 2 posted -> 1 taken (fn and info copied) -> 0 done
 */
#include "kernel/smp.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/spinlock.h"
#include "arch/x86/trace/irq_vectors.h"
#include "kernel/trace/events/ipi.h"

struct call_mailbox {
	void (*fn)(void *info);
	void *info;
	volatile int pending;
};

static struct call_mailbox ipi_box[NR_CPUS], nmi_box[NR_CPUS];
static DEFINE_SPINLOCK(call_lock);
static volatile bool stopping;

static void mailbox_run(struct call_mailbox *box)
{
	void (*fn)(void *) = box->fn;
	void *info = box->info;

	if (box->pending != 2)
		return;
	__atomic_store_n(&box->pending, 1, __ATOMIC_RELEASE);
	fn(info);
	__atomic_store_n(&box->pending, 0, __ATOMIC_RELEASE);
}

/* What each kind of IPI is called in the ipi events (arm64's names in /proc/interrupts). */
static const char ipi_resched[] = "Rescheduling interrupts";
static const char ipi_call[] = "Function call interrupts";
static const char ipi_call_single[] = "Single function call interrupts";
static const char ipi_nmi[] = "Non-maskable interrupts";
/* The events store these by address: printk_formats tells a raw-page reader what they say. */
static const char *const ipi_strings[] __tracepoint_string = { ipi_resched, ipi_call,
							       ipi_call_single, ipi_nmi };

/* Both function-call vectors run this CPU's one mailbox; reason tells the ipi events which. */
static void ipi_mailbox_run(const char *reason)
{
	trace_ipi_entry(reason);
	mailbox_run(&ipi_box[smp_processor_id()]);
	trace_ipi_exit(reason);
}

static void call_function_interrupt(struct pt_regs *regs)
{
	trace_call_function_entry(CALL_FUNCTION_VECTOR);
	ipi_mailbox_run(ipi_call);
	trace_call_function_exit(CALL_FUNCTION_VECTOR);
}

/* The same mailbox; a vector of its own so the trace tells one target from many, as Linux's. */
static void call_function_single_interrupt(struct pt_regs *regs)
{
	trace_call_function_single_entry(CALL_FUNCTION_SINGLE_VECTOR);
	ipi_mailbox_run(ipi_call_single);
	trace_call_function_single_exit(CALL_FUNCTION_SINGLE_VECTOR);
}

static void reschedule_interrupt(struct pt_regs *regs)
{
	trace_reschedule_entry(RESCHEDULE_VECTOR);
	trace_ipi_entry(ipi_resched);
	set_need_resched(); /* acted on when the interrupt returns */
	trace_ipi_exit(ipi_resched);
	trace_reschedule_exit(RESCHEDULE_VECTOR);
}

/* Called by the NMI handler: a stop request, or a mailbox with work. */
bool smp_nmi_handler(struct pt_regs *regs)
{
	struct call_mailbox *box = &nmi_box[smp_processor_id()];

	if (stopping) {
		local_irq_disable();
		for (;;)
			halt();
	}
	if (box->pending != 2)
		return false;
	mailbox_run(box);
	return true;
}

static void post(struct call_mailbox *box, int cpu, void (*fn)(void *), void *info, u32 mode)
{
	/* A call posted without waiting may still be running there: its `done` must not land on
	 * top of our request, so the mailbox has to be empty first. */
	while (__atomic_load_n(&box->pending, __ATOMIC_ACQUIRE))
		cpu_relax();
	box->fn = fn;
	box->info = info;
	__atomic_store_n(&box->pending, 2, __ATOMIC_RELEASE);
	lapic_send_ipi(percpu_area[cpu].apic_id, mode);
}

static void wait_box(struct call_mailbox *box, bool wait)
{
	while (__atomic_load_n(&box->pending, __ATOMIC_ACQUIRE) > (wait ? 0 : 1))
		cpu_relax();
}

/*
 * The sender keeps interrupts on while it waits for call_lock: a CPU that holds the lock may be
 * waiting for us to answer its IPI.
 */
static void call_many(struct call_mailbox *boxes, u32 mode, const char *reason, int only,
		      void (*fn)(void *), void *info, bool wait)
{
	unsigned long targets = 0;
	int self, cpu;

	spin_lock(&call_lock);
	self = smp_processor_id();
	for_each_online_cpu(cpu)
		if (cpu != self && (only < 0 || cpu == only))
			targets |= 1UL << cpu;
	if (targets)
		trace_ipi_raise(targets, reason);
	for_each_online_cpu(cpu)
		if (cpu != self && (only < 0 || cpu == only))
			post(&boxes[cpu], cpu, fn, info, mode);
	for_each_online_cpu(cpu)
		if (cpu != self && (only < 0 || cpu == only))
			wait_box(&boxes[cpu], wait);
	spin_unlock(&call_lock);
}

void smp_call_function(void (*fn)(void *info), void *info, bool wait)
{
	call_many(ipi_box, ICR_FIXED | CALL_FUNCTION_VECTOR, ipi_call, -1, fn, info, wait);
}

void smp_call_function_single(int cpu, void (*fn)(void *info), void *info, bool wait)
{
	if (cpu == smp_processor_id()) {
		unsigned long flags = local_irq_save();
		fn(info);
		local_irq_restore(flags);
		return;
	}
	call_many(ipi_box, ICR_FIXED | CALL_FUNCTION_SINGLE_VECTOR, ipi_call_single, cpu, fn, info,
		  wait);
}

/* The NMI path: reaches a CPU even while it runs with interrupts disabled. */
void nmi_call_function(void (*fn)(void *info), void *info)
{
	call_many(nmi_box, ICR_NMI, ipi_nmi, -1, fn, info, true);
}

/* The serializing instruction x86 asks for after cross-modifying code (see text_poke_bp.c). */
static void do_sync_core(void *info)
{
	sync_core();
}

unsigned long sync_core_rounds;

void sync_core_all(void)
{
	__atomic_add_fetch(&sync_core_rounds, 1, __ATOMIC_RELAXED);
	do_sync_core(NULL);
	if (num_online_cpus() > 1)
		smp_call_function(do_sync_core, NULL, true);
}

void smp_send_reschedule(int cpu)
{
	if (cpu != smp_processor_id() && cpu_online(cpu)) {
		trace_ipi_raise(1UL << cpu, ipi_resched);
		lapic_send_ipi(percpu_area[cpu].apic_id, ICR_FIXED | RESCHEDULE_VECTOR);
	}
}

void smp_send_stop(void)
{
	int cpu, self = smp_processor_id();

	stopping = true;
	for_each_online_cpu(cpu)
		if (cpu != self)
			lapic_send_ipi(percpu_area[cpu].apic_id, ICR_NMI);
}

void smp_ipi_init(void)
{
	set_irq_handler(CALL_FUNCTION_VECTOR, call_function_interrupt);
	set_irq_handler(CALL_FUNCTION_SINGLE_VECTOR, call_function_single_interrupt);
	set_irq_handler(RESCHEDULE_VECTOR, reschedule_interrupt);
}
