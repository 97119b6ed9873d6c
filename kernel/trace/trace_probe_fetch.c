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
#include "kernel/trace/trace_entry.h"
#include "arch/x86/traps.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "lib/printf.h"
#include "lib/string.h"

/*
 * Every read an argument makes: a lower-half address is a process's memory (a uprobe's registers
 * and stack, a `ustring`, or a kprobe argument that holds a user pointer) and goes through the
 * uaccess helpers, which SMAP demands; an upper-half one is the kernel's. Deciding by the address
 * rather than by the registers serves eprobes too, whose "registers" are the base record. A step
 * marked user (`+u`, `ustring`) reads only the process's memory, as Linux's does: a kernel address
 * there is a fault, never the kernel's bytes.
 */
static long probe_read(void *dst, unsigned long src, size_t n, bool user)
{
	if (user || src < TASK_SIZE_MAX)
		return copy_from_user_nofault(dst, (const void *)src, n);
	return copy_from_kernel_nofault(dst, (const void *)src, n);
}

static long probe_read_str(char *dst, unsigned long src, long n, bool user)
{
	if (user || src < TASK_SIZE_MAX)
		return strncpy_from_user_nofault(dst, (const void *)src, n);
	return strncpy_from_kernel_nofault(dst, (const void *)src, n);
}

/* The probe's head follows the common fields. */
#define HEAD ((u32)sizeof(struct trace_entry))

/* Where the arguments start in a record. */
u32 traceprobe_head_size(enum probe_print_type ptype)
{
	/* struct trace_entry, then one or two longs (none for an eprobe) */
	return HEAD + (ptype == PROBE_PRINT_RETURN ? 16 : ptype == PROBE_PRINT_NORMAL ? 8 : 0);
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
	return !probe_read(val, regs->sp + (n - 5) * sizeof(long), sizeof(*val), false);
}

/* An eprobe's $FIELD: the field of the record it fires on, as Linux's get_event_field() reads
 * it (a string field gives the string's address; a number is sign-extended by its type). */
static unsigned long fetch_field(const struct ftrace_event_field *f, const u8 *rec)
{
	const u8 *p = rec + f->offset;
	u32 loc;

	switch (f->kind) {
	case FILTER_DYN_STRING:
		memcpy(&loc, p, sizeof(loc));
		return (unsigned long)(rec + (loc & 0xffff));
	case FILTER_STATIC_STRING:
		return (unsigned long)p;
	case FILTER_PTR_STRING:
		return *(const unsigned long *)p;
	}
	switch (f->size) {
	case 1:
		return f->is_signed ? (unsigned long)(long)*(const s8 *)p : *p;
	case 2:
		return f->is_signed ? (unsigned long)(long)*(const s16 *)p : *(const u16 *)p;
	case 4:
		return f->is_signed ? (unsigned long)(long)*(const s32 *)p : *(const u32 *)p;
	}
	return *(const unsigned long *)p;
}

static unsigned long file_base[NR_CPUS];

void traceprobe_set_file_base(unsigned long base)
{
	file_base[smp_processor_id()] = base;
}

void traceprobe_store_entry_args(const struct trace_probe *tp, struct pt_regs *regs,
				 unsigned long *edata)
{
	for (int i = 0; i < tp->nr_entry_args; i++)
		if (!fetch_arg(regs, tp->entry_arg[i], &edata[i]))
			edata[i] = 0; /* a stack argument that could not be read: stored as 0 */
}

/* The value the load step starts from; false if reading it faulted. An eprobe's program runs
 * on the record of its event where a kprobe's runs on registers (Linux passes either as rec). */
static bool fetch_load(const struct fetch_insn *code, struct pt_regs *regs, unsigned long *val)
{
	switch (code->op) {
	case FETCH_OP_REG:
		*val = *(unsigned long *)((u8 *)regs + code->param);
		return true;
	case FETCH_OP_STACK:
		return !probe_read(val, regs->sp + code->param * sizeof(long), sizeof(*val), false);
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
	case FETCH_OP_TP_ARG:
		*val = fetch_field((const void *)code->param, (const u8 *)regs);
		return true;
	case FETCH_OP_EDATA: {
		const unsigned long *edata = trace_probe_entry_data();

		*val = edata ? edata[code->param] : 0;
		return edata;
	}
	case FETCH_OP_FOFFS: /* Linux's translate_user_vaddr() */
		*val = file_base[smp_processor_id()] + code->param;
		return true;
	}
	return false;
}

/*
 * Runs the load and dereference steps; returns the store step, or NULL if a read faulted. elem
 * is the element of a string array: its pointer is elem words past the first, so the last load
 * reads that much further (no load at all: the value itself moves), as in Linux's array loop.
 */
static const struct fetch_insn *fetch_value(const struct fetch_insn *code, struct pt_regs *regs,
					    unsigned int elem, unsigned long *val)
{
	unsigned long skip = elem * sizeof(long);

	if (code->op == FETCH_NOP_SYMBOL)
		code++;
	if (!fetch_load(code++, regs, val))
		return NULL;
	if (code->op != FETCH_OP_DEREF)
		*val += skip;
	for (; code->op == FETCH_OP_DEREF; code++) {
		unsigned long addr =
			*val + code->offset + (code[1].op != FETCH_OP_DEREF ? skip : 0);

		if (probe_read(val, addr, sizeof(*val), code->user))
			return NULL;
	}
	return code;
}

/* Length of the string at addr with its NUL, at most MAX_STRING_SIZE; 0 if it cannot be read. */
static u32 fetch_strlen(unsigned long addr, bool user)
{
	u32 len = 0;
	char c;

	do {
		if (probe_read(&c, addr + len, 1, user))
			return 0;
		len++;
	} while (c && len < MAX_STRING_SIZE);
	return len;
}

/* symstr's text ("vfs_read+0x0/0x60", Linux's sprint_symbol()) into buf; its length + NUL. */
static u32 fetch_symstr(unsigned long addr, char *buf)
{
	return snprintf(buf, MAX_STRING_SIZE, "%pS", (void *)addr) + 1;
}

static unsigned int nr_elems(const struct probe_arg *arg)
{
	return arg->count ? arg->count : 1;
}

u32 traceprobe_data_size(const struct trace_probe *tp, struct pt_regs *regs)
{
	char sym[MAX_STRING_SIZE];
	u32 size = 0;

	for (int i = 0; i < tp->nr_args; i++) {
		for (unsigned int e = 0; tp->args[i].dynamic && e < nr_elems(&tp->args[i]); e++) {
			const struct fetch_insn *st;
			unsigned long val;

			st = fetch_value(tp->args[i].code, regs, e, &val);
			if (st && st->op == FETCH_OP_ST_SYMSTR)
				size += MIN(fetch_symstr(val + st->offset, sym),
					    (u32)MAX_STRING_SIZE);
			else if (st)
				size += fetch_strlen(val + st->offset, st->user);
		}
	}
	return size;
}

/* A bitfield: the bits above the field dropped, then those below it (Linux's
 * fetch_apply_bitfield()), in the container's width. */
static void apply_bitfield(u8 *dst, const struct fetch_insn *bf)
{
	unsigned int bits = bf->size * 8, left = bf->param & 0xff, right = bf->param >> 8;
	u64 v = 0;

	memcpy(&v, dst, bf->size);
	v <<= left;
	if (bits < 64)
		v &= (1ULL << bits) - 1;
	v >>= right;
	memcpy(dst, &v, bf->size);
}

/* One number (the elem-th of an array) into dst; 0 if a read faulted. */
static void store_value(u8 *dst, const struct probe_arg *arg, struct pt_regs *regs,
			unsigned int elem)
{
	const struct fetch_insn *st;
	unsigned long val;

	st = fetch_value(arg->code, regs, 0, &val);
	if (!st || (st->op == FETCH_OP_ST_MEM &&
		    probe_read(dst, val + st->offset + elem * st->size, st->size, st->user)))
		memset(dst, 0, arg->type->size);
	else if (st->op == FETCH_OP_ST_RAW)
		memcpy(dst, &val, st->size); /* little-endian: the low bytes first */
	if (st && st[1].op == FETCH_OP_MOD_BF)
		apply_bitfield(dst, &st[1]);
}

/* One string (the elem-th of an array): its __data_loc at dst, its text at *dyn, of which *room
 * bytes are left. Length 0 says "(fault)". */
static void store_string(u8 *rec, u8 *dst, const struct probe_arg *arg, struct pt_regs *regs,
			 unsigned int elem, u8 **dyn, u32 *room)
{
	u32 loc = (u32)(*dyn - rec), max = MIN(*room, (u32)MAX_STRING_SIZE);
	const struct fetch_insn *st;
	char sym[MAX_STRING_SIZE];
	unsigned long val;
	long n = 0;

	st = fetch_value(arg->code, regs, elem, &val);
	if (st && max && st->op == FETCH_OP_ST_SYMSTR) {
		n = MIN(fetch_symstr(val + st->offset, sym), max);
		memcpy(*dyn, sym, n);
		(*dyn)[n - 1] = '\0';
	} else if (st && max) {
		n = probe_read_str((char *)*dyn, val + st->offset, max, st->user);
	}
	if (n > 0) {
		loc |= (u32)n << 16;
		*dyn += n;
		*room -= n;
	}
	memcpy(dst, &loc, sizeof(loc));
}

void traceprobe_store_args(void *rec, u32 head, u32 dsize, const struct trace_probe *tp,
			   struct pt_regs *regs)
{
	u8 *dyn = (u8 *)rec + head + tp->size;
	u32 room = dsize;

	memset(dyn, 0,
	       dsize); /* a string that shrank since it was measured leaves no stale bytes */
	for (int i = 0; i < tp->nr_args; i++) {
		const struct probe_arg *a = &tp->args[i];
		u8 *dst = (u8 *)rec + head + a->offset;

		for (unsigned int e = 0; e < nr_elems(a); e++, dst += a->type->size)
			if (a->dynamic)
				store_string(rec, dst, a, regs, e, &dyn, &room);
			else
				store_value(dst, a, regs, e);
	}
}

/* One value as its type prints it (the C formats of Linux's print_type_* functions). */
static void print_value(struct seq_file *m, const struct fetch_type *t, const u8 *p,
			const void *rec, u32 len)
{
	u64 v = 0;
	u32 loc;

	if (fetch_type_is_string(t)) {
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
		const u8 *p = (const u8 *)rec + head + a->offset;

		seq_printf(m, " %s=", a->name);
		if (head + a->offset + a->type->size * nr_elems(a) > len)
			continue;
		if (a->count)
			seq_putc(m, '{');
		for (unsigned int e = 0; e < nr_elems(a); e++, p += a->type->size) {
			print_value(m, a->type, p, rec, len);
			if (a->count)
				seq_putc(m, e == a->count - 1 ? '}' : ',');
		}
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
static size_t print_fmt(const struct trace_probe *tp, enum probe_print_type ptype, char *buf,
			size_t size)
{
	static const char *const head[] = { "(%lx)", "(%lx <- %lx)", "" };
	static const char *const args[] = { ", REC->" FIELD_STRING_IP,
					    ", REC->" FIELD_STRING_FUNC
					    ", REC->" FIELD_STRING_RETIP,
					    "" };
	size_t pos = append(buf, size, 0, "\"%s", head[ptype]);

	for (int i = 0; i < tp->nr_args; i++) {
		const struct probe_arg *a = &tp->args[i];

		pos = append(buf, size, pos, " %s=", a->name);
		for (unsigned int e = 0; e < nr_elems(a); e++)
			pos = append(buf, size, pos,
				     !a->count ? "%s"
				     : !e      ? "{%s"
					       : ",%s",
				     a->type->fmt);
		if (a->count)
			pos = append(buf, size, pos, "%s", "}");
	}
	pos = append(buf, size, pos, "\"%s", args[ptype]);
	for (int i = 0; i < tp->nr_args; i++) {
		const struct probe_arg *a = &tp->args[i];

		for (unsigned int e = 0; e < nr_elems(a); e++) {
			char elem[MAX_ARG_NAME_LEN + 16];

			snprintf(elem, sizeof(elem), a->count ? "%s[%u]" : "%s", a->name, e);
			pos = append(buf, size, pos, a->dynamic ? ", __get_str(%s)" : ", REC->%s",
				     elem);
		}
	}
	return pos;
}

char *traceprobe_print_fmt(const struct trace_probe *tp, enum probe_print_type ptype)
{
	size_t len = print_fmt(tp, ptype, NULL, 0);
	char *buf = kmalloc(len + 1);

	if (buf)
		print_fmt(tp, ptype, buf, len + 1);
	return buf;
}

struct ftrace_event_field *traceprobe_fields(const struct trace_probe *tp,
					     enum probe_print_type ptype, int *nr)
{
	static const struct ftrace_event_field head[] = {
		TRACE_COMMON_FIELDS,
		{ "unsigned long", FIELD_STRING_IP, HEAD, 8, 0, FILTER_OTHER },
		{ "unsigned long", FIELD_STRING_FUNC, HEAD, 8, 0, FILTER_OTHER },
		{ "unsigned long", FIELD_STRING_RETIP, HEAD + 8, 8, 0, FILTER_OTHER },
	};
	const int nc = TRACE_NR_COMMON_FIELDS;
	int nh = nc + (ptype == PROBE_PRINT_RETURN   ? 2
		       : ptype == PROBE_PRINT_NORMAL ? 1
						     : 0),
	    n = 0;
	u32 base = traceprobe_head_size(ptype);
	struct ftrace_event_field *f = kmalloc((nh + tp->nr_args) * sizeof(*f));

	if (!f)
		return NULL;
	for (int i = 0; i < nc + 3; i++)
		if (i < nc ||
		    (ptype == PROBE_PRINT_RETURN ? i > nc : ptype == PROBE_PRINT_NORMAL && i == nc))
			f[n++] = head[i];
	for (int i = 0; i < tp->nr_args; i++) {
		const struct probe_arg *a = &tp->args[i];

		f[n++] = (struct ftrace_event_field){ .type = a->fmt ? a->fmt : a->type->fmttype,
						      .name = a->name,
						      .offset = base + a->offset,
						      .size = a->type->size * nr_elems(a),
						      .is_signed = a->type->is_signed,
						      .kind = a->dynamic && !a->count
								      ? FILTER_DYN_STRING
								      : FILTER_OTHER };
	}
	*nr = n;
	return f;
}
