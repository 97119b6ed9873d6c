/* Kretprobes: a handler when a function returns. At entry (a kprobe on the function's first
 * byte) the return address on the stack is swapped for kretprobe_trampoline, as function_graph
 * swaps it for return_to_handler; the real one waits in an instance on the task's list.
 *
 *   entry:  [sp] = caller+N   ->  [sp] = kretprobe_trampoline;  ri{ret_addr = caller+N, frame = sp}
 *   return: ret lands in the trampoline -> kretprobe_trampoline_handler(regs): pop ri, handler,
 *           and jump to ri->ret_addr
 *
 * Instances come from a pool of maxactive per kretprobe: a call made while all are in use is
 * not watched (nmissed). The pool (kretprobe_holder) outlives its kretprobe while calls that
 * began before the unregister are still open: they return normally, without the handler.
 */
#include "kernel/kprobes_internal.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/spinlock.h"
#include "lib/errno.h"

#define KRETPROBE_MAXACTIVE_MAX 4096

struct kretprobe_holder {
	struct kretprobe *rp; /* NULL once unregistered */
	spinlock_t lock;
	struct kretprobe_instance *free;
	int nr_out; /* instances on some task's list */
	bool dead;  /* the pool is being freed: returning instances are freed too */
};

extern char kretprobe_trampoline[]; /* arch/x86/kprobes/trampoline.asm */

/* A site that is "running" while a return handler runs, so a probe hit inside it is missed. */
static struct kprobe_site kretprobe_running_site;

static struct kretprobe_instance *get_instance(struct kretprobe_holder *rph)
{
	struct kretprobe_instance *ri;

	spin_lock(&rph->lock);
	ri = rph->free;
	if (ri) {
		rph->free = ri->next;
		rph->nr_out++;
	}
	spin_unlock(&rph->lock);
	return ri;
}

/* Back to the pool; or, once the pool is dead, freed (with the pool, by the last one out). */
static void put_instance(struct kretprobe_instance *ri)
{
	struct kretprobe_holder *rph = ri->rph;
	bool free_holder;

	spin_lock(&rph->lock);
	rph->nr_out--;
	if (!rph->dead) {
		ri->next = rph->free;
		rph->free = ri;
		ri = NULL;
	}
	free_holder = rph->dead && !rph->nr_out;
	spin_unlock(&rph->lock);
	kfree(ri);
	if (free_holder)
		kfree(rph);
}

/* The kprobe at the function's entry. regs->sp points at the return address. */
int pre_handler_kretprobe(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri = get_instance(rp->rph);
	struct task *t = current;

	if (!ri) {
		__atomic_add_fetch(&rp->nmissed, 1, __ATOMIC_RELAXED);
		return 0;
	}
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		put_instance(ri);
		return 0;
	}
	ri->frame = (unsigned long *)regs->sp;
	ri->ret_addr = *ri->frame;
	*ri->frame = (unsigned long)kretprobe_trampoline;
	/* Interrupts are off: an interrupt's own calls push and pop above us, never between. */
	ri->next = t->kretprobe_instances;
	t->kretprobe_instances = ri;
	return 0;
}

/* Called by kretprobe_trampoline with the registers as the function returned them. */
unsigned long kretprobe_trampoline_handler(struct pt_regs *regs)
{
	unsigned long flags = local_irq_save(), ret;
	struct task *t = current;
	struct kretprobe_instance *ri = t->kretprobe_instances;
	struct kretprobe *rp;

	/* ret popped the slot: it was just below where sp is now. */
	if (!ri || ri->frame != (unsigned long *)regs->sp - 1)
		panic("kretprobe: return to the trampoline with no instance for frame %lx",
		      regs->sp - 8);
	t->kretprobe_instances = ri->next;
	ret = ri->ret_addr;
	rp = READ_ONCE(ri->rph->rp);
	if (rp && rp->handler && !kprobe_running()) {
		regs->ip = ret; /* as Linux: the handler sees where the function returns to */
		kprobe_set_current(&kretprobe_running_site, KPROBE_HIT_ACTIVE);
		rp->handler(ri, regs);
		kprobe_set_current(NULL, KPROBE_HIT_SSDONE);
	}
	put_instance(ri);
	local_irq_restore(flags);
	return ret;
}

/* A task that ends inside watched calls never returns through them: give the instances back. */
void kretprobe_flush_task(struct task *t)
{
	unsigned long flags = local_irq_save();
	struct kretprobe_instance *ri = t->kretprobe_instances, *next;

	t->kretprobe_instances = NULL;
	for (; ri; ri = next) {
		next = ri->next;
		put_instance(ri);
	}
	local_irq_restore(flags);
}

static struct kretprobe_holder *alloc_holder(struct kretprobe *rp)
{
	struct kretprobe_holder *rph = kzalloc(sizeof(*rph));

	if (!rph)
		return NULL;
	spin_lock_init(&rph->lock);
	rph->rp = rp;
	for (int i = 0; i < rp->maxactive; i++) {
		struct kretprobe_instance *ri = kzalloc(sizeof(*ri) + rp->data_size);
		if (!ri) {
			for (ri = rph->free; ri; ri = rph->free) {
				rph->free = ri->next;
				kfree(ri);
			}
			kfree(rph);
			return NULL;
		}
		ri->rph = rph;
		ri->next = rph->free;
		rph->free = ri;
	}
	return rph;
}

/* Frees the idle instances, and the pool itself unless calls are still open (then the last
 * of them frees it). Exactly one of the two frees the holder. */
static void kretprobe_free_pool(struct kretprobe_holder *rph)
{
	struct kretprobe_instance *ri, *next;
	unsigned long flags = spin_lock_irqsave(&rph->lock);
	bool free_holder;

	rph->dead = true;
	ri = rph->free;
	rph->free = NULL;
	free_holder = !rph->nr_out;
	spin_unlock_irqrestore(&rph->lock, flags);
	for (; ri; ri = next) {
		next = ri->next;
		kfree(ri);
	}
	if (free_holder)
		kfree(rph);
}

/* --- the return hook without a kprobe (Linux's rethook, which fprobes use) ------------------ */

int kretprobe_alloc_pool(struct kretprobe *rp)
{
	if (rp->maxactive <= 0)
		rp->maxactive = MAX(10, 2 * num_online_cpus());
	if (rp->maxactive > KRETPROBE_MAXACTIVE_MAX)
		return -E2BIG;
	rp->nmissed = 0;
	rp->rph = alloc_holder(rp);
	return rp->rph ? 0 : -ENOMEM;
}

struct kretprobe_instance *kretprobe_hook_return(struct kretprobe *rp, struct pt_regs *regs)
{
	struct kretprobe_instance *ri;

	pre_handler_kretprobe(&rp->kp, regs);
	ri = current ? current->kretprobe_instances : NULL;
	/* the instance is ours if it now sits on this very frame */
	return ri && ri->frame == (unsigned long *)regs->sp && ri->rph == rp->rph ? ri : NULL;
}

struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return READ_ONCE(ri->rph->rp);
}

void kretprobe_release_pool(struct kretprobe *rp)
{
	if (!rp->rph)
		return;
	WRITE_ONCE(rp->rph->rp, NULL);
	kprobes_synchronize(); /* no return handler can still see rp */
	kretprobe_free_pool(rp->rph);
	rp->rph = NULL;
}

int register_kretprobe(struct kretprobe *rp)
{
	unsigned long addr, off = 1;
	int err;

	if (rp->kp.symbol_name)
		addr = kallsyms_lookup_name(rp->kp.symbol_name);
	else
		addr = (unsigned long)rp->kp.addr;
	if (!addr)
		return -ENOENT;
	if (!kallsyms_lookup(addr + rp->kp.offset, NULL, &off) || off)
		return -EINVAL; /* only at a function's first byte */
	err = kretprobe_alloc_pool(rp);
	if (err)
		return err;
	rp->kp.pre_handler = pre_handler_kretprobe;
	rp->kp.post_handler = NULL;
	err = register_kprobe(&rp->kp);
	if (err) {
		rp->rph->rp = NULL;
		kretprobe_free_pool(rp->rph);
		rp->rph = NULL;
	}
	return err;
}

void unregister_kretprobe(struct kretprobe *rp)
{
	if (!rp->rph)
		return;
	unregister_kprobe(&rp->kp); /* no entry handler runs after this */
	kretprobe_release_pool(rp);
}
