/* The jump-label files:
 *
 *   /proc/jump_labels                 every key with sites: name, state, count; each site's bytes
 *   /proc/sys/kernel/jump_label_demo  0 or 1: the demo key (kernel/lab/jump_label_demo.c)
 *
 * /proc because keys are not a tracing matter: the scheduler, networking and tracepoints all
 * use them, and /proc is where the kernel lists its own machinery (Linux's /proc/kallsyms).
 */
#include "kernel/jump_label_internal.h"
#include "arch/x86/text_patch.h"
#include "kernel/fs/fs.h"
#include "kernel/kallsyms.h"
#include "lib/errno.h"
#include "lib/string.h"

/* A data address as "name" or "name+0x8" (kallsyms has the data objects too). */
static void show_key_name(struct seq_file *m, const struct static_key *key)
{
	unsigned long off;
	const char *name = kallsyms_lookup((unsigned long)key, NULL, &off);

	if (!name)
		seq_printf(m, "0x%lx", (unsigned long)key);
	else if (off)
		seq_printf(m, "%s+0x%lx", name, off);
	else
		seq_puts(m, name);
}

/* What the site holds now: "nop", "jmp", "bad" (reported, left alone) or "???" (neither). */
static const char *site_form(const struct jump_entry *e)
{
	u8 info = jump_site_info[jump_entry_index(e)], insn[5];
	int len = info & JUMP_SITE_LEN;
	const void *code = (const void *)jump_entry_code(e);

	if (info & JUMP_SITE_BAD)
		return "bad";
	if (!jump_site_insn(e, len, false, insn) && !memcmp(code, insn, len))
		return "nop";
	if (!jump_site_insn(e, len, true, insn) && !memcmp(code, insn, len))
		return "jmp";
	return "???";
}

static int jump_labels_show(struct seq_file *m, struct fnode *f)
{
	struct jump_entry *e = __start___jump_table, *stop = __stop___jump_table;

	while (e < stop) {
		struct static_key *key = jump_entry_key(e);
		struct jump_entry *first = e;
		while (e < stop && jump_entry_key(e) == key)
			e++;
		show_key_name(m, key);
		seq_printf(m, ": %s, enabled %d, %ld site%s\n",
			   static_key_enabled(key) ? "on" : "off", READ_ONCE(key->enabled),
			   (long)(e - first), e - first == 1 ? "" : "s");
		for (struct jump_entry *s = first; s < e; s++)
			seq_printf(m, "  0x%lx %pS len %d %s -> %pS\n", jump_entry_code(s),
				   (void *)jump_entry_code(s),
				   jump_site_info[jump_entry_index(s)] & JUMP_SITE_LEN,
				   site_form(s), (void *)jump_entry_target(s));
	}
	return 0;
}

static int demo_show(struct seq_file *m, struct fnode *f)
{
	seq_printf(m, "%d\n", static_key_enabled(&jump_label_demo_key.key));
	return 0;
}

static int demo_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	unsigned long v;
	int err;

	if (fs_write_ulong(buf, len, 0, 1, &v))
		return -EINVAL;
	err = v ? static_branch_enable(&jump_label_demo_key)
		: static_branch_disable(&jump_label_demo_key);
	if (err)
		return err; /* -EBUSY: the patcher refused (patch_step holds a batch) */
	/* static_key_disable leaves a key others hold (count > 1) on, as Linux's does. */
	return static_key_enabled(&jump_label_demo_key.key) == (v != 0) ? 0 : -EBUSY;
}

static const struct file_ops jump_labels_ops = { .show = jump_labels_show };
static const struct file_ops demo_ops = { .show = demo_show, .write = demo_write };

void jump_label_files_init(void)
{
	fs_create(fs_mkdir_p("/proc"), "jump_labels", &jump_labels_ops, NULL);
	fs_create(fs_mkdir_p("/proc/sys/kernel"), "jump_label_demo", &demo_ops, NULL);
}
