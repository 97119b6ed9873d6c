/* Tab completion: the longest unambiguous extension of a command or file name, or the list of choices. */
#include "kernel/shell/shell.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "lib/string.h"

#define MAX_CANDIDATES 64

struct candidates {
	const char *name[MAX_CANDIDATES];
	bool is_dir[MAX_CANDIDATES];
	int n;
};

static void add_candidate(struct candidates *c, const char *prefix, const char *name, bool dir)
{
	if (c->n < MAX_CANDIDATES && !strncmp(name, prefix, strlen(prefix))) {
		c->name[c->n] = name;
		c->is_dir[c->n] = dir;
		c->n++;
	}
}

static size_t common_prefix(const struct candidates *c)
{
	size_t len = strlen(c->name[0]);

	for (int i = 1; i < c->n; i++) {
		size_t j = 0;
		while (j < len && c->name[i][j] == c->name[0][j])
			j++;
		len = j;
	}
	return len;
}

static void gather_files(struct candidates *c, const char *word, const char **base)
{
	char dir[FS_PATH_MAX];
	const char *slash = strrchr(word, '/');
	struct fnode *d = shell_cwd;

	*base = word;
	if (slash) {
		size_t n = MIN((size_t)(slash - word) + 1, sizeof(dir) - 1);
		memcpy(dir, word, n);
		dir[n] = '\0';
		*base = slash + 1;
		if (fs_resolve(shell_cwd, dir, &d) || !d->is_dir)
			return;
	}
	for (struct fnode *f = d->children; f; f = f->next)
		add_candidate(c, *base, f->name, f->is_dir);
}

bool shell_complete(const char *line, char *add, size_t size)
{
	const char *word = strrchr(line, ' ');
	struct candidates c = { .n = 0 };
	const char *base;
	size_t len;

	add[0] = '\0';
	if (!word) {
		const struct shell_cmd *cmd;
		word = base = line;
		for_each_shell_cmd(cmd)
			if (!cmd->test_only || test_mode)
				add_candidate(&c, word, cmd->name, false);
	} else {
		word++;
		gather_files(&c, word, &base);
	}
	if (!c.n)
		return false;
	len = common_prefix(&c);
	if (len > strlen(base) || c.n == 1) {
		size_t n = MIN(len - strlen(base), size - 2);
		memcpy(add, c.name[0] + strlen(base), n);
		if (c.n == 1)
			add[n++] = c.is_dir[0] ? '/' : ' ';
		add[n] = '\0';
		return false;
	}
	/* Nothing to add: show the choices, as a shell does on a second Tab. */
	console_puts("\n");
	for (int i = 0; i < c.n; i++)
		cprintf("%s%s  ", c.name[i], c.is_dir[i] ? "/" : "");
	console_puts("\n");
	return true;
}
