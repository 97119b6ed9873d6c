/* The fault-injection control files: /sys/kernel/debug/<attr>/ knobs and /proc/self/fail-nth. */
#include "kernel/fault_inject.h"
#include "kernel/fs/tracefs.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

enum knob { K_PROBABILITY, K_INTERVAL, K_TIMES, K_SPACE, K_VERBOSE, K_SEED, K_INJECTED, NR_KNOBS };

static const char *const knob_names[NR_KNOBS] = {
	"probability", "interval", "times", "space", "verbose", "seed", "injected",
};

/* One file's priv: its attr and which knob; two tables, so no allocation is needed. */
struct knob_file {
	struct fault_attr *attr;
	enum knob knob;
};

static struct fault_attr *const attrs[] = { &failslab, &fail_page_alloc, &fail_execmem };
static struct knob_file knob_files[ARRAY_SIZE(attrs)][NR_KNOBS];

/* The knob's value as a signed number (every knob fits one). */
static long long knob_get(const struct fault_attr *a, enum knob knob)
{
	switch (knob) {
	case K_PROBABILITY:
		return a->probability;
	case K_INTERVAL:
		return a->interval;
	case K_TIMES:
		return READ_ONCE(a->times);
	case K_SPACE:
		return READ_ONCE(a->space);
	case K_VERBOSE:
		return a->verbose;
	case K_SEED:
		return a->seed;
	default:
		return READ_ONCE(a->injected);
	}
}

static int knob_show(struct seq_file *m, struct fnode *f)
{
	struct knob_file *k = f->priv;

	seq_printf(m, "%lld\n", knob_get(k->attr, k->knob));
	return 0;
}

/* The smallest and largest value each writable knob takes (times: -1 = no limit). */
static const long long knob_min[NR_KNOBS] = { 0, 1, -1, 0, 0, 0 };
static const long long knob_max[NR_KNOBS] = { 100, __LONG_MAX__,     __LONG_MAX__, __LONG_MAX__,
					      2,   __LONG_LONG_MAX__ };

/* Every value is checked before anything changes; a bad one is -EINVAL and changes nothing. */
static int knob_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	struct knob_file *k = f->priv;
	struct fault_attr *a = k->attr;
	char text[24];
	long long v;
	unsigned long irq;

	(void)flags;
	if (k->knob == K_INJECTED)
		return -EACCES;
	if (fs_write_text(text, sizeof(text), buf, len) || kstrtoll(text, 10, &v) ||
	    v < knob_min[k->knob] || v > knob_max[k->knob])
		return -EINVAL;
	irq = spin_lock_irqsave(&a->lock);
	switch (k->knob) {
	case K_PROBABILITY:
		a->probability = v;
		break;
	case K_INTERVAL:
		a->interval = v;
		a->count = 0;
		break;
	case K_TIMES:
		a->times = v;
		break;
	case K_SPACE:
		a->space = v;
		break;
	case K_VERBOSE:
		a->verbose = v;
		break;
	default:
		a->seed = v;
		a->rand = v ? v : 1; /* a new seed replays from its start */
		break;
	}
	spin_unlock_irqrestore(&a->lock, irq);
	return 0;
}

static const struct file_ops knob_ops = { .show = knob_show, .write = knob_write };

/* /proc/self is whoever reads it: the shell, when the shell runs `cat`. */
static unsigned long fail_nth_get(void *data)
{
	return READ_ONCE(current->fail_nth);
}

/* N arms the writer's N-th allocation from now to fail; 0 disarms. */
static int fail_nth_set(void *data, unsigned long n)
{
	WRITE_ONCE(current->fail_nth, (unsigned int)n);
	return 0;
}

static const struct tracefs_ulong fail_nth = { .max = 0x7fffffff,
					       .get = fail_nth_get,
					       .set = fail_nth_set };
static const struct tracefs_file fail_nth_file = TRACEFS_ULONG("/proc/self/fail-nth", &fail_nth);

/* Every attr's knobs and fail-nth, or none of them (said so). */
void fault_inject_files_init(void)
{
	char path[FS_PATH_MAX];
	struct fnode *dirs[ARRAY_SIZE(attrs)] = { NULL };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s", attrs[i]->name);
		dirs[i] = tracefs_create_path(path);
		for (int k = 0; dirs[i] && k < NR_KNOBS; k++) {
			knob_files[i][k] = (struct knob_file){ attrs[i], k };
			if (!tracefs_create_file(knob_names[k], dirs[i], &knob_files[i][k],
						 &knob_ops))
				goto fail;
		}
		if (!dirs[i])
			goto fail;
	}
	if (!tracefs_create_files(NULL, &fail_nth_file, 1))
		return;
fail:
	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		if (dirs[i])
			fs_remove(dirs[i]);
	pr_err("fault injection: cannot create its files\n");
}
