/* stop_machine: every online CPU walks the same states in lock step; only one runs the function.
 *
 *   state:   PREPARE -> DISABLE_IRQ -> RUN -> EXIT
 *   each CPU acknowledges the state it is in; the last to acknowledge moves everyone on.
 *
 *   CPU0 (caller)       CPU1                 CPU2
 *   IPI others -------> enter (in the IPI)   enter
 *   ack PREPARE         ack PREPARE          ack PREPARE      -> DISABLE_IRQ
 *   irqs off, ack       (already off) ack    ack              -> RUN
 *   fn(data), ack       spin, ack            spin, ack        -> EXIT
 *   sync_core           sync_core            sync_core          leave
 *
 * The other CPUs wait inside the call-function IPI, so they are not in the middle of any code the
 * function changes; sync_core makes each refetch instructions before it runs kernel code again.
 */
#include "kernel/stop_machine.h"
#include "arch/x86/cpu.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "arch/x86/traps.h"
#include "lib/string.h"

enum multi_stop_state {
	MULTI_STOP_NONE,
	MULTI_STOP_PREPARE,
	MULTI_STOP_DISABLE_IRQ,
	MULTI_STOP_RUN,
	MULTI_STOP_EXIT
};

struct multi_stop_data {
	int (*fn)(void *);
	void *data;
	int active_cpu;
	int num_cpus;
	volatile int state;
	volatile int thread_ack; /* CPUs still to acknowledge the current state */
	volatile int
		nr_inside; /* CPUs not yet done with this struct (it is on the caller's stack) */
	int ret, runs;
	u64 t0;
	volatile int arrivals;
	struct stop_machine_cpu cpu[NR_CPUS]; /* each CPU writes only its own */
};

struct stop_machine_record stop_machine_last;
unsigned long stop_machine_count;
static DEFINE_SPINLOCK(stop_lock);

/* Notes when this CPU acknowledged `state`: the record patch_step shows. */
static void note_ack(struct multi_stop_data *msdata, int state)
{
	struct stop_machine_cpu *me = &msdata->cpu[smp_processor_id()];

	me->ack[state - MULTI_STOP_PREPARE] = rdtsc() - msdata->t0;
	if (state == MULTI_STOP_PREPARE)
		me->arrived = __atomic_add_fetch(&msdata->arrivals, 1, __ATOMIC_RELAXED);
}

static void ack_state(struct multi_stop_data *msdata)
{
	/* The last CPU to acknowledge re-arms the count and moves everyone to the next state. */
	if (__atomic_sub_fetch(&msdata->thread_ack, 1, __ATOMIC_ACQ_REL) == 0) {
		msdata->thread_ack = msdata->num_cpus;
		__atomic_store_n(&msdata->state, msdata->state + 1, __ATOMIC_RELEASE);
	}
}

static void multi_cpu_stop(void *arg)
{
	struct multi_stop_data *msdata = arg;
	int curstate = MULTI_STOP_NONE;
	unsigned long flags = local_irq_save();
	struct pt_regs *regs = get_irq_regs();

	if (regs) /* gathered by the IPI: stopped where it came in */
		msdata->cpu[smp_processor_id()].stopped_at = regs->ip;

	do {
		cpu_relax();
		int newstate = __atomic_load_n(&msdata->state, __ATOMIC_ACQUIRE);
		if (newstate == curstate)
			continue;
		curstate = newstate;
		if (curstate == MULTI_STOP_RUN && smp_processor_id() == msdata->active_cpu) {
			msdata->ret = msdata->fn(msdata->data);
			msdata->runs++;
		}
		note_ack(msdata, curstate);
		ack_state(msdata);
	} while (curstate != MULTI_STOP_EXIT);
	sync_core();
	__atomic_sub_fetch(&msdata->nr_inside, 1, __ATOMIC_RELEASE); /* last touch of msdata */
	local_irq_restore(flags);
}

static void record(const struct multi_stop_data *msdata)
{
	stop_machine_last.num_cpus = msdata->num_cpus;
	stop_machine_last.active_cpu = msdata->active_cpu;
	stop_machine_last.runs = msdata->runs;
	memcpy(stop_machine_last.cpu, msdata->cpu, sizeof(msdata->cpu));
}

int stop_machine(int (*fn)(void *), void *data)
{
	struct multi_stop_data msdata = { .fn = fn, .data = data };

	msdata.cpu[smp_processor_id()].stopped_at = (unsigned long)__builtin_return_address(0);
	spin_lock(&stop_lock);
	msdata.t0 = rdtsc();
	msdata.active_cpu = smp_processor_id();
	msdata.num_cpus = num_online_cpus();
	msdata.thread_ack = msdata.num_cpus;
	msdata.nr_inside = msdata.num_cpus;
	__atomic_store_n(&msdata.state, MULTI_STOP_PREPARE, __ATOMIC_RELEASE);
	/* Gather the others (they start spinning in multi_cpu_stop), then join them. */
	if (msdata.num_cpus > 1)
		smp_call_function(multi_cpu_stop, &msdata, false);
	multi_cpu_stop(&msdata);
	/* msdata lives on this stack: return only when no other CPU can still read it. */
	while (__atomic_load_n(&msdata.nr_inside, __ATOMIC_ACQUIRE))
		cpu_relax();
	record(&msdata);
	stop_machine_count++;
	spin_unlock(&stop_lock);
	return msdata.ret;
}
