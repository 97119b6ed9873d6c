/* Unit tests for kernel/trace/trace_probe.c and trace_probe_fetch.c: each fetch argument Linux's
 * kprobe_events takes, run on made-up registers and memory, and each bad one refused with Linux's
 * error at Linux's position; the fields and print fmt a probe's format file shows. */
#include "kernel/trace/trace_probe.h"
#include "arch/x86/traps.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

/* --- the world a probe sees: registers, memory (below 64 KiB faults), symbols, a task ------ */

struct fake_obj {
	u64 a;
	const char *name;
	struct fake_obj *next;
	u8 bytes[4];
};

static u64 fake_jiffies = 1000;
static struct fake_obj obj2 = { 0x2222, "second", NULL, { 1, 2, 3, 4 } };
static struct fake_obj obj1 = { 0x1122334455667788ull, "world", &obj2, { 0xfe, 0xff, 0, 0 } };
static unsigned long fake_stack[8] = { 0x1111, 70, 71, 72, 73, 74, 75, 76 };
static struct pt_regs regs;

/* The first 64 KiB and anything outside the host's user half: what this process cannot read. */
static bool faults(unsigned long a)
{
	return a < 0x10000 || a >= 0x800000000000ul;
}

long copy_from_kernel_nofault(void *dst, const void *src, size_t size)
{
	if (faults((unsigned long)src))
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
	long i;

	if (faults((unsigned long)src))
		return -EFAULT;
	for (i = 0; i < count - 1 && ((const char *)src)[i]; i++)
		dst[i] = ((const char *)src)[i];
	dst[i] = '\0';
	return i + 1;
}

unsigned long kallsyms_lookup_name(const char *name)
{
	if (!strcmp(name, "jiffies"))
		return (unsigned long)&fake_jiffies;
	if (!strcmp(name, "obj1"))
		return (unsigned long)&obj1;
	return 0;
}

const char *trace_probe_current_comm(void)
{
	return "sh";
}

static const unsigned long *test_entry_data; /* what a return probe's entry kept, in a test */

const unsigned long *trace_probe_entry_data(void)
{
	return test_entry_data;
}

void console_write(const char *s, size_t len)
{
	(void)s, (void)len; /* seq_file's console flush: these tests print into buffers */
}

/* %pS as kallsyms prints it, for the one address the tests name. */
static int fake_symbol(char *buf, size_t size, unsigned long addr, bool with_offset)
{
	(void)with_offset;
	return addr == 0xffffffff80001234ul ? snprintf(buf, size, "vfs_read+0x4/0x60") :
					      snprintf(buf, size, "0x%lx", addr);
}

static void set_regs(void)
{
	memset(&regs, 0, sizeof(regs));
	regs.di = (unsigned long)&obj1;
	regs.si = (unsigned long)"hello";
	regs.dx = 3;
	regs.cx = 0xfffffffffffffffeul;
	regs.r8 = 8;
	regs.r9 = 9;
	regs.ax = 42;
	regs.bx = 0x100; /* a pointer into the faulting page */
	regs.r15 = 0x1515;
	regs.r11 = (unsigned long)&fake_stack[2];
	regs.sp = (unsigned long)fake_stack;
	regs.ip = 0xffffffff80001234ul;
	regs.flags = 0x246;
	vsprintf_symbol_hook = fake_symbol;
}

static struct trace_probe *new_probe(int nargs)
{
	struct trace_probe *tp = kmalloc(sizeof(*tp) + nargs * sizeof(tp->args[0]));

	memset(tp, 0, sizeof(*tp) + nargs * sizeof(tp->args[0]));
	return tp;
}

static void free_probe(struct trace_probe *tp)
{
	for (int i = 0; i < tp->nr_args; i++)
		traceprobe_free_probe_arg(&tp->args[i]);
	kfree(tp);
}

#define E (TPARG_FL_KERNEL | TPARG_FL_FENTRY) /* a probe at a function's entry */
#define K TPARG_FL_KERNEL                     /* anywhere else */
#define R (TPARG_FL_KERNEL | TPARG_FL_RETURN) /* a return probe */

/* Parses arg alone, runs it on the fake world, prints the record's text into out. */
static int parse_run_print(const char *arg, unsigned int flags, char *out, size_t size,
			   struct probe_log *log, const struct fetch_type **type)
{
	static u8 rec[1024];
	struct trace_probe *tp = new_probe(1);
	struct seq_file m = { .buf = out, .size = size - 1 };
	u32 head = 16, dsize;
	int err = traceprobe_parse_probe_arg(tp, 0, arg, flags, log);

	if (!err)
		err = traceprobe_update_arg(&tp->args[0]);
	if (!err) {
		*type = tp->args[0].type;
		memset(rec, 0xaa, sizeof(rec));
		dsize = traceprobe_data_size(tp, &regs);
		traceprobe_store_args(rec, head, dsize, tp, &regs);
		traceprobe_print_args(&m, tp, rec, head, head + tp->size + dsize);
		out[m.count] = '\0';
	}
	free_probe(tp);
	return err;
}

static const struct {
	const char *arg;
	unsigned int flags;
	const char *text; /* what the trace line shows for it */
	const char *type;
} good[] = {
	/* registers, every x86-64 name, default type x64 */
	{ "%di", K, " arg1=0x%lx", "x64" },
	{ "%dx", K, " arg1=0x3", "x64" },
	{ "%cx", K, " arg1=0xfffffffffffffffe", "x64" },
	{ "%ax", K, " arg1=0x2a", "x64" },
	{ "%bx", K, " arg1=0x100", "x64" },
	{ "%r8", K, " arg1=0x8", "x64" },
	{ "%r9", K, " arg1=0x9", "x64" },
	{ "%r15", K, " arg1=0x1515", "x64" },
	{ "%flags", K, " arg1=0x246", "x64" },
	{ "%ip", K, " arg1=0xffffffff80001234", "x64" },
	{ "%bp", K, " arg1=0x0", "x64" },
	{ "%r10", K, " arg1=0x0", "x64" },
	/* every type */
	{ "%cx:u8", K, " arg1=254", "u8" },
	{ "%cx:u16", K, " arg1=65534", "u16" },
	{ "%cx:u32", K, " arg1=4294967294", "u32" },
	{ "%cx:u64", K, " arg1=18446744073709551614", "u64" },
	{ "%cx:s8", K, " arg1=-2", "s8" },
	{ "%cx:s16", K, " arg1=-2", "s16" },
	{ "%cx:s32", K, " arg1=-2", "s32" },
	{ "%cx:s64", K, " arg1=-2", "s64" },
	{ "%cx:x8", K, " arg1=0xfe", "x8" },
	{ "%cx:x16", K, " arg1=0xfffe", "x16" },
	{ "%cx:x32", K, " arg1=0xfffffffe", "x32" },
	{ "%cx:x64", K, " arg1=0xfffffffffffffffe", "x64" },
	{ "%ip:symbol", K, " arg1=vfs_read+0x4/0x60", "symbol" },
	/* names */
	{ "len=%dx", K, " len=0x3", "x64" },
	{ "_x9=%dx:u8", K, " _x9=3", "u8" },
	/* the stack, $stackN, $argN, $retval, $comm */
	{ "$stack", K, " arg1=0x%lx", "x64" },
	{ "$stack0", K, " arg1=0x1111", "x64" },
	{ "$stack2:u32", K, " arg1=71", "u32" },
	{ "$arg1", E, " arg1=0x%lx", "x64" },
	{ "$arg3", E, " arg1=0x3", "x64" },
	{ "$arg4:s64", E, " arg1=-2", "s64" },
	{ "$arg5", E, " arg1=0x8", "x64" },
	{ "$arg6", E, " arg1=0x9", "x64" },
	{ "$arg7:u32", E, " arg1=70", "u32" }, /* the caller's stack, above the return address */
	{ "$arg8:u8", E, " arg1=71", "u8" },
	{ "$retval", R, " arg1=0x2a", "x64" },
	{ "$retval:s8", R, " arg1=42", "s8" },
	{ "$comm", K, " arg1=\"sh\"", "string" },
	{ "$COMM", K, " arg1=\"sh\"", "string" },
	{ "$comm:string", K, " arg1=\"sh\"", "string" },
	/* memory: @ADDR, @SYM[+|-offs] */
	{ "@jiffies", K, " arg1=0x3e8", "x64" },
	{ "@jiffies:u16", K, " arg1=1000", "u16" },
	{ "@obj1+8:x64", K, " arg1=0x%lx", "x64" },
	{ "@obj1+24:u8", K, " arg1=254", "u8" },
	{ "@0x100", K, " arg1=0x0", "x64" }, /* faults: 0 */
	/* dereference, nested */
	{ "+0(%di)", K, " arg1=0x1122334455667788", "x64" },
	{ "+0(%di):u32", K, " arg1=1432778632", "u32" },
	{ "+4(%di):x32", K, " arg1=0x11223344", "x32" },
	{ "-8(%r11):u32", K, " arg1=70", "u32" },
	{ "+0(+16(%di)):x64", K, " arg1=0x2222", "x64" },
	{ "+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di)))))))))))))):u8", K, " arg1=0", "u8" },
	{ "+0(+8(%di)):string", K, " arg1=\"world\"", "string" },
	{ "+0(%si):string", K, " arg1=\"hello\"", "string" },
	{ "+2(%si):string", K, " arg1=\"llo\"", "string" },
	{ "+0(+8(+16(%di))):string", K, " arg1=\"second\"", "string" },
	{ "+0(+16(+16(%di))):x64", K, " arg1=0x0", "x64" }, /* reads NULL: faults */
	{ "+0(%bx)", K, " arg1=0x0", "x64" },
	{ "+0(%bx):string", K, " arg1=(fault)", "string" },
	{ "+u0(%si):string", K, " arg1=\"hello\"", "string" },
	{ "+0x8(%di):x64", K, " arg1=0x%lx", "x64" },
	{ "+8($stack):u16", K, " arg1=70", "u16" },
	{ "+0(@obj1+16):x64", K, " arg1=0x2222", "x64" },
	/* immediates */
	{ "\\1234", K, " arg1=0x4d2", "x64" },
	{ "\\-1:s32", K, " arg1=-1", "s32" },
	{ "\\0x10:u8", K, " arg1=16", "u8" },
	{ "\\\"text\"", K, " arg1=\"text\"", "string" },
	/* arrays, bitfields, symstr */
	{ "+24(%di):u8[4]", K, " arg1={254,255,0,0}", "u8" },
	{ "+24(%di):x8[2]", K, " arg1={0xfe,0xff}", "x8" },
	{ "+0(%di):u16[2]", K, " arg1={30600,21862}", "u16" },
	{ "+8(%di):string[1]", K, " arg1={\"world\"}", "string" },
	{ "%cx:b4@4/8", K, " arg1=15", "u8" },
	{ "+24(%di):b3@1/8", K, " arg1=7", "u8" },
	{ "+0(%di):b8@8/16", K, " arg1=119", "u16" },
	{ "%dx:b1@0/64", K, " arg1=1", "u64" },
	{ "%ip:symstr", K, " arg1=\"vfs_read+0x4/0x60\"", "symstr" },
};

KTEST(trace_probe_good_args)
{
	char out[256], want[128];
	const struct fetch_type *type;

	set_regs();
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct probe_log log = { .err = TP_ERR_NONE };
		int err = parse_run_print(good[i].arg, good[i].flags, out, sizeof(out), &log, &type);

		if (!ktest_check(!err, __FILE__, __LINE__, "\"%s\": %d, \"%s\" at %d", good[i].arg,
				 err, probe_err_text(log.err), log.err_offset))
			continue;
		/* %lx in the table: the fake object's or stack's address, which varies per run */
		snprintf(want, sizeof(want), good[i].text,
			 strstr(good[i].arg, "stack") ? regs.sp :
			 strstr(good[i].arg, "+8") ? (unsigned long)&obj1.name : regs.di);
		if (!strcmp(good[i].arg, "@obj1+8:x64") || !strcmp(good[i].arg, "+0x8(%di):x64"))
			snprintf(want, sizeof(want), " arg1=0x%lx", (unsigned long)obj1.name);
		ktest_check_str(__FILE__, __LINE__, good[i].arg, out, want);
		ktest_check_str(__FILE__, __LINE__, good[i].arg, type->name, good[i].type);
	}
}

static const struct {
	const char *arg;
	unsigned int flags;
	enum probe_err err; /* TP_ERR_NONE: refused without an error_log entry, as Linux 6.1 */
	int pos;            /* Linux's caret, from the argument's first character */
} bad[] = {
	{ "%zz", K, TP_ERR_BAD_REG_NAME, 0 },
	{ "%rax", K, TP_ERR_BAD_REG_NAME, 0 },
	{ "%", K, TP_ERR_BAD_REG_NAME, 0 },
	{ "x=%eax", K, TP_ERR_BAD_REG_NAME, 2 },
	{ "di", K, TP_ERR_BAD_FETCH_ARG, 0 }, /* a register needs its '%' */
	{ "1234", K, TP_ERR_BAD_FETCH_ARG, 0 },
	{ "$retval", K, TP_ERR_RETVAL_ON_PROBE, 0 },
	{ "$retval", E, TP_ERR_RETVAL_ON_PROBE, 0 },
	{ "r=$retval", K, TP_ERR_RETVAL_ON_PROBE, 2 },
	{ "$stackx", K, TP_ERR_BAD_VAR, 0 },
	{ "$stack1x", K, TP_ERR_BAD_VAR, 0 },
	{ "$stack99999", K, TP_ERR_BAD_STACK_NUM, 0 },
	{ "$foo", K, TP_ERR_BAD_VAR, 0 },
	{ "$", K, TP_ERR_BAD_VAR, 0 },
	{ "$arg1", K, TP_ERR_BAD_VAR, 0 },  /* not at a function's entry */
	{ "$arg1", TPARG_FL_RETURN, TP_ERR_BAD_VAR, 0 }, /* nor at a uprobe's return */
	{ "$arg0", R, TP_ERR_BAD_ARG_NUM, 0 },
	{ "$arg0", E, TP_ERR_BAD_ARG_NUM, 0 },
	{ "$arg9999", E, TP_ERR_BAD_ARG_NUM, 0 },
	{ "$argx", E, TP_ERR_BAD_VAR, 0 },
	{ "@12x", K, TP_ERR_BAD_MEM_ADDR, 0 },
	{ "@+8", K, TP_ERR_FILE_ON_KPROBE, 0 },
	{ "+8%di", K, TP_ERR_DEREF_NEED_BRACE, 0 },
	{ "+8x(%di)", K, TP_ERR_BAD_DEREF_OFFS, 0 },
	{ "+8(%di", K, TP_ERR_DEREF_OPEN_BRACE, 6 },
	{ "+8(%zz)", K, TP_ERR_BAD_REG_NAME, 3 },
	{ "-8(%zz)", K, TP_ERR_BAD_REG_NAME, 3 },
	{ "a=+16(+8(%zz))", K, TP_ERR_BAD_REG_NAME, 9 },
	{ "+0($comm)", K, TP_ERR_COMM_CANT_DEREF, 3 },
	{ "+0($retval)", K, TP_ERR_RETVAL_ON_PROBE, 3 },
	/* fifteen loads after the register: one more than a program holds */
	{ "+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di)))))))))))))))", K,
	  TP_ERR_TOO_MANY_OPS, 3 },
	{ "$arg2:string", E, TP_ERR_BAD_STRING, 6 }, /* a register is no memory */
	{ "\\x", K, TP_ERR_BAD_IMM, 1 },
	{ "\\\"abc", K, TP_ERR_IMMSTR_NO_CLOSE, 5 },
	{ "%di:u128", K, TP_ERR_BAD_TYPE, 4 },
	{ "x=%di:int", K, TP_ERR_BAD_TYPE, 6 },
	{ "%di:u32[4]", K, TP_ERR_BAD_STRING, 4 }, /* an array is read from memory */
	{ "+0(%di):u8[4", K, TP_ERR_ARRAY_NO_CLOSE, 12 },
	{ "+0(%di):u8[4]x", K, TP_ERR_BAD_ARRAY_SUFFIX, 13 },
	{ "+0(%di):u8[0]", K, TP_ERR_BAD_ARRAY_NUM, 11 },
	{ "+0(%di):u8[x]", K, TP_ERR_BAD_ARRAY_NUM, 11 },
	{ "+0(%di):u8[65]", K, TP_ERR_ARRAY_TOO_BIG, 11 },
	{ "$comm:string[2]", K, TP_ERR_NONE, 0 },
	{ "%di:b4@6/8", K, TP_ERR_BAD_BITFIELD, 4 },
	{ "%di:b0@0/8", K, TP_ERR_BAD_BITFIELD, 4 },
	{ "%di:b4x@0/8", K, TP_ERR_BAD_BITFIELD, 4 },
	{ "%di:b4@/8", K, TP_ERR_BAD_BITFIELD, 4 },
	{ "%di:b4@0/12", K, TP_ERR_BAD_TYPE, 4 },
	{ "$stack:symstr", K, TP_ERR_BAD_SYMSTRING, 7 },
	{ "\\1:symstr", K, TP_ERR_BAD_SYMSTRING, 3 },
	{ "%di:", K, TP_ERR_BAD_TYPE, 4 },
	{ "%di:string", K, TP_ERR_BAD_STRING, 4 },
	{ "s=$stack:string", K, TP_ERR_BAD_STRING, 9 },
	{ "$comm:u32", K, TP_ERR_NONE, 0 },
	{ "\\\"x\":x8", K, TP_ERR_NONE, 0 },
	{ "=%di", K, TP_ERR_NO_ARG_NAME, 0 },
	{ "1x=%di", K, TP_ERR_BAD_ARG_NAME, 0 },
	{ "a-b=%di", K, TP_ERR_BAD_ARG_NAME, 0 },
	{ "abcdefghijabcdefghijabcdefghijabc=%di", K, TP_ERR_ARG_NAME_TOO_LONG, 0 },
	{ "__probe_ip=%di", K, TP_ERR_USED_ARG_NAME, 0 },
	{ "common_pid=%di", K, TP_ERR_USED_ARG_NAME, 0 },
	{ "x=", K, TP_ERR_NO_ARG_BODY, 2 },
	{ "", K, TP_ERR_NO_ARG_BODY, 0 },
	{ "x=+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di))))))))))))))))", K,
	  TP_ERR_ARG_TOO_LONG, 2 },
};

KTEST(trace_probe_bad_args)
{
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct trace_probe *tp = new_probe(1);
		struct probe_log log = { .err = TP_ERR_NONE };
		int err = traceprobe_parse_probe_arg(tp, 0, bad[i].arg, bad[i].flags, &log);

		ktest_check(err == -EINVAL && log.err == bad[i].err &&
				    (log.err == TP_ERR_NONE || log.err_offset == bad[i].pos),
			    __FILE__, __LINE__, "\"%s\": %d, \"%s\" at %d, expected \"%s\" at %d",
			    bad[i].arg, err, probe_err_text(log.err), log.err_offset,
			    probe_err_text(bad[i].err), bad[i].pos);
		free_probe(tp);
	}
}

/* A second argument may not reuse the first one's name (default names count). */
KTEST(trace_probe_used_names)
{
	struct trace_probe *tp = new_probe(2);
	struct probe_log log = { .err = TP_ERR_NONE };

	EXPECT_EQ(traceprobe_parse_probe_arg(tp, 0, "%di", K, &log), 0);
	EXPECT_EQ(traceprobe_parse_probe_arg(tp, 1, "arg1=%si", K, &log), -EINVAL);
	EXPECT_EQ(log.err, TP_ERR_USED_ARG_NAME);
	free_probe(tp);
}

/* $argN at a function's return (an fprobe's exit): each distinct N is kept once by the entry, the
 * exit reads the kept word (a later change of the register is not seen), a dereference still
 * reads memory at the exit; a 17th distinct N is refused. */
KTEST(trace_probe_return_entry_args)
{
	static const char *const args[] = { "a=$arg3", "b=$arg1", "c=$arg3:u8", "d=+0($arg2):string" };
	static u8 rec[512];
	struct trace_probe *tp = new_probe(MAX_ENTRY_ARGS + 1);
	struct probe_log log = { .err = TP_ERR_NONE };
	struct seq_file m = { .buf = (char *)rec + 256, .size = 255 };
	unsigned long edata[MAX_ENTRY_ARGS];
	char want[64], arg[16];
	u32 dsize;

	for (int i = 0; i < 4; i++)
		EXPECT_EQ(traceprobe_parse_probe_arg(tp, i, args[i], R, &log), 0);
	EXPECT_EQ(tp->nr_entry_args, 3);
	EXPECT_EQ(tp->entry_arg[0], 2);
	EXPECT_EQ(tp->entry_arg[1], 0);
	EXPECT_EQ(tp->entry_arg[2], 1);
	EXPECT_EQ(tp->args[2].code[0].op, FETCH_OP_EDATA);
	traceprobe_store_entry_args(tp, &regs, edata);
	regs.dx = 999; /* the function changed it before it returned */
	test_entry_data = edata;
	dsize = traceprobe_data_size(tp, &regs);
	traceprobe_store_args(rec, 16, dsize, tp, &regs);
	traceprobe_print_args(&m, tp, rec, 16, 16 + tp->size + dsize);
	test_entry_data = NULL;
	m.buf[m.count] = '\0';
	snprintf(want, sizeof(want), " a=0x3 b=0x%lx c=3 d=\"hello\"", regs.di);
	EXPECT_STREQ(m.buf, want);
	free_probe(tp);
	set_regs();

	tp = new_probe(MAX_ENTRY_ARGS + 1);
	for (int i = 0; i < MAX_ENTRY_ARGS; i++) {
		snprintf(arg, sizeof(arg), "$arg%d", i + 1);
		EXPECT_EQ(traceprobe_parse_probe_arg(tp, i, arg, R, &log), 0);
	}
	EXPECT_EQ(traceprobe_parse_probe_arg(tp, MAX_ENTRY_ARGS, "x=$arg17", R, &log), -E2BIG);
	EXPECT_STREQ(probe_err_text(log.err), "Too many entry arguments specified");
	EXPECT_EQ(log.err_offset, 0);
	free_probe(tp);
}

/* @SYM that names nothing is found out when the probe is registered (Linux's ENOENT). */
KTEST(trace_probe_unknown_symbol)
{
	struct trace_probe *tp = new_probe(1);
	struct probe_log log = { .err = TP_ERR_NONE };

	EXPECT_EQ(traceprobe_parse_probe_arg(tp, 0, "@no_such_sym+8", K, &log), 0);
	EXPECT_EQ(traceprobe_update_arg(&tp->args[0]), -ENOENT);
	free_probe(tp);
}

/* The caret's column in the whole command: the words one space apart, as Linux rebuilds it. */
KTEST(trace_probe_log_position)
{
	const char *argv[] = { "p:ev", "vfs_read", "a=%di", "b=+8(%zz)" };
	struct probe_log log = { .argc = 4, .argv = argv, .index = 3, .err = TP_ERR_NONE };
	struct trace_probe *tp = new_probe(1);
	char cmd[64];

	EXPECT_EQ(traceprobe_parse_probe_arg(tp, 0, argv[3], K, &log), -EINVAL);
	probe_log_command(&log, cmd, sizeof(cmd));
	EXPECT_STREQ(cmd, "p:ev vfs_read a=%di b=+8(%zz)");
	EXPECT_EQ(probe_log_pos(&log), 25); /* under the '%' */
	EXPECT_STREQ(probe_err_text(log.err), "Invalid register name");
	free_probe(tp);
}

/* The event name rules: [GROUP/]EVENT, C identifiers, at most 64 characters. */
KTEST(trace_probe_event_names)
{
	static const struct {
		const char *name;
		enum probe_err err;
		int pos;
		const char *group, *event;
	} cases[] = {
		{ "myprobe", TP_ERR_NONE, 0, "kprobes", "myprobe" },
		{ "grp/ev_1", TP_ERR_NONE, 0, "grp", "ev_1" },
		{ "grp.ev", TP_ERR_NONE, 0, "grp", "ev" },
		{ "/ev", TP_ERR_NO_GROUP_NAME, 2, NULL, NULL },
		{ "grp/", TP_ERR_NONE, 0, "grp", NULL }, /* 6.1: the caller names the event */
		{ "", TP_ERR_NO_EVENT_NAME, 2, NULL, NULL },
		{ "1grp/ev", TP_ERR_BAD_GROUP_NAME, 2, NULL, NULL },
		{ "grp/e-v", TP_ERR_BAD_EVENT_NAME, 6, NULL, NULL },
		{ "a234567890123456789012345678901234567890123456789012345678901234/e",
		  TP_ERR_GROUP_TOO_LONG, 2, NULL, NULL },
		{ "g/a2345678901234567890123456789012345678901234567890123456789012345",
		  TP_ERR_EVENT_TOO_LONG, 4, NULL, NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct probe_log log = { .err = TP_ERR_NONE };
		const char *event = cases[i].name, *group = "kprobes";
		char buf[MAX_EVENT_NAME_LEN];
		int err = traceprobe_parse_event_name(&event, &group, buf, 2, &log);

		ktest_check(log.err == cases[i].err && (err == 0) == (log.err == TP_ERR_NONE) &&
				    (log.err == TP_ERR_NONE || log.err_offset == cases[i].pos),
			    __FILE__, __LINE__, "\"%s\": \"%s\" at %d", cases[i].name,
			    probe_err_text(log.err), log.err_offset);
		if (!err) {
			EXPECT_STREQ(group, cases[i].group);
			if (cases[i].event)
				EXPECT_STREQ(event, cases[i].event);
			else
				ktest_check(!event, __FILE__, __LINE__, "\"%s\": an event", cases[i].name);
		}
	}
}

KTEST(trace_probe_split_symbol_offset)
{
	char s[32];
	long off;

	strscpy(s, "vfs_read+0x10", sizeof(s));
	EXPECT_EQ(traceprobe_split_symbol_offset(s, &off), 0);
	EXPECT_STREQ(s, "vfs_read");
	EXPECT_EQ(off, 16);
	strscpy(s, "jiffies-8", sizeof(s));
	EXPECT_EQ(traceprobe_split_symbol_offset(s, &off), 0);
	EXPECT_EQ(off, -8);
	strscpy(s, "vfs_read", sizeof(s));
	EXPECT_EQ(traceprobe_split_symbol_offset(s, &off), 0);
	EXPECT_EQ(off, 0);
	strscpy(s, "vfs_read+x", sizeof(s));
	EXPECT_EQ(traceprobe_split_symbol_offset(s, &off), -EINVAL);
	strscpy(s, "vfs_read+-4", sizeof(s));
	EXPECT_EQ(traceprobe_split_symbol_offset(s, &off), -EINVAL);
}

/* The format file's lines for a probe with one argument of each kind. */
KTEST(trace_probe_fields_and_print_fmt)
{
	const char *args[] = { "%di:u8", "name=+0(%si):string", "%cx", "s=%ip:symbol" };
	struct trace_probe *tp = new_probe(4);
	struct probe_log log = { .err = TP_ERR_NONE };
	struct ftrace_event_field *f;
	char *fmt;
	int nr;

	for (int i = 0; i < 4; i++)
		EXPECT_EQ(traceprobe_parse_probe_arg(tp, i, args[i], K, &log), 0);
	EXPECT_EQ(tp->size, 1 + 4 + 8 + 8);
	fmt = traceprobe_print_fmt(tp, false);
	EXPECT_STREQ(fmt, "\"(%lx) arg1=%u name=\\\"%s\\\" arg3=0x%Lx s=%pS\", REC->__probe_ip, "
			  "REC->arg1, __get_str(name), REC->arg3, REC->s");
	kfree(fmt);
	fmt = traceprobe_print_fmt(tp, true);
	EXPECT_STREQ(fmt, "\"(%lx <- %lx) arg1=%u name=\\\"%s\\\" arg3=0x%Lx s=%pS\", "
			  "REC->__probe_func, REC->__probe_ret_ip, REC->arg1, __get_str(name), "
			  "REC->arg3, REC->s");
	kfree(fmt);
	f = traceprobe_fields(tp, false, &nr);
	EXPECT_EQ(nr, 9);
	EXPECT_STREQ(f[4].name, "__probe_ip");
	EXPECT_EQ(f[4].offset, 8);
	/* packed as Linux packs them: no alignment */
	EXPECT_STREQ(f[5].type, "u8");
	EXPECT_EQ(f[5].offset, 16);
	EXPECT_STREQ(f[6].type, "__data_loc char[]");
	EXPECT_EQ(f[6].offset, 17);
	EXPECT_EQ(f[6].is_signed, 1);
	EXPECT_EQ(f[6].kind, FILTER_DYN_STRING);
	EXPECT_STREQ(f[7].type, "u64");
	EXPECT_EQ(f[7].offset, 21);
	EXPECT_STREQ(f[8].type, "u64");
	EXPECT_EQ(f[8].offset, 29);
	kfree(f);
	f = traceprobe_fields(tp, true, &nr);
	EXPECT_EQ(nr, 10);
	EXPECT_STREQ(f[4].name, "__probe_func");
	EXPECT_STREQ(f[5].name, "__probe_ret_ip");
	EXPECT_EQ(f[5].offset, 16);
	EXPECT_EQ(f[6].offset, 24);
	kfree(f);
	free_probe(tp);
}

/* Strings longer than MAX_STRING_SIZE are cut, and the space given is never overrun. */
KTEST(trace_probe_long_strings)
{
	static char longtext[600];
	static u8 rec[64 + 2 * MAX_STRING_SIZE + 16];
	struct trace_probe *tp = new_probe(2);
	struct probe_log log = { .err = TP_ERR_NONE };
	u32 dsize, loc;

	memset(longtext, 'x', sizeof(longtext) - 1);
	set_regs();
	regs.si = (unsigned long)longtext;
	EXPECT_EQ(traceprobe_parse_probe_arg(tp, 0, "+0(%si):string", K, &log), 0);
	EXPECT_EQ(traceprobe_parse_probe_arg(tp, 1, "+1(%si):string", K, &log), 0);
	dsize = traceprobe_data_size(tp, &regs);
	EXPECT_EQ(dsize, 2 * MAX_STRING_SIZE);
	memset(rec, 0x5a, sizeof(rec));
	traceprobe_store_args(rec, 16, 300, tp, &regs); /* room for one and a bit */
	memcpy(&loc, rec + 16, 4);
	EXPECT_EQ(loc >> 16, MAX_STRING_SIZE);
	EXPECT_EQ(loc & 0xffff, 16 + 8);
	memcpy(&loc, rec + 20, 4);
	EXPECT_EQ(loc >> 16, 300 - MAX_STRING_SIZE);
	EXPECT_EQ(rec[16 + 8 + 300], 0x5a); /* nothing past the room given */
	free_probe(tp);
}
