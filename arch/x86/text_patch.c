/* text_patch: batches of checked byte changes, applied by whichever method fits the moment.
 *
 *   one CPU online        text_poke_early with interrupts off: nobody else can be running the code
 *                         (this is also the boot case: ftrace_init, jump_label_init)
 *   stop_machine          every other CPU spins with interrupts off while this one writes
 *   breakpoint            text_poke_bp_batch: the int3 protocol, nobody stops
 *
 * text_mutex makes a batch atomic with respect to every other client's: the bytes a site was
 * checked against when queued are still there when the batch is applied.
 */
#include "arch/x86/text_patch.h"
#include "kernel/locking/mutex.h"
#include "arch/x86/cpu.h"
#include "kernel/mm/mm.h"
#include "kernel/smp.h"
#include "kernel/stop_machine.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "arch/x86/trace/text_patch.h"

#define FIRST_CAP 64

enum patch_method text_patch_method = PATCH_BREAKPOINT;
const char *const patch_method_names[] = {
	[PATCH_BREAKPOINT] = "breakpoint", [PATCH_STOP_MACHINE] = "stop_machine"
};
unsigned long text_patch_batches;
const struct text_patch_observer *volatile text_patch_observer;

/*
 * Linux's name, and a mutex as there: a batch may wait for other CPUs (stop_machine, the int3
 * protocol's syncs) and patch_step holds one across msleep(), so a waiter sleeps instead of spinning.
 */
static DEFINE_MUTEX(text_mutex);

int text_patch_set_observer(const struct text_patch_observer *obs)
{
	const struct text_patch_observer *none = NULL;

	if (!obs) {
		WRITE_ONCE(text_patch_observer, NULL);
		return 0;
	}
	return __atomic_compare_exchange_n(&text_patch_observer, &none, obs, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)
		       ? 0
		       : -EBUSY;
}

bool text_patch_busy(void)
{
	const struct text_patch_observer *obs = READ_ONCE(text_patch_observer);

	return obs && obs->admit && !obs->admit();
}

int text_patch_begin(struct text_patch_batch *b)
{
	if (text_patch_busy())
		return -EBUSY;
	mutex_lock(&text_mutex);
	b->nr = 0;
	b->open = true;
	return 0;
}

static int poke_all(void *data)
{
	struct text_patch_batch *b = data;

	for (int i = 0; i < b->nr; i++)
		text_poke(b->vec[i].addr, b->vec[i].new, b->vec[i].len);
	return 0;
}

/* The name the text_patch events give the way a batch is written. */
static const char *method_name(void)
{
	if (num_online_cpus() == 1)
		return "direct";
	return patch_method_names[text_patch_method];
}

static void apply(struct text_patch_batch *b)
{
	const char *client = b->client ? b->client : "?";

	if (!b->nr)
		return;
	trace_text_patch_begin(client, method_name(), b->nr, num_online_cpus());
	if (num_online_cpus() == 1) {
		unsigned long flags = local_irq_save();
		text_poke_early_batch(b->vec, b->nr);
		local_irq_restore(flags);
	} else if (text_patch_method == PATCH_STOP_MACHINE) {
		const struct text_patch_observer *obs = READ_ONCE(text_patch_observer);

		if (!obs || !obs->stop_step || obs->stop_step(0, b->vec, b->nr)) {
			stop_machine(poke_all, b);
			if (obs && obs->stop_step)
				obs->stop_step(1, b->vec, b->nr);
		}
	} else {
		text_poke_bp_batch(b->vec, b->nr);
	}
	trace_text_patch_end(client, method_name(), b->nr, num_online_cpus());
	text_patch_batches++;
	b->nr = 0;
}

static bool grow(struct text_patch_batch *b, int cap)
{
	struct text_poke_loc *vec = kmalloc(cap * sizeof(*vec));

	if (!vec)
		return false;
	if (b->nr)
		memcpy(vec, b->vec, b->nr * sizeof(*vec));
	kfree(b->vec);
	b->vec = vec;
	b->cap = cap;
	return true;
}

void text_patch_reserve(struct text_patch_batch *b, int n)
{
	if (b->cap < n)
		grow(b, n);
}

/* Room for one more site: grow the vector, or, out of memory, apply what is queued so far
 * (each site is valid on its own, so two smaller batches are as correct as one). */
static bool make_room(struct text_patch_batch *b)
{
	if (b->nr < b->cap || grow(b, b->cap ? b->cap * 2 : FIRST_CAP))
		return true;
	apply(b);
	return b->cap > 0;
}

/*
 * Instructions are 1..15 bytes: compared and copied as two words that overlap when the length is
 * not a multiple (a 5-byte site is one 4-byte and one 4-byte access, not five byte steps), so
 * queueing each of boot's thousands of sites costs a few loads and stores.
 */
static __always_inline bool insn_equal(const u8 *a, const u8 *b, int len)
{
	u64 x, y, x2, y2;
	u32 p, q, p2, q2;

	if (len >= 8) {
		__builtin_memcpy(&x, a, 8), __builtin_memcpy(&y, b, 8);
		__builtin_memcpy(&x2, a + len - 8, 8), __builtin_memcpy(&y2, b + len - 8, 8);
		return x == y && x2 == y2;
	}
	if (len >= 4) {
		__builtin_memcpy(&p, a, 4), __builtin_memcpy(&q, b, 4);
		__builtin_memcpy(&p2, a + len - 4, 4), __builtin_memcpy(&q2, b + len - 4, 4);
		return p == q && p2 == q2;
	}
	return !memcmp(a, b, len);
}

static __always_inline void insn_copy(u8 *d, const u8 *s, int len)
{
	u64 x, x2;
	u32 p, p2;

	if (len >= 8) {
		__builtin_memcpy(&x, s, 8), __builtin_memcpy(&x2, s + len - 8, 8);
		__builtin_memcpy(d, &x, 8), __builtin_memcpy(d + len - 8, &x2, 8);
	} else if (len >= 4) {
		__builtin_memcpy(&p, s, 4), __builtin_memcpy(&p2, s + len - 4, 4);
		__builtin_memcpy(d, &p, 4), __builtin_memcpy(d + len - 4, &p2, 4);
	} else {
		memcpy(d, s, len);
	}
}

/* The next slot, filled in place: it is 40 bytes, and every byte copied costs at boot's scale. */
static __always_inline void fill_slot(struct text_patch_batch *b, void *addr, const u8 *old,
				      const u8 *new, int len, void *cookie)
{
	struct text_poke_loc *tp = &b->vec[b->nr++];

	tp->addr = addr;
	tp->cookie = cookie;
	tp->len = len;
	insn_copy(tp->old, old, len);
	insn_copy(tp->new, new, len);
}

/* A mismatch, reported with the site as the client queued it. Rare: the copy costs nothing. */
static void report(struct text_patch_batch *b, void *addr, const u8 *old, const u8 *new, int len,
		   void *cookie)
{
	struct text_poke_loc site = { .addr = addr, .cookie = cookie, .len = len };

	memcpy(site.old, old, len);
	memcpy(site.new, new, len);
	if (b->mismatch)
		b->mismatch(&site, addr, cookie);
}

/* Every case: bad length, no batch open, a mismatch, nothing to change, no room. */
static noinline int text_patch_queue_slow(struct text_patch_batch *b, void *addr, const u8 *old,
					  const u8 *new, int len, void *cookie)
{
	int err;

	if (len < 1 || len > TEXT_POKE_MAX_LEN)
		return -EINVAL;
	if (!b->open) {
		err = text_patch_begin(b);
		if (err)
			return err;
		err = text_patch_queue(b, addr, old, new, len, cookie);
		text_patch_commit(b);
		return err;
	}
	if (!insn_equal(addr, old, len)) {
		report(b, addr, old, new, len, cookie);
		return -EINVAL;
	}
	if (insn_equal(old, new, len))
		return 0;
	if (!make_room(b)) {
		/* Not even one slot: write this site alone, through a batch on the stack. */
		struct text_poke_loc one = { .addr = addr, .cookie = cookie, .len = len };
		struct text_patch_batch alone = {
			.vec = &one, .nr = 1, .cap = 1, .client = b->client
		};
		memcpy(one.new, new, len);
		apply(&alone);
		return 0;
	}
	fill_slot(b, addr, old, new, len, cookie);
	return 0;
}

/* The common case without a call or a saved register: an open batch with room, a site of at
 * least 4 bytes that holds old, and new different. Anything else takes the whole way. */
int text_patch_queue(struct text_patch_batch *b, void *addr, const u8 *old, const u8 *new, int len,
		     void *cookie)
{
	if (!(b->open && len >= 4 && len <= TEXT_POKE_MAX_LEN && b->nr < b->cap &&
	      insn_equal(addr, old, len) && !insn_equal(old, new, len)))
		return text_patch_queue_slow(b, addr, old, new, len, cookie);
	fill_slot(b, addr, old, new, len, cookie);
	return 0;
}

void text_patch_apply(struct text_patch_batch *b)
{
	apply(b);
}

void text_patch_commit(struct text_patch_batch *b)
{
	apply(b);
	b->open = false;
	mutex_unlock(&text_mutex);
}

int text_patch_set_method(enum patch_method m)
{
	if (text_patch_busy())
		return -EBUSY;
	mutex_lock(&text_mutex);
	text_patch_method = m;
	mutex_unlock(&text_mutex);
	return 0;
}
