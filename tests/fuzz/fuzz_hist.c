/*
 * The hist trigger and synthetic_events parsers (kernel/trace/trace_events_hist_parse.c,
 * trace_events_hist_fields.c, trace_events_hist_vars.c, trace_events_synth_parse.c): any text
 * either parses into a histogram whose keys fit its key, whose sort keys name real fields and
 * whose map can be built and filled, or is refused with one of Linux's errors at a column inside
 * the command; nothing leaks either way. No oracle: ASan, UBSan and these checks judge.
 *
 * Input: one byte choosing the parser (even: a hist spec, as written after `hist:` on an event
 * shaped like sched_switch, with one other histogram's variable ts0 and one synthetic event to
 * refer to; odd: a synthetic event's fields), then the text.
 */
#include "tests/fuzz/fuzz.h"
#include "kernel/trace/trace_events_hist.h"
#include "kernel/trace/trace_synth.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

static const struct ftrace_event_field fields[] = {
	{ "unsigned short", "common_type", 0, 2, 0, FILTER_OTHER },
	{ "unsigned char", "common_flags", 2, 1, 0, FILTER_OTHER },
	{ "unsigned char", "common_preempt_count", 3, 1, 0, FILTER_OTHER },
	{ "int", "common_pid", 4, 4, 1, FILTER_OTHER },
	{ "char[16]", "prev_comm", 8, 16, 0, FILTER_STATIC_STRING },
	{ "pid_t", "prev_pid", 24, 4, 1, FILTER_OTHER },
	{ "long", "prev_state", 32, 8, 1, FILTER_OTHER },
	{ "__data_loc char[]", "name", 40, 4, 0, FILTER_DYN_STRING },
	{ "pid_t", "next_pid", 44, 4, 1, FILTER_OTHER },
	{ "int", "next_prio", 48, 4, 1, FILTER_OTHER },
	{ "unsigned long", "call_site", 56, 8, 0, FILTER_OTHER },
};

/* The other event's histogram: keys=pid:ts0=common_timestamp.usecs. */
static struct hist_field other_ts0 = { .flags = HIST_FIELD_FL_VAR | HIST_FIELD_FL_TIMESTAMP |
						HIST_FIELD_FL_TIMESTAMP_USECS,
				       .size = 8,
				       .var_name = "ts0",
				       .var_idx = 0 };
static struct hist_trigger_data other = { .fields = { &other_ts0 }, .n_vals = 1, .n_vars = 1,
					  .n_fields = 1, .key_size = 8 };

static struct hist_trigger_data *find_var(struct hist_parse_ctx *ctx, const char *system,
					  const char *event, const char *var, int *idx,
					  struct hist_trigger_data *self)
{
	if (strcmp(var, "ts0"))
		return NULL;
	*idx = 0;
	return &other;
}

/* One synthetic event, `lat_ev u64 lat; pid_t pid; char comm[16]`, behind the accessors the
 * actions use (trace_events_synth.c's in the kernel). */
struct synth_event {
	const char *name;
};
static struct synth_event lat_ev = { "lat_ev" };
static const char *const lat_types[] = { "u64", "pid_t", "char[16]" };

static struct synth_event *find_synth(const char *name)
{
	return strcmp(name, "lat_ev") ? NULL : &lat_ev;
}

unsigned int synth_event_n_fields(const struct synth_event *se)
{
	return 3;
}

const char *synth_field_type(const struct synth_event *se, unsigned int i)
{
	return lat_types[i];
}

bool synth_field_is_string(const struct synth_event *se, unsigned int i)
{
	return i == 2;
}

static bool event_exists(const char *system, const char *event)
{
	return !strcmp(system, "sched") && !strcmp(event, "sched_waking");
}

/* What the actions would call at an event: never reached while parsing. */
void synth_event_ref(struct synth_event *se, int delta)
{
	fuzz_fail("synth_event_ref called by the parser");
}

void synth_event_trace(struct synth_event *se, const u64 *vals)
{
	fuzz_fail("synth_event_trace called by the parser");
}

u64 hist_field_value(const struct hist_field *hf, const void *rec, u64 ts, const u64 *refs)
{
	fuzz_fail("hist_field_value called by the parser");
}

void hist_snapshot_take(struct hist_trigger_data *hd, struct action_data *a, const void *key,
			struct tracing_map_elt *elt, u64 val)
{
	fuzz_fail("hist_snapshot_take called by the parser");
}

/* seq_file.c flushes to the console only for the kernel's own seq_files: never here. */
void console_write(const char *s, size_t len)
{
	fuzz_fail("console_write called");
}

static void check_hist(struct hist_trigger_data *hd)
{
	unsigned int i, end = 0;
	u64 key[HIST_KEY_SIZE_MAX / 8] = { 0 };

	FUZZ_CHECK(hd->n_keys >= 1 && hd->n_keys <= TRACING_MAP_KEYS_MAX, "%u keys", hd->n_keys);
	FUZZ_CHECK(hd->n_vals >= 1 && hd->n_fields == hd->n_vals + hd->n_keys, "fields %u/%u/%u",
		   hd->n_vals, hd->n_keys, hd->n_fields);
	FUZZ_CHECK(hd->key_size % 8 == 0 && hd->key_size <= HIST_KEY_SIZE_MAX, "key size %u",
		   hd->key_size);
	for_each_hist_key_field(i, hd)
	{
		FUZZ_CHECK(hd->fields[i]->offset == end, "key %u at %u", i, hd->fields[i]->offset);
		end += hd->fields[i]->size;
	}
	FUZZ_CHECK(end == hd->key_size, "keys end at %u of %u", end, hd->key_size);
	FUZZ_CHECK(hd->n_sort_keys >= 1 && hd->n_sort_keys <= TRACING_MAP_SORT_KEYS_MAX,
		   "%u sort keys", hd->n_sort_keys);
	for (i = 0; i < hd->n_sort_keys; i++)
		FUZZ_CHECK(hd->sort_keys[i].field_idx < hd->map->n_fields, "sort key %u -> %u", i,
			   hd->sort_keys[i].field_idx);
	FUZZ_CHECK(hist_trigger_match(hd, hd), "a hist differs from itself");
	for (i = 0; i < hd->n_fields; i++)
		FUZZ_CHECK(hist_field_name(hd->fields[i]) != NULL, "field %u has no name", i);
	if (!tracing_map_init(hd->map)) {
		struct tracing_map_elt *elt = tracing_map_insert(hd->map, key, NULL);
		FUZZ_CHECK(elt && tracing_map_lookup(hd->map, key) == elt, "insert then lookup");
	}
}

static void fuzz_hist(const char *text)
{
	char *spec = fuzz_cstr((const u8 *)text, strlen(text)), cmd[4096];
	struct hist_parse_ctx ctx = { .fields = fields, .nr_fields = ARRAY_SIZE(fields),
				      .system = "sched", .event = "sched_switch",
				      .find_var = find_var, .find_synth = find_synth,
				      .event_exists = event_exists, .cmd = cmd };
	struct hist_trigger_data *hd = NULL;
	int err;

	snprintf(cmd, sizeof(cmd), "hist:%s", text);
	err = hist_trigger_parse(&ctx, spec, &hd);
	FUZZ_CHECK(err == 0 || err == -EINVAL, "\"%s\": %d", text, err);
	if (err) {
		FUZZ_CHECK(ctx.err < NR_HIST_ERRS && hist_err_text(ctx.err), "error %d", ctx.err);
		FUZZ_CHECK(ctx.err_pos >= 0 && ctx.err_pos <= (int)strlen(cmd), "caret at %d of %s",
			   ctx.err_pos, cmd);
	} else {
		check_hist(hd);
		hist_trigger_data_free(hd);
	}
	fuzz_free(spec);
}

static void fuzz_synth(const char *text)
{
	char *copy = fuzz_cstr((const u8 *)text, strlen(text));
	struct synth_field f[SYNTH_FIELDS_MAX];
	struct synth_parse_err e = { 0 };
	unsigned int n = 0, size = 0;
	size_t len = strlen(copy);
	int err = synth_parse_fields(copy, f, SYNTH_FIELDS_MAX, &n, &size, &e);

	if (err) {
		FUZZ_CHECK(err == -EINVAL && e.set && synth_err_text(e.err), "\"%s\": %d", text, err);
		FUZZ_CHECK(!e.at || (e.at >= copy && e.at <= copy + len), "caret outside \"%s\"",
			   text);
	} else {
		FUZZ_CHECK(n >= 1 && n <= SYNTH_FIELDS_MAX, "%u fields", n);
		for (unsigned int i = 0; i < n; i++) {
			FUZZ_CHECK(synth_good_name(f[i].name), "field name \"%s\"", f[i].name);
			FUZZ_CHECK(f[i].size >= 1 && f[i].offset + (f[i].is_string && !f[i].is_dynamic
								  ? STR_VAR_LEN_MAX
								  : 8) <= size,
				   "field %u at %u+%u of %u", i, f[i].offset, f[i].size, size);
			FUZZ_CHECK(synth_field_fmt(&f[i])[0] == '%', "no format for %s", f[i].type);
		}
	}
	fuzz_free(copy);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	char *text;

	if (!size || size > 2048)
		return 0;
	text = fuzz_cstr(data + 1, size - 1);
	if (data[0] & 1)
		fuzz_synth(text);
	else
		fuzz_hist(text);
	fuzz_free(text);
	FUZZ_CHECK(fuzz_live_allocs == 0, "%ld allocations leaked", fuzz_live_allocs);
	return 0;
}
