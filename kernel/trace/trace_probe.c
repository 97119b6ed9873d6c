/* Parsing probe events' fetch arguments into fetch programs, with Linux's errors and positions.
 *
 *   NAME=FETCHARG[:TYPE]      name (default argN), the fetch, the type (default x64)
 *   FETCHARG:  %REG  @ADDR  @SYM[+|-offs]  $stackN  $stack  $retval  $comm  $argN
 *              +|-[u]OFFS(FETCHARG)  \IMM  \"STRING"
 *
 * The parser follows Linux 6.1's (kernel/trace/trace_probe.c: traceprobe_parse_probe_arg(),
 * traceprobe_parse_probe_arg_body(), parse_probe_arg(), parse_probe_vars()) closely enough that a
 * bad argument is refused with the same words at the same caret, quirks included: the error of a
 * $-variable or a register points at the argument's start; `$comm:u32` is refused with no
 * error_log entry (6.1 logs none). Not offered: arrays (`:u32[4]`), bitfields (`:b4@2/32`), which
 * Linux has; `+u` reads kernel memory. `ustring` reads the current process's memory, and so does
 * every dereference of a uprobe event (its registers are the process's).
 */
#include "kernel/trace/trace_probe.h"
#include "arch/x86/traps.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "lib/compiler.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define C(a, b) b
static const char *const probe_err_texts[] = { PROBE_ERRORS };
#undef C

/* Linux's words for err ("" for none). */
const char *probe_err_text(enum probe_err err)
{
	return err >= 0 && err < NR_TP_ERRS ? probe_err_texts[err] : "";
}

/* Notes err at offset into the current word, unless an error was noted already. */
void probe_log_err(struct probe_log *log, int offset, enum probe_err err)
{
	if (log->err != TP_ERR_NONE)
		return; /* the first error is the one the command stops at */
	log->err = err;
	log->err_index = log->index;
	log->err_offset = offset;
}

void probe_log_command(const struct probe_log *log, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < log->argc && len + 1 < size; i++) {
		if (i)
			buf[len++] = ' ';
		strscpy(buf + len, log->argv[i], size - len);
		len = strlen(buf);
	}
}

int probe_log_pos(const struct probe_log *log)
{
	int pos = 0;

	for (int i = 0; i < log->argc; i++) {
		if (i == log->err_index)
			return pos + log->err_offset;
		pos += strlen(log->argv[i]) + 1;
	}
	return pos; /* past the last word, as Linux puts it */
}

/* At most n bytes of s, NUL-terminated, kmalloc'd; NULL if memory ran out. */
char *probe_strndup(const char *s, size_t n)
{
	char *d;

	n = strnlen(s, n);
	d = kmalloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* The types, Linux's names, sizes and print formats. x64 is the default (a 64-bit kernel's). */
static const struct fetch_type probe_fetch_types[] = {
	{ "string", 4, 1, 0, "\\\"%s\\\"", "__data_loc char[]", 0 },
	{ "ustring", 4, 1, 0, "\\\"%s\\\"", "__data_loc char[]", 1 },
	{ "u8", 1, 0, 0, "%u", "u8", 0 },
	{ "u16", 2, 0, 0, "%u", "u16", 0 },
	{ "u32", 4, 0, 0, "%u", "u32", 0 },
	{ "u64", 8, 0, 0, "%Lu", "u64", 0 },
	{ "s8", 1, 1, 0, "%d", "s8", 0 },
	{ "s16", 2, 1, 0, "%d", "s16", 0 },
	{ "s32", 4, 1, 0, "%d", "s32", 0 },
	{ "s64", 8, 1, 0, "%Ld", "s64", 0 },
	{ "x8", 1, 0, 1, "0x%x", "u8", 0 },
	{ "x16", 2, 0, 1, "0x%x", "u16", 0 },
	{ "x32", 4, 0, 1, "0x%x", "u32", 0 },
	{ "x64", 8, 0, 1, "0x%Lx", "u64", 0 },
	{ "symbol", 8, 0, 0, "%pS", "u64", 0 },
	{ NULL },
};

/* The type called name (NULL: the default, x64), or NULL if there is none. */
static const struct fetch_type *find_fetch_type(const char *name)
{
	if (!name)
		name = "x64";
	for (const struct fetch_type *t = probe_fetch_types; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/* A C identifier: what Linux allows as a group, event or argument name. */
bool is_good_name(const char *name)
{
	if (!isalpha(*name) && *name != '_')
		return false;
	while (*++name)
		if (!isalnum(*name) && *name != '_')
			return false;
	return true;
}

int traceprobe_split_symbol_offset(char *symbol, long *offset)
{
	char *tmp = symbol + strcspn(symbol, "+-");

	*offset = 0;
	if (!*tmp)
		return 0;
	/* kstrtol takes a leading '-' but not a '+' here: step over it, as Linux's does too */
	if (kstrtol(*tmp == '+' ? tmp + 1 : tmp, 0, offset) || (tmp[0] == '+' && tmp[1] == '-'))
		return -EINVAL;
	*tmp = '\0';
	return 0;
}

int traceprobe_parse_event_name(const char **pevent, const char **pgroup, char *buf, int offset,
				struct probe_log *log)
{
	const char *event = *pevent, *slash = strchr(event, '/');
	size_t len;

	if (!slash)
		slash = strchr(event, '.');
	if (slash) {
		if (slash == event)
			return probe_log_err(log, offset, TP_ERR_NO_GROUP_NAME), -EINVAL;
		if (slash - event + 1 > MAX_EVENT_NAME_LEN)
			return probe_log_err(log, offset, TP_ERR_GROUP_TOO_LONG), -EINVAL;
		strscpy(buf, event, slash - event + 1);
		if (!is_good_name(buf))
			return probe_log_err(log, offset, TP_ERR_BAD_GROUP_NAME), -EINVAL;
		*pgroup = buf;
		offset += slash - event + 1;
		event = *pevent = slash + 1;
	}
	len = strlen(event);
	if (!len)
		return probe_log_err(log, offset, TP_ERR_NO_EVENT_NAME), -EINVAL;
	if (len > MAX_EVENT_NAME_LEN)
		return probe_log_err(log, offset, TP_ERR_EVENT_TOO_LONG), -EINVAL;
	if (!is_good_name(event))
		return probe_log_err(log, offset, TP_ERR_BAD_EVENT_NAME), -EINVAL;
	return 0;
}

/* x86-64's register names, as Linux's regs_query_register_offset() knows them. */
static const struct {
	const char *name;
	unsigned int offset;
} regs_table[] = {
#define REG(n, f)                                                                                  \
	{                                                                                          \
		n, __builtin_offsetof(struct pt_regs, f)                                           \
	}
	REG("r15", r15), REG("r14", r14), REG("r13", r13),     REG("r12", r12),
	REG("bp", bp),	 REG("bx", bx),	  REG("r11", r11),     REG("r10", r10),
	REG("r9", r9),	 REG("r8", r8),	  REG("ax", ax),       REG("cx", cx),
	REG("dx", dx),	 REG("si", si),	  REG("di", di),       REG("orig_ax", orig_ax),
	REG("ip", ip),	 REG("cs", cs),	  REG("flags", flags), REG("sp", sp),
	REG("ss", ss),
#undef REG
};

/* Where the register called name is in struct pt_regs, or -EINVAL. */
static int regs_query_register_offset(const char *name)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(regs_table); i++)
		if (!strcmp(regs_table[i].name, name))
			return regs_table[i].offset;
	return -EINVAL;
}

/* $retval, $stack, $stackN, $comm, $argN: name is what follows the '$'. */
static int parse_probe_vars(const char *name, struct fetch_insn *code, unsigned int flags, int offs,
			    struct probe_log *log)
{
	unsigned long param;

	if (!strcmp(name, "retval")) {
		if (!(flags & TPARG_FL_RETURN))
			return probe_log_err(log, offs, TP_ERR_RETVAL_ON_PROBE), -EINVAL;
		code->op = FETCH_OP_RETVAL;
	} else if (!strncmp(name, "stack", 5)) {
		if (!name[5]) {
			code->op = FETCH_OP_STACKP;
		} else {
			if (!isdigit(name[5]) || kstrtoul(name + 5, 10, &param))
				goto inval_var;
			if (param > PARAM_MAX_STACK)
				return probe_log_err(log, offs, TP_ERR_BAD_STACK_NUM), -EINVAL;
			code->op = FETCH_OP_STACK;
			code->param = param;
		}
	} else if (!strcmp(name, "comm") || !strcmp(name, "COMM")) {
		code->op = FETCH_OP_COMM;
	} else if ((flags & TPARG_FL_MASK) == (TPARG_FL_KERNEL | TPARG_FL_FENTRY) &&
		   !strncmp(name, "arg", 3)) {
		/* only where the arguments are still where the calling convention put them */
		if (kstrtoul(name + 3, 10, &param))
			goto inval_var;
		if (!param || param > PARAM_MAX_STACK)
			return probe_log_err(log, offs, TP_ERR_BAD_ARG_NUM), -EINVAL;
		code->op = FETCH_OP_ARG;
		code->param = param - 1;
	} else {
		goto inval_var;
	}
	return 0;
inval_var:
	probe_log_err(log, offs, TP_ERR_BAD_VAR);
	return -EINVAL;
}

/* Moves to the next step, or refuses: the program has room for FETCH_INSN_MAX steps. */
static int next_insn(struct fetch_insn **code, struct fetch_insn *end, int offs,
		     struct probe_log *log)
{
	if (++*code == end)
		return probe_log_err(log, offs, TP_ERR_TOO_MANY_OPS), -EINVAL;
	return 0;
}

static int parse_probe_arg(char *arg, struct fetch_insn **pcode, struct fetch_insn *end,
			   unsigned int flags, int offs, struct probe_log *log);

/* @ADDR or @SYM[+|-offs]: an address, then a load from it. */
static int parse_mem(char *arg, struct fetch_insn **pcode, struct fetch_insn *end,
		     unsigned int flags, int offs, struct probe_log *log)
{
	struct fetch_insn *code = *pcode;
	unsigned long addr;

	if (isdigit(arg[1])) {
		if (kstrtoul(arg + 1, 0, &addr))
			return probe_log_err(log, offs, TP_ERR_BAD_MEM_ADDR), -EINVAL;
		code->op = FETCH_OP_IMM;
		code->param = addr;
	} else if (arg[1] == '+') {
		return probe_log_err(log, offs, TP_ERR_FILE_ON_KPROBE), -EINVAL;
	} else {
		/* Kept by name: the address is looked up when the probe is registered. */
		code->op = FETCH_NOP_SYMBOL;
		code->data = probe_strndup(arg + 1, MAX_ARGSTR_LEN);
		if (!code->data)
			return -ENOMEM;
		if (next_insn(&code, end, offs, log))
			return -EINVAL;
		code->op = FETCH_OP_IMM;
		code->param = 0;
	}
	if (next_insn(&code, end, offs, log))
		return -EINVAL;
	*pcode = code;
	code->op = FETCH_OP_DEREF;
	code->offset = 0;
	return 0;
}

/* +|-[u]OFFS(FETCHARG): FETCHARG's program, then a load at its value + OFFS. */
static int parse_deref(char *arg, struct fetch_insn **pcode, struct fetch_insn *end,
		       unsigned int flags, int offs, struct probe_log *log)
{
	struct fetch_insn *code = *pcode;
	char *open, *close;
	long offset;
	int err;

	if (arg[1] == 'u') { /* user memory in Linux; all memory is the kernel's here */
		arg[1] = arg[0];
		arg++;
	}
	if (arg[0] == '+')
		arg++;
	open = strchr(arg, '(');
	if (!open)
		return probe_log_err(log, offs, TP_ERR_DEREF_NEED_BRACE), -EINVAL;
	*open = '\0';
	if (kstrtol(arg, 0, &offset))
		return probe_log_err(log, offs, TP_ERR_BAD_DEREF_OFFS), -EINVAL;
	/* Linux's arithmetic for where the inner argument starts (one short after a 'u'). */
	offs += (open + 1 - arg) + (arg[0] != '-' ? 1 : 0);
	arg = open + 1;
	close = strrchr(arg, ')');
	if (!close)
		return probe_log_err(log, offs + strlen(arg), TP_ERR_DEREF_OPEN_BRACE), -EINVAL;
	*close = '\0';
	err = parse_probe_arg(arg, &code, end, flags, offs, log);
	if (err)
		return err;
	if (code->op == FETCH_OP_COMM || code->op == FETCH_OP_DATA)
		return probe_log_err(log, offs, TP_ERR_COMM_CANT_DEREF), -EINVAL;
	if (next_insn(&code, end, offs, log))
		return -EINVAL;
	*pcode = code;
	code->op = FETCH_OP_DEREF;
	code->offset = offset;
	return 0;
}

/* \IMM (a number) or \"STRING" (its text). */
static int parse_imm(char *arg, struct fetch_insn *code, int offs, struct probe_log *log)
{
	size_t len;

	if (arg[1] == '"') {
		len = strlen(arg + 2);
		if (!len || arg[2 + len - 1] != '"')
			return probe_log_err(log, offs + 2 + len, TP_ERR_IMMSTR_NO_CLOSE), -EINVAL;
		code->data = probe_strndup(arg + 2, len - 1);
		if (!code->data)
			return -ENOMEM;
		code->op = FETCH_OP_DATA;
		return 0;
	}
	arg++;
	if (!(isdigit(arg[0]) ? !kstrtoul(arg, 0, &code->param)
			      : (arg[0] == '-' || arg[0] == '+') &&
					!kstrtol(arg + (arg[0] == '+'), 0, (long *)&code->param)))
		return probe_log_err(log, offs + 1, TP_ERR_BAD_IMM), -EINVAL;
	code->op = FETCH_OP_IMM;
	return 0;
}

/* One fetch argument (no name, no type) into *pcode onwards; recursive through derefs. */
static int parse_probe_arg(char *arg, struct fetch_insn **pcode, struct fetch_insn *end,
			   unsigned int flags, int offs, struct probe_log *log)
{
	struct fetch_insn *code = *pcode;
	int ret = 0;

	switch (arg[0]) {
	case '$':
		ret = parse_probe_vars(arg + 1, code, flags, offs, log);
		break;
	case '%':
		ret = regs_query_register_offset(arg + 1);
		if (ret < 0)
			return probe_log_err(log, offs, TP_ERR_BAD_REG_NAME), -EINVAL;
		code->op = FETCH_OP_REG;
		code->param = ret;
		ret = 0;
		break;
	case '@':
		ret = parse_mem(arg, pcode, end, flags, offs, log);
		code = *pcode;
		break;
	case '+':
	case '-':
		ret = parse_deref(arg, pcode, end, flags, offs, log);
		code = *pcode;
		break;
	case '\\':
		ret = parse_imm(arg, code, offs, log);
		break;
	}
	if (!ret && code->op == FETCH_OP_NOP) /* nothing above knew the first character */
		return probe_log_err(log, offs, TP_ERR_BAD_FETCH_ARG), -EINVAL;
	return ret;
}

/* The store step: where the value goes in the record, as the type wants it. */
static int add_store(struct probe_arg *parg, struct fetch_insn **pcode, int type_pos, int offset,
		     struct probe_log *log)
{
	struct fetch_insn *code = *pcode;

	if (parg->type->fmttype[0] == '_') { /* string */
		if (code->op != FETCH_OP_DEREF && code->op != FETCH_OP_IMM &&
		    code->op != FETCH_OP_COMM && code->op != FETCH_OP_DATA)
			return probe_log_err(log, type_pos, TP_ERR_BAD_STRING), -EINVAL;
		/* IMM, COMM and DATA are the string's address already: a step of its own */
		if (code->op != FETCH_OP_DEREF && (++code)->op != FETCH_OP_NOP)
			return probe_log_err(log, offset, TP_ERR_TOO_MANY_OPS), -EINVAL;
		if (code->op != FETCH_OP_DEREF)
			code->offset = 0;
		code->op = FETCH_OP_ST_STRING;
		parg->dynamic = true;
	} else if (code->op == FETCH_OP_DEREF) {
		code->op = FETCH_OP_ST_MEM; /* the last load reads the type's size, not a word */
	} else {
		if ((++code)->op != FETCH_OP_NOP)
			return probe_log_err(log, offset, TP_ERR_TOO_MANY_OPS), -EINVAL;
		code->op = FETCH_OP_ST_RAW;
	}
	code->size = parg->type->size;
	*pcode = code;
	return 0;
}

/* Frees what n steps of a program own (symbol names, immediate strings). */
static void free_code(struct fetch_insn *code, int n)
{
	for (int i = 0; i < n; i++)
		if (code[i].op == FETCH_NOP_SYMBOL || code[i].op == FETCH_OP_DATA)
			kfree(code[i].data);
}

/* The type, then the program; both are parsed from arg, which is ours to cut up. */
static int parse_arg_body(char *arg, u32 *size, struct probe_arg *parg, unsigned int flags,
			  int offset, struct probe_log *log)
{
	struct fetch_insn tmp[FETCH_INSN_MAX] = { 0 }, *code = tmp;
	char *t = strchr(arg, ':');
	int ret, n;

	if (t)
		*t++ = '\0';
	if (!strcmp(arg, "$comm") || !strcmp(arg, "$COMM") || !strncmp(arg, "\\\"", 2)) {
		if (t && strcmp(t, "string"))
			return -EINVAL; /* Linux 6.1 refuses this without a word in error_log */
		parg->type = find_fetch_type("string");
	} else {
		parg->type = find_fetch_type(t);
	}
	if (!parg->type)
		return probe_log_err(log, offset + (t ? t - arg : 0), TP_ERR_BAD_TYPE), -EINVAL;
	parg->offset = *size;
	*size += parg->type->size;
	tmp[FETCH_INSN_MAX - 1].op = FETCH_OP_END;
	ret = parse_probe_arg(arg, &code, &tmp[FETCH_INSN_MAX - 1], flags, offset, log);
	if (!ret)
		ret = add_store(parg, &code, offset + (t ? t - arg : 0), offset, log);
	if (!ret) {
		(++code)->op = FETCH_OP_END;
		n = code - tmp + 1;
		parg->code = kmalloc(n * sizeof(*code));
		if (parg->code)
			memcpy(parg->code, tmp, n * sizeof(*code));
		else
			ret = -ENOMEM;
	}
	if (ret)
		free_code(tmp, FETCH_INSN_MAX);
	return ret;
}

/* True if name is a record field already: a common one, the probe's head, or an argument. */
static bool conflict_field_name(const char *name, const struct probe_arg *args, int narg)
{
	static const char *const reserved[] = { "common_type",		"common_flags",
						"common_preempt_count", "common_pid",
						"common_tgid",		FIELD_STRING_IP,
						FIELD_STRING_RETIP,	FIELD_STRING_FUNC };

	for (unsigned int i = 0; i < ARRAY_SIZE(reserved); i++)
		if (!strcmp(reserved[i], name))
			return true;
	for (int i = 0; i < narg; i++)
		if (!strcmp(args[i].name, name))
			return true;
	return false;
}

int traceprobe_parse_probe_arg(struct trace_probe *tp, int i, const char *arg, unsigned int flags,
			       struct probe_log *log)
{
	struct probe_arg *parg = &tp->args[i];
	const char *body = strchr(arg, '=');
	char *text;
	size_t len;
	int ret;

	tp->nr_args++; /* counted now, so an error frees what this one got */
	if (body) {
		if (body - arg > MAX_ARG_NAME_LEN)
			return probe_log_err(log, 0, TP_ERR_ARG_NAME_TOO_LONG), -EINVAL;
		if (body == arg)
			return probe_log_err(log, 0, TP_ERR_NO_ARG_NAME), -EINVAL;
		parg->name = probe_strndup(arg, body - arg);
		body++;
	} else {
		parg->name = kmalloc(16);
		if (parg->name)
			snprintf(parg->name, 16, "arg%d", i + 1);
		body = arg;
	}
	if (!parg->name)
		return -ENOMEM;
	if (!is_good_name(parg->name))
		return probe_log_err(log, 0, TP_ERR_BAD_ARG_NAME), -EINVAL;
	if (conflict_field_name(parg->name, tp->args, i))
		return probe_log_err(log, 0, TP_ERR_USED_ARG_NAME), -EINVAL;
	len = strlen(body);
	if (len > MAX_ARGSTR_LEN)
		return probe_log_err(log, body - arg, TP_ERR_ARG_TOO_LONG), -EINVAL;
	if (!len)
		return probe_log_err(log, body - arg, TP_ERR_NO_ARG_BODY), -EINVAL;
	parg->comm = probe_strndup(body, len);
	text = probe_strndup(body, len);
	ret = parg->comm && text ? parse_arg_body(text, &tp->size, parg, flags, body - arg, log)
				 : -ENOMEM;
	kfree(text);
	return ret;
}

int traceprobe_update_arg(struct probe_arg *arg)
{
	for (struct fetch_insn *code = arg->code; code && code->op != FETCH_OP_END; code++) {
		char sym[MAX_ARGSTR_LEN + 1];
		long offset;

		if (code->op != FETCH_NOP_SYMBOL)
			continue;
		strscpy(sym, code->data, sizeof(sym));
		if (traceprobe_split_symbol_offset(sym, &offset))
			return -EINVAL;
		code[1].param = kallsyms_lookup_name(sym);
		if (!code[1].param)
			return -ENOENT;
		code[1].param += offset;
	}
	return 0;
}

void traceprobe_free_probe_arg(struct probe_arg *arg)
{
	for (struct fetch_insn *code = arg->code; code && code->op != FETCH_OP_END; code++)
		free_code(code, 1);
	kfree(arg->code);
	kfree(arg->name);
	kfree(arg->comm);
}
