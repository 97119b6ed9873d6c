/* Writes to set_ftrace_filter, taken apart: plain tokens (ftrace_filter.c matches them) and
 * function commands, `[!]func:cmd[:count]` (ftrace_probe.c runs them). */
#include "kernel/trace/ftrace_filter_parse.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

const char *const ftrace_probe_names[NR_PROBE_CMDS] = {
	"traceon", "traceoff", "stacktrace",   "dump",
	"cpudump", "snapshot", "enable_event", "disable_event",
};

int ftrace_filter_split(char *text, char *plain, size_t size, char **cmds, int max)
{
	size_t plen = 0;
	char *tok;
	int ncmd = 0;

	plain[0] = '\0';
	while ((tok = strsep(&text, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		if (strchr(tok, ':')) {
			if (ncmd == max)
				return -EINVAL;
			cmds[ncmd++] = tok;
		} else {
			plen += snprintf(plain + plen, size - plen, "%s%s", plen ? " " : "", tok);
			if (plen >= size)
				return -EINVAL;
		}
	}
	return ncmd;
}

int ftrace_probe_parse(char *tok, struct probe_spec *spec)
{
	char *func = tok + (tok[0] == '!'), *cmd = strchr(func, ':'), *param;
	int c;

	spec->remove = tok[0] == '!';
	spec->count = -1;
	spec->func = func;
	if (!cmd)
		return -EINVAL;
	*cmd++ = '\0';
	param = strchr(cmd, ':');
	if (param)
		*param++ = '\0';
	for (c = 0; c < NR_PROBE_CMDS && strcmp(cmd, ftrace_probe_names[c]); c++)
		;
	if (c == NR_PROBE_CMDS)
		return -EINVAL;
	spec->system = spec->event = NULL;
	if (c == PROBE_ENABLE_EVENT || c == PROBE_DISABLE_EVENT) {
		/* system:event, then the count (Linux's event_enable_func()) */
		spec->system = param;
		param = param ? strchr(param, ':') : NULL;
		if (!param)
			return -EINVAL;
		*param++ = '\0';
		spec->event = param;
		param = strchr(param, ':');
		if (param)
			*param++ = '\0';
		if (!*spec->system || !*spec->event)
			return -EINVAL;
	}
	/* A removal ignores what follows the command, as Linux's does (it unregisters before looking
	 * at the parameter): scripts write back what set_ftrace_filter lists, `!f:traceoff:count=0`. */
	if (!spec->remove && param &&
	    (kstrtol(param, 10, &spec->count) || spec->count < 0 || !spec->count))
		return -EINVAL;
	spec->cmd = c;
	return 0;
}
