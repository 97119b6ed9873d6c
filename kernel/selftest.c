/* Runs the registered self-tests and reports them in KTAP, which tests/ktap.py parses on the host. */
#include "kernel/selftest.h"
#include "kernel/multiboot.h"
#include "kernel/printk/printk.h"
#include "kernel/shell/shell.h"
#include "kernel/trace/ftrace.h"
#include "arch/x86/text_patch.h"
#include "lib/glob.h"
#include "lib/printf.h"
#include "lib/string.h"

extern const struct selftest __start_selftests[], __stop_selftests[];

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cprintf("# %s: %s:%d: %s\n", t->name, file, line, msg);
	t->failed = true;
}

void ktest_skip(struct ktest *t, const char *why)
{
	cprintf("# %s: skipped: %s\n", t->name, why);
	t->skipped = true;
}

static bool selected(const struct selftest *s, const char *glob)
{
	return !glob || glob_match(glob, s->name);
}

int selftest_run(const char *glob)
{
	const struct selftest *s;
	int n = 0, pass = 0, fail = 0, skip = 0;

	for (s = __start_selftests; s < __stop_selftests; s++)
		n += selected(s, glob);
	cprintf("KTAP version 1\n1..%d\n", n);
	n = 0;
	for (s = __start_selftests; s < __stop_selftests; s++) {
		struct ktest t = { .name = s->name };
		if (!selected(s, glob))
			continue;
		if (FTRACE_STATIC && s->dynamic_only)
			ktest_skip(&t, "needs dynamic ftrace (this is the static build)");
		else
			s->fn(&t);
		n++;
		if (t.failed) {
			fail++;
			cprintf("not ok %d %s\n", n, s->name);
		} else if (t.skipped) {
			skip++;
			cprintf("ok %d %s # SKIP\n", n, s->name);
		} else {
			pass++;
			cprintf("ok %d %s\n", n, s->name);
		}
	}
	cprintf("# Totals: pass:%d fail:%d skip:%d\n", pass, fail, skip);
	return fail;
}

static int cmd_selftest(int argc, char **argv)
{
	if (argc > 2) {
		cprintf("usage: selftest [GLOB]\n");
		return 2;
	}
	if (argc == 2 && !glob_valid(argv[1])) {
		cprintf("selftest: %s: invalid glob\n", argv[1]);
		return 2;
	}
	if (text_patch_busy()) { /* the tests patch code: patch_step holds the locks until `next` */
		cprintf("selftest: patch_step holds a patch: finish or abort it first\n");
		return 1;
	}
	return selftest_run(argc == 2 ? argv[1] : NULL) ? 1 : 0;
}
SHELL_CMD(selftest, cmd_selftest, "selftest [GLOB]: run in-kernel self-tests, report KTAP");

/*
 * `selftest=GLOB[,GLOB...]` on the command line (Linux's kunit.filter_glob=): the shell runs these
 * before its first prompt, one KTAP report per glob. For a machine whose serial line only goes to
 * a file, so nobody can type (tests/integration/test_bochs.py boots Bochs that way).
 */
void selftest_from_cmdline(void)
{
	const char *p = boot_info.cmdline;
	char globs[128];
	size_t n = 0;

	while ((p = strstr(p, "selftest=")) && p != boot_info.cmdline && p[-1] != ' ')
		p++;
	if (!p)
		return;
	p += strlen("selftest=");
	while (p[n] && p[n] != ' ' && n < sizeof(globs) - 1) {
		globs[n] = p[n] == ',' ? '\0' : p[n];
		n++;
	}
	globs[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(globs + i) + 1)
		if (globs[i])
			selftest_run(globs + i);
}
