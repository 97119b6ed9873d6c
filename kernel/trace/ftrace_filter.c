/* Filter strings, as written to set_ftrace_filter: which functions a token names.
 *
 *   schedule        exactly that function          sched*      starting with "sched"
 *   *lock           ending with "lock"              *mutex*     containing "mutex"
 *   sch?dule, [Ss]y[Ss]_*   a full glob            12          the 12th line of available_filter_functions
 *   !token          remove what token names
 *
 * A write may hold several tokens separated by white space. Any token that names nothing (or is
 * malformed) fails the whole write with -EINVAL.
 */
#include "kernel/trace/ftrace.h"
#include "kernel/kallsyms.h"
#include "lib/ctype.h"
#include "lib/errno.h"
#include "lib/glob.h"
#include "lib/string.h"

#define FILTER_MAX 1024

static int apply(struct ftrace_hash *hash, unsigned long ip, bool remove)
{
	if (remove) {
		ftrace_hash_remove(hash, ip);
		return 0;
	}
	return ftrace_hash_add(hash, ip);
}

static bool all_digits(const char *s)
{
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* A number: the index-th record, counting from 1 as available_filter_functions lines do. */
static int match_index(struct ftrace_hash *hash, const char *tok, bool remove)
{
	unsigned long index, i = 0;
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;

	if (kstrtoul(tok, 10, &index) || index == 0)
		return -EINVAL;
	for_each_ftrace_rec(pg, rec) {
		if (++i == index)
			return apply(hash, rec->ip, remove) ?: 1;
	}
	return 0;
}

static int match_glob(struct ftrace_hash *hash, const char *tok, bool remove)
{
	const char *needle;
	size_t len;
	enum glob_kind kind;
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;
	int found = 0, err;

	if (!glob_valid(tok))
		return -EINVAL;
	kind = glob_classify(tok, &needle, &len);
	for_each_ftrace_rec(pg, rec) {
		const char *name = kallsyms_lookup(rec->ip, NULL, NULL);
		if (!name || !glob_kind_match(kind, needle, len, tok, name))
			continue;
		err = apply(hash, rec->ip, remove);
		if (err)
			return err;
		found++;
	}
	return found;
}

int ftrace_match_glob(struct ftrace_hash *hash, const char *glob)
{
	int found = match_glob(hash, glob, false);
	return found ? found : -EINVAL;
}

struct ftrace_hash *ftrace_build_hash(const struct ftrace_hash *cur, const char *buf, bool reset,
				      int *err)
{
	struct ftrace_hash *new = reset ? alloc_ftrace_hash(0) : alloc_and_copy_ftrace_hash(cur);

	*err = new ? ftrace_match_records(new, buf) : -ENOMEM;
	if (*err) {
		free_ftrace_hash(new);
		return NULL;
	}
	return new;
}

int ftrace_match_records(struct ftrace_hash *hash, const char *buf)
{
	char copy[FILTER_MAX], *p = copy, *tok;

	if (strscpy(copy, buf, sizeof(copy)) < 0)
		return -EINVAL;
	while ((tok = strsep(&p, " \t\n")) != NULL) {
		bool remove = tok[0] == '!';
		int found;

		if (!*tok)
			continue;
		if (remove)
			tok++;
		/* `func:command` triggers belong to the tracers; here a ':' is simply not a name. */
		if (!*tok || strchr(tok, ':'))
			return -EINVAL;
		found = all_digits(tok) ? match_index(hash, tok, remove)
					: match_glob(hash, tok, remove);
		if (found <= 0)
			return found < 0 ? found : -EINVAL;
	}
	return 0;
}
