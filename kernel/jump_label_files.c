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
#include "kernel/fs/tracefs.h"
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

/* What the site holds now: "nop" or "jmp" (an irqflags site: "cli" or "sti", and "call"), "bad"
 * (reported, left alone) or "???" (neither form). */
static const char *site_form(const struct jump_entry *e)
{
	u8 info = jump_site_info[jump_entry_index(e)], insn[5];
	int len = info & JUMP_SITE_LEN;
	const void *code = (const void *)jump_entry_code(e);

	if (info & JUMP_SITE_BAD)
		return "bad";
	for (int taken = 0; taken < 2; taken++)
		if (!jump_site_insn(e, info & JUMP_SITE_SHAPE, taken, insn) &&
		    !memcmp(code, insn, len))
			return jump_site_form_name(info, taken);
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

/* data: the struct static_key the file flips. */
static unsigned long demo_get(void *data)
{
	return static_key_enabled(data);
}

static int demo_set(void *data, unsigned long v)
{
	int err = v ? static_key_enable(data) : static_key_disable(data);

	if (err)
		return err; /* -EBUSY: the patcher refused (patch_step holds a batch) */
	/* static_key_disable leaves a key others hold (count > 1) on, as Linux's does. */
	return static_key_enabled(data) == (v != 0) ? 0 : -EBUSY;
}

static const struct tracefs_ulong demo = {
	.max = 1, .get = demo_get, .set = demo_set, .data = &jump_label_demo_key.key
};
static const struct tracefs_file jump_label_files[] = {
	TRACEFS_FILE("/proc/jump_labels", jump_labels_show, NULL),
	TRACEFS_ULONG("/proc/sys/kernel/jump_label_demo", &demo),
};

void jump_label_files_init(void)
{
	tracefs_create_files(NULL, jump_label_files, ARRAY_SIZE(jump_label_files));
}
