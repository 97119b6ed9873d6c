/* Parsing probe events' fetch arguments into fetch programs, with Linux's errors and positions.
 *
 *   NAME=FETCHARG[:TYPE]      name (default argN), the fetch, the type (default x64; with
 *                             an array's [N] or as a bitfield b<w>@<o>/<c>: trace_probe_types.c)
 *   FETCHARG:  %REG  @ADDR  @SYM[+|-offs]  $stackN  $stack  $retval  $comm  $argN
 *              +|-[u]OFFS(FETCHARG)  \IMM  \"STRING"
 *
 * The parser follows Linux 6.1's (kernel/trace/trace_probe.c: traceprobe_parse_probe_arg(),
 * traceprobe_parse_probe_arg_body(), parse_probe_arg(), parse_probe_vars()) closely enough that a
 * bad argument is refused with the same words at the same caret, quirks included: the error of a
 * $-variable or a register points at the argument's start; `$comm:u32` is refused with no
 * error_log entry (6.1 logs none). `+u` and `ustring` read the process's memory only (a kernel
 * address is a fault, as Linux's copy_from_user_nofault() makes it); any other dereference of a
 * lower-half address reads the process's memory too (trace_probe_fetch.c: probe_read()). On an eprobe (TPARG_FL_TPOINT) `$NAME` is the field
 * NAME of the event it fires on, resolved by trace_eprobe.c.
 */
#include "kernel/trace/trace_probe.h"
#include "kernel/trace/trace_entry.h"
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
	if (!len && slash) { /* `GROUP/` alone: the caller names the event, as Linux 6.1 */
		*pevent = NULL;
		return 0;
	}
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

	if (flags & TPARG_FL_TPOINT) { /* an eprobe's field, looked up in its event later */
		code->data = probe_strndup(name, MAX_ARGSTR_LEN);
		if (!code->data)
			return -ENOMEM;
		code->op = FETCH_OP_TP_ARG;
	} else if (!strcmp(name, "retval")) {
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
	} else if (((flags & TPARG_FL_MASK) == (TPARG_FL_KERNEL | TPARG_FL_FENTRY) ||
		    (flags & TPARG_FL_MASK) == (TPARG_FL_KERNEL | TPARG_FL_RETURN)) &&
		   !strncmp(name, "arg", 3)) {
		/* where the arguments are still where the calling convention put them, or at a
		 * function's return (its entry keeps them: traceprobe_keep_entry_arg()) */
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
		if (flags & TPARG_FL_KERNEL)
			return probe_log_err(log, offs, TP_ERR_FILE_ON_KPROBE), -EINVAL;
		if (kstrtoul(arg + 2, 0, &addr))
			return probe_log_err(log, offs, TP_ERR_BAD_FILE_OFFS), -EINVAL;
		code->op = FETCH_OP_FOFFS;
		code->param = addr;
	} else if (!(flags & TPARG_FL_KERNEL)) {
		return probe_log_err(log, offs, TP_ERR_SYM_ON_UPROBE), -EINVAL;
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

	bool user = arg[1] == 'u';

	if (user) { /* the process's memory only: a kernel address reads as a fault */
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
	code->user = user;
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
		if (flags & TPARG_FL_TPOINT) /* an event's record has no registers */
			return probe_log_err(log, offs, TP_ERR_BAD_VAR), -EINVAL;
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

/* A string's store step: the text the value points at (string) or names (symstr). */
static int add_string_store(struct probe_arg *parg, struct fetch_insn **pcode, int type_pos,
			    int offset, struct probe_log *log)
{
	struct fetch_insn *code = *pcode;
	bool symstr = !strcmp(parg->type->name, "symstr");
	u8 op = code->op;

	if (symstr ? op != FETCH_OP_REG && op != FETCH_OP_STACK && op != FETCH_OP_RETVAL &&
			     op != FETCH_OP_ARG && op != FETCH_OP_DEREF && op != FETCH_OP_TP_ARG
		   : op != FETCH_OP_DEREF && op != FETCH_OP_IMM && op != FETCH_OP_COMM &&
			     op != FETCH_OP_DATA && op != FETCH_OP_TP_ARG)
		return probe_log_err(log, type_pos,
				     symstr ? TP_ERR_BAD_SYMSTRING : TP_ERR_BAD_STRING),
		       -EINVAL;
	/* The value is the string's address already (or, in an array, the last load reads one
	 * of its pointers): the store is a step of its own. */
	if (symstr || op != FETCH_OP_DEREF || parg->count) {
		if ((++code)->op != FETCH_OP_NOP)
			return probe_log_err(log, offset, TP_ERR_TOO_MANY_OPS), -EINVAL;
		code->offset = 0;
	}
	code->op = symstr ? FETCH_OP_ST_SYMSTR : FETCH_OP_ST_STRING;
	if (!strcmp(parg->type->name, "ustring"))
		code->user = 1; /* as `+u` on the last dereference */
	parg->dynamic = true;
	*pcode = code;
	return 0;
}

/* The store step: where the value goes in the record, as the type wants it. */
static int add_store(struct probe_arg *parg, struct fetch_insn **pcode, int type_pos, int offset,
		     struct probe_log *log)
{
	struct fetch_insn *code = *pcode;
	int ret;

	if (fetch_type_is_string(parg->type)) {
		ret = add_string_store(parg, &code, type_pos, offset, log);
		if (ret)
			return ret;
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

/* Frees what n steps of a program own (symbol names, immediate strings, field names). */
static void free_code(struct fetch_insn *code, int n)
{
	for (int i = 0; i < n; i++)
		if (code[i].op == FETCH_NOP_SYMBOL || code[i].op == FETCH_OP_DATA ||
		    code[i].op == FETCH_OP_TP_ARG)
			kfree(code[i].data); /* a field's name, until the field is found */
}

/* The type, then the program; both are parsed from arg, which is ours to cut up. */
static int parse_arg_body(char *arg, u32 *size, struct probe_arg *parg, unsigned int flags,
			  int offset, struct probe_log *log)
{
	struct fetch_insn tmp[FETCH_INSN_MAX] = { 0 }, *code = tmp;
	char *t;
	int ret, n, type_pos;

	ret = traceprobe_parse_type(arg, &t, parg, flags, offset, log);
	if (ret)
		return ret;
	type_pos = offset + (t ? t - arg : 0);
	parg->offset = *size;
	*size += parg->type->size * (parg->count ? parg->count : 1);
	if (*size > MAX_PROBE_EVENT_SIZE)
		return probe_log_err(log, offset, TP_ERR_EVENT_TOO_BIG), -E2BIG;
	if (parg->count) {
		parg->fmt = kmalloc(strlen(parg->type->fmttype) + 6);
		if (!parg->fmt)
			return -ENOMEM;
		snprintf(parg->fmt, strlen(parg->type->fmttype) + 6, "%s[%u]", parg->type->fmttype,
			 parg->count);
	}
	tmp[FETCH_INSN_MAX - 1].op = FETCH_OP_END;
	ret = parse_probe_arg(arg, &code, &tmp[FETCH_INSN_MAX - 1], flags, offset, log);
	if (!ret)
		ret = add_store(parg, &code, type_pos, offset, log);
	if (!ret)
		ret = traceprobe_add_modifiers(parg, &code, t, type_pos, offset, log);
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
	static const struct ftrace_event_field common[] = { TRACE_COMMON_FIELDS };
	/* Linux still reserves common_tgid, a field records no longer have. */
	static const char *const reserved[] = { "common_tgid", FIELD_STRING_IP, FIELD_STRING_RETIP,
						FIELD_STRING_FUNC };

	for (unsigned int i = 0; i < ARRAY_SIZE(common); i++)
		if (!strcmp(common[i].name, name))
			return true;
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
	if (!ret && parg->code[0].op == FETCH_OP_ARG && (flags & TPARG_FL_RETURN))
		ret = traceprobe_keep_entry_arg(tp, &parg->code[0], log);
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
	kfree(arg->fmt);
}

bool traceprobe_match_command_args(const struct trace_probe *tp, int argc, const char **argv)
{
	if (tp->nr_args < argc)
		return false;
	for (int i = 0; i < argc; i++) {
		size_t len = strlen(tp->args[i].name);

		if (strncmp(argv[i], tp->args[i].name, len) || argv[i][len] != '=' ||
		    strcmp(argv[i] + len + 1, tp->args[i].comm))
			return false;
	}
	return true;
}
