/*
 * A write to set_ftrace_filter, set_ftrace_notrace or set_graph_function, through the code the
 * kernel runs (ftrace_filter_parse.c, ftrace_filter.c, ftrace_hash.c), over a fixed table of
 * function records; the oracle is a model of the documented syntax built on the C library:
 *
 *   - the split: plain tokens joined by spaces, commands (tokens with ':') in order;
 *   - a command: [!]func:cmd[:count], cmd one of five names, count a decimal > 0 (>= 0 with '!');
 *   - the set a plain write builds: token by token, '!' removes, a number is the n-th record
 *     (strtoull: from 1, within the table), anything else a glob matched with fnmatch(3)
 *     (glob_match where fnmatch means more, see fuzz_glob.c); a token that names nothing, and a
 *     bad glob, refuse the whole write (-EINVAL) and leave the old set untouched.
 *
 * Input: one byte of flags (bit 0: `>` rather than `>>`), three bytes choosing which records are
 * in the set before the write, then the text written.
 */
#include "tests/fuzz/fuzz.h"
#include "kernel/kallsyms.h"
#include "kernel/trace/ftrace.h"
#include "kernel/trace/ftrace_filter_parse.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/glob.h"
#include "lib/printf.h"
#include "lib/string.h"

#define NREC 24
/* Kernel-like names, a duplicate (two static functions may share one), and one record with no
 * name (kallsyms_lookup() failing). */
static const char *const names[NREC] = {
	"schedule", "schedule_timeout", "sched_clock", "vfs_read", "vfs_write", "kfree",
	"kmalloc", "__kmalloc", "do_sys_open", "_raw_spin_lock", "_raw_spin_unlock", "mutex_lock",
	"mutex_unlock", "foo.isra.0", "foo", "foo", NULL, "a", "ftrace_stub", "x86_64_start",
	"sys_read", "SyS_read", "12", "dump",
};
static struct dyn_ftrace recs[NREC];
static struct ftrace_page page2 = { NULL, recs + 10, NREC - 10, NREC - 10 };
static struct ftrace_page page1 = { &page2, recs, 10, 10 };
struct ftrace_page *ftrace_pages_start = &page1;

#define IP(i) (0x1000ul + 16 * (i))

const char *kallsyms_lookup(unsigned long addr, unsigned long *size, unsigned long *offset)
{
	unsigned long i = (addr - IP(0)) / 16;

	return i < NREC && addr == IP(i) ? names[i] : NULL;
}

static bool model_match(const char *pat, const char *name)
{
	if (!strstr(pat, "[:") && !strstr(pat, "[=") && !strstr(pat, "[."))
		return libc_fnmatch(pat, name);
	return glob_match(pat, name);
}

/* A glob alone (what a command's func is): which records, and how many; 0 if none. */
static int model_glob(const char *pat, bool *set, bool value)
{
	int found = 0;

	if (!glob_valid(pat))
		return -EINVAL;
	for (int i = 0; i < NREC; i++) {
		if (names[i] && model_match(pat, names[i])) {
			set[i] = value;
			found++;
		}
	}
	return found;
}

static bool digits_only(const char *s)
{
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* What a plain write does to set (buf is changed). */
static int model_write(char *buf, bool *set)
{
	char *tok;

	while ((tok = strsep(&buf, " \t\n")) != NULL) {
		bool remove = tok[0] == '!';
		unsigned long long n;
		char *end;
		int err;

		if (!*tok)
			continue;
		tok += remove;
		if (!*tok || strchr(tok, ':'))
			return -EINVAL;
		if (digits_only(tok)) {
			n = libc_strtoull(tok, &end, 10, &err);
			if (err || n == 0 || n > NREC)
				return -EINVAL;
			set[n - 1] = !remove;
		} else if (model_glob(tok, set, !remove) <= 0) {
			return -EINVAL;
		}
	}
	return 0;
}

/* [!]func:cmd[:count]: 0 or -EINVAL, and the spec's fields. */
static int model_command(char *tok, struct probe_spec *want)
{
	char *cmd, *param, *p;
	unsigned long long n;
	int err, c;

	want->remove = tok[0] == '!';
	want->func = tok + want->remove;
	want->count = -1;
	cmd = strchr(want->func, ':');
	*cmd++ = '\0';
	param = strchr(cmd, ':');
	if (param)
		*param++ = '\0';
	for (c = 0; c < NR_PROBE_CMDS && strcmp(cmd, ftrace_probe_names[c]); c++)
		;
	if (c == NR_PROBE_CMDS)
		return -EINVAL;
	want->cmd = c;
	want->system = want->event = NULL;
	if (c == PROBE_ENABLE_EVENT || c == PROBE_DISABLE_EVENT) {
		/* system:event[:count] in what followed the command */
		if (!param || !(p = strchr(param, ':')))
			return -EINVAL;
		*p++ = '\0';
		want->system = param;
		want->event = p;
		param = strchr(p, ':');
		if (param)
			*param++ = '\0';
		if (!*want->system || !*want->event)
			return -EINVAL;
	}
	if (!param || want->remove) /* a removal ignores what follows, as Linux's does */
		return 0;
	p = param + (*param == '+' || *param == '-');
	if (!*p || !digits_only(p))
		return -EINVAL;
	n = libc_strtoull(p, NULL, 10, &err);
	if (err || n > (~0ull >> 1) || (*param == '-' && n) || (!want->remove && !n))
		return -EINVAL;
	want->count = want->remove ? -1 : (long)n;
	return 0;
}

static void check_split(const char *text, const char *plain, char **cmds, int ncmd)
{
	char *copy = fuzz_cstr((const u8 *)text, strlen(text)), *p = copy, *tok;
	char want[1024] = "";
	size_t n = 0;
	int i = 0;

	while ((tok = strsep(&p, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		if (strchr(tok, ':')) {
			FUZZ_CHECK(i < ncmd && !strcmp(cmds[i], tok), "\"%s\": command %d is not \"%s\"",
				   text, i, tok);
			i++;
		} else {
			n += snprintf(want + n, sizeof(want) - n, "%s%s", n ? " " : "", tok);
		}
	}
	FUZZ_CHECK(i == ncmd && !strcmp(plain, want), "\"%s\" split into \"%s\" and %d commands",
		   text, plain, ncmd);
	fuzz_free(copy);
}

static void check_command(const char *tok)
{
	char *a = fuzz_cstr((const u8 *)tok, strlen(tok)), *b = fuzz_cstr((const u8 *)tok, strlen(tok));
	struct probe_spec got, want;
	struct ftrace_hash *hits;
	bool set[NREC] = { 0 };
	int err = ftrace_probe_parse(a, &got), werr = model_command(b, &want), found, wfound;

	FUZZ_CHECK(err == werr, "command \"%s\": %d, expected %d", tok, err, werr);
	if (!err) {
		FUZZ_CHECK(!strcmp(got.func, want.func) && got.cmd == want.cmd &&
				   got.count == want.count && got.remove == want.remove &&
				   !strcmp(got.system ?: "", want.system ?: "") &&
				   !strcmp(got.event ?: "", want.event ?: ""),
			   "command \"%s\" read as %s:%d:%ld", tok, got.func, got.cmd, got.count);
		hits = alloc_ftrace_hash(0);
		found = ftrace_match_glob(hits, got.func);
		wfound = model_glob(want.func, set, true);
		FUZZ_CHECK(found == (wfound > 0 ? wfound : -EINVAL),
			   "glob \"%s\" named %d functions, expected %d", got.func, found, wfound);
		for (int i = 0; i < NREC; i++)
			FUZZ_CHECK(ftrace_lookup_hash(hits, IP(i)) == set[i], "glob \"%s\": %s",
				   got.func, names[i] ? names[i] : "(no name)");
		free_ftrace_hash(hits);
	}
	fuzz_free(a);
	fuzz_free(b);
}

static void check_write(const char *plain, struct ftrace_hash *cur, const bool *before,
			bool reset)
{
	char *copy = fuzz_cstr((const u8 *)plain, strlen(plain));
	bool set[NREC];
	struct ftrace_hash *new;
	int err, werr;
	unsigned long count = 0;

	for (int i = 0; i < NREC; i++)
		set[i] = !reset && before[i];
	werr = model_write(copy, set);
	new = ftrace_build_hash(cur, plain, reset, &err);
	FUZZ_CHECK(!new == !!werr && (!new ? err == werr : 1), "\"%s\": error %d, expected %d",
		   plain, new ? 0 : err, werr);
	for (int i = 0; i < NREC; i++) {
		FUZZ_CHECK(ftrace_lookup_hash(cur, IP(i)) == before[i], "\"%s\" changed the old set",
			   plain);
		if (!new)
			continue;
		FUZZ_CHECK(ftrace_lookup_hash(new, IP(i)) == set[i], "\"%s\": record %d (%s) is %s",
			   plain, i + 1, names[i] ? names[i] : "no name", set[i] ? "missing" : "in");
		count += set[i];
	}
	FUZZ_CHECK(!new || new->count == count, "\"%s\": %lu entries, expected %lu", plain,
		   new->count, count);
	free_ftrace_hash(new);
	fuzz_free(copy);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	char *text, plain[1024], *cmds[32], *copy;
	struct ftrace_hash *cur;
	bool before[NREC];
	int ncmd;

	if (size < 4 || size - 4 >= 1024) /* fs_write_text(): a write must fit the 1024 bytes */
		return 0;
	if (!recs[1].ip)
		for (int i = 0; i < NREC; i++)
			recs[i].ip = IP(i);
	cur = alloc_ftrace_hash(0);
	for (int i = 0; i < NREC; i++) {
		before[i] = data[1 + i / 8] >> (i % 8) & 1;
		if (before[i])
			ftrace_hash_add(cur, IP(i));
	}
	text = fuzz_cstr(data + 4, size - 4);
	copy = strim(text);
	memmove(text, copy, strlen(copy) + 1);
	copy = fuzz_cstr((const u8 *)text, strlen(text));
	ncmd = ftrace_filter_split(text, plain, sizeof(plain), cmds, ARRAY_SIZE(cmds));
	if (ncmd >= 0) {
		check_split(copy, plain, cmds, ncmd);
		for (int i = 0; i < ncmd; i++)
			check_command(cmds[i]);
		check_write(plain, cur, before, data[0] & 1);
	}
	/* set_ftrace_notrace and set_graph_function take the whole text as plain tokens. */
	check_write(copy, cur, before, data[0] & 1);
	free_ftrace_hash(cur);
	fuzz_free(copy);
	fuzz_free(text);
	FUZZ_CHECK(fuzz_live_allocs == 0, "%ld allocations leaked", fuzz_live_allocs);
	return 0;
}
