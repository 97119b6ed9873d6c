/*
 * A kprobe_events write, up to the point where trace_kprobe.c would register the probe: the
 * lines, their words and heads (kernel/trace/trace_kprobe_parse.c), every fetch argument
 * (kernel/trace/trace_probe.c), then the probe's format, and one hit stored and printed
 * (trace_probe_fetch.c); an eprobe line's (`e ...`) arguments with $FIELD on a made-up base
 * record. A refused line's error_log entry (the command and the caret) must
 * stay inside the command. No oracle: ASan, UBSan, the leak count and these checks judge.
 *
 * The probed world is one arena: registers, the stack and the symbols point into it, its words
 * point back into it, and a nofault read of anything outside it faults, as it would in the
 * kernel, instead of touching the host's memory.
 */
#include "tests/fuzz/fuzz.h"
#include "arch/x86/traps.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "kernel/trace/trace_kprobe_parse.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"

#define ARENA_SIZE 32768
static u8 arena[ARENA_SIZE] __aligned(16);
static struct pt_regs regs;

static bool faults(const void *p, size_t size)
{
	unsigned long a = (unsigned long)p, lo = (unsigned long)arena;

	return a < lo || a - lo > ARENA_SIZE || size > ARENA_SIZE - (a - lo);
}

long copy_from_kernel_nofault(void *dst, const void *src, size_t size)
{
	if (faults(src, size))
		return -EFAULT;
	memcpy(dst, src, size);
	return 0;
}

/* probe_read() sends every lower-half address through the user helpers, and on the host every
 * address is one: they read as the kernel ones do. */
long strncpy_from_kernel_nofault(char *dst, const void *src, long count);

long copy_from_user_nofault(void *dst, const void *src, size_t size)
{
	return copy_from_kernel_nofault(dst, src, size);
}

long strncpy_from_user_nofault(char *dst, const void *src, long count)
{
	return strncpy_from_kernel_nofault(dst, src, count);
}

long strncpy_from_kernel_nofault(char *dst, const void *src, long count)
{
	const char *s = src;
	long i;

	if (count <= 0 || faults(src, 1))
		return -EFAULT;
	for (i = 0; i < count - 1 && !faults(s + i, 1) && s[i]; i++)
		dst[i] = s[i];
	dst[i] = '\0';
	return i + 1;
}

unsigned long kallsyms_lookup_name(const char *name)
{
	if (!strcmp(name, "vfs_read"))
		return (unsigned long)arena + 256;
	if (!strcmp(name, "jiffies"))
		return (unsigned long)arena + 512;
	return 0;
}

/* The fake table has one symbol of each name, and two called "dup" (the non-unique refusal). */
unsigned int kallsyms_count_name(const char *name)
{
	return !strcmp(name, "dup") ? 2 : !!kallsyms_lookup_name(name);
}

const char *trace_probe_current_comm(void)
{
	return "sh";
}

const unsigned long *trace_probe_entry_data(void)
{
	return NULL; /* no entry ran: a return probe's $argN reads as a fault (0) */
}

void console_write(const char *s, size_t len)
{
}

/* Words that point back into the arena (so +8(+0(%di)) chains), a string, registers. */
static void make_world(void)
{
	unsigned long *w = (unsigned long *)arena;

	for (size_t i = 0; i < ARENA_SIZE / sizeof(*w); i++)
		w[i] = i % 3 ? (unsigned long)arena + (i * 200) % ARENA_SIZE : i * 0x1010101u;
	memcpy(arena + 1024, "a string in the arena", 22);
	regs.di = regs.si = regs.dx = (unsigned long)arena + 1024;
	regs.ax = regs.cx = regs.r8 = regs.r9 = (unsigned long)arena + 64;
	regs.bx = regs.bp = regs.r10 = 0x12345678;
	regs.sp = (unsigned long)arena + 4096;
	regs.ip = (unsigned long)arena + 256;
	regs.flags = 0x246;
}

/* An eprobe's base event: a record in the arena and its fields, one of each kind. */
#define BASE_REC 2048
static const struct ftrace_event_field base_fields[] = {
	{ "u32", "num", 8, 4, 0, FILTER_OTHER },
	{ "s16", "neg", 12, 2, 1, FILTER_OTHER },
	{ "__data_loc char[]", "str", 16, 4, 1, FILTER_DYN_STRING },
	{ "char[8]", "cstr", 20, 8, 1, FILTER_STATIC_STRING },
	{ "const char *", "ptr", 32, 8, 0, FILTER_PTR_STRING },
	{ "unsigned long", "addr", 40, 8, 0, FILTER_OTHER },
};

/* The base record: each field with a value, the strings inside the arena. */
static void make_base_record(void)
{
	u8 *rec = arena + BASE_REC;
	u32 num = 7, loc = 64 | 11 << 16;
	s16 neg = -3;
	unsigned long ptr = (unsigned long)arena + 1024, addr = (unsigned long)arena + 256;

	memcpy(rec + 8, &num, 4);
	memcpy(rec + 12, &neg, 2);
	memcpy(rec + 16, &loc, 4);
	memcpy(rec + 20, "static!", 8);
	memcpy(rec + 32, &ptr, 8);
	memcpy(rec + 40, &addr, 8);
	memcpy(rec + 64, "dyn string", 11);
}

/* An eprobe's $FIELD, as trace_eprobe.c's resolve_fields() finds it; -ENOENT if none. */
static int resolve_field(struct probe_arg *arg)
{
	struct fetch_insn *code = arg->code;

	if (code->op != FETCH_OP_TP_ARG)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(base_fields); i++)
		if (!strcmp(code->data, base_fields[i].name))
			code->param = (unsigned long)&base_fields[i];
	if (!code->param && !strcmp(code->data, "comm"))
		code->op = FETCH_OP_COMM;
	kfree(code->data);
	code->data = NULL;
	return code->param || code->op == FETCH_OP_COMM ? 0 : -ENOENT;
}

/* Parses, formats and fires the arguments of one accepted head, then frees everything; an
 * eprobe's (ptype PROBE_PRINT_EVENT) run on the base record where a kprobe's run on regs. */
static int run_args(enum probe_print_type ptype, unsigned int flags, int argc, const char **argv,
		    struct probe_log *log)
{
	struct trace_probe *tp = kzalloc(sizeof(*tp) + argc * sizeof(tp->args[0]));
	struct pt_regs *ctx = ptype == PROBE_PRINT_EVENT ? (void *)(arena + BASE_REC) : &regs;
	u32 head = traceprobe_head_size(ptype), dsize;
	char out[4096];
	struct seq_file m = { .buf = out, .size = sizeof(out) - 1 };
	int ret = 0, nr;
	u8 *rec;

	for (int i = 0; i < argc && !ret; i++) {
		log->index = i + 2;
		ret = traceprobe_parse_probe_arg(tp, i, argv[i], flags, log);
	}
	for (int i = 0; i < tp->nr_args && !ret; i++)
		ret = resolve_field(&tp->args[i]) ?: traceprobe_update_arg(&tp->args[i]);
	if (!ret) {
		kfree(traceprobe_print_fmt(tp, ptype));
		kfree(traceprobe_fields(tp, ptype, &nr));
		dsize = traceprobe_data_size(tp, ctx);
		rec = kzalloc(head + tp->size + dsize); /* exactly the record: ASan sees overruns */
		traceprobe_store_args(rec, head, dsize, tp, ctx);
		traceprobe_print_args(&m, tp, rec, head, head + tp->size + dsize);
		FUZZ_CHECK(m.count <= m.size, "printed %zu bytes into %zu", m.count, m.size);
		kfree(rec);
	}
	for (int i = 0; i < tp->nr_args; i++)
		traceprobe_free_probe_arg(&tp->args[i]);
	kfree(tp);
	return ret;
}

/* One line, as trace_kprobe.c's run_command() takes it. */
static void run_line(char *line)
{
	static const char *argv[MAX_TRACE_ARGS + 3];
	int argc = kprobe_split_words(line, argv, ARRAY_SIZE(argv) - 1);
	struct probe_log log = { .argc = MIN(argc, (int)ARRAY_SIZE(argv) - 1), .argv = argv,
				 .err = TP_ERR_NONE };
	struct kprobe_head h;
	char cmd[512];
	int ret, pos;

	if (!argc || argv[0][0] == '-')
		return;
	if (argc >= (int)ARRAY_SIZE(argv)) {
		log.index = MAX_TRACE_ARGS + 2;
		probe_log_err(&log, 0, TP_ERR_TOO_MANY_ARGS);
		ret = -EINVAL;
	} else if (argv[0][0] == 'e' && argc >= 2) { /* an eprobe's arguments on the base record */
		ret = run_args(PROBE_PRINT_EVENT, TPARG_FL_KERNEL | TPARG_FL_TPOINT, argc - 2,
			       argv + 2, &log);
	} else {
		ret = kprobe_parse_head(argc, argv, &h, &log);
		if (!ret && argc - 2 > MAX_TRACE_ARGS)
			ret = -EINVAL;
		else if (!ret)
			ret = run_args(h.is_return, h.pl.flags, argc - 2, argv + 2, &log);
	}
	if (ret && log.err != TP_ERR_NONE) {
		probe_log_command(&log, cmd, sizeof(cmd));
		pos = probe_log_pos(&log);
		FUZZ_CHECK(strlen(cmd) < sizeof(cmd) && pos >= 0 && pos <= (int)strlen(cmd) + 1,
			   "error_log caret at %d under \"%s\"", pos, cmd);
		FUZZ_CHECK(probe_err_text(log.err) != NULL, "no text for error %d", log.err);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	char *text, *p, *line;

	if (!regs.sp) {
		make_world();
		make_base_record();
	}
	text = fuzz_cstr(data, size < 4096 ? size : 4096);
	for (p = text; (line = strsep(&p, "\n")) != NULL;) {
		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		run_line(line);
	}
	fuzz_free(text);
	FUZZ_CHECK(fuzz_live_allocs == 0, "%ld allocations leaked", fuzz_live_allocs);
	return 0;
}
