/* The names `trace` prints beside pids (Linux's saved_cmdlines): a ring of slots, the newest
 * pid taking the oldest slot, and a map from pid to its slot.
 *
 *   map[pid & (PID_MAX_DEFAULT - 1)] --> slot --> e[slot] = { pid, comm }
 *   a pid not in the ring takes slot (idx + 1) % n: the pid there loses its name (<...>)
 *
 * As Linux's trace_save_cmdline(), a pid keeps its slot while it is in the ring, so a task that
 * runs often (the shell, at every switch to it) never pushes out a task that ran less: only the
 * n most recently new pids have names.
 */
#include "kernel/trace/trace.h"
#include "kernel/sched/sched.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/string.h"

#define PID_MAX_DEFAULT 32768
#define NO_SLOT 0xffffffffU

struct saved_cmdline {
	int pid;
	char comm[TASK_COMM_LEN];
};

/* The table is replaced whole by a write to saved_cmdlines_size; a reader takes it once. */
struct cmdline_table {
	unsigned int n;
	unsigned int idx; /* the slot given out last: the next new pid takes the one after */
	struct saved_cmdline *e;
};

static struct saved_cmdline boot_saved[SAVED_CMDLINES];
static struct cmdline_table boot_table = { SAVED_CMDLINES, SAVED_CMDLINES - 1, boot_saved };
static struct cmdline_table *saved_table = &boot_table;
/* Slot of each pid in saved_table, NO_SLOT if none; checked against e[slot].pid on every use. */
static unsigned int map_pid_to_cmdline[PID_MAX_DEFAULT];
static bool map_ready;
/*
 * Writers take this flag, never a spin lock: the scheduler saves names with interrupts off and
 * the function tracer may trace the lock functions (Linux uses arch_spin_trylock() for the same
 * reason). A switch that finds it taken skips its save, as Linux's does.
 */
static u8 cmdline_busy;

static unsigned int *map_of(int pid)
{
	return &map_pid_to_cmdline[(unsigned int)pid & (PID_MAX_DEFAULT - 1)];
}

static void map_clear(void)
{
	for (unsigned int i = 0; i < PID_MAX_DEFAULT; i++)
		map_pid_to_cmdline[i] = NO_SLOT;
	map_ready = true;
}

static bool cmdline_trylock(void)
{
	return !__atomic_exchange_n(&cmdline_busy, 1, __ATOMIC_ACQUIRE);
}

static void cmdline_unlock(void)
{
	__atomic_store_n(&cmdline_busy, 0, __ATOMIC_RELEASE);
}

/* pid's slot in t, taking the oldest one for a pid not in the ring; the flag is held. */
static struct saved_cmdline *slot_take(struct cmdline_table *t, int pid, bool *fresh)
{
	unsigned int *m = map_of(pid), slot;
	struct saved_cmdline *s;

	if (!map_ready)
		map_clear();
	slot = *m;
	*fresh = slot == NO_SLOT || slot >= t->n || t->e[slot].pid != pid;
	if (!*fresh)
		return &t->e[slot];
	slot = t->idx = (t->idx + 1) % t->n;
	s = &t->e[slot];
	if (s->pid && *map_of(s->pid) == slot)
		*map_of(s->pid) = NO_SLOT;
	s->pid = pid;
	s->comm[0] = '\0';
	*m = slot;
	return s;
}

void trace_save_cmdline(int pid, const char *comm)
{
	struct saved_cmdline *s;
	bool fresh;

	if (!trace_option(TRACE_OPT_RECORD_CMD) || !cmdline_trylock())
		return; /* record-cmd off: names already saved stay, new ones are not kept */
	s = slot_take(READ_ONCE(saved_table), pid, &fresh);
	if (fresh || !s->comm[0])
		strscpy(s->comm, comm, sizeof(s->comm));
	cmdline_unlock();
}

/* A rename (exec, prctl) must land: it waits out a save on another CPU, with interrupts off so
 * that the flag is held for the fewest instructions (a switch here meanwhile would skip its save). */
void trace_update_cmdline(int pid, const char *comm)
{
	unsigned long flags = local_irq_save();
	struct saved_cmdline *s;
	bool fresh;

	while (!cmdline_trylock())
		cpu_relax();
	s = slot_take(READ_ONCE(saved_table), pid, &fresh);
	strscpy(s->comm, comm, sizeof(s->comm));
	cmdline_unlock();
	local_irq_restore(flags);
}

unsigned int trace_saved_cmdlines_size(void)
{
	return READ_ONCE(saved_table)->n;
}

int trace_saved_cmdline_at(unsigned int slot, char *comm)
{
	const struct cmdline_table *t = READ_ONCE(saved_table);

	if (slot >= t->n || !t->e[slot].pid || !t->e[slot].comm[0])
		return -1;
	strscpy(comm, t->e[slot].comm, TASK_COMM_LEN);
	return t->e[slot].pid;
}

/* Lockless, as Linux's reader: a slot taken meanwhile fails the pid check and prints <...>. */
const char *trace_find_cmdline(int pid)
{
	const struct cmdline_table *t = READ_ONCE(saved_table);
	unsigned int slot = map_ready ? READ_ONCE(*map_of(pid)) : NO_SLOT;

	if (pid == 0)
		return "<idle>";
	if (slot >= t->n || t->e[slot].pid != pid || !t->e[slot].comm[0])
		return "<...>";
	return t->e[slot].comm;
}

/*
 * A write to saved_cmdlines_size (Linux's tracing_resize_saved_cmdlines()): a table of n slots
 * takes the place of the old one, with the names it held put in again oldest first, so the
 * newest stay if it is smaller (Linux starts the new one empty); the old one is freed once no
 * task can still be reading it. 1 to 32768 (Linux's PID_MAX_DEFAULT), else EINVAL; ENOMEM with
 * nothing changed.
 */
int trace_resize_saved_cmdlines(unsigned long n)
{
	static DEFINE_MUTEX(resize_lock);
	struct cmdline_table *t, *old;
	unsigned long flags;
	bool fresh;

	if (!n || n > PID_MAX_DEFAULT)
		return -EINVAL;
	t = kzalloc(sizeof(*t) + n * sizeof(t->e[0]));
	if (!t)
		return -ENOMEM;
	t->n = n;
	t->idx = n - 1;
	t->e = (struct saved_cmdline *)(t + 1);
	mutex_lock(&resize_lock);
	flags = local_irq_save();
	while (!cmdline_trylock())
		cpu_relax();
	old = saved_table;
	map_clear();
	for (unsigned int i = 1; i <= old->n; i++) {
		const struct saved_cmdline *o = &old->e[(old->idx + i) % old->n];

		if (o->pid && o->comm[0])
			strscpy(slot_take(t, o->pid, &fresh)->comm, o->comm, TASK_COMM_LEN);
	}
	WRITE_ONCE(saved_table, t);
	cmdline_unlock();
	local_irq_restore(flags);
	synchronize_rcu_tasks(); /* a reader may still hold old */
	if (old != &boot_table)
		kfree(old);
	mutex_unlock(&resize_lock);
	return 0;
}
