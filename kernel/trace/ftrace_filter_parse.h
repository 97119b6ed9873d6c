/* The syntax of a write to set_ftrace_filter (kernel/trace/ftrace_filter_parse.c): plain
 * tokens apart from `[!]func:cmd[:count]` function commands. Pure text work, also fuzzed. */
#ifndef KERNEL_TRACE_FTRACE_FILTER_PARSE_H
#define KERNEL_TRACE_FTRACE_FILTER_PARSE_H

#include "lib/types.h"

enum probe_cmd {
	PROBE_TRACEON,
	PROBE_TRACEOFF,
	PROBE_STACKTRACE,
	PROBE_DUMP,
	PROBE_CPUDUMP,
	PROBE_SNAPSHOT,
	PROBE_ENABLE_EVENT,  /* func:enable_event:system:event[:count] */
	PROBE_DISABLE_EVENT, /* func:disable_event:system:event[:count] */
	NR_PROBE_CMDS
};
extern const char *const ftrace_probe_names[NR_PROBE_CMDS];

/* One function command, split: func points into the token. */
struct probe_spec {
	const char *func;
	enum probe_cmd cmd;
	long count; /* calls to act on; -1: unlimited (and always for a removal) */
	bool remove;
	const char *system, *event; /* enable_event/disable_event's target, in the token */
};

/*
 * Splits a write's text (in place) into its plain tokens, copied into plain one space apart,
 * and its commands (tokens with a ':'), pointed at from cmds. Returns the number of commands,
 * or -EINVAL if there are more than max or the plain tokens do not fit (they always fit in
 * strlen(text) + 1 bytes).
 */
int ftrace_filter_split(char *text, char *plain, size_t size, char **cmds, int max);
/* Splits "[!]func:cmd[:count]" or "[!]func:enable_event:system:event[:count]" (in place) into
 * spec: 0 or -EINVAL. */
int ftrace_probe_parse(char *tok, struct probe_spec *spec);

#endif
