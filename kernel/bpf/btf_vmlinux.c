/* The kernel's own BTF: the .BTF section pahole made from our DWARF at build time (Makefile), checked
 * at boot by the parser a loaded blob goes through, published as BTF id 1 and shown raw at
 * /sys/kernel/btf/vmlinux (Linux's btf_parse_vmlinux() and kernel/bpf/sysfs_btf.c). */
#include "kernel/bpf/btf.h"
#include "kernel/bpf/btf_format.h"
#include "kernel/fs/tracefs.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "lib/string.h"

/* Between these two, the raw blob (linker.ld): read-only, like the rest of .rodata. */
extern const u8 __start_BTF[], __stop_BTF[];

struct btf *btf_vmlinux;

/* Linux's btf_vmlinux_read(): the bytes as they are, a read at any offset (open.c renders them). */
static int btf_vmlinux_show(struct seq_file *m, struct fnode *f)
{
	seq_write(m, (const char *)btf_vmlinux->data, btf_vmlinux->data_size);
	return 0;
}

/* Linux's btf_find_by_name_kind(): the id of the first type of that kind and name, or -ENOENT. */
s32 btf_find_by_name_kind(const struct btf *btf, const char *name, u8 kind)
{
	for (u32 id = 1; id <= btf->nr_types; id++) {
		const struct btf_type *t = btf->types[id];

		if (BTF_INFO_KIND(t->info) == kind && !strcmp(btf->strings + t->name_off, name))
			return id;
	}
	return -ENOENT;
}

/* A STRUCT's or UNION's member by name, or NULL; its offset is in bits (no bitfield flag here). */
const struct btf_member *btf_member_by_name(const struct btf *btf, const struct btf_type *t,
					    const char *name)
{
	const struct btf_member *m = (const void *)(t + 1);

	for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++)
		if (!strcmp(btf->strings + m[i].name_off, name))
			return &m[i];
	return NULL;
}

static s64 btf_vmlinux_size(const struct fnode *f)
{
	return btf_vmlinux->data_size;
}

static const struct tracefs_file btf_vmlinux_files[] = {
	{ .name = "/sys/kernel/btf/vmlinux",
	  .fops = { .show = btf_vmlinux_show, .binary = true, .size = btf_vmlinux_size } },
};

/*
 * Linux's btf_parse_vmlinux(): the blob stays where the linker put it (data points into .rodata;
 * the parser only reads), and its one reference is never dropped, so btf_put() never frees it.
 * Called before anything can load a BTF, so btf_publish() gives it id 1, as Linux's vmlinux has.
 */
void btf_vmlinux_init(void)
{
	struct bpf_verifier_log log = { .level = 0 };
	struct btf *btf;
	int err;

	if (!(btf = kzalloc(sizeof(*btf)))) {
		pr_err("btf: no memory for vmlinux BTF\n");
		return;
	}
	btf->refcnt = 1;
	btf->kernel_btf = true;
	btf->data = (u8 *)__start_BTF;
	btf->data_size = __stop_BTF - __start_BTF;
	if ((err = btf_parse(btf, &log))) {
		pr_err("btf: vmlinux BTF (%u bytes) refused by the parser: %d\n", btf->data_size,
		       err);
		kfree(btf->types);
		kfree(btf);
		return;
	}
	btf_publish(btf);
	btf_vmlinux = btf;
	if (tracefs_create_files(NULL, btf_vmlinux_files, ARRAY_SIZE(btf_vmlinux_files)))
		pr_err("btf: cannot make /sys/kernel/btf/vmlinux\n"); /* silent otherwise, as Linux */
}
