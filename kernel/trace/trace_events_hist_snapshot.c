/*
 * The hist trigger's snapshot() action: `onmax($lat).snapshot()` swaps the trace buffer with its
 * snapshot when a new worst value comes, and the hist file then says which value and key took it
 * (Linux's conditional snapshot, tracing_snapshot_cond(), and its track_data). One histogram at a
 * time holds the action, as Linux allows one conditional snapshot.
 */
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_events_hist.h"
#include "kernel/trace/trace_snapshot.h"
#include "kernel/spinlock.h"
#include "lib/errno.h"
#include "lib/string.h"

/* What took the last snapshot, for the hist file (Linux's cond_snapshot and its track_data). */
static DEFINE_SPINLOCK(cond_lock);
static struct {
	struct hist_trigger_data *hd; /* the histogram holding the action, or NULL */
	const struct action_data *action;
	bool updated;
	u64 val;
	u64 key[HIST_KEY_SIZE_MAX / 8];
	char comm[16];
} cond_snap;

int hist_snapshot_enable(struct hist_trigger_data *hd)
{
	unsigned long flags;
	int err = 0;

	for (unsigned int i = 0; i < hd->n_actions; i++)
		if (hd->actions[i]->action == ACTION_SNAPSHOT) {
			err = tracing_alloc_snapshot_instance(hd->file->tr);
			if (err)
				return err;
			flags = spin_lock_irqsave(&cond_lock);
			if (cond_snap.hd) {
				err = -EBUSY; /* Linux's tracing_snapshot_cond_enable(): one at a time */
			} else {
				cond_snap.hd = hd;
				cond_snap.action = hd->actions[i];
				cond_snap.updated = false;
			}
			spin_unlock_irqrestore(&cond_lock, flags);
			return err;
		}
	return 0;
}

void hist_snapshot_disable(struct hist_trigger_data *hd)
{
	unsigned long flags = spin_lock_irqsave(&cond_lock);

	if (cond_snap.hd == hd)
		cond_snap.hd = NULL;
	spin_unlock_irqrestore(&cond_lock, flags);
}

void hist_snapshot_take(struct hist_trigger_data *hd, struct action_data *a, const void *key,
			struct tracing_map_elt *elt, u64 val)
{
	unsigned long flags = spin_lock_irqsave(&cond_lock);
	bool mine = cond_snap.hd == hd;

	if (mine) {
		cond_snap.updated = true;
		cond_snap.val = val;
		memcpy(cond_snap.key, key, hd->key_size);
		memcpy(cond_snap.comm, elt->private_data, sizeof(cond_snap.comm));
	}
	spin_unlock_irqrestore(&cond_lock, flags);
	if (mine)
		tracing_snapshot_instance(hd->file->tr);
}

void hist_snapshot_print(struct seq_file *m, struct hist_trigger_data *hd,
			 void (*key_print)(struct seq_file *m, struct hist_trigger_data *hd,
					   const void *key, const char *comm))
{
	static u64 key[HIST_KEY_SIZE_MAX / 8]; /* under event_mutex, as every hist file read */
	static char comm[16];
	const struct action_data *a;
	unsigned long flags;
	bool updated;
	u64 val;

	flags = spin_lock_irqsave(&cond_lock);
	updated = cond_snap.hd == hd && cond_snap.updated;
	a = cond_snap.action;
	val = cond_snap.val;
	memcpy(key, cond_snap.key, sizeof(key));
	memcpy(comm, cond_snap.comm, sizeof(comm));
	spin_unlock_irqrestore(&cond_lock, flags);
	if (!updated)
		return;
	seq_puts(m, "\nSnapshot taken (see tracing/snapshot).  Details:\n");
	seq_printf(m, "\ttriggering value { %s(%s) }: %10llu",
		   a->handler == HANDLER_ONMAX ? "onmax" : "onchange", a->track_var_str,
		   (unsigned long long)val);
	seq_puts(m, "\ttriggered by event with key: ");
	key_print(m, hd, key, comm);
	seq_putc(m, '\n');
}
