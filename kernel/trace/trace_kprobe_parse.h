/* A kprobe_events line's head, parsed (kernel/trace/trace_kprobe_parse.c): words, event name,
 * place. Pure text work with one symbol lookup, so the host fuzzes it too. */
#ifndef KERNEL_TRACE_TRACE_KPROBE_PARSE_H
#define KERNEL_TRACE_TRACE_KPROBE_PARSE_H

#include "kernel/kallsyms.h"
#include "kernel/trace/trace_probe.h"

#define KPROBE_EVENT_SYSTEM "kprobes"

/* Where the probe goes: an address, or SYM[+offs]; the TPARG flags the arguments see. */
struct probe_place {
	unsigned long addr;
	char symbol[KSYM_NAME_LEN];
	long offset;
	unsigned int flags;
};

/* What trace_kprobe.c registers for `p|r[MAXACTIVE][:[GRP/]EVENT] PLACE ...`; group and event
 * point into the words or into name/gbuf, so the struct must outlive neither. */
struct kprobe_head {
	const char *group, *event;
	bool is_return;
	int maxactive; /* 0: the kretprobe core's default */
	struct probe_place pl;
	char name[MAX_EVENT_NAME_LEN], gbuf[MAX_EVENT_NAME_LEN];
};

/* Splits a line into words at blanks (Linux's argv_split()); returns their number, or max + 1
 * if there are more than max. */
int kprobe_split_words(char *line, const char **argv, int max);
/* The head of a definition (argv[0] and the place, argv[1]) into h: 0, or -EINVAL with the
 * error in log (none when the line is no kprobe command at all). */
int kprobe_parse_head(int argc, const char **argv, struct kprobe_head *h, struct probe_log *log);

#endif
