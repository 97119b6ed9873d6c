/* Probe events at a hit and on the page: running the fetch programs on the registers, the record
 * they fill, and the fields, print fmt and text that describe it, as Linux 6.1 has them.
 *
 *   offset 0        8              16 (24 for a return probe)
 *          | trace_entry | __probe_ip | arg1 | arg2 | ... | "text of string args\0" ...
 *                        (__probe_func, __probe_ret_ip)      ^ __data_loc: offset | len << 16
 *
 * Linux: kernel/trace/trace_probe_tmpl.h (process_fetch_insn_bottom(), __get_data_size(),
 * store_trace_args(), print_probe_args()), trace_kprobe.c (process_fetch_insn(),
 * fetch_store_string()), trace_probe.c (__set_print_fmt(), traceprobe_define_arg_fields()).
 */
#include "kernel/trace/trace_probe.h"
#include "arch/x86/traps.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "lib/printf.h"
#include "lib/string.h"

/* A uprobe hit's registers are the user's (ring 3 in cs): what its arguments point at, its stack
 * included, is that process's memory, read through the uaccess helpers. */
static long probe_read(void *dst, unsigned long src, size_t n, const struct pt_regs *regs)
{
	if ((regs->cs & 3) == 3)
		return copy_from_user_nofault(dst, (const void *)src, n);
	return copy_from_kernel_nofault(dst, (const void *)src, n);
}

static long probe_read_str(char *dst, unsigned long src, long n, const struct pt_regs *regs,
			   bool user)
{
	if (user || (regs->cs & 3) == 3)
		return strncpy_from_user_nofault(dst, (const void *)src, n);
	return strncpy_from_kernel_nofault(dst, (const void *)src, n);
}

/* Where the arguments start in a record. */
u32 traceprobe_head_size(bool is_return)
{
	return 8 + (is_return ? 16 : 8); /* struct trace_entry, then one or two longs */
}

/* x86-64's calling convention: six registers, then the caller's stack above the return address. */
static bool fetch_arg(struct pt_regs *regs, unsigned long n, unsigned long *val)
{
	static const unsigned int arg_regs[] = {
		__builtin_offsetof(struct pt_regs, di), __builtin_offsetof(struct pt_regs, si),
		__builtin_offsetof(struct pt_regs, dx), __builtin_offsetof(struct pt_regs, cx),
		__builtin_offsetof(struct pt_regs, r8), __builtin_offsetof(struct pt_regs, r9),
	};

	if (n < 6) {
		*val = *(unsigned long *)((u8 *)regs + arg_regs[n]);
		return true;
	}
	return !probe_read(val, regs->sp + (n - 5) * sizeof(long), sizeof(*val), regs);
}

/* The value the load step starts from; false if reading it faulted. */
static bool fetch_load(const struct fetch_insn *code, struct pt_regs *regs, unsigned long *val)
{
	switch (code->op) {
	case FETCH_OP_REG:
		*val = *(unsigned long *)((u8 *)regs + code->param);
		return true;
	case FETCH_OP_STACK:
		return !probe_read(val, regs->sp + code->param * sizeof(long), sizeof(*val), regs);
	case FETCH_OP_STACKP:
		*val = regs->sp;
		return true;
	case FETCH_OP_RETVAL:
		*val = regs->ax;
		return true;
	case FETCH_OP_IMM:
		*val = code->param;
		return true;
	case FETCH_OP_COMM:
		*val = (unsigned long)trace_probe_current_comm();
		return true;
	case FETCH_OP_DATA:
		*val = (unsigned long)code->data;
		return true;
	case FETCH_OP_ARG:
		return fetch_arg(regs, code->param, val);
	}
	return false;
}

/* Runs the load and dereference steps; returns the store step, or NULL if a read faulted. */
static const struct fetch_insn *fetch_value(const struct fetch_insn *code, struct pt_regs *regs,
					    unsigned long *val)
{
	if (code->op == FETCH_NOP_SYMBOL)
		code++;
	if (!fetch_load(code++, regs, val))
		return NULL;
	for (; code->op == FETCH_OP_DEREF; code++)
		if (probe_read(val, *val + code->offset, sizeof(*val), regs))
			return NULL;
	return code;
}

/* Length of the string at addr with its NUL, at most MAX_STRING_SIZE; 0 if it cannot be read. */
static u32 fetch_strlen(unsigned long addr, struct pt_regs *regs, bool user)
{
	u32 len = 0;
	char c;

	do {
		if (user ? copy_from_user_nofault(&c, (const void *)(addr + len), 1)
			 : probe_read(&c, addr + len, 1, regs))
			return 0;
		len++;
	} while (c && len < MAX_STRING_SIZE);
	return len;
}

u32 traceprobe_data_size(const struct trace_probe *tp, struct pt_regs *regs)
{
	u32 size = 0;

	for (int i = 0; i < tp->nr_args; i++) {
		const struct fetch_insn *st;
		unsigned long val;

		if (!tp->args[i].dynamic)
			continue;
		st = fetch_value(tp->args[i].code, regs, &val);
		if (st)
			size += fetch_strlen(val + st->offset, regs, tp->args[i].type->user);
	}
	return size;
}

/* One argument into its place; a string's text goes at *dyn, of which *room bytes are left. */
static void store_arg(u8 *rec, u8 *dst, const struct probe_arg *arg, struct pt_regs *regs, u8 **dyn,
		      u32 *room)
{
	const struct fetch_insn *st;
	unsigned long val;
	u32 loc = (u32)(*dyn - rec); /* length 0: "(fault)" */
	long n;

	st = fetch_value(arg->code, regs, &val);
	if (arg->dynamic) {
		n = st && *room ? probe_read_str((char *)*dyn, val + st->offset,
						 MIN(*room, (u32)MAX_STRING_SIZE), regs,
						 arg->type->user)
				: 0;
		if (n > 0) {
			loc |= (u32)n << 16;
			*dyn += n;
			*room -= n;
		}
		memcpy(dst, &loc, sizeof(loc));
	} else if (!st || (st->op == FETCH_OP_ST_MEM &&
			   probe_read(dst, val + st->offset, st->size, regs))) {
		memset(dst, 0, arg->type->size);
	} else if (st->op == FETCH_OP_ST_RAW) {
		memcpy(dst, &val, st->size); /* little-endian: the low bytes first */
	}
}

void traceprobe_store_args(void *rec, u32 head, u32 dsize, const struct trace_probe *tp,
			   struct pt_regs *regs)
{
	u8 *dyn = (u8 *)rec + head + tp->size;
	u32 room = dsize;

	memset(dyn, 0,
	       dsize); /* a string that shrank since it was measured leaves no stale bytes */
	for (int i = 0; i < tp->nr_args; i++)
		store_arg(rec, (u8 *)rec + head + tp->args[i].offset, &tp->args[i], regs, &dyn,
			  &room);
}

/* One value as its type prints it (the C formats of Linux's print_type_* functions). */
static void print_value(struct seq_file *m, const struct fetch_type *t, const u8 *p,
			const void *rec, u32 len)
{
	u64 v = 0;
	u32 loc;

	if (t->fmttype[0] == '_') { /* string */
		memcpy(&loc, p, sizeof(loc));
		if (!(loc >> 16) || (loc & 0xffff) + (loc >> 16) > len)
			seq_puts(m, "(fault)");
		else
			seq_printf(m, "\"%.*s\"", (int)(loc >> 16),
				   (const char *)rec + (loc & 0xffff));
		return;
	}
	memcpy(&v, p, t->size);
	if (t->is_signed && t->size < 8 && (v >> (t->size * 8 - 1)))
		v |= ~0ULL << (t->size * 8); /* sign-extend */
	if (!strcmp(t->name, "symbol"))
		seq_printf(m, "%pS", (void *)(unsigned long)v);
	else if (t->hex)
		seq_printf(m, "0x%llx", v);
	else if (t->is_signed)
		seq_printf(m, "%lld", (long long)v);
	else
		seq_printf(m, "%llu", v);
}

void traceprobe_print_args(struct seq_file *m, const struct trace_probe *tp, const void *rec,
			   u32 head, u32 len)
{
	for (int i = 0; i < tp->nr_args; i++) {
		const struct probe_arg *a = &tp->args[i];

		seq_printf(m, " %s=", a->name);
		if (head + a->offset + a->type->size <= len)
			print_value(m, a->type, (const u8 *)rec + head + a->offset, rec, len);
	}
}

/* Appends to a growing text; returns the new length (what it would be, past size). buf is
 * NULL when only measuring: C has no NULL + 0, so nothing is added to it then. */
static size_t append(char *buf, size_t size, size_t pos, const char *fmt, const char *arg)
{
	if (pos >= size)
		return pos + snprintf(NULL, 0, fmt, arg);
	return pos + snprintf(buf + pos, size - pos, fmt, arg);
}

/* The print fmt into buf (nothing written when size is 0); returns its length. */
static size_t print_fmt(const struct trace_probe *tp, bool is_return, char *buf, size_t size)
{
	size_t pos = append(buf, size, 0, "\"%s", is_return ? "(%lx <- %lx)" : "(%lx)");

	for (int i = 0; i < tp->nr_args; i++) {
		pos = append(buf, size, pos, " %s=", tp->args[i].name);
		pos = append(buf, size, pos, "%s", tp->args[i].type->fmt);
	}
	pos = append(buf, size, pos, "\", %s",
		     is_return ? "REC->" FIELD_STRING_FUNC ", REC->" FIELD_STRING_RETIP
			       : "REC->" FIELD_STRING_IP);
	for (int i = 0; i < tp->nr_args; i++)
		pos = append(buf, size, pos, tp->args[i].dynamic ? ", __get_str(%s)" : ", REC->%s",
			     tp->args[i].name);
	return pos;
}

char *traceprobe_print_fmt(const struct trace_probe *tp, bool is_return)
{
	size_t len = print_fmt(tp, is_return, NULL, 0);
	char *buf = kmalloc(len + 1);

	if (buf)
		print_fmt(tp, is_return, buf, len + 1);
	return buf;
}

struct trace_event_field *traceprobe_fields(const struct trace_probe *tp, bool is_return, int *nr)
{
	static const struct trace_event_field head[] = {
		{ "unsigned short", "common_type", 0, 2, 0, FILTER_OTHER },
		{ "unsigned char", "common_flags", 2, 1, 0, FILTER_OTHER },
		{ "unsigned char", "common_preempt_count", 3, 1, 0, FILTER_OTHER },
		{ "int", "common_pid", 4, 4, 1, FILTER_OTHER },
		{ "unsigned long", FIELD_STRING_IP, 8, 8, 0, FILTER_OTHER },
		{ "unsigned long", FIELD_STRING_FUNC, 8, 8, 0, FILTER_OTHER },
		{ "unsigned long", FIELD_STRING_RETIP, 16, 8, 0, FILTER_OTHER },
	};
	int nh = is_return ? 6 : 5, n = 0;
	u32 base = traceprobe_head_size(is_return);
	struct trace_event_field *f = kmalloc((nh + tp->nr_args) * sizeof(*f));

	if (!f)
		return NULL;
	for (int i = 0; i < 7; i++)
		if (i < 4 || (is_return ? i >= 5 : i == 4))
			f[n++] = head[i];
	for (int i = 0; i < tp->nr_args; i++) {
		const struct probe_arg *a = &tp->args[i];

		f[n++] = (struct trace_event_field){ .type = a->type->fmttype,
						     .name = a->name,
						     .offset = base + a->offset,
						     .size = a->type->size,
						     .is_signed = a->type->is_signed,
						     .kind = a->dynamic ? FILTER_DYN_STRING
									: FILTER_OTHER };
	}
	*nr = n;
	return f;
}
