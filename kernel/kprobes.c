/* Kprobes, the part that knows no instruction set: the table of probed sites, registration
 * (where, and whether, a probe may go), arming and disarming, and the handler lists.
 *
 *   kprobe_table[hash(addr)] -> site -> site ...      read with interrupts off, no lock
 *   site: addr, opcode, how to replay, armed?  -> probes: p1 -> p2 (run in this order)
 *
 * Who may be probed: an instruction boundary inside a function ftrace knows (one that starts
 * with `call __fentry__`). The others are notrace: the tracer, the patcher, the exception entry
 * path, lib/, kprobes itself; probing them would trap inside the code that handles the trap.
 * Offset 0 is the fentry site itself: those probes ride on ftrace (arch/x86/kprobes/ftrace.c).
 */
#include "kernel/kprobes_internal.h"
#include "kernel/locking/mutex.h"
#include "kernel/jump_label.h"
#include "kernel/fs/tracefs.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "kernel/smp.h"
#include "kernel/trace/ftrace.h"
#include "lib/errno.h"
#include "lib/hash.h"
#include "lib/string.h"

#define KPROBE_HASH_BITS 6

static struct kprobe_site *kprobe_table[1 << KPROBE_HASH_BITS];
/* Every change to the table, a site's list or its armed state. A mutex: arming a site patches
 * code, which waits for other CPUs. */
DEFINE_MUTEX(kprobe_mutex);
/* kprobes/enabled written 0: every probe stays registered, none is armed (Linux's name). */
bool kprobes_all_disarmed;
static struct text_patch_batch kprobe_batch = { .client = "kprobe" };

/* Probes with a post handler move ip (to the "stepped" NOP), hence IPMODIFY: as on Linux, only
 * those clash with a livepatch of the same function. */
static struct ftrace_ops kprobe_ftrace_ops = {
	.func = kprobe_ftrace_handler,
	.name = "kprobe_ftrace_ops",
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};
static struct ftrace_ops kprobe_ipmodify_ops = {
	.func = kprobe_ftrace_handler,
	.name = "kprobe_ipmodify_ops",
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};
static int kprobe_ftrace_enabled, kprobe_ipmodify_enabled;

/* --- the table, read by the handlers --------------------------------------------------------- */

struct kprobe_site *kprobe_site_lookup(const void *addr)
{
	struct kprobe_site *s =
		__atomic_load_n(&kprobe_table[hash_ptr(addr, KPROBE_HASH_BITS)], __ATOMIC_ACQUIRE);

	for (; s; s = __atomic_load_n(&s->hnext, __ATOMIC_ACQUIRE))
		if (s->addr == addr)
			return s;
	return NULL;
}

struct kprobe *get_kprobe(const void *addr)
{
	struct kprobe_site *s = kprobe_site_lookup(addr);

	return s ? s->probes : NULL;
}

#define for_each_site_probe(p, s)                                                                  \
	for (p = __atomic_load_n(&(s)->probes, __ATOMIC_ACQUIRE); p;                               \
	     p = __atomic_load_n(&p->next_at_site, __ATOMIC_ACQUIRE))

int kprobe_run_pre_handlers(struct kprobe_site *s, struct pt_regs *regs)
{
	struct kprobe *p;

	for_each_site_probe(p, s) if (!kprobe_disabled(p) && p->pre_handler &&
				      p->pre_handler(p, regs)) return 1;
	return 0;
}

void kprobe_run_post_handlers(struct kprobe_site *s, struct pt_regs *regs)
{
	struct kprobe *p;

	for_each_site_probe(p, s) if (!kprobe_disabled(p) && p->post_handler)
		p->post_handler(p, regs, 0);
}

void kprobe_site_missed(struct kprobe_site *s)
{
	struct kprobe *p;

	for_each_site_probe(p, s) if (!kprobe_disabled(p))
		__atomic_add_fetch(&p->nmissed, 1, __ATOMIC_RELAXED);
}

/* The optimized site whose jmp's rel32 covers addr, or NULL: at most 4 bytes back. */
static struct kprobe_site *jmp_covering(unsigned long addr)
{
	for (int back = 1; back < JMP32_INSN_SIZE; back++) {
		struct kprobe_site *s = kprobe_site_lookup((void *)(addr - back));

		if (s && READ_ONCE(s->opt_state) == KPROBE_OPT_JUMP)
			return s;
	}
	return NULL;
}

bool kprobe_text_poked(unsigned long addr, u8 *orig_byte)
{
	struct kprobe_site *s = kprobe_site_lookup((void *)addr);

	if (!s) {
		s = jmp_covering(addr);
		if (!s)
			return false;
		if (orig_byte)
			*orig_byte = s->optinsn.copied_insn[addr - (unsigned long)s->addr - 1];
		return true;
	}
	if (s->ftrace || !s->armed)
		return false;
	if (orig_byte)
		*orig_byte = s->opcode;
	return true;
}

void kprobe_for_each_site(void (*fn)(struct kprobe_site *s, void *arg), void *arg)
{
	for (int i = 0; i < (1 << KPROBE_HASH_BITS); i++)
		for (struct kprobe_site *s = kprobe_table[i], *next; s; s = next) {
			next = s->hnext;
			fn(s, arg);
		}
}

static void sync_noop(void *unused)
{
}

/* Handlers and steps run with interrupts off (the int3 gate, the single step, our ftrace
 * callback): once every other CPU has taken an IPI, none is still inside one that began before. */
void kprobes_synchronize(void)
{
	smp_call_function(sync_noop, NULL, true);
}

/* --- where a probe may go ------------------------------------------------------------------- */

/* n bytes of text at addr as the compiler left them: our own int3s and jmps replaced by what
 * they cover. */
void kprobe_read_orig(unsigned long addr, u8 *buf, int n)
{
	memcpy(buf, (const void *)addr, n);
	for (int i = 0; i < n; i++)
		kprobe_text_poked(addr + i, &buf[i]);
}

/*
 * Checks addr and fills s (addr, opcode, original instruction, ftrace or not); 0 or -errno as
 * register_kprobe() documents. Called with text_mutex held, so no batch is half-way through a
 * site (whose first byte would read as int3) while we decode.
 */
static int check_site(struct kprobe_site *s, unsigned long addr, const char **why)
{
	unsigned long size, off, pos, func, end;
	struct insn in;
	u8 buf[MAX_INSN_SIZE];

	if (!is_kernel_text(addr) || !kallsyms_lookup(addr, &size, &off)) {
		*why = "not in kernel text";
		return -ENOENT;
	}
	func = addr - off;
	end = func + size;
	if (!ftrace_lookup_ip(func)) {
		*why = "notrace code (no fentry site): kprobes' own, the tracer's, entry or lib";
		return -EINVAL;
	}
	if (jump_label_lookup(addr)) {
		*why = "a jump label site";
		return -EBUSY;
	}
	s->addr = (kprobe_opcode_t *)addr;
	s->ftrace = off == 0;
	if (s->ftrace && FTRACE_STATIC) {
		*why = "offset 0 rides on ftrace, which needs dynamic ftrace (this is the static "
		       "build)";
		return -EBUSY;
	}
	if (s->ftrace)
		return 0;
	for (pos = func + MCOUNT_INSN_SIZE; pos < addr; pos += in.length) {
		kprobe_read_orig(pos, buf, MIN((unsigned long)MAX_INSN_SIZE, end - pos));
		if (insn_decode(&in, buf, MIN((unsigned long)MAX_INSN_SIZE, end - pos)))
			break;
	}
	if (pos != addr) {
		*why = "not an instruction boundary";
		return -EILSEQ;
	}
	kprobe_read_orig(addr, s->ainsn.insn, MIN((unsigned long)MAX_INSN_SIZE, end - addr));
	s->opcode = s->ainsn.insn[0];
	return arch_prepare_kprobe(s, why);
}

/* --- arming ------------------------------------------------------------------------------------ */

static void kprobe_mismatch(const struct text_poke_loc *tp, const u8 *actual, void *cookie)
{
	pr_err("kprobe bug: %pS holds %02x, expected %02x: not changed\n", tp->addr, actual[0],
	       tp->old[0]);
}

static int arm_ftrace_site(struct kprobe_site *s)
{
	struct kprobe *p;
	bool ipmodify = false;
	int *count, err;

	for (p = s->probes; p; p = p->next_at_site)
		ipmodify |= p->post_handler != NULL;
	s->ops = ipmodify ? &kprobe_ipmodify_ops : &kprobe_ftrace_ops;
	count = ipmodify ? &kprobe_ipmodify_enabled : &kprobe_ftrace_enabled;
	err = ftrace_set_filter_ip(s->ops, (unsigned long)s->addr, false, false);
	if (err)
		return err;
	if (*count == 0) {
		err = register_ftrace_function(s->ops);
		if (err) {
			ftrace_set_filter_ip(s->ops, (unsigned long)s->addr, true, false);
			return err == -ENODEV ? -EBUSY : err;
		}
	}
	(*count)++;
	return 0;
}

static void disarm_ftrace_site(struct kprobe_site *s)
{
	int *count =
		s->ops == &kprobe_ipmodify_ops ? &kprobe_ipmodify_enabled : &kprobe_ftrace_enabled;

	/* Unregister before the last ip leaves the filter: an empty filter means every function. */
	if (--(*count) == 0 && unregister_ftrace_function(s->ops)) {
		/* Still registered (ftrace died, or refused): the ops stays counted as such. */
		(*count)++;
		pr_warn("kprobes: %pS stays on ftrace: unregister failed\n", s->addr);
		return;
	}
	/* The removal copies the filter: when that fails the ip stays in an unused filter, and
	 * arming the site again finds it there. */
	if (ftrace_set_filter_ip(s->ops, (unsigned long)s->addr, true, false))
		pr_warn("kprobes: %pS stays in the ftrace filter: no memory\n", s->addr);
}

/* The int3 goes in (or out) through the shared patcher, which checks the byte it replaces. */
static int poke_site(struct kprobe_site *s, bool arm)
{
	static const u8 int3 = INT3_INSN_OPCODE;
	int err;

	kprobe_batch.mismatch = kprobe_mismatch;
	err = text_patch_begin(&kprobe_batch);
	if (err)
		return err; /* -EBUSY: patch_step holds a batch */
	err = text_patch_queue(&kprobe_batch, s->addr, arm ? &s->opcode : &int3,
			       arm ? &int3 : &s->opcode, 1, s);
	text_patch_commit(&kprobe_batch);
	return err ? -EBUSY : 0;
}

static int arm_site(struct kprobe_site *s)
{
	int err;

	if (s->armed || kprobes_all_disarmed)
		return 0;
	err = s->ftrace ? arm_ftrace_site(s) : poke_site(s, true);
	if (!err) {
		s->armed = true;
		kprobe_opt_check(s);
	}
	return err;
}

static void disarm_site(struct kprobe_site *s)
{
	if (!s->armed)
		return;
	kprobe_unoptimize(s);
	if (s->ftrace)
		disarm_ftrace_site(s);
	else
		poke_site(s, false);
	s->armed = false;
}

static bool site_wanted(const struct kprobe_site *s)
{
	for (const struct kprobe *p = s->probes; p; p = p->next_at_site)
		if (!kprobe_disabled(p))
			return true;
	return false;
}

/* --- registration ------------------------------------------------------------------------------ */

static int resolve(struct kprobe *p, unsigned long *addr)
{
	if (p->symbol_name) {
		*addr = kallsyms_lookup_name(p->symbol_name);
		if (!*addr)
			return -ENOENT;
		/* Both given: only if they agree (a probe registered once before has its addr). */
		if (p->addr && (unsigned long)p->addr != *addr + p->offset)
			return -EINVAL;
	} else if (p->addr) {
		*addr = (unsigned long)p->addr;
	} else {
		return -EINVAL;
	}
	*addr += p->offset;
	return 0;
}

/* A new site for addr, checked and prepared, not yet in the table; NULL and *err if refused. */
static struct kprobe_site *new_site(unsigned long addr, int *err)
{
	struct kprobe_site *s = kzalloc(sizeof(*s));
	const char *why = NULL;

	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = text_patch_begin(&kprobe_batch); /* only for text_mutex: nothing is queued */
	if (*err) {
		kfree(s);
		return NULL;
	}
	*err = check_site(s, addr, &why);
	text_patch_commit(&kprobe_batch);
	if (*err) {
		pr_debug("kprobes: %pS refused: %s\n", (void *)addr, why);
		kfree(s);
		return NULL;
	}
	return s;
}

/* The pre handler of a site's walk probe: the site's armed probes, as an int3 hit runs them. */
static int kprobe_walk_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	return kprobe_run_pre_handlers(container_of(p, struct kprobe_site, walk), regs);
}

/* s->only after any change to s's probes or to their states (kprobe_mutex held). A hit that
 * read the old value may still call that probe once, as a hit that read its flags could; an
 * unregistered probe is waited out (kprobes_synchronize()) before it can go. */
static void update_only_probe(struct kprobe_site *s)
{
	struct kprobe *p = s->probes;

	s->walk.pre_handler = kprobe_walk_pre_handler;
	WRITE_ONCE(s->only,
		   p && !p->next_at_site && !kprobe_disabled(p) && p->pre_handler ? p : &s->walk);
}

static void add_probe(struct kprobe_site *s, struct kprobe *p)
{
	struct kprobe **tail = &s->probes;

	while (*tail)
		tail = &(*tail)->next_at_site;
	p->next_at_site = NULL;
	p->site = s;
	__atomic_store_n(tail, p, __ATOMIC_RELEASE);
	update_only_probe(s);
}

int register_kprobe(struct kprobe *p)
{
	struct kprobe_site *s, **head;
	unsigned long addr;
	int err;

	if (p->site)
		return -EEXIST;
	err = resolve(p, &addr);
	if (err)
		return err;
	mutex_lock(&kprobe_mutex);
	s = kprobe_site_lookup((void *)addr);
	if (!s) {
		s = new_site(addr, &err);
		if (!s)
			goto out;
		/* Our int3 would land under another site's jmp: that one goes back to its int3, and
		 * stays one while we are inside its range (arch_optimized_range_busy()). */
		if (jmp_covering(addr))
			kprobe_unoptimize(jmp_covering(addr));
		head = &kprobe_table[hash_ptr(s->addr, KPROBE_HASH_BITS)];
		s->hnext = *head;
		__atomic_store_n(head, s, __ATOMIC_RELEASE);
	}
	if (p->post_handler)
		kprobe_unoptimize(s); /* a jump has no step for the post handler to follow */
	p->addr = s->addr;
	p->nmissed = 0;
	p->flags &= KPROBE_FLAG_DISABLED;
	if (s->ftrace)
		p->flags |= KPROBE_FLAG_FTRACE;
	add_probe(s, p);
	if (!kprobe_disabled(p)) {
		err = arm_site(s);
		if (err) {
			mutex_unlock(&kprobe_mutex);
			unregister_kprobe(p);
			return err;
		}
	}
	if (s->armed)
		kprobe_opt_check(s);
out:
	mutex_unlock(&kprobe_mutex);
	return err;
}

/* Takes s out of the table if no probe is left on it; true if it did (free after a sync). */
static bool unhash_if_empty(struct kprobe_site *s)
{
	struct kprobe_site **pp = &kprobe_table[hash_ptr(s->addr, KPROBE_HASH_BITS)];

	if (s->probes)
		return false;
	while (*pp != s)
		pp = &(*pp)->hnext;
	__atomic_store_n(pp, s->hnext, __ATOMIC_RELEASE);
	return true;
}

void unregister_kprobe(struct kprobe *p)
{
	struct kprobe_site *s = p->site;
	struct kprobe **pp;
	bool gone;

	if (!s)
		return;
	mutex_lock(&kprobe_mutex);
	for (pp = &s->probes; *pp != p; pp = &(*pp)->next_at_site)
		;
	/* p->next_at_site stays: a handler standing on p still finds the rest of the list. */
	__atomic_store_n(pp, p->next_at_site, __ATOMIC_RELEASE);
	update_only_probe(s);
	if (!site_wanted(s))
		disarm_site(s);
	else
		kprobe_opt_check(s);
	gone = unhash_if_empty(s);
	if (gone)
		kick_kprobe_candidates(); /* a site whose range held this one may optimize now */
	mutex_unlock(&kprobe_mutex);
	kprobes_synchronize();
	p->site = NULL;
	if (gone) {
		/* A task preempted in the buffer's copy of the range must leave it first. */
		if (s->optinsn.insn)
			synchronize_rcu_tasks();
		arch_remove_optimized_kprobe(s);
		arch_remove_kprobe(s);
		kfree(s);
	}
}

int enable_kprobe(struct kprobe *p)
{
	int err = 0;

	if (!p->site)
		return -EINVAL;
	mutex_lock(&kprobe_mutex);
	if (kprobe_disabled(p)) {
		p->flags &= ~KPROBE_FLAG_DISABLED;
		err = arm_site(p->site);
		if (err)
			p->flags |= KPROBE_FLAG_DISABLED;
		update_only_probe(p->site);
	}
	mutex_unlock(&kprobe_mutex);
	return err;
}

int disable_kprobe(struct kprobe *p)
{
	if (!p->site)
		return -EINVAL;
	mutex_lock(&kprobe_mutex);
	p->flags |= KPROBE_FLAG_DISABLED;
	update_only_probe(p->site);
	if (!site_wanted(p->site))
		disarm_site(p->site);
	mutex_unlock(&kprobe_mutex);
	return 0;
}

/* --- /sys/kernel/debug/kprobes/list ------------------------------------------------------------- */

/* Linux's report_probe(): address, k or r, symbol+offset, then the state in brackets. */
static void report_probe(struct seq_file *m, const struct kprobe *p)
{
	unsigned long off;
	const char *sym = kallsyms_lookup((unsigned long)p->addr, NULL, &off);

	seq_printf(m, "%016lx  %s  %s+0x%lx    %s%s%s\n", (unsigned long)p->addr,
		   p->pre_handler == pre_handler_kretprobe ? "r" : "k", sym ? sym : "?", off,
		   kprobe_disabled(p) ? "[DISABLED]" : "", kprobe_optimized(p) ? "[OPTIMIZED]" : "",
		   kprobe_ftrace(p) ? "[FTRACE]" : "");
}

void kprobes_list_show(struct seq_file *m)
{
	mutex_lock(&kprobe_mutex);
	for (int i = 0; i < (1 << KPROBE_HASH_BITS); i++)
		for (struct kprobe_site *s = kprobe_table[i]; s; s = s->hnext)
			for (struct kprobe *p = s->probes; p; p = p->next_at_site)
				report_probe(m, p);
	mutex_unlock(&kprobe_mutex);
}

/* kprobes/enabled: Linux's arm_all_kprobes() and disarm_all_kprobes(). Probes stay registered. */
int arm_all_kprobes(void)
{
	int err = 0;

	mutex_lock(&kprobe_mutex);
	kprobes_all_disarmed = false;
	for (int i = 0; i < (1 << KPROBE_HASH_BITS); i++)
		for (struct kprobe_site *s = kprobe_table[i]; s; s = s->hnext)
			if (site_wanted(s) && arm_site(s) && !err)
				err = -EBUSY;
	mutex_unlock(&kprobe_mutex);
	return err;
}

void disarm_all_kprobes(void)
{
	mutex_lock(&kprobe_mutex);
	kprobes_all_disarmed = true;
	for (int i = 0; i < (1 << KPROBE_HASH_BITS); i++)
		for (struct kprobe_site *s = kprobe_table[i]; s; s = s->hnext)
			disarm_site(s);
	mutex_unlock(&kprobe_mutex);
	kprobes_synchronize();
}

void kprobes_init(void)
{
	arch_kprobes_init();
	kprobes_files_init();
}
