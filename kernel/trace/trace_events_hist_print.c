/* What a hist trigger prints, in Linux 6.1's formats: its line in the trigger file
 * (`hist:keys=...:vals=...:sort=...:size=2048 [active]`) and the hist file, sorted when read:
 *
 *   # event histogram
 *   #
 *   # trigger info: hist:keys=next_pid:vals=hitcount:sort=hitcount:size=2048 [active]
 *   #
 *
 *   { next_pid:          1 } hitcount:          5
 *
 *   Totals:
 *       Hits: 5
 *       Entries: 1
 *       Dropped: 0
 */
#include "kernel/trace/trace_events_trigger.h"
#include "kernel/trace/trace_events_hist.h"
#include "kernel/syscalls.h"
#include "kernel/fs/fs.h"
#include "lib/printf.h"

/* A field as the spec names it: `ts0=common_timestamp.usecs`, `$ts0`, `lat.buckets=10`. */
static void hist_field_print(struct seq_file *m, const struct hist_field *hf)
{
	const char *mod = hist_field_flags_str(hf);

	if (hf->var_name)
		seq_printf(m, "%s=", hf->var_name);
	if (hf->flags & HIST_FIELD_FL_CONST)
		seq_printf(m, "%llu", (unsigned long long)hf->constant);
	else
		seq_printf(m, "%s%s", hf->flags & HIST_FIELD_FL_VAR_REF ? "$" : "",
			   hist_field_name(hf));
	if (mod && !(hf->flags & (HIST_FIELD_FL_VAR_REF | HIST_FIELD_FL_EXPR))) {
		seq_printf(m, ".%s", !strcmp(mod, "symXoffset") ? "sym-offset" : mod);
		if (hf->flags & HIST_FIELD_FL_BUCKET)
			seq_printf(m, "=%lu", hf->buckets);
	}
}

void hist_trigger_print(struct seq_file *m, struct event_trigger_data *d)
{
	struct hist_trigger_data *hd = d->private_data, *owner = hd->named ?: hd;
	bool have_var = false;
	unsigned int i, n = 0;

	seq_puts(m, "hist:");
	if (hd->attrs->name)
		seq_printf(m, "%s:", hd->attrs->name);
	seq_puts(m, "keys=");
	for_each_hist_key_field(i, hd)
	{
		if (i > hd->n_vals)
			seq_putc(m, ',');
		hist_field_print(m, hd->fields[i]);
	}
	seq_puts(m, ":vals=hitcount");
	for (i = 1; i < hd->n_vals; i++) {
		if (hd->fields[i]->flags & HIST_FIELD_FL_VAR) {
			have_var = true;
			continue;
		}
		seq_putc(m, ',');
		hist_field_print(m, hd->fields[i]);
	}
	if (have_var) {
		seq_putc(m, ':');
		for (i = 1; i < hd->n_vals; i++)
			if (hd->fields[i]->flags & HIST_FIELD_FL_VAR) {
				if (n++)
					seq_putc(m, ',');
				hist_field_print(m, hd->fields[i]);
			}
	}
	seq_puts(m, ":sort=");
	for (i = 0; i < hd->n_sort_keys; i++) {
		unsigned int idx = hd->sort_keys[i].field_idx;
		if (i)
			seq_putc(m, ',');
		if (!idx) {
			seq_puts(m, "hitcount");
		} else {
			/* map field index -> spec field: variables hold no map field */
			unsigned int j, k = 0;
			for (j = 1; j < hd->n_fields; j++)
				if (!(hd->fields[j]->flags & HIST_FIELD_FL_VAR) && ++k == idx)
					break;
			hist_field_print(m, hd->fields[j]);
		}
		if (hd->sort_keys[i].descending)
			seq_puts(m, ".descending");
	}
	seq_printf(m, ":size=%u", 1U << hd->map->map_bits);
	if (hd->enable_timestamps)
		seq_printf(m, ":clock=%s", hd->attrs->clock);
	hist_actions_print_spec(m, hd);
	if (d->filter)
		seq_printf(m, " if %s", filter_string(d->filter));
	seq_puts(m, READ_ONCE(owner->paused) ? " [paused]\n" : " [active]\n");
}

static void stacktrace_print(struct seq_file *m, const unsigned long *entries)
{
	for (unsigned int i = 0; i < HIST_STACKTRACE_DEPTH && entries[i]; i++)
		seq_printf(m, "%*c%pS\n", 9, ' ', (void *)entries[i]);
}

static const char *syscall_full_name(u64 nr, char *buf, size_t size)
{
	const char *name = nr < NR_syscalls ? syscall_name(nr) : NULL;

	if (!name)
		return "unknown_syscall";
	snprintf(buf, size, "sys_%s", name);
	return buf;
}

/* comm: the task name an .execname key prints (the entry's, kept when it was made). */
static void key_print(struct seq_file *m, struct hist_trigger_data *hd, const void *key,
		      const char *comm)
{
	bool multiline = false;
	unsigned int i;
	char buf[48];

	seq_puts(m, "{ ");
	for_each_hist_key_field(i, hd)
	{
		const struct hist_field *hf = hd->fields[i];
		const u8 *slot = (const u8 *)key + hf->offset;
		const char *name = hist_field_name(hf);
		unsigned long long v = *(const u64 *)slot;
		if (i > hd->n_vals)
			seq_puts(m, ", ");
		if (hf->flags & HIST_FIELD_FL_HEX)
			seq_printf(m, "%s: %llx", name, v);
		else if (hf->flags & HIST_FIELD_FL_SYM)
			seq_printf(m, "%s: [%llx] %-45ps", name, v, (void *)(unsigned long)v);
		else if (hf->flags & HIST_FIELD_FL_SYM_OFFSET)
			seq_printf(m, "%s: [%llx] %-55pS", name, v, (void *)(unsigned long)v);
		else if (hf->flags & HIST_FIELD_FL_EXECNAME)
			seq_printf(m, "%s: %-16s[%10llu]", name, comm, v);
		else if (hf->flags & HIST_FIELD_FL_SYSCALL)
			seq_printf(m, "%s: %-30s[%3llu]", name,
				   syscall_full_name(v, buf, sizeof(buf)), v);
		else if (hf->flags & HIST_FIELD_FL_STACKTRACE) {
			seq_puts(m, "stacktrace:\n");
			stacktrace_print(m, (const unsigned long *)slot);
			multiline = true;
		} else if (hf->flags & HIST_FIELD_FL_LOG2)
			seq_printf(m, "%s: ~ 2^%-2llu", name, v);
		else if (hf->flags & HIST_FIELD_FL_BUCKET)
			seq_printf(m, "%s: ~ %llu-%llu", name, v, v + hf->buckets - 1);
		else if (hf->flags & HIST_FIELD_FL_STRING)
			seq_printf(m, "%s: %-50s", name, (const char *)slot);
		else
			seq_printf(m, "%s: %10llu", name, v);
	}
	seq_puts(m, multiline ? "}" : " }");
}

/* A value's total and maximum over the entries, for .percent and .graph (Linux's hist_val_stat). */
struct hist_val_stat {
	u64 max, total;
};

/* val in hundredths of a percent of total; UINT_MAX when total is 0 and val is not (Linux's
 * __get_percentage(), which shows it as [ERROR]). */
static unsigned int percentage(u64 val, u64 total)
{
	if (total && val < ~0ULL / 10000)
		return (unsigned int)(val * 10000 / total);
	total /= 10000;
	if (total)
		return (unsigned int)(val / total);
	return val ? ~0U : 0;
}

static void val_print(struct seq_file *m, const char *name, unsigned long flags, u64 v,
		      const struct hist_val_stat *st)
{
	if (flags & HIST_FIELD_FL_PERCENT) {
		unsigned int pc = percentage(v, st->total);
		if (pc == ~0U)
			seq_printf(m, "  %s (%%):[ERROR]", name);
		else
			seq_printf(m, "  %s (%%): %3u.%02u", name, pc / 100, pc % 100);
	} else if (flags & HIST_FIELD_FL_GRAPH) {
		unsigned int len = percentage(v, st->max);
		char bar[21];
		int i = 0;
		if (len == ~0U) {
			strcpy(bar, "[ERROR]");
		} else {
			for (len = len * 20 / 10000; i < (int)len && i < 20; i++)
				bar[i] = '#';
			for (; i < 20; i++)
				bar[i] = ' ';
			bar[20] = 0;
		}
		seq_printf(m, "  %s: %20s", name, bar);
	} else if (flags & HIST_FIELD_FL_HEX) {
		seq_printf(m, "  %s: %10llx", name, (unsigned long long)v);
	} else {
		seq_printf(m, "  %s: %10llu", name, (unsigned long long)v);
	}
}

static void entry_print(struct seq_file *m, struct hist_trigger_data *hd, const void *key,
			struct tracing_map_elt *elt, const struct hist_val_stat *stats)
{
	unsigned int i, sum = 1;

	key_print(m, hd, key, elt->private_data);
	seq_printf(m, " hitcount: %10llu", (unsigned long long)tracing_map_read_sum(elt, 0));
	for (i = 1; i < hd->n_vals; i++) {
		const struct hist_field *hf = hd->fields[i];
		if (hf->flags & HIST_FIELD_FL_VAR)
			continue;
		val_print(m, hist_field_name(hf), hf->flags, tracing_map_read_sum(elt, sum),
			  &stats[sum]);
		sum++;
	}
	hist_actions_print_elt(m, hd, elt);
	seq_putc(m, '\n');
}

/* Totals and maxima of the sums, over the entries. */
static void val_stats(struct hist_trigger_data *hd, struct tracing_map_sort_entry **entries, int nr,
		      struct hist_val_stat *stats)
{
	memset(stats, 0, sizeof(*stats) * TRACING_MAP_VALS_MAX);
	for (int i = 0; i < nr; i++)
		for (unsigned int j = 0; j < TRACING_MAP_VALS_MAX && j < hd->map->n_sums; j++) {
			u64 v = tracing_map_read_sum(entries[i]->elt, j);
			stats[j].total += v;
			if (stats[j].max < v)
				stats[j].max = v;
		}
}

static void hist_show_one(struct seq_file *m, struct event_trigger_data *d, int n)
{
	static struct hist_val_stat stats[TRACING_MAP_VALS_MAX]; /* under event_mutex */
	struct hist_trigger_data *hd = d->private_data, *owner = hd->named ?: hd;
	struct tracing_map_sort_entry **entries;
	int nr;

	if (n > 0)
		seq_puts(m, "\n\n");
	seq_puts(m, "# event histogram\n#\n# trigger info: ");
	hist_trigger_print(m, d);
	seq_puts(m, "#\n\n");
	nr = tracing_map_sort_entries(owner->map, hd->sort_keys, hd->n_sort_keys, &entries);
	val_stats(owner, entries, nr, stats);
	for (int i = 0; i < nr; i++)
		entry_print(m, hd, entries[i]->key, entries[i]->elt, stats);
	if (nr >= 0)
		tracing_map_destroy_sort_entries(entries, nr);
	hist_snapshot_print(m, hd, key_print);
	seq_printf(m, "\nTotals:\n    Hits: %llu\n    Entries: %u\n    Dropped: %llu\n",
		   (unsigned long long)READ_ONCE(owner->map->hits), nr < 0 ? 0 : nr,
		   (unsigned long long)READ_ONCE(owner->map->drops));
}

/* Every hist trigger of the event, oldest first (the trigger list's order, as Linux). */
void event_hist_show(struct seq_file *m, struct trace_event_file *file)
{
	int n = 0;

	event_mutex_lock();
	for (struct event_trigger_data *d = file->triggers; d; d = d->next)
		if (d->type == ETT_EVENT_HIST && d->private_data)
			hist_show_one(m, d, n++);
	event_mutex_unlock();
}
