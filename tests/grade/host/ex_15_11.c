/* Grader of exercise 15.11: Linux's bitfield type `:bW@O/C` for kprobe_events' fetch arguments. It
 * links with tests/unit/test_trace_probe.c, whose made-up world (the nofault reads) it uses. */
#include "kernel/trace/trace_probe.h"
#include "arch/x86/traps.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

static struct trace_probe *probe(void)
{
	struct trace_probe *tp = kmalloc(sizeof(*tp) + sizeof(tp->args[0]));

	memset(tp, 0, sizeof(*tp) + sizeof(tp->args[0]));
	return tp;
}

static void probe_free(struct trace_probe *tp)
{
	for (int i = 0; i < tp->nr_args; i++)
		traceprobe_free_probe_arg(&tp->args[i]);
	kfree(tp);
}

/* arg parsed as a kernel probe's, run on regs, printed: " arg1=..."; the format's type too. */
static int run(const char *arg, struct pt_regs *regs, char *out, size_t size, char *fmttype,
	       struct probe_log *log)
{
	static u8 rec[256];
	struct trace_probe *tp = probe();
	struct seq_file m = { .buf = out, .size = size - 1 };
	int err = traceprobe_parse_probe_arg(tp, 0, arg, TPARG_FL_KERNEL, log);

	out[0] = fmttype[0] = '\0';
	if (!err) {
		memset(rec, 0xaa, sizeof(rec));
		traceprobe_store_args(rec, 16, traceprobe_data_size(tp, regs), tp, regs);
		traceprobe_print_args(&m, tp, rec, 16, 16 + tp->size);
		out[m.count] = '\0';
		strscpy(fmttype, tp->args[0].type->fmttype, 16);
	}
	probe_free(tp);
	return err;
}

KTEST(grade_15_11_values)
{
	static u8 mem[8] = { 0xe0, 0x34, 0x12, 0, 0, 0, 0, 0x80 };
	static const struct {
		const char *arg, *text, *fmttype;
	} rows[] = {
		{ "%cx:b4@2/32", " arg1=13", "u32" },		/* 0xb4: bits 2..5 are 1101 */
		{ "%cx:b8@0/8", " arg1=180", "u8" },
		{ "%cx:b1@7/8", " arg1=1", "u8" },
		{ "%cx:b3@13/16", " arg1=5", "u16" },		/* 0xa0b4: bits 13..15 are 101 */
		{ "%cx:b64@0/64", " arg1=11400714819323207860", "u64" },
		{ "+0(%di):b3@5/8", " arg1=7", "u8" },		/* 0xe0 */
		{ "+1(%di):b12@0/16", " arg1=564", "u16" },	/* 0x1234: the low 12 bits, 0x234 */
		{ "+0(%di):b1@63/64", " arg1=1", "u64" },
		{ "x=%dx:b2@0/32", " x=2", "u32" },
	};
	struct pt_regs regs = { 0 };
	char out[64], fmttype[16];

	regs.cx = 0x9e3779b97f4aa0b4ull;
	regs.di = (unsigned long)mem;
	regs.dx = 6;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct probe_log log = { .err = TP_ERR_NONE };
		int err = run(rows[i].arg, &regs, out, sizeof(out), fmttype, &log);

		ktest_check(err == 0 && !strcmp(out, rows[i].text) && !strcmp(fmttype, rows[i].fmttype),
			    __FILE__, __LINE__, "\"%s\": %d \"%s\" (%s), expected \"%s\" (%s)",
			    rows[i].arg, err, out, fmttype, rows[i].text, rows[i].fmttype);
	}
}

KTEST(grade_15_11_refused)
{
	static const struct {
		const char *arg, *err;
		int pos;
	} rows[] = {
		{ "%di:b0@2/32", "Invalid bitfield", 4 },
		{ "%di:b4@29/32", "Invalid bitfield", 4 },
		{ "%di:b4/32", "Invalid bitfield", 4 },
		{ "%di:b4@/32", "Invalid bitfield", 4 },
		{ "x=%di:b9@0/8", "Invalid bitfield", 6 },
		{ "%di:b4@2/24", "Unknown type is specified", 4 },
		{ "%di:b4@2", "Unknown type is specified", 4 },
	};
	struct pt_regs regs = { 0 };
	char out[64], fmttype[16];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct probe_log log = { .err = TP_ERR_NONE };
		int err = run(rows[i].arg, &regs, out, sizeof(out), fmttype, &log);

		ktest_check(err == -EINVAL && !strcmp(probe_err_text(log.err), rows[i].err) &&
				    log.err_offset == rows[i].pos,
			    __FILE__, __LINE__, "\"%s\": %d, \"%s\" at %d, expected \"%s\" at %d",
			    rows[i].arg, err, probe_err_text(log.err), log.err_offset, rows[i].err,
			    rows[i].pos);
	}
}

KTEST(grade_15_11_format)
{
	struct trace_probe *tp = probe();
	struct probe_log log = { .err = TP_ERR_NONE };
	char *fmt;

	EXPECT_EQ(traceprobe_parse_probe_arg(tp, 0, "flag=+0(%di):b1@3/8", TPARG_FL_KERNEL, &log), 0);
	if (tp->nr_args == 0)
		tp->nr_args = 1;
	fmt = traceprobe_print_fmt(tp, false);
	EXPECT_TRUE(fmt && strstr(fmt, "flag=%u"));
	kfree(fmt);
	probe_free(tp);
}
