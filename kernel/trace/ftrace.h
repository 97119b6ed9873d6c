/* Dynamic ftrace: call-site records, ftrace_ops with filter hashes, and switching sites live. */
#ifndef KERNEL_TRACE_FTRACE_H
#define KERNEL_TRACE_FTRACE_H

#include "lib/types.h"
#include "lib/compiler.h"
#include "arch/x86/traps.h"
#include "arch/x86/ftrace.h"

/*
 * The one switch between the two builds (make STATIC_FTRACE=1 defines CONFIG_STATIC_FTRACE):
 * FTRACE_STATIC is 1 in the static build, where no call site is ever patched and __fentry__
 * itself decides, on every call, whether to trace (Linux's CONFIG_DYNAMIC_FTRACE=n). Code tests
 * it with a plain `if`, so both paths are always compiled; kernel/trace/ftrace_static.c holds
 * what only the static build does. docs/02 lists what differs.
 */
#ifdef CONFIG_STATIC_FTRACE
#define FTRACE_STATIC 1
#else
#define FTRACE_STATIC 0
#endif

/*
 * One record per call site (as Linux's struct dyn_ftrace). flags packs a reference count of the
 * ops that want this function traced (low bits) with state bits:
 *
 *   31 ENABLED  30 REGS  29 REGS_EN  28 TRAMP  27 TRAMP_EN  26 IPMODIFY  25 DISABLED
 *   24 DIRECT  23 DIRECT_EN        (bits 20-22 unused)        19..0  reference count
 *
 * The wanted state (count > 0, REGS, TRAMP) is computed from the ops; the _EN bits and ENABLED say
 * what the bytes at ip are now. The update patches exactly the records where the two differ.
 */
struct dyn_ftrace {
	unsigned long ip;
	unsigned long flags;
	unsigned long target; /* what the site calls now (0: NOP). Linux works it out again from
			       * the flags and the ops (ftrace_get_addr_curr); we remember it */
};

#define FTRACE_REF_MAX_SHIFT 20
#define FTRACE_REF_MAX ((1UL << FTRACE_REF_MAX_SHIFT) - 1)
#define FTRACE_FL_ENABLED (1UL << 31)	/* the site calls a trampoline (not the NOP) */
#define FTRACE_FL_REGS (1UL << 30)	/* some ops on it wants the full register frame */
#define FTRACE_FL_REGS_EN (1UL << 29)	/* ... and the site calls ftrace_regs_caller now */
#define FTRACE_FL_TRAMP (1UL << 28)	/* its only ops has its own trampoline */
#define FTRACE_FL_TRAMP_EN (1UL << 27)	/* the site calls an ops's own trampoline now */
#define FTRACE_FL_IPMODIFY (1UL << 26)	/* an ops on it may change the return ip */
#define FTRACE_FL_DISABLED (1UL << 25)	/* never touched again (ftrace_bug, or not convertible) */
#define FTRACE_FL_DIRECT (1UL << 24)	/* a direct ops wants it (register_ftrace_direct) */
#define FTRACE_FL_DIRECT_EN (1UL << 23) /* ... and, alone on it, the site calls its trampoline */

static inline unsigned long ftrace_rec_count(const struct dyn_ftrace *rec)
{
	return rec->flags & FTRACE_REF_MAX;
}

/* Records live in groups of whole pages, chained, sorted by ip (Linux's ftrace_pages). */
struct ftrace_page {
	struct ftrace_page *next;
	struct dyn_ftrace *records;
	int index; /* records in use */
	int size;  /* records that fit */
};

extern struct ftrace_page *ftrace_pages_start;
extern u64 ftrace_init_ticks; /* TSC ticks the boot conversion took (bench) */

/*
 * Every record, in address order. Linux spells this walk as a pair, do_for_each_ftrace_rec(pg,
 * rec) { ... } and then while_for_each_ftrace_rec(); ours is one for-each, so that it reads (and
 * formats) as the loop it is. As in Linux's, `break` leaves only the current page: leave the
 * walk with a goto.
 */
#define for_each_ftrace_rec(pg, rec)                                                               \
	for (pg = ftrace_pages_start; pg; pg = pg->next)                                           \
		for (rec = pg->records; rec < pg->records + pg->index; rec++)

/* A set of function addresses (Linux's ftrace_hash): buckets of singly linked entries. */
struct ftrace_func_entry {
	struct ftrace_func_entry *next;
	unsigned long ip;
};

struct ftrace_hash {
	unsigned int size_bits;
	unsigned long count;
	struct ftrace_func_entry **buckets;
};

struct ftrace_ops_hash {
	struct ftrace_hash *filter_hash;  /* empty: every function */
	struct ftrace_hash *notrace_hash; /* empty: none; notrace wins over filter */
};

struct ftrace_ops;
typedef void (*ftrace_func_t)(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			      struct pt_regs *regs);

#define FTRACE_OPS_FL_ENABLED (1UL << 0)   /* registered and live */
#define FTRACE_OPS_FL_SAVE_REGS (1UL << 1) /* func gets a full pt_regs (ftrace_regs_caller) */
#define FTRACE_OPS_FL_IPMODIFY (1UL << 2)  /* func may change regs->ip; needs SAVE_REGS */
#define FTRACE_OPS_FL_RECURSION (1UL << 3) /* func protects itself against recursion */
#define FTRACE_OPS_FL_DIRECT (1UL << 4)	   /* sites call ops->direct_call (ftrace_direct.c) */
#define FTRACE_OPS_FL_NO_TRAMP (1UL << 5) /* ours: never a trampoline of its own (bench baseline) */
#define FTRACE_OPS_FL_PERMANENT                                                                    \
	(1UL << 6) /* while live, ftrace_enabled cannot go to 0 (livepatch) */

struct ftrace_ops {
	ftrace_func_t func;
	const char *name;
	unsigned long flags;
	void *private;
	struct ftrace_ops *next;	   /* ftrace_ops_list, newest first */
	struct ftrace_ops_hash local_hash; /* this ops's own filter and notrace sets */
	struct ftrace_ops_hash *func_hash; /* the sets in force: local_hash, or shared */
	unsigned long trampoline;	   /* per-ops trampoline, 0 if none */
	unsigned long trampoline_size;
	unsigned long direct_call; /* FTRACE_OPS_FL_DIRECT: the custom trampoline */
	/* ours: the template of its own trampoline if not the one its flags ask for
	 * (enum ftrace_tramp_kind: a tracer's common case inline, arch/x86/ftrace_fast.asm) */
	int tramp_kind;
};

/*
 * Registration: 0, or -EBUSY (already registered, or an IPMODIFY/direct clash), -EINVAL, -ENODEV
 * (ftrace is dead). Registering gives the ops a trampoline of its own unless it is DIRECT or
 * NO_TRAMP; unregistering frees it after synchronize_rcu_tasks() (so it may sleep). As in Linux,
 * only that wait is built in: whoever frees an ops itself calls synchronize_rcu_tasks() first.
 */
int register_ftrace_function(struct ftrace_ops *ops);
int unregister_ftrace_function(struct ftrace_ops *ops);

/* Replaces (reset) or extends an ops's filter or notrace set with functions matching a
 * filter string (Linux's syntax). On error nothing changes. */
int ftrace_set_filter(struct ftrace_ops *ops, const char *buf, bool reset);
int ftrace_set_notrace(struct ftrace_ops *ops, const char *buf, bool reset);
int ftrace_set_filter_ip(struct ftrace_ops *ops, unsigned long ip, bool remove, bool reset);
/* Puts new in place of an ops's filter (or notrace) set and updates the sites; takes new. */
int ftrace_hash_move_and_update(struct ftrace_ops *ops, bool filter, struct ftrace_hash *new);
/* Which functions a glob names, into hash (no `!`, no index): the count, or -EINVAL. */
int ftrace_match_glob(struct ftrace_hash *hash, const char *glob);

/* Function commands written to a trace array's set_ftrace_filter (kernel/trace/ftrace_probe.c).
 * A write's commands, applied in order, as one new set (nothing changes yet; NULL and *err on
 * failure, NULL and 0 for none; cmds are split in place); then installed, or thrown away. */
struct probe_set;
struct trace_array;
struct probe_set *ftrace_probe_prepare(struct trace_array *tr, char **cmds, int ncmd, int *err);
int ftrace_probe_commit(struct probe_set *set);
void ftrace_probe_discard(struct probe_set *set);
struct seq_file;
void ftrace_probes_show(struct seq_file *m, struct trace_array *tr);
/* The mod command (kernel/trace/ftrace_mod.c): `[!]func:mod:module`, kept pending, as Linux keeps
 * it for a module not loaded. A write's mod commands (after a reset with `>`), checked and applied
 * to a copy of tr's list (NULL and *err on failure), then committed or discarded. */
struct ftrace_mod_load;
bool ftrace_mod_is_cmd(const char *tok);
struct ftrace_mod_load *ftrace_mod_prepare(struct trace_array *tr, bool is_notrace, char **toks,
					   int n, bool reset, int *err);
void ftrace_mod_commit(struct trace_array *tr, bool is_notrace, struct ftrace_mod_load *list);
void ftrace_mod_discard(struct ftrace_mod_load *list);
bool ftrace_mod_pending(struct trace_array *tr, bool is_notrace);
void ftrace_mod_show(struct seq_file *m, struct trace_array *tr, bool is_notrace);
void ftrace_mod_free(struct trace_array *tr);
/* An instance's rmdir: its commands removed, then (after the trampolines' wait) its ops freed. */
int ftrace_probes_clear(struct trace_array *tr);
void ftrace_probes_free(struct trace_array *tr);
/* A set's functions one a line in address order, or `empty` (Linux's "#### ... ####" line). */
void ftrace_hash_show(struct seq_file *m, const struct ftrace_hash *hash, const char *empty);

/* The ops whose sets are set_ftrace_filter / set_ftrace_notrace (the function tracer's). */
extern struct ftrace_ops global_ops;

bool ftrace_ops_test(struct ftrace_ops *ops, unsigned long ip);
struct dyn_ftrace *ftrace_lookup_ip(unsigned long ip);
/* Index (0-based, address order) of a record, for per-function counters. */
long ftrace_rec_index(const struct dyn_ftrace *rec);
unsigned long ftrace_nr_records(void);

extern int ftrace_disabled; /* set for good by ftrace_bug() */
/* Odd while an update is changing code, bumped twice per update: a reader that sees the same even
 * value before and after something knows no site changed state in between. */
extern unsigned long ftrace_update_seq;
extern int ftrace_enabled; /* the kill switch: /proc/sys/kernel/ftrace_enabled */
extern unsigned long ftrace_bug_count;

void ftrace_init(void);
/* The static build's halves of registering and updating (kernel/trace/ftrace_static.c). */
int ftrace_static_check_ops(const struct ftrace_ops *ops);
void ftrace_static_update(bool any_live);
/* Reports a site whose bytes were not what we expected, and stops all further code changes. */
void ftrace_bug(int failed, struct dyn_ftrace *rec);
extern const char *ftrace_bug_action; /* what the update was doing, for the report */
extern const u8 *ftrace_expected;     /* the bytes it expected */
void ftrace_selftest_revive(struct dyn_ftrace *rec);
int ftrace_set_enabled(int on);
void ftrace_files_init(void);
void func_hits_init(void);
bool func_hits_on(void);
/* func_hits is on and counts ip (its filter takes it, its notrace does not). */
bool func_hits_wants(unsigned long ip);
/* Calls of the function at ip counted on one CPU since func_hits was last switched on. */
u64 func_hits_cpu(int cpu, unsigned long ip);

/* Waits until no other CPU can be inside a callback that started before the call. */
void ftrace_synchronize(void);

/* Called from an ops callback to guard against recursion in this CPU's current context. */
int ftrace_test_recursion_trylock(void);
void ftrace_test_recursion_unlock(int bit);

/* The dispatch functions ftrace_caller may call (exported for `dis` and the self-tests). */
void ftrace_stub(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
		 struct pt_regs *regs); /* a bare `ret`, in ftrace_64.asm */
void ftrace_ops_list_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			  struct pt_regs *regs);
void ftrace_ops_assist_func(unsigned long ip, unsigned long parent_ip, struct ftrace_ops *op,
			    struct pt_regs *regs);
extern ftrace_func_t ftrace_trace_function; /* what ftrace_call calls now */

/* Hash helpers (kernel/trace/ftrace_hash.c). */
struct ftrace_hash *alloc_ftrace_hash(unsigned int size_bits);
struct ftrace_hash *alloc_and_copy_ftrace_hash(const struct ftrace_hash *src);
void free_ftrace_hash(struct ftrace_hash *hash);
bool ftrace_lookup_hash(const struct ftrace_hash *hash, unsigned long ip);
int ftrace_hash_add(struct ftrace_hash *hash, unsigned long ip);
void ftrace_hash_remove(struct ftrace_hash *hash, unsigned long ip);
static inline bool ftrace_hash_empty(const struct ftrace_hash *hash)
{
	return !hash || !hash->count;
}

/* Applies one filter write (several tokens) to hash; 0 or -EINVAL (hash then undefined). */
int ftrace_match_records(struct ftrace_hash *hash, const char *buf);
/* A new set: cur's functions (none if reset) changed by the filter string buf; NULL and *err on
 * failure (cur is never touched). What every set file's write does before it swaps sets. */
struct ftrace_hash *ftrace_build_hash(const struct ftrace_hash *cur, const char *buf, bool reset,
				      int *err);

/* The patch_method file's setter: under text_mutex, which an update holds from start to end, so
 * it never sees the method change midway (the method lives in arch/x86/text_patch.c, shared by
 * every patching client); -EBUSY while patch_step holds a batch. */
int ftrace_set_patch_method(enum patch_method m);
/* patch_step (ftrace_step.c): undo a register whose one site change was aborted before its
 * commit. */
int ftrace_step_undo_register(struct ftrace_ops *ops, struct dyn_ftrace *rec, unsigned long flags,
			      unsigned long target);
/* ...and an unregister that may be steered back (ftrace_ops.c). */
int ftrace_step_unregister(struct ftrace_ops *ops, bool (*aborted)(void), struct dyn_ftrace *rec,
			   unsigned long flags, unsigned long target);
void ftrace_step_init(void);

extern struct ftrace_ops *function_trace_op;

/* What a per-ops trampoline calls: the callback itself if it guards its own recursion. */
ftrace_func_t ftrace_ops_get_func(const struct ftrace_ops *ops);
static inline bool ftrace_ops_regs(const struct ftrace_ops *ops)
{
	return ops->flags & FTRACE_OPS_FL_SAVE_REGS;
}
/* The template ops's own trampoline copies (enum ftrace_tramp_kind). */
int ftrace_ops_tramp_kind(const struct ftrace_ops *ops);
/* The ops whose trampoline or direct call a site calls now, or NULL. */
struct ftrace_ops *ftrace_find_target_ops(const struct dyn_ftrace *rec);
unsigned long ftrace_find_rec_direct(unsigned long ip);

/* Direct calls (kernel/trace/ftrace_direct.c): sites in ops's filter call addr, a custom
 * trampoline; if other ops share a site, ftrace_regs_caller runs them and then goes to addr. */
int register_ftrace_direct(struct ftrace_ops *ops, unsigned long addr);
int unregister_ftrace_direct(struct ftrace_ops *ops, unsigned long addr);
int modify_ftrace_direct(struct ftrace_ops *ops, unsigned long addr);
void ftrace_direct_init(void);
extern char direct_count_tramp[], direct_count_tramp_end[];
extern u64 direct_count_calls;
extern unsigned long direct_count_last_arg;

/* The check of every record's bytes (and every live trampoline's). */
int ftrace_verify_all_sites(char *why, size_t size);
/* verify_sites (verify_sites.c): the same check, and the jump labels', read from the shell. */
void ftrace_verify_init(void);

#endif
