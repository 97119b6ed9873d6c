/* record-tgid: which process each traced pid belonged to, for saved_tgids and the TGID column.
 *
 *   saved_tgids    "PID TGID" a line, for each pid seen while some trace array had record-tgid on
 *
 * Linux keeps a tgid_map indexed by pid, allocated the first time the option is set; our pids only
 * grow, so the map is a table of SAVED_TGIDS slots, a pid hashed to one (a newer pid evicts, as
 * saved_cmdlines does), and a pid whose slot was taken prints "(-------)" as an unknown one does.
 * The scheduler records the task it switches to, as Linux's sched_switch probe does.
 */
#include "kernel/trace/trace.h"
#include "kernel/fs/tracefs.h"
#include "kernel/sched/sched.h"

#define SAVED_TGIDS 4096

static struct {
	int pid, tgid;
} tgid_map[SAVED_TGIDS];

/* How many trace arrays have record-tgid on: recording costs nothing while it is 0. */
static int tgid_users;

void trace_tgid_option_changed(bool on)
{
	__atomic_add_fetch(&tgid_users, on ? 1 : -1, __ATOMIC_RELAXED);
}

/* A kernel thread is its own process (Linux's kthreads have tgid == pid); pid 0 is <idle>,
 * never recorded, as in Linux. */
void trace_record_tgid(const struct task *t)
{
	unsigned int slot = (unsigned int)t->pid % SAVED_TGIDS;

	if (!READ_ONCE(tgid_users) || !t->pid)
		return;
	WRITE_ONCE(tgid_map[slot].tgid, 0); /* a reader never pairs the new pid with the old tgid */
	WRITE_ONCE(tgid_map[slot].pid, t->pid);
	WRITE_ONCE(tgid_map[slot].tgid, t->tgid ?: t->pid);
}

int trace_find_tgid(int pid)
{
	unsigned int slot = (unsigned int)pid % SAVED_TGIDS;
	int tgid = READ_ONCE(tgid_map[slot].tgid);

	return pid && READ_ONCE(tgid_map[slot].pid) == pid ? tgid : 0;
}

static int saved_tgids_show(struct seq_file *m, struct fnode *f)
{
	for (unsigned int slot = 0; slot < SAVED_TGIDS; slot++) {
		int pid = READ_ONCE(tgid_map[slot].pid), tgid = trace_find_tgid(pid);
		if (tgid)
			seq_printf(m, "%d %d\n", pid, tgid);
	}
	return 0;
}

static const struct tracefs_file tgid_files[] = {
	TRACEFS_FILE("/sys/kernel/tracing/saved_tgids", saved_tgids_show, NULL),
};

void trace_tgid_init(void)
{
	tracefs_create_files(NULL, tgid_files, ARRAY_SIZE(tgid_files));
}
