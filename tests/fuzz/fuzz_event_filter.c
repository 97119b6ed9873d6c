/*
 * kernel/trace/trace_events_filter.c: any string written to an event's filter either compiles
 * or is refused with one of Linux's errors at a column inside the string, and a compiled filter
 * runs on any record (a __data_loc string pointing anywhere, a char[] never terminated)
 * without reading outside it. Nothing leaks either way. No oracle: ASan, UBSan and these
 * checks are the judges.
 *
 * Input: the filter text, then optionally '\0' and the bytes of one record.
 */
#include "tests/fuzz/fuzz.h"
#include "kernel/trace/trace_events_filter.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"

/* The pseudo-fields' context (the kernel's: this CPU and the current task's name). */
int filter_current_cpu(void)
{
	return 1;
}

const char *filter_current_comm(void)
{
	return "fuzz";
}

struct rec {
	u16 common_type;
	u8 common_flags;
	u8 common_preempt_count;
	s32 common_pid;
	s8 c8;
	u8 u8;
	s16 s16;
	u16 u16;
	s32 s32;
	u32 u32;
	s64 s64;
	u64 u64;
	char comm[16];
	u32 name; /* __data_loc char[]: offset | length << 16, from the start of the record */
	const char *ptr;
	char dyn[32];
};

#define F(t, n, signed, k) { t, #n, __builtin_offsetof(struct rec, n), \
			     sizeof(((struct rec *)0)->n), signed, k }
static const struct ftrace_event_field fields[] = {
	F("unsigned short", common_type, 0, FILTER_OTHER),
	F("unsigned char", common_flags, 0, FILTER_OTHER),
	F("unsigned char", common_preempt_count, 0, FILTER_OTHER),
	F("int", common_pid, 1, FILTER_OTHER),
	F("s8", c8, 1, FILTER_OTHER),
	F("u8", u8, 0, FILTER_OTHER),
	F("s16", s16, 1, FILTER_OTHER),
	F("u16", u16, 0, FILTER_OTHER),
	F("s32", s32, 1, FILTER_OTHER),
	F("u32", u32, 0, FILTER_OTHER),
	F("s64", s64, 1, FILTER_OTHER),
	F("u64", u64, 0, FILTER_OTHER),
	F("char[16]", comm, 0, FILTER_STATIC_STRING),
	F("__data_loc char[]", name, 0, FILTER_DYN_STRING),
	F("const char *", ptr, 0, FILTER_PTR_STRING),
};

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	size_t tlen = strlen(text), rlen = tlen < size ? size - tlen - 1 : 0;
	struct filter_parse_error pe = { FILT_ERR_NONE, -1 };
	struct event_filter *f = NULL;
	/* Its own heap block, exactly a record long: ASan sees a read one byte past it. */
	struct rec *r = kzalloc(sizeof(*r));
	int err;

	memcpy(r, data + tlen + 1 - !rlen, rlen < sizeof(*r) ? rlen : sizeof(*r));
	r->ptr = "swapper/0";
	err = filter_compile(fields, ARRAY_SIZE(fields), text, &f, &pe);
	if (err == -EINVAL) {
		FUZZ_CHECK(!f, "refused \"%s\" but set *out", text);
		FUZZ_CHECK(pe.err > FILT_ERR_NONE && pe.err < NR_FILT_ERRS && pe.pos >= 0 &&
				   pe.pos <= (int)tlen + 1,
			   "\"%s\": error %d at %d, outside the string", text, pe.err, pe.pos);
	} else {
		FUZZ_CHECK(!err && f, "\"%s\": filter_compile returned %d", text, err);
		FUZZ_CHECK(!strcmp(filter_string(f), text) ||
				   !strncmp(filter_string(f), text, strlen(filter_string(f))),
			   "\"%s\" compiled, but shows as \"%s\"", text, filter_string(f));
		filter_match(f, r, sizeof(*r));
		filter_free(f);
	}
	kfree(r);
	FUZZ_CHECK(fuzz_live_allocs == 0, "\"%s\": %ld allocations leaked", text, fuzz_live_allocs);
	fuzz_free(text);
	return 0;
}
