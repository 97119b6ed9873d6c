/* The kernel's BTF (kernel/bpf/btf_vmlinux.c) against what the compiler says of the same structs. */
#include "kernel/bpf/btf.h"
#include "kernel/bpf/btf_format.h"
#include "kernel/fs/file.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "lib/string.h"

/* Member name of struct `type` lies at byte off, as offsetof() says. */
static void expect_member(struct ktest *t, const char *type, const char *name, u32 off)
{
	s32 id = btf_find_by_name_kind(btf_vmlinux, type, BTF_KIND_STRUCT);
	const struct btf_member *m;

	if (id < 0) {
		ktest_fail(t, __FILE__, __LINE__, "struct %s not in vmlinux BTF", type);
		return;
	}
	m = btf_member_by_name(btf_vmlinux, btf_vmlinux->types[id], name);
	if (!m || m->offset != off * 8)
		ktest_fail(t, __FILE__, __LINE__,
			   "struct %s.%s: BTF bit offset %d, offsetof %u * 8", type, name,
			   m ? (int)m->offset : -1, off);
}

SELFTEST(btf_vmlinux_matches_the_compiler)
{
	const struct btf_header *hdr;
	s32 id;

	KT_ASSERT(t, btf_vmlinux);
	hdr = (const void *)btf_vmlinux->data;
	KT_EXPECT_EQ(t, hdr->magic, 0xeb9f);
	KT_EXPECT_EQ(t, hdr->version, 1);
	KT_EXPECT_EQ(t, btf_vmlinux->id, 1);
	KT_EXPECT(t, btf_vmlinux->kernel_btf);
	id = btf_find_by_name_kind(btf_vmlinux, "task", BTF_KIND_STRUCT);
	KT_ASSERT(t, id > 0);
	KT_EXPECT_EQ(t, btf_vmlinux->types[id]->size_or_type, sizeof(struct task));
	expect_member(t, "task", "pid", offsetof(struct task, pid));
	expect_member(t, "task", "comm", offsetof(struct task, comm));
	expect_member(t, "task", "state", offsetof(struct task, state));
	expect_member(t, "task", "cpu", offsetof(struct task, cpu));
	expect_member(t, "file", "f_pos", offsetof(struct file, f_pos));
	KT_EXPECT_EQ(t, btf_find_by_name_kind(btf_vmlinux, "no_such_struct", BTF_KIND_STRUCT),
		     -ENOENT);
}
