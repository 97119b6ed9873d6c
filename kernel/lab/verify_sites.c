/* /sys/kernel/tracing/verify_sites (ours, not Linux's): every patchable site checked on read.
 *
 *   # cat verify_sites
 *   ftrace sites: 376 checked, 0 calling ftrace: ok
 *   jump label sites: 9 checked: ok
 *   ftrace_bug reports: 0, jump label bugs: 0
 *   memory: 70432 kmalloc bytes in use, 0 trampoline pages
 *
 * Reading it compares each dyn_ftrace record's bytes with what its flags say it calls (a NOP, the
 * shared caller, a trampoline, a direct call), each live trampoline with its template, and each
 * jump-label site with what its key wants. The self-tests do the same after their stress runs;
 * the file lets the soak (tools/soak.py) ask after every random step, with the machine busy.
 * A failed check prints FAILED and the first site that differs, and changes nothing.
 */
#include "kernel/trace/ftrace.h"
#include "arch/x86/text_patch.h"
#include "kernel/fs/tracefs.h"
#include "kernel/jump_label_internal.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"

static unsigned long calling_ftrace(void)
{
	struct ftrace_page *pg;
	struct dyn_ftrace *rec;
	unsigned long n = 0;

	for_each_ftrace_rec(pg, rec) {
		n += !!(READ_ONCE(rec->flags) & FTRACE_FL_ENABLED);
	}
	return n;
}

static int verify_show(struct seq_file *m, struct fnode *f)
{
	char why[160];
	int err = ftrace_verify_all_sites(why, sizeof(why));

	if (err == -EBUSY)
		return err; /* patch_step holds a batch: a site may be half written */
	if (err)
		seq_printf(m, "ftrace sites: %lu checked: FAILED: %s\n", ftrace_nr_records(), why);
	else
		seq_printf(m, "ftrace sites: %lu checked, %lu calling ftrace: ok\n",
			   ftrace_nr_records(), calling_ftrace());
	if (jump_label_verify_all_sites(why, sizeof(why)))
		seq_printf(m, "jump label sites: %lu checked: FAILED: %s\n", jump_label_nr_sites,
			   why);
	else
		seq_printf(m, "jump label sites: %lu checked: ok\n", jump_label_nr_sites);
	seq_printf(m, "ftrace_bug reports: %lu, jump label bugs: %lu\n", ftrace_bug_count,
		   jump_label_bug_count);
	seq_printf(m, "memory: %lu kmalloc bytes in use, %lu trampoline pages\n",
		   (unsigned long)kmalloc_bytes_in_use(), (unsigned long)execmem_pages_in_use());
	return 0;
}

static const struct tracefs_file verify_file =
	TRACEFS_FILE("/sys/kernel/tracing/verify_sites", verify_show, NULL);

/* Creates the file (from ftrace_files_init()). */
void ftrace_verify_init(void)
{
	tracefs_create_files(NULL, &verify_file, 1);
}
