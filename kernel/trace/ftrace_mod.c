/* The `mod` command of set_ftrace_filter and set_ftrace_notrace: a module's functions, pending.
 *
 *   echo 'ext4_*:mod:ext4' > set_ftrace_filter    ext4's functions matching ext4_*, once loaded
 *   echo '!ext4_*:mod:ext4' >> set_ftrace_filter  forget it again ('!*:mod:ext4': all of ext4's)
 *
 * This kernel loads no modules, so no module is ever there and, as Linux does for a module not
 * loaded (kernel/trace/ftrace.c: cache_mod()), the command is kept as it was written, in a list
 * of the trace array's, and listed after the functions: `ext4_*:mod:ext4`. It filters nothing:
 * with only pending commands the filter is empty and, on Linux as here, the function tracer
 * traces every function. A `>` write empties the list with the filter.
 */
#include "kernel/trace/ftrace.h"
#include "kernel/trace/trace.h"
#include "kernel/fs/fs.h"
#include "kernel/locking/mutex.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/string.h"

struct ftrace_mod_load {
	struct ftrace_mod_load *next;
	char *func, *module; /* in the same allocation */
};

/* Readers of the lists (set_ftrace_filter's show) against the writes that replace them. */
static DEFINE_MUTEX(mod_lock);

static struct ftrace_mod_load **mod_list(struct trace_array *tr, bool is_notrace)
{
	return is_notrace ? &tr->mod_notrace : &tr->mod_trace;
}

bool ftrace_mod_is_cmd(const char *tok)
{
	const char *colon = strchr(tok, ':');

	return colon && !strncmp(colon + 1, "mod:", 4);
}

void ftrace_mod_discard(struct ftrace_mod_load *l)
{
	while (l) {
		struct ftrace_mod_load *next = l->next;
		kfree(l);
		l = next;
	}
}

static struct ftrace_mod_load *mod_new(const char *func, size_t flen, const char *module)
{
	size_t mlen = strlen(module);
	struct ftrace_mod_load *m = kzalloc(sizeof(*m) + flen + mlen + 2);

	if (!m)
		return NULL;
	m->func = (char *)(m + 1);
	memcpy(m->func, func, flen);
	m->module = m->func + flen + 1;
	memcpy(m->module, module, mlen);
	return m;
}

/* The list as it would be after one `[!]func:mod:module` (list is changed in place: a copy). */
static int mod_apply(struct ftrace_mod_load **list, const char *tok)
{
	bool remove = tok[0] == '!';
	const char *func = tok + remove, *colon = strchr(func, ':'), *module = colon + 5;
	size_t flen = colon - func;
	struct ftrace_mod_load **pp, *m;
	int found = 0;

	if (!*module || strchr(module, ':'))
		return -EINVAL;
	if (!remove) {
		m = mod_new(func, flen, module);
		if (!m)
			return -ENOMEM;
		m->next = *list; /* newest first, as Linux lists them */
		*list = m;
		return 0;
	}
	/* Linux's: the same module, and the same func or "*" for all of it. */
	for (pp = list; (m = *pp);) {
		if (!strcmp(m->module, module) &&
		    ((flen == 1 && func[0] == '*') ||
		     (strlen(m->func) == flen && !strncmp(m->func, func, flen)))) {
			*pp = m->next;
			kfree(m);
			found++;
		} else {
			pp = &m->next;
		}
	}
	return found ? 0 : -EINVAL;
}

struct ftrace_mod_load *ftrace_mod_prepare(struct trace_array *tr, bool is_notrace, char **toks,
					   int n, bool reset, int *err)
{
	struct ftrace_mod_load *copy = NULL, **tail = &copy;

	*err = 0;
	mutex_lock(&mod_lock);
	for (struct ftrace_mod_load *m = reset ? NULL : *mod_list(tr, is_notrace); m && !*err;
	     m = m->next) {
		*tail = mod_new(m->func, strlen(m->func), m->module);
		*err = *tail ? 0 : -ENOMEM;
		if (*tail)
			tail = &(*tail)->next;
	}
	mutex_unlock(&mod_lock);
	for (int i = 0; i < n && !*err; i++)
		*err = mod_apply(&copy, toks[i]);
	if (*err) {
		ftrace_mod_discard(copy);
		return NULL;
	}
	return copy;
}

void ftrace_mod_commit(struct trace_array *tr, bool is_notrace, struct ftrace_mod_load *list)
{
	struct ftrace_mod_load *old;

	mutex_lock(&mod_lock);
	old = *mod_list(tr, is_notrace);
	*mod_list(tr, is_notrace) = list;
	mutex_unlock(&mod_lock);
	ftrace_mod_discard(old);
}

bool ftrace_mod_pending(struct trace_array *tr, bool is_notrace)
{
	return READ_ONCE(*mod_list(tr, is_notrace)) != NULL;
}

/* After the functions: `func:mod:module` a line, Linux's t_mod_show(). */
void ftrace_mod_show(struct seq_file *m, struct trace_array *tr, bool is_notrace)
{
	mutex_lock(&mod_lock);
	for (struct ftrace_mod_load *l = *mod_list(tr, is_notrace); l; l = l->next)
		seq_printf(m, "%s:mod:%s\n", l->func, l->module);
	mutex_unlock(&mod_lock);
}

void ftrace_mod_free(struct trace_array *tr)
{
	ftrace_mod_commit(tr, false, NULL);
	ftrace_mod_commit(tr, true, NULL);
}
