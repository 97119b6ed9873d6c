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

enum multi_stop_state { MULTI_STOP_NONE, MULTI_STOP_PREPARE, MULTI_STOP_DISABLE_IRQ,
			MULTI_STOP_RUN, MULTI_STOP_EXIT };

struct multi_stop_data {
	int (*fn)(void *);
	void *data;
	int active_cpu;
	int num_cpus;
	volatile int state;
	volatile int thread_ack; /* CPUs still to acknowledge the current state */
	volatile int nr_inside;  /* CPUs not yet done with this struct (it is on the caller's stack) */
	int ret, runs;
};

int stop_machine_last_cpus, stop_machine_last_runs;
static DEFINE_SPINLOCK(stop_lock);

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
		ack_state(msdata);
	} while (curstate != MULTI_STOP_EXIT);
	sync_core();
	__atomic_sub_fetch(&msdata->nr_inside, 1, __ATOMIC_RELEASE); /* last touch of msdata */
	local_irq_restore(flags);
}

int stop_machine(int (*fn)(void *), void *data)
{
	struct multi_stop_data msdata = { .fn = fn, .data = data };

	spin_lock(&stop_lock);
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
	stop_machine_last_cpus = msdata.num_cpus;
	stop_machine_last_runs = msdata.runs;
	spin_unlock(&stop_lock);
	return msdata.ret;
}
