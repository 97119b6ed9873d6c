/* What a record gives a hist beyond numbers, on the tracing path: a string key's bytes (static
 * arrays, __data_loc strings, char pointers), a stacktrace key, and a string variable's text kept
 * in the entry (trace_events_hist.c calls them for each event; kernel only, not fuzzed). */
#include "kernel/trace/trace_events_hist.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/string.h"

/* A string field into its key slot: static arrays, __data_loc strings, char pointers. */
void hist_string_to_key(const struct hist_field *hf, const void *rec, u32 len, char *dst)
{
	const struct ftrace_event_field *f = hf->field;
	const char *src = (const char *)rec + f->offset;
	unsigned int n = 0;

	if (f->kind == FILTER_DYN_STRING) {
		u32 loc = *(const u32 *)src;
		if ((loc & 0xffff) + (loc >> 16) > len)
			return;
		src = (const char *)rec + (loc & 0xffff);
		n = MIN(loc >> 16, hf->size - 1);
	} else if (f->kind == FILTER_PTR_STRING) {
		strncpy_from_kernel_nofault(dst, *(const char *const *)src, hf->size);
		return;
	} else {
		n = f->size ?: MIN(len - f->offset, hf->size - 1); /* char[] to the record's end */
	}
	memcpy(dst, src, MIN(n, hf->size));
	dst[hf->size - 1] = 0;
}

/* Our own frames are left out: the trace starts at the function that hit the tracepoint. */
void hist_stack_to_key(unsigned long *entries)
{
	unsigned long fp = (unsigned long)__builtin_frame_address(0), prev = fp - 8;
	unsigned int n = 0;
	bool found = false;

	for (int depth = 0; depth < 40 && n < HIST_STACKTRACE_DEPTH; depth++) {
		unsigned long ret;
		const char *name;
		if (fp < PAGE_OFFSET || (fp & 7) || fp <= prev || fp - prev > 64 * 1024)
			break;
		ret = ((unsigned long *)fp)[1];
		if (found)
			entries[n++] = ret;
		else if ((name = kallsyms_lookup(ret - 1, NULL, NULL)) &&
			 !strncmp(name, "__traceiter_", 12))
			found = true;
		prev = fp;
		fp = ((unsigned long *)fp)[0];
	}
}

/* A string variable's value: its text kept in the entry's private data, past the save() strings,
 * and the value is where (Linux's field_var_str), so a reference reads the text. */
u64 hist_string_var(struct hist_trigger_data *hd, const struct hist_field *hf,
		    struct tracing_map_elt *elt, const void *rec, u32 len)
{
	char *dst = (char *)elt->private_data + HIST_ELT_PRIVATE_SIZE(hd) -
		    HIST_STRING_MAX * (hd->n_str_vars - hf->str_slot);

	memset(dst, 0, HIST_STRING_MAX);
	hist_string_to_key(hf, rec, len, dst);
	return (unsigned long)dst;
}
