/* Jump labels: the sites of each static key, checked at boot and flipped by the shared patcher.
 *
 *   __jump_table (as linked)             after jump_label_init()
 *   +------+--------+----------+          sorted by key, then by address:
 *   | code | target | key|bit  |  --->    key A: [site][site]   <- A.entries
 *   +------+--------+----------+          key B: [site]         <- B.entries
 *   (one per use, any order)              by_code[]: the same entries by address (lookup)
 *
 * Flipping key A builds one batch of all of A's sites (NOP <-> jmp, or an irqflags site's cli or
 * sti <-> call; each checked first) and applies it with the patch method in force, under
 * jump_label_lock: one flip at a time, and text_mutex keeps it apart from ftrace's batches.
 */
#include "kernel/jump_label.h"
#include "kernel/locking/mutex.h"
#include "arch/x86/cpu.h"
#include "arch/x86/text_patch.h"
#include "kernel/jump_label_internal.h"
#include "kernel/mm/mm.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/sort.h"
#include "lib/string.h"

/* Linux's jump_label_mutex: held while a key's sites are patched, which may wait. */
static DEFINE_MUTEX(jump_label_lock);
static struct text_patch_batch jl_batch = { .client = "jump_label" };
static struct jump_entry **by_code;
static bool jump_label_ready;
u8 *jump_site_info; /* per entry: its shape (length, irqflags kind), | JUMP_SITE_BAD */
unsigned long jump_label_nr_sites, jump_label_bug_count;
u64 jump_label_init_ticks;

unsigned long jump_entry_index(const struct jump_entry *e)
{
	return e - __start___jump_table;
}

/* Which form the key's state wants at this site: 1 = the jmp (Linux's jump_label_type). */
bool jump_label_type(const struct jump_entry *e)
{
	return static_key_enabled(jump_entry_key(e)) ^ jump_entry_is_branch(e);
}

const char *jump_site_form_name(u8 shape, bool taken)
{
	if (shape & (JUMP_SITE_CLI | JUMP_SITE_STI))
		return taken ? "call" : shape & JUMP_SITE_CLI ? "cli" : "sti";
	return taken ? "jmp" : "nop";
}

static void print_bytes(const char *label, const u8 *p, int len)
{
	printk(KERN_CONT "%s", label);
	for (int i = 0; i < len; i++)
		printk(KERN_CONT "%s%02x", i ? ":" : "", p[i]);
	printk(KERN_CONT "\n");
}

/*
 * A site did not hold the bytes we expected: report it in ftrace_bug's layout, and leave that one
 * site alone for good. Its key and every other site go on working; so does the kernel.
 */
static void jump_label_bug(const struct jump_entry *e, const u8 *actual, const u8 *expected,
			   int len, const char *action)
{
	unsigned long code = jump_entry_code(e);
	struct static_key *key = jump_entry_key(e);

	pr_info("------------[ jump label bug ]------------\n");
	pr_info("jump label failed to modify \n");
	pr_info("[<%016lx>] %pS\n", code, (void *)code);
	print_bytes(" actual:   ", actual, len);
	print_bytes(" expected: ", expected, len);
	pr_info("%s\n", action);
	pr_info(" key: %ps (enabled %d), target: %pS\n", (void *)key, READ_ONCE(key->enabled),
		(void *)jump_entry_target(e));
	pr_info("jump label: site disabled until reboot\n");
	jump_site_info[jump_entry_index(e)] |= JUMP_SITE_BAD;
	jump_label_bug_count++;
}

static void jl_mismatch(const struct text_poke_loc *site, const u8 *actual, void *cookie)
{
	const char *action = "Setting jump label site to NOP";
	u8 irq = site->len == IRQ_SITE_INSN_SIZE ? text_insn_irq_site(site->new) : 0;

	if (site->new[0] == JMP8_INSN_OPCODE || site->new[0] == JMP32_INSN_OPCODE)
		action = "Setting jump label site to jmp";
	else if (site->new[0] == CALL_INSN_OPCODE)
		action = "Setting jump label site to call";
	else if (irq)
		action = irq == CLI_INSN_OPCODE ? "Setting jump label site to cli"
						: "Setting jump label site to sti";
	jump_label_bug(cookie, actual, site->old, site->len, action);
}

/* Sorting moves entries, and each field is relative to itself: carry the offsets along. */
static void swap_entries(void *a, void *b, int size)
{
	struct jump_entry *x = a, *y = b, t = *x;
	long delta = (long)((unsigned long)b - (unsigned long)a);

	x->code = y->code + (s32)delta;
	x->target = y->target + (s32)delta;
	x->key = y->key + delta;
	y->code = t.code - (s32)delta;
	y->target = t.target - (s32)delta;
	y->key = t.key - delta;
}

static int cmp_entries(const void *a, const void *b)
{
	const struct jump_entry *x = a, *y = b;
	unsigned long kx = (unsigned long)jump_entry_key(x), ky = (unsigned long)jump_entry_key(y);
	unsigned long cx = jump_entry_code(x), cy = jump_entry_code(y);

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return cx < cy ? -1 : cx > cy;
}

static int cmp_code(const void *a, const void *b)
{
	unsigned long x = jump_entry_code(*(struct jump_entry *const *)a);
	unsigned long y = jump_entry_code(*(struct jump_entry *const *)b);
	return x < y ? -1 : x > y;
}

const struct jump_entry *jump_label_lookup(unsigned long addr)
{
	long lo = 0, hi = (long)jump_label_nr_sites - 1;

	if (!jump_label_ready)
		return NULL;
	while (lo <= hi) {
		long mid = (lo + hi) / 2;
		unsigned long c = jump_entry_code(by_code[mid]);
		if (c == addr)
			return by_code[mid];
		if (c < addr)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/*
 * The shape of a site, from the bytes it holds at boot: the 5-byte NOP of arch_static_branch, the
 * jmp (2 or 5 bytes) of arch_static_branch_jump, or the padded cli or sti of arch_static_insn.
 * 0: none of them.
 */
static u8 boot_site_shape(const struct jump_entry *e)
{
	const u8 *p = (const u8 *)jump_entry_code(e);
	u8 want[5];

	if (!is_kernel_text((unsigned long)p))
		return 0;
	if (!memcmp(p, x86_nops[5], 5))
		return 5;
	if (text_insn_irq_site(p))
		return IRQ_SITE_INSN_SIZE |
		       (text_insn_irq_site(p) == CLI_INSN_OPCODE ? JUMP_SITE_CLI : JUMP_SITE_STI);
	for (int len = 2; len <= 5; len += 3)
		if (!jump_site_insn(e, len, true, want) && !memcmp(p, want, len))
			return len;
	return 0;
}

/* Boot: check one site and write the form its key wants now (usually what it already holds). */
static void jump_label_init_site(struct jump_entry *e)
{
	u8 shape = boot_site_shape(e), cur[5], want[5];
	int len = shape & JUMP_SITE_LEN;

	if (!shape) {
		/* What it should have been: the form its key's initial state wants, 5 bytes. */
		jump_site_insn(e, 5, jump_label_type(e), want);
		jump_site_info[jump_entry_index(e)] = 5;
		if (is_kernel_text(jump_entry_code(e)))
			jump_label_bug(e, (const u8 *)jump_entry_code(e), want, 5,
				       "Initializing jump label sites");
		else
			jump_site_info[jump_entry_index(e)] |= JUMP_SITE_BAD;
		return;
	}
	jump_site_info[jump_entry_index(e)] = shape;
	memcpy(cur, (const void *)jump_entry_code(e), len);
	jump_site_insn(e, shape, jump_label_type(e), want);
	text_patch_queue(&jl_batch, (void *)jump_entry_code(e), cur, want, len, e);
}

void jump_label_init(void)
{
	struct jump_entry *start = __start___jump_table, *stop = __stop___jump_table, *e;
	unsigned long n = stop - start, flags;
	u64 t0 = rdtsc();

	jl_batch.mismatch = jl_mismatch;
	jump_site_info = kzalloc(n + 1);
	by_code = kmalloc((n + 1) * sizeof(*by_code));
	if (!jump_site_info || !by_code)
		panic("jump_label: out of memory for %lu sites", n);
	sort(start, n, sizeof(*start), cmp_entries, swap_entries);

	flags = local_irq_save();
	BUG_ON(text_patch_begin(&jl_batch)); /* boot: no observer yet, nothing can refuse */
	for (e = start; e < stop; e++) {
		struct static_key *key = jump_entry_key(e);
		if (e == start || jump_entry_key(e - 1) != key)
			key->entries = e;
		by_code[e - start] = e;
		jump_label_init_site(e);
	}
	text_patch_commit(&jl_batch);
	local_irq_restore(flags);

	sort(by_code, n, sizeof(*by_code), cmp_code, NULL);
	jump_label_nr_sites = n;
	jump_label_ready = true;
	jump_label_init_ticks = rdtsc() - t0;
	pr_info("jump_label: %lu sites checked\n", n);
}

/* Every site of key into one batch, to the form the key's state wants now. Under the lock.
 * -EBUSY, nothing written, when the patcher refuses the batch (patch_step holds one). Out of
 * line, with a call site of its own: a key flip's function graph shows it, as Linux's does. */
static noinline int jump_label_update(struct static_key *key)
{
	struct jump_entry *e = key->entries;
	int err;

	if (!jump_label_ready || !e)
		return 0;
	err = text_patch_begin(&jl_batch);
	if (err)
		return err;
	for (; e < __stop___jump_table && jump_entry_key(e) == key; e++) {
		u8 info = jump_site_info[jump_entry_index(e)], old[5], new[5];
		int len = info & JUMP_SITE_LEN;
		bool type = jump_label_type(e);
		if (info & JUMP_SITE_BAD)
			continue;
		jump_site_insn(e, info & JUMP_SITE_SHAPE, !type, old);
		jump_site_insn(e, info & JUMP_SITE_SHAPE, type, new);
		text_patch_queue(&jl_batch, (void *)jump_entry_code(e), old, new, len, e);
	}
	text_patch_commit(&jl_batch);
	return 0;
}

/*
 * Under jump_label_lock: the key's count becomes count, and when that turns the key on or off the
 * sites follow; if they cannot, the count goes back. The count is visible before the sites change:
 * static_key_enabled() may run ahead of the code.
 */
static int static_key_set_count(struct static_key *key, int count)
{
	int old = key->enabled;
	int err = 0;

	__atomic_store_n(&key->enabled, count, __ATOMIC_SEQ_CST);
	if ((old > 0) != (count > 0)) {
		err = jump_label_update(key);
		if (err)
			__atomic_store_n(&key->enabled, old, __ATOMIC_SEQ_CST);
	}
	return err;
}

/* Each switch below returns 0, or -EBUSY with the count as it was and no site changed (Linux's
 * return void: nothing refuses there). */
int static_key_slow_inc(struct static_key *key)
{
	int err;

	mutex_lock(&jump_label_lock);
	err = static_key_set_count(key, key->enabled + 1);
	mutex_unlock(&jump_label_lock);
	return err;
}

int static_key_slow_dec(struct static_key *key)
{
	int err = 0;

	mutex_lock(&jump_label_lock);
	if (key->enabled <= 0)
		pr_warn("jump_label: %ps: static_key_slow_dec with count %d\n", (void *)key,
			key->enabled);
	else
		err = static_key_set_count(key, key->enabled - 1);
	mutex_unlock(&jump_label_lock);
	return err;
}

/* Absolute switching: count 0 or 1, as Linux's static_key_enable/disable. */
int static_key_enable(struct static_key *key)
{
	int err = 0;

	mutex_lock(&jump_label_lock);
	if (key->enabled == 0)
		err = static_key_set_count(key, 1);
	mutex_unlock(&jump_label_lock);
	return err;
}

/* Only a key switched on by static_key_enable (count 1) is switched off; one that others hold
 * through static_key_slow_inc stays on, with a warning. */
int static_key_disable(struct static_key *key)
{
	int err = 0;

	mutex_lock(&jump_label_lock);
	if (key->enabled > 1)
		pr_warn("jump_label: %ps: static_key_disable with count %d\n", (void *)key,
			key->enabled);
	else if (key->enabled == 1)
		err = static_key_set_count(key, 0);
	mutex_unlock(&jump_label_lock);
	return err;
}

/* Every site that is not bad against what its key's state wants (self-tests, after stress). */
int jump_label_verify_all_sites(char *why, size_t size)
{
	int err = 0;

	mutex_lock(&jump_label_lock);
	for (struct jump_entry *e = __start___jump_table; e < __stop___jump_table && !err; e++) {
		u8 info = jump_site_info[jump_entry_index(e)], want[5];
		int len = info & JUMP_SITE_LEN;
		if (info & JUMP_SITE_BAD)
			continue;
		jump_site_insn(e, info & JUMP_SITE_SHAPE, jump_label_type(e), want);
		if (memcmp((const void *)jump_entry_code(e), want, len)) {
			snprintf(why, size, "%pS: not the %s its key %ps (enabled %d) wants",
				 (void *)jump_entry_code(e),
				 jump_site_form_name(info, jump_label_type(e)),
				 (void *)jump_entry_key(e), jump_entry_key(e)->enabled);
			err = -EINVAL;
		}
	}
	mutex_unlock(&jump_label_lock);
	return err;
}

#ifdef CONFIG_SELFTEST
/* Test-only: a site a self-test corrupted (and reported) has been put right; patch it again. */
void jump_label_selftest_revive(const struct jump_entry *e)
{
	mutex_lock(&jump_label_lock);
	jump_site_info[jump_entry_index(e)] &= ~JUMP_SITE_BAD;
	mutex_unlock(&jump_label_lock);
}
#endif
