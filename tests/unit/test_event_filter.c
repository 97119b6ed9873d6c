/* Unit tests for kernel/trace/trace_events_filter.c: what passes, what is refused and where. */
#include "kernel/trace/trace_events_filter.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

/*
 * The kernel's heap is not built for the host: hand the filter code the host's malloc (so
 * ASan sees every overrun and leak), count what is live, and fail on request.
 */
void *malloc(size_t size);
void free(void *p);

static int live_allocs;
static int fail_alloc_in; /* 0: never; n: the n-th kmalloc from now returns NULL */

void *kmalloc(size_t size)
{
	void *p;

	if (fail_alloc_in && --fail_alloc_in == 0)
		return NULL;
	p = malloc(size);
	if (p)
		live_allocs++;
	return p;
}

void kfree(const void *p)
{
	if (p) {
		live_allocs--;
		free((void *)p);
	}
}

/* kzalloc on the same heap, for the other units (tracing_map, ramfs) that want it. */
void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

/* A record laid out as a tracepoint's: common fields, then the event's, then dynamic data. */
struct rec {
	u16 common_type;
	u8 common_flags;
	u8 common_preempt_count;
	s32 common_pid;
	s8 c8;
	u8 u8;
	s16 s16;
	u16 u16;
	u8 odd[3];
	s32 s32;
	u32 u32;
	s64 s64;
	u64 u64;
	char comm[16];
	u32 name; /* __data_loc char[] */
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
	F("u8[3]", odd, 0, FILTER_OTHER), /* no integer of that size: never matches */
	F("s32", s32, 1, FILTER_OTHER),
	F("u32", u32, 0, FILTER_OTHER),
	F("s64", s64, 1, FILTER_OTHER),
	F("u64", u64, 0, FILTER_OTHER),
	F("char[16]", comm, 0, FILTER_STATIC_STRING),
	F("__data_loc char[]", name, 0, FILTER_DYN_STRING),
	F("const char *", ptr, 0, FILTER_PTR_STRING),
};
#define NR_FIELDS ((int)ARRAY_SIZE(fields))

static void set_name(struct rec *r, const char *name)
{
	size_t n = strlen(name) + 1;

	memcpy(r->dyn, name, n);
	r->name = __builtin_offsetof(struct rec, dyn) | (u32)n << 16;
}

/* A: negative and top-bit values; B: small positives; C: zeros, an unterminated comm, no ptr. */
static struct rec recs[3];

static void make_records(void)
{
	memset(recs, 0, sizeof(recs));
	recs[0] = (struct rec){ .common_pid = 1, .common_flags = 5, .c8 = -1, .u8 = 200,
				.s16 = -300, .u16 = 60000, .s32 = -5, .u32 = 0x80000000,
				.s64 = -(1ll << 40), .u64 = ~0ull, .ptr = "swapper/0" };
	memcpy(recs[0].comm, "bash", 5);
	set_name(&recs[0], "kworker/0:1");
	recs[1] = (struct rec){ .common_pid = 42, .c8 = 100, .s16 = 300, .u16 = 1, .s32 = 7,
				.u32 = 7, .s64 = 5, .u64 = 10, .ptr = "init" };
	memcpy(recs[1].comm, "spin_lock_test", 15);
	set_name(&recs[1], "sshd");
	memset(recs[2].comm, 'x', sizeof(recs[2].comm));
	set_name(&recs[2], "12");
}

static const struct {
	const char *expr;
	bool a, b, c; /* does record A, B, C pass? */
} good[] = {
	/* integers of every size, signed and not, each operator */
	{ "common_pid == 1", 1, 0, 0 },
	{ "common_pid != 1", 0, 1, 1 },
	{ "common_pid > 1", 0, 1, 0 },
	{ "common_pid >= 42", 0, 1, 0 },
	{ "common_pid < 42", 1, 0, 1 },
	{ "common_pid <= 1", 1, 0, 1 },
	{ "c8 == -1", 1, 0, 0 },
	{ "c8 < 0", 1, 0, 0 },
	{ "c8 == 0xff", 1, 0, 0 },	/* cut to 8 bits: -1 */
	{ "u8 > 100", 1, 0, 0 },	/* 200: unsigned */
	{ "u8 == 456", 1, 0, 0 },	/* 456 & 0xff == 200, as Linux compares */
	{ "s16 < -299", 1, 0, 0 },
	{ "s16 >= 300", 0, 1, 0 },
	{ "u16 > 50000", 1, 0, 0 },
	{ "u16 & 1", 0, 1, 0 },
	{ "s32 < 0", 1, 0, 0 },
	{ "s32 == -5", 1, 0, 0 },
	{ "u32 > 0x7fffffff", 1, 0, 0 },
	{ "u32 & 0x80000000", 1, 0, 0 },
	{ "u32 == 07", 0, 1, 0 },	/* octal, as kstrtoull() reads it */
	{ "s64 < -1099511627775", 1, 0, 0 },
	{ "s64 > -1", 0, 1, 1 },
	{ "s64 <= -0x10000000000", 1, 0, 0 },
	{ "u64 == 0xffffffffffffffff", 1, 0, 0 },
	{ "u64 == 18446744073709551615", 1, 0, 0 },
	{ "u64 > 5", 1, 1, 0 },
	{ "common_flags & 4", 1, 0, 0 },
	{ "odd == 0", 0, 0, 0 },
	{ "odd != 0", 0, 0, 0 },
	/* static, dynamic and pointer strings; globs */
	{ "comm == \"bash\"", 1, 0, 0 },
	{ "comm == 'bash'", 1, 0, 0 },
	{ "comm == \"bas\"", 0, 0, 0 },
	{ "comm != \"bash\"", 0, 1, 1 },
	{ "comm == \"xxxxxxxxxxxxxxxx\"", 0, 0, 1 },	/* all 16 bytes, no NUL */
	{ "comm ~ \"ba*\"", 1, 0, 0 },
	{ "comm ~ \"*lock*\"", 0, 1, 0 },
	{ "comm ~ \"*test\"", 0, 1, 0 },
	{ "comm ~ \"*\"", 1, 1, 1 },
	{ "comm ~ \"spin_?ock*\"", 0, 1, 0 },
	{ "comm ~ \"[bs]*\"", 1, 1, 0 },
	{ "comm ~ \"x*\"", 0, 0, 1 },
	{ "comm ~ \"!ba*\"", 0, 1, 1 },		/* a glob's leading '!' negates it */
	{ "comm == \"!bash\"", 0, 0, 0 },	/* ...but only a glob's */
	{ "comm == \"ba*\"", 0, 0, 0 },		/* == never globs */
	{ "name == \"kworker/0:1\"", 1, 0, 0 },
	{ "name ~ \"kworker/*\"", 1, 0, 0 },
	{ "name ~ \"*sh*\"", 0, 1, 0 },
	{ "name != \"sshd\"", 1, 0, 1 },
	{ "name ~ \"12\"", 0, 0, 1 },
	{ "name ~ \"1*\"", 0, 0, 0 },	/* starts with a digit: compared literally, as Linux */
	{ "ptr == \"init\"", 0, 1, 0 },
	{ "ptr ~ \"swapper*\"", 1, 0, 0 },
	{ "ptr != \"init\"", 1, 0, 0 },	/* C's pointer is NULL: false, whatever the op */
	{ "comm == \"x)\" || comm == \"(\"", 0, 0, 0 },	/* parentheses in quotes are text */
	/* && before ||, '!', parentheses */
	{ "common_pid == 1 && comm == \"bash\"", 1, 0, 0 },
	{ "common_pid == 1 || common_pid == 42", 1, 1, 0 },
	{ "common_pid == 1 || common_pid == 42 && u8 == 0", 1, 1, 0 },
	{ "(common_pid == 1 || common_pid == 42) && u8 == 0", 0, 1, 0 },
	{ "u8 == 0 && common_pid == 42 || common_pid == 1", 1, 1, 0 },
	{ "common_pid == 5 || common_pid == 6 || common_pid == 42", 0, 1, 0 },
	{ "!common_pid == 1", 0, 1, 1 },
	{ "!common_pid == 1 && u8 == 0", 0, 1, 1 },
	{ "!(common_pid == 1)", 0, 1, 1 },
	{ "!!(common_pid == 1)", 1, 0, 0 },
	{ "!(common_pid == 1 || common_pid == 42)", 0, 0, 1 },
	{ "!(!(common_pid == 1) && !(comm ~ \"spin*\"))", 1, 1, 0 },
	{ "((((common_pid == 42))))", 0, 1, 0 },
	{ "(common_pid == 1 && (comm == \"bash\" || comm == \"zsh\")) || "
	  "(u64 > 5 && !(s32 < 0))", 1, 1, 0 },
	/* white space is free */
	{ "common_pid==1&&comm=='bash'", 1, 0, 0 },
	{ "  common_pid  ==  1  \n", 1, 0, 0 },
	{ "\tcommon_pid\t==\t42", 0, 1, 0 },
};

static const struct {
	const char *expr;
	enum filter_err err;
	int pos; /* Linux's caret column */
} bad[] = {
	{ "", FILT_ERR_ERRNO, 0 },
	{ "   \n", FILT_ERR_ERRNO, 0 },
	{ "()", FILT_ERR_ERRNO, 0 },
	{ "== 1", FILT_ERR_ERRNO, 0 },
	{ "!= 1", FILT_ERR_ERRNO, 0 },
	{ "common_pid == 1 && && u8 == 0", FILT_ERR_ERRNO, 0 },
	{ "(common_pid == 1 &&)", FILT_ERR_ERRNO, 0 },
	/* Linux 6.1 refuses a dangling operator at the end (ftracetest's event-filter-incomplete) */
	{ "common_pid == 1 &&", FILT_ERR_INVALID_FILTER, 18 },
	{ "common_pid == 1 ||", FILT_ERR_INVALID_FILTER, 18 },
	{ "common_pid == 1 && !", FILT_ERR_INVALID_FILTER, 20 },
	{ "common_pid == 1 && !! ", FILT_ERR_INVALID_FILTER, 21 },
	{ "!(common_pid == 1 || common_pid == 2) ||", FILT_ERR_INVALID_FILTER, 40 },
	{ "!", FILT_ERR_NO_FILTER, 1 },
	{ " ! ! \n", FILT_ERR_NO_FILTER, 4 },
	{ "(common_pid == 1", FILT_ERR_TOO_MANY_OPEN, 0 },
	{ "common_pid == 1 && (u8 == 0", FILT_ERR_TOO_MANY_OPEN, 19 },
	{ "((common_pid == 1) && (u8 == 0)", FILT_ERR_TOO_MANY_OPEN, 0 },
	{ "(comm == \"(\"", FILT_ERR_TOO_MANY_OPEN, 0 },
	{ "foo == 1 && (", FILT_ERR_TOO_MANY_OPEN, 12 },	/* checked before any field */
	{ "common_pid == 1)", FILT_ERR_TOO_MANY_CLOSE, 15 },
	{ "(u8 == 0)) && (u8 == 1", FILT_ERR_TOO_MANY_CLOSE, 9 },
	{ "comm == \"bash", FILT_ERR_MISSING_QUOTE, 8 },
	{ "comm == 'bash\"", FILT_ERR_MISSING_QUOTE, 8 },
	{ "comm == bash", FILT_ERR_INVALID_VALUE, 9 },
	{ "common_pid ==", FILT_ERR_INVALID_VALUE, 14 },
	{ "foo == 1", FILT_ERR_FIELD_NOT_FOUND, 4 },
	{ "0", FILT_ERR_FIELD_NOT_FOUND, 2 },
	{ "common_pid == 1 || Common_pid == 2", FILT_ERR_FIELD_NOT_FOUND, 30 },
	{ "common_pid = 1", FILT_ERR_INVALID_OP, 12 },
	{ "common_pid =~ 1", FILT_ERR_INVALID_OP, 12 },
	{ "common_pid", FILT_ERR_INVALID_OP, 11 },
	{ "common_pid == \"1\"", FILT_ERR_EXPECT_DIGIT, 15 },
	{ "common_pid ~ \"1\"", FILT_ERR_EXPECT_DIGIT, 14 },
	{ "comm == 1", FILT_ERR_EXPECT_STRING, 9 },
	{ "ptr != -1", FILT_ERR_EXPECT_STRING, 8 },
	{ "common_pid ~ 1", FILT_ERR_ILLEGAL_FIELD_OP, 14 },
	{ "comm < \"a\"", FILT_ERR_ILLEGAL_FIELD_OP, 8 },
	{ "name & 'a'", FILT_ERR_ILLEGAL_FIELD_OP, 8 },
	{ "u8 == -1", FILT_ERR_ILLEGAL_INTVAL, 7 },
	{ "common_pid == 12abc", FILT_ERR_ILLEGAL_INTVAL, 15 },
	{ "common_pid == 0x", FILT_ERR_ILLEGAL_INTVAL, 15 },
	{ "common_pid == -", FILT_ERR_ILLEGAL_INTVAL, 15 },
	{ "s64 == 99999999999999999999", FILT_ERR_ILLEGAL_INTVAL, 8 },
	{ "s64 == 0xffffffffffffffff", FILT_ERR_ILLEGAL_INTVAL, 8 },
	{ "u64 == 12345678901234567890123", FILT_ERR_ILLEGAL_INTVAL, 8 },	/* 23: read */
	{ "u64 == 123456789012345678901234", FILT_ERR_OPERAND_TOO_LONG, 32 },	/* 24: not */
	{ "common_pid == 1 u8 == 0", FILT_ERR_TOO_MANY_PREDS, 16 },
	{ "common_pid == 1 & u8 == 0", FILT_ERR_TOO_MANY_PREDS, 16 },
	{ "common_pid == 1 | u8 == 0", FILT_ERR_TOO_MANY_PREDS, 16 },
	{ "common_pid == 1.5", FILT_ERR_TOO_MANY_PREDS, 15 },
	{ "(common_pid == 1) u8 == 0", FILT_ERR_TOO_MANY_PREDS, 18 },
	{ "comm == \"a\"b", FILT_ERR_TOO_MANY_PREDS, 11 },
};

static void *const untouched = (void *)0x5a5a5a5a;

/* The pseudo-fields' context, as the kernel's trace_events.c gives it. */
static int host_cpu = 1;
static const char *host_comm = "sh";

int filter_current_cpu(void)
{
	return host_cpu;
}

const char *filter_current_comm(void)
{
	return host_comm;
}

KTEST(event_filter_good_expressions)
{
	struct filter_parse_error pe;
	struct event_filter *f;
	size_t i, r;

	make_records();
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		bool want[3] = { good[i].a, good[i].b, good[i].c };
		int err = filter_compile(fields, NR_FIELDS, good[i].expr, &f, &pe);

		if (!ktest_check(!err, __FILE__, __LINE__, "\"%s\": %d, %s at %d", good[i].expr,
				 err, filter_err_text(pe.err), pe.pos))
			continue;
		for (r = 0; r < 3; r++) {
			bool got = filter_match(f, &recs[r], sizeof(recs[r]));

			ktest_check(got == want[r], __FILE__, __LINE__,
				    "\"%s\" on record %c: %d, expected %d", good[i].expr,
				    (int)('A' + r), got, want[r]);
		}
		filter_free(f);
	}
	EXPECT_EQ(live_allocs, 0);
}

KTEST(event_filter_bad_expressions)
{
	struct filter_parse_error pe;
	struct event_filter *f;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int err;

		f = untouched;
		pe.err = FILT_ERR_NONE;
		pe.pos = -1;
		err = filter_compile(fields, NR_FIELDS, bad[i].expr, &f, &pe);
		ktest_check(err == -EINVAL && pe.err == bad[i].err && pe.pos == bad[i].pos &&
				    f == untouched,
			    __FILE__, __LINE__, "\"%s\": %d, \"%s\" at %d, expected \"%s\" at %d",
			    bad[i].expr, err, filter_err_text(pe.err), pe.pos,
			    filter_err_text(bad[i].err), bad[i].pos);
		if (!err)
			filter_free(f);
	}
	EXPECT_EQ(live_allocs, 0);
}

/* "common_pid == 0 || " n times, then "common_pid == 1". */
static void pred_chain(char *buf, size_t size, int n)
{
	size_t len = 0;

	while (n-- > 1)
		len += snprintf(buf + len, size - len, "common_pid == %d || ", n + 100);
	snprintf(buf + len, size - len, "common_pid == 1");
}

static const char parens_open[] = "((((((((((((((((((((((((((((((((((((((((";
static const char parens_close[] = "))))))))))))))))))))))))))))))))))))))))";

KTEST(event_filter_limits)
{
	static char buf[4096];
	struct filter_parse_error pe;
	struct event_filter *f;
	size_t len;

	make_records();
	/* 64 predicates are fine; the 65th is refused where it starts. */
	pred_chain(buf, sizeof(buf), 64);
	if (EXPECT_EQ(filter_compile(fields, NR_FIELDS, buf, &f, &pe), 0)) {
		EXPECT_TRUE(filter_match(f, &recs[0], sizeof(recs[0])));
		EXPECT_FALSE(filter_match(f, &recs[1], sizeof(recs[1])));
		filter_free(f);
	}
	pred_chain(buf, sizeof(buf), 65);
	len = strlen(buf) - strlen("common_pid == 1");
	EXPECT_EQ(filter_compile(fields, NR_FIELDS, buf, &f, &pe), -EINVAL);
	EXPECT_EQ(pe.err, FILT_ERR_TOO_MANY_PREDS);
	EXPECT_EQ(pe.pos, len);

	/* 32 levels of '(' are fine; the 33rd is refused. */
	len = snprintf(buf, sizeof(buf), "%.32s%s%.32s", parens_open, "common_pid == 42",
		       parens_close);
	if (EXPECT_EQ(filter_compile(fields, NR_FIELDS, buf, &f, &pe), 0)) {
		EXPECT_FALSE(filter_match(f, &recs[0], sizeof(recs[0])));
		EXPECT_TRUE(filter_match(f, &recs[1], sizeof(recs[1])));
		filter_free(f);
	}
	snprintf(buf, sizeof(buf), "%.33s%s%.33s", parens_open, "common_pid == 42", parens_close);
	EXPECT_EQ(filter_compile(fields, NR_FIELDS, buf, &f, &pe), -EINVAL);
	EXPECT_EQ(pe.err, FILT_ERR_TOO_MANY_OPEN);
	EXPECT_EQ(pe.pos, 32);

	/* A quoted value of 255 bytes is fine, 256 is not: the caret is past the closing quote. */
	len = snprintf(buf, sizeof(buf), "comm == \"");
	memset(buf + len, 'a', 255);
	memcpy(buf + len + 255, "\"", 2);
	if (EXPECT_EQ(filter_compile(fields, NR_FIELDS, buf, &f, &pe), 0))
		filter_free(f);
	memset(buf + len, 'a', 256);
	memcpy(buf + len + 256, "\"", 2);
	EXPECT_EQ(filter_compile(fields, NR_FIELDS, buf, &f, &pe), -EINVAL);
	EXPECT_EQ(pe.err, FILT_ERR_OPERAND_TOO_LONG);
	EXPECT_EQ(pe.pos, len + 256 + 1);
	EXPECT_EQ(live_allocs, 0);
}

/* A field that is not all inside the record, or points outside it, never matches. */
KTEST(event_filter_reads_stay_in_the_record)
{
	struct event_filter *f, *g;
	struct filter_parse_error pe;
	u32 to_u64 = __builtin_offsetof(struct rec, u64);

	make_records();
	if (!EXPECT_EQ(filter_compile(fields, NR_FIELDS, "u64 == 10", &f, &pe), 0))
		return;
	if (!EXPECT_EQ(filter_compile(fields, NR_FIELDS, "!(u64 == 10)", &g, &pe), 0))
		return;
	EXPECT_TRUE(filter_match(f, &recs[1], to_u64 + 8));
	EXPECT_FALSE(filter_match(f, &recs[1], to_u64 + 7));
	EXPECT_TRUE(filter_match(g, &recs[1], to_u64 + 7));
	filter_free(f);
	filter_free(g);

	if (!EXPECT_EQ(filter_compile(fields, NR_FIELDS, "name ~ \"ss*\"", &f, &pe), 0))
		return;
	EXPECT_TRUE(filter_match(f, &recs[1], sizeof(recs[1])));
	/* the string's 5 bytes end past a record cut just before them */
	EXPECT_FALSE(filter_match(f, &recs[1], __builtin_offsetof(struct rec, dyn) + 4));
	recs[1].name = (u32)(sizeof(recs[1]) - 2) | 5u << 16;
	EXPECT_FALSE(filter_match(f, &recs[1], sizeof(recs[1])));
	filter_free(f);
	EXPECT_EQ(live_allocs, 0);
}

/* The program stops at the first predicate that decides: later fields are not even read. */
KTEST(event_filter_short_circuits)
{
	struct event_filter *f;
	struct filter_parse_error pe;

	make_records();
	recs[0].ptr = (const char *)16; /* reading it would crash the test */
	if (!EXPECT_EQ(filter_compile(fields, NR_FIELDS,
				      "common_pid == 1 || ptr == \"x\"", &f, &pe), 0))
		return;
	EXPECT_TRUE(filter_match(f, &recs[0], sizeof(recs[0])));
	filter_free(f);
	if (!EXPECT_EQ(filter_compile(fields, NR_FIELDS,
				      "common_pid == 2 && (ptr ~ \"*\" || u8 == 1)", &f, &pe), 0))
		return;
	EXPECT_FALSE(filter_match(f, &recs[0], sizeof(recs[0])));
	filter_free(f);
	EXPECT_TRUE(filter_match(NULL, &recs[0], sizeof(recs[0])));	/* no filter: all pass */
}

KTEST(event_filter_string_is_the_text_written)
{
	struct event_filter *f;
	struct filter_parse_error pe;

	if (!EXPECT_EQ(filter_compile(fields, NR_FIELDS, "  common_pid == 1 &&\tcomm ~ 'b*' \n",
				      &f, &pe), 0))
		return;
	EXPECT_STREQ(filter_string(f), "  common_pid == 1 &&\tcomm ~ 'b*'");
	EXPECT_EQ(pe.err, FILT_ERR_NONE);
	filter_free(f);
	EXPECT_EQ(live_allocs, 0);
}

KTEST(event_filter_out_of_memory)
{
	struct event_filter *f = untouched;
	struct filter_parse_error pe;
	int n;

	/* the parser's scratch space, then the filter itself */
	for (n = 1; n <= 2; n++) {
		fail_alloc_in = n;
		EXPECT_EQ(filter_compile(fields, NR_FIELDS, "common_pid == 1", &f, &pe), -ENOMEM);
		EXPECT_EQ(pe.err, FILT_ERR_ERRNO);
		EXPECT_TRUE(f == untouched);
		EXPECT_EQ(live_allocs, 0);
	}
	fail_alloc_in = 0;
}

KTEST(event_filter_error_texts)
{
	static const char *const want[] = {
		"No error", "Invalid operator", "Too many '('", "Too few '('",
		"Missing matching quote", "Operand too long", "Expecting string field",
		"Expecting numeric field", "Illegal operation for field type", "Field not found",
		"Illegal integer value",
		"Couldn't find or set field in one of a subsystem's events",
		"Too many terms in predicate expression", "Meaningless filter expression",
		"Only 'ip' field is supported for function trace",
		"Invalid value (did you forget quotes)?", "Error", "No filter found",
	};
	int i;

	EXPECT_EQ(ARRAY_SIZE(want), NR_FILT_ERRS);
	for (i = 0; i < NR_FILT_ERRS; i++)
		EXPECT_STREQ(filter_err_text(i), want[i]);
	EXPECT_STREQ(filter_err_text(NR_FILT_ERRS), "Error");
}

/*
 * Linux's own selftest (ftrace/tracing-error-log.tc) writes this to signal_generate's filter
 * and expects the caret 33 bytes into the command: under the "==" after the unknown "dsig".
 * (error_log itself is laid out by kernel/trace/trace_events_files.c; integration tests read it.)
 */
KTEST(event_filter_error_log_entry)
{
	static const struct ftrace_event_field sig_fields[] = {
		{ "int", "sig", 8, 4, 1, FILTER_OTHER },
		{ "char[16]", "comm", 12, 16, 0, FILTER_STATIC_STRING },
	};
	const char *cmd = "((sig >= 10 && sig < 15) || dsig == 17) && comm != bash\n";
	struct filter_parse_error pe;
	struct event_filter *f;

	EXPECT_EQ(filter_compile(sig_fields, 2, cmd, &f, &pe), -EINVAL);
	EXPECT_EQ(pe.err, FILT_ERR_FIELD_NOT_FOUND);
	EXPECT_EQ(pe.pos, 33);
}

/* CPU, cpu, common_cpu, COMM: the event's context, the same for every record; comm stays the
 * record's field where the event has one (Linux looks in the event first). */
KTEST(event_filter_pseudo_fields)
{
	static const struct {
		const char *expr;
		bool pass;
	} cases[] = {
		{ "CPU == 1", 1 },
		{ "CPU == 0", 0 },
		{ "cpu < 1", 0 },
		{ "common_cpu >= 1", 1 },
		{ "COMM == \"sh\"", 1 },
		{ "COMM ~ \"s*\"", 1 },
		{ "COMM != \"sh\"", 0 },
		{ "CPU == 1 && COMM ~ \"b*\"", 0 },
	};
	struct filter_parse_error pe;
	struct event_filter *f;

	make_records();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (!ktest_check(!filter_compile(fields, NR_FIELDS, cases[i].expr, &f, &pe), __FILE__,
				 __LINE__, "\"%s\" refused", cases[i].expr))
			continue;
		for (int r = 0; r < 3; r++)
			ktest_check(filter_match(f, &recs[r], sizeof(recs[r])) == cases[i].pass,
				    __FILE__, __LINE__, "\"%s\" on record %d", cases[i].expr, r);
		filter_free(f);
	}
	host_cpu = 0;
	EXPECT_EQ(!filter_compile(fields, NR_FIELDS, "CPU == 0", &f, &pe), 1);
	EXPECT_EQ(filter_match(f, &recs[0], sizeof(recs[0])), 1);
	filter_free(f);
	host_cpu = 1;
	/* comm is the record's own here: record A's is "bash" */
	EXPECT_EQ(!filter_compile(fields, NR_FIELDS, "comm == \"bash\"", &f, &pe), 1);
	EXPECT_EQ(filter_match(f, &recs[0], sizeof(recs[0])), 1);
	EXPECT_EQ(filter_match(f, &recs[1], sizeof(recs[1])), 0);
	filter_free(f);
	f = untouched;
	EXPECT_EQ(filter_compile(fields, NR_FIELDS, "COMM == 5", &f, &pe), -EINVAL);
	EXPECT_EQ(pe.err, FILT_ERR_EXPECT_STRING);
	EXPECT_EQ(filter_compile(fields, NR_FIELDS, "CPU == \"a\"", &f, &pe), -EINVAL);
	EXPECT_EQ(pe.err, FILT_ERR_EXPECT_DIGIT);
	EXPECT_EQ(live_allocs, 0);
}
