/* kprobe_events syntax: a line's words and a definition's head (event name, MAXACTIVE, place),
 * checked as Linux's __trace_kprobe_create() checks them. The arguments are trace_probe.c's. */
#include "kernel/trace/trace_kprobe_parse.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

int kprobe_split_words(char *line, const char **argv, int max)
{
	int argc = 0;

	while (*line) {
		while (*line == ' ' || *line == '\t')
			*line++ = '\0';
		if (!*line)
			break;
		if (argc == max)
			return max + 1;
		argv[argc++] = line;
		while (*line && *line != ' ' && *line != '\t')
			line++;
	}
	return argc;
}

/* r[MAXACTIVE]: 0 when not given (the core's default), or -EINVAL logged. */
static int parse_maxactive(const char *word, const char *event, bool is_return, int *maxactive,
			   struct probe_log *log)
{
	char buf[MAX_EVENT_NAME_LEN];
	size_t len = event ? (size_t)(event - word - 2) : strlen(word + 1);
	unsigned int v;

	*maxactive = 0;
	if (!isdigit(word[1]))
		return 0;
	if (!is_return)
		return probe_log_err(log, 1, TP_ERR_MAXACT_NO_KPROBE), -EINVAL;
	if (len > MAX_EVENT_NAME_LEN - 1)
		return probe_log_err(log, 1, TP_ERR_BAD_MAXACT), -EINVAL;
	memcpy(buf, word + 1, len);
	buf[len] = '\0';
	if (kstrtouint(buf, 0, &v) || !v)
		return probe_log_err(log, 1, TP_ERR_BAD_MAXACT), -EINVAL;
	if (v > KRETPROBE_MAXACTIVE_MAX)
		return probe_log_err(log, 1, TP_ERR_MAXACT_TOO_BIG), -EINVAL;
	*maxactive = v;
	return 0;
}

/* ADDR or [MOD:]SYM[+offs][%return] into pl; an offset past a function's entry rules out r. */
static int parse_place(const char *word, bool *is_return, struct probe_place *pl,
		       struct probe_log *log)
{
	unsigned long addr;
	char *suffix;

	pl->flags = TPARG_FL_KERNEL | (*is_return ? TPARG_FL_RETURN : 0);
	if (!kstrtoul(word, 0, &pl->addr))
		return 0;
	log->index = 1;
	pl->addr = 0;
	strscpy(pl->symbol, word, sizeof(pl->symbol));
	suffix = strchr(pl->symbol, '%');
	if (suffix && strcmp(suffix, "%return"))
		return probe_log_err(log, suffix - pl->symbol, TP_ERR_BAD_ADDR_SUFFIX), -EINVAL;
	if (suffix) { /* `p SYM%return` is `r SYM` */
		*suffix = '\0';
		*is_return = true;
		pl->flags |= TPARG_FL_RETURN;
	}
	if (traceprobe_split_symbol_offset(pl->symbol, &pl->offset) || pl->offset < 0 ||
	    pl->offset > 0xffffffffL)
		return probe_log_err(log, 0, TP_ERR_BAD_PROBE_ADDR), -EINVAL;
	/* MOD:SYM names a module's symbol: no module is ever loaded here, so it resolves to
	 * nothing, is neither counted nor checked, and the probe waits (trace_kprobe.c). */
	if (strchr(pl->symbol, ':'))
		return 0;
	addr = kallsyms_lookup_name(pl->symbol);
	/* An unknown symbol is register_kprobe()'s to refuse, as in Linux. A return probe's
	 * $argN is what its entry kept (Linux 6.9), not the registers at the entry. */
	if (addr && !pl->offset && !*is_return)
		pl->flags |= TPARG_FL_FENTRY;
	if (addr && pl->offset && *is_return)
		return probe_log_err(log, 0, TP_ERR_BAD_RETPROBE), -EINVAL;
	/* Linux 6.1.y's answer to two static functions of one name: which one is meant cannot be
	 * told, so neither is probed (an address can say it). */
	if (kallsyms_count_name(pl->symbol) > 1)
		return probe_log_err(log, 0, TP_ERR_NON_UNIQ_SYMBOL), -EADDRNOTAVAIL;
	return 0;
}

/* Linux's default names: p_vfs_read_0, r_vfs_read_0, p_0xffffffff8010abcd ('.' and ':' -> '_'). */
static void default_event_name(char *buf, bool is_return, const struct probe_place *pl)
{
	if (pl->symbol[0])
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_%s_%ld", is_return ? 'r' : 'p', pl->symbol,
			 pl->offset);
	else
		snprintf(buf, MAX_EVENT_NAME_LEN, "%c_0x%lx", is_return ? 'r' : 'p', pl->addr);
	for (char *p = buf + 1; *p; p++)
		if (*p == ':' || *p == '.')
			*p = '_';
}

/*
 * p[:[GRP/]EVENT] [MOD:]SYM[+offs]|ADDR [FETCHARGS]
 * r[MAXACTIVE][:[GRP/]EVENT] [MOD:]SYM[+0] [FETCHARGS]
 * (Linux's __trace_kprobe_create(), its checks in its order).
 */
int kprobe_parse_head(int argc, const char **argv, struct kprobe_head *h, struct probe_log *log)
{
	const char *event;
	int ret;

	h->group = KPROBE_EVENT_SYSTEM;
	h->is_return = argv[0][0] == 'r';
	memset(&h->pl, 0, sizeof(h->pl));
	if ((argv[0][0] != 'p' && !h->is_return) || argc < 2)
		return -EINVAL; /* Linux's -ECANCELED: not a kprobe command, no error_log entry */
	event = strchr(argv[0] + 1, ':');
	if (event)
		event++;
	ret = parse_maxactive(argv[0], event, h->is_return, &h->maxactive, log);
	if (!ret)
		ret = parse_place(argv[1], &h->is_return, &h->pl, log);
	if (ret)
		return ret;
	log->index = 0;
	if (event) {
		ret = traceprobe_parse_event_name(&event, &h->group, h->gbuf, event - argv[0], log);
		h->event = event;
		if (ret || event)
			return ret;
	}
	default_event_name(h->name, h->is_return, &h->pl);
	h->event = h->name;
	return 0;
}
