/* Bringing the call sites in line with the live ops: recount, then replace code in batches.
 *
 *   ftrace_update()                        1. recount: per record, how many ops want it, and
 *        |                                    whether one needs full registers (REGS)
 *   ftrace_run_update_code()               2. ftrace_call -> the list function (safe for any set)
 *                                          3. each record whose bytes differ from what it wants:
 *                                             NOP <-> call ftrace_caller / ftrace_regs_caller
 *                                          4. ftrace_call -> the final function: nothing, one
 *                                             ops's func directly, or the list function
 *
 * Registration (ftrace_ops.c) decides who wants what, under ftrace_lock; this file only makes the
 * text say so, and checks afterwards that it does (ftrace_verify_all_sites).
 */
#include "kernel/trace/ftrace.h"
#include "kernel/locking/mutex.h"
#include "kernel/trace/ftrace_internal.h"
#include "arch/x86/cpu.h"
#include "kernel/smp.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

/* Step 1: each record's wanted state, recomputed from every live ops. */
static void ftrace_rec_recount(void)
{
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;

	for_each_ftrace_rec(pg, rec) {
		unsigned long count = 0, want = 0;
		struct ftrace_ops *only = NULL;
		for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next) {
			if (!(op->flags & FTRACE_OPS_FL_ENABLED) || !ftrace_ops_test(op, rec->ip))
				continue;
			count++;
			only = op;
			if (op->flags & FTRACE_OPS_FL_SAVE_REGS)
				want |= FTRACE_FL_REGS;
			if (op->flags & FTRACE_OPS_FL_IPMODIFY)
				want |= FTRACE_FL_IPMODIFY;
			if (op->flags & FTRACE_OPS_FL_DIRECT)
				want |= FTRACE_FL_DIRECT;
		}
		/* Alone on a site, an ops with a trampoline of its own gets called through it. */
		if (count == 1 && only->trampoline && !(only->flags & FTRACE_OPS_FL_DIRECT))
			want |= FTRACE_FL_TRAMP;
		rec->flags &= ~(FTRACE_REF_MAX | FTRACE_FL_REGS | FTRACE_FL_IPMODIFY |
				FTRACE_FL_TRAMP | FTRACE_FL_DIRECT);
		rec->flags |= count | want;
	}
}

/* The one ops a site is to call straight (its trampoline, or its direct call), as recounted. */
struct ftrace_ops *ftrace_find_target_ops(const struct dyn_ftrace *rec)
{
	if (ftrace_rec_count(rec) != 1 || !(rec->flags & (FTRACE_FL_TRAMP | FTRACE_FL_DIRECT)))
		return NULL;
	for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next)
		if ((op->flags & FTRACE_OPS_FL_ENABLED) && ftrace_ops_test(op, rec->ip))
			return op;
	return NULL;
}

/* The direct trampoline some direct ops wants ip to reach, or 0. */
unsigned long ftrace_find_rec_direct(unsigned long ip)
{
	for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next)
		if ((op->flags & (FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_DIRECT)) ==
			    (FTRACE_OPS_FL_ENABLED | FTRACE_OPS_FL_DIRECT) &&
		    ftrace_ops_test(op, ip))
			return op->direct_call;
	return 0;
}

/* Where the site should call: one ops's own code, or the shared callers (Linux's
 * ftrace_get_addr_new). *kind: the _EN bits that target stands for. */
static unsigned long ftrace_get_addr_new(const struct dyn_ftrace *rec, unsigned long *kind)
{
	struct ftrace_ops *op = ftrace_find_target_ops(rec);

	*kind = rec->flags & FTRACE_FL_REGS ? FTRACE_FL_REGS_EN : 0;
	if (op && (op->flags & FTRACE_OPS_FL_DIRECT)) {
		*kind |= FTRACE_FL_DIRECT_EN;
		return op->direct_call;
	}
	if (op) {
		*kind |= FTRACE_FL_TRAMP_EN;
		return op->trampoline;
	}
	return (unsigned long)(rec->flags & FTRACE_FL_REGS ? ftrace_regs_caller : ftrace_caller);
}

/* The bytes a record holds now (from its _EN flags) or should hold (from its wanted state). */
static void rec_insn(const struct dyn_ftrace *rec, bool on, unsigned long addr, u8 *insn)
{
	if (on)
		ftrace_call_replace(insn, rec->ip, addr);
	else
		memcpy(insn, ftrace_nop5, MCOUNT_INSN_SIZE);
}

/* Step 3 for one record: patch it if what it calls is not what it wants. */
static int __ftrace_replace_code(struct dyn_ftrace *rec)
{
	bool want_on = ftrace_enabled && ftrace_rec_count(rec);
	bool is_on = rec->flags & FTRACE_FL_ENABLED;
	unsigned long kind = 0, want = want_on ? ftrace_get_addr_new(rec, &kind) : 0;
	unsigned long cur = is_on ? rec->target : 0;
	const unsigned long en =
		FTRACE_FL_ENABLED | FTRACE_FL_REGS_EN | FTRACE_FL_TRAMP_EN | FTRACE_FL_DIRECT_EN;
	u8 old[MCOUNT_INSN_SIZE], new[MCOUNT_INSN_SIZE];
	int err;

	if (want != cur) {
		rec_insn(rec, is_on, cur, old);
		rec_insn(rec, want_on, want, new);
		ftrace_bug_action =
			!want_on ? "Setting ftrace call site to NOP"
			: !is_on ? "Setting ftrace call site to call ftrace function"
				 : "Updating ftrace call site to call a different ftrace function";
		err = ftrace_modify_code(rec->ip, old, new);
		if (err)
			return err;
		rec->target = want;
	}
	rec->flags = (rec->flags & ~en) | (want_on ? FTRACE_FL_ENABLED | kind : 0);
	return 0;
}

static int ftrace_replace_code(void)
{
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;

	for_each_ftrace_rec(pg, rec) {
		int err;
		if (rec->flags & FTRACE_FL_DISABLED)
			continue;
		/* A site holding other bytes than its flags say was reported (ftrace_bug) by
		 * the patcher's mismatch callback, which also stopped all further updates. */
		err = __ftrace_replace_code(rec);
		if (err)
			return err;
	}
	return 0;
}

/* The `call` inside both callers, at ftrace_call and ftrace_regs_call, checked then replaced. */
static ftrace_func_t ftrace_call_cur = ftrace_stub;

static int update_ftrace_func(ftrace_func_t func)
{
	static char *const sites[] = { ftrace_call, ftrace_regs_call };
	u8 old[MCOUNT_INSN_SIZE], new[MCOUNT_INSN_SIZE];

	if (func == ftrace_call_cur)
		return 0;
	for (unsigned i = 0; i < ARRAY_SIZE(sites); i++) {
		unsigned long ip = (unsigned long)sites[i];
		ftrace_call_replace(old, ip, (unsigned long)ftrace_call_cur);
		ftrace_call_replace(new, ip, (unsigned long)func);
		if (ftrace_modify_code(ip, old, new))
			return -EINVAL;
	}
	ftrace_call_cur = func;
	return 0;
}

/* Step 4's choice: what ftrace_call should call for the live ops. */
static ftrace_func_t ftrace_choose_func(struct ftrace_ops **op_out)
{
	struct ftrace_ops *only = NULL;
	int n = 0;

	for (struct ftrace_ops *op = ftrace_ops_list; op; op = op->next)
		if (op->flags & FTRACE_OPS_FL_ENABLED) {
			only = op;
			n++;
		}
	*op_out = only;
	if (!ftrace_enabled || n == 0)
		return ftrace_stub;
	if (n > 1)
		return ftrace_ops_list_func;
	return only->flags & FTRACE_OPS_FL_RECURSION ? only->func : ftrace_ops_assist_func;
}

/* Runs one step's changes as one batch: checked while queued, applied together at the end. The
 * batch is open for the whole update (ftrace_lock_update()); each step applies its own part. */
static int batch_step(int (*step)(ftrace_func_t), ftrace_func_t func)
{
	int err = step(func);

	/* what was queued before an error is still applied: flags say so */
	text_patch_apply(&ftrace_patch_batch);
	return err;
}

static int replace_code_step(ftrace_func_t unused)
{
	return ftrace_replace_code();
}

/*
 * Steps 2-4, each a batch (one stop_machine, or three int3 syncs, per step). Between 3 and 4 every
 * CPU takes an IPI, so none can see the new function with the old function_trace_op.
 */
static int ftrace_run_update_code(void)
{
	struct ftrace_ops *op;
	ftrace_func_t func = ftrace_choose_func(&op);
	/* The same callback for another ops still needs the switch: its op pointer differs. */
	bool switch_func = func != ftrace_call_cur ||
			   (func != ftrace_ops_list_func && op != function_trace_op);
	int err = 0;

	if (FTRACE_STATIC) { /* no code to change: __fentry__ reads one pointer */
		ftrace_static_update(func != ftrace_stub);
		return 0;
	}
	if (switch_func)
		err = batch_step(update_ftrace_func, ftrace_ops_list_func);
	if (!err)
		err = batch_step(replace_code_step, NULL);
	if (!err && switch_func) {
		WRITE_ONCE(function_trace_op, op);
		sync_core_all();
		err = batch_step(update_ftrace_func, func);
	}
	ftrace_trace_function = ftrace_call_cur;
	return err;
}

int ftrace_update(void)
{
	ftrace_rec_recount();
	return ftrace_run_update_code();
}

/* Every record's bytes against its flags, and every live trampoline's bytes against its template:
 * the check tests run after stress, and verify_sites. Under ftrace_lock, so no update is half done
 * while we look; -EBUSY while patch_step holds a batch (a site may be half written). */
int ftrace_verify_all_sites(char *why, size_t size)
{
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;
	int err = ftrace_lock_update();

	if (err)
		return err;
	for_each_ftrace_rec(pg, rec) {
		u8 want[MCOUNT_INSN_SIZE];
		bool on = rec->flags & FTRACE_FL_ENABLED;
		if (rec->flags & FTRACE_FL_DISABLED)
			continue;
		if (FTRACE_STATIC) /* never patched: still gcc's call */
			ftrace_call_replace(want, rec->ip, (unsigned long)__fentry__);
		else
			rec_insn(rec, on, rec->target, want);
		if (memcmp((void *)rec->ip, want, MCOUNT_INSN_SIZE)) {
			snprintf(why, size, "%ps: bytes do not match flags %lx", (void *)rec->ip,
				 rec->flags);
			ftrace_unlock_update();
			return -EINVAL;
		}
	}
	for (struct ftrace_ops *op = ftrace_ops_list; op && !err; op = op->next)
		if (op->trampoline) {
			err = arch_ftrace_verify_trampoline(op->trampoline, op->trampoline_size,
							    ftrace_ops_tramp_kind(op), op,
							    (unsigned long)ftrace_ops_get_func(op));
			if (err)
				snprintf(why, size,
					 "trampoline of %s at 0x%lx differs from its template",
					 op->name, op->trampoline);
		}
	ftrace_unlock_update();
	return err;
}
