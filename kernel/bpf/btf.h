/* BTF objects: what BPF_BTF_LOAD makes and maps and programs name by fd (kernel/bpf/btf.c). */
#ifndef KERNEL_BPF_BTF_H
#define KERNEL_BPF_BTF_H

#include "kernel/bpf/bpf.h"

struct btf_type;

/* A checked blob; types[1..nr_types] point into data, strings too. */
struct btf {
	u8 *data;
	u32 data_size;
	const struct btf_type **types;
	u32 nr_types;
	const char *strings;
	u32 str_len;
	u32 id;
	bool kernel_btf;  /* vmlinux's (btf_vmlinux.c): named "vmlinux", never freed */
	int refcnt;	  /* each fd's file */
	struct btf *next; /* every live BTF, for its id (Linux's btf_idr) */
};

/* BPF_BTF_LOAD: a new fd, or -errno with the reason in the attr's log. */
int btf_new_fd(const union bpf_attr *attr);
/* The BTF behind fd with a reference the caller btf_put()s (a thread may close the fd
 * meanwhile), or ERR_PTR(-EBADF/-EINVAL). */
struct btf *btf_get_by_fd(int fd);
void btf_put(struct btf *btf);
/* BPF_BTF_GET_FD_BY_ID: a new fd on the live BTF of that id, or -ENOENT. */
int btf_get_fd_by_id(u32 id);
/* The smallest live BTF id above id, or 0 (BPF_BTF_GET_NEXT_ID). */
u32 btf_next_id_after(u32 id);
/* The size of a value of type id, 0 for void or a type without one. */
u32 btf_type_id_size(const struct btf *btf, u32 id);
int btf_get_info_by_fd(const struct btf *btf, struct bpf_btf_info *info);
/* An id, and on the list where BPF_BTF_GET_FD_BY_ID finds it. */
void btf_publish(struct btf *btf);
/* The kernel's own BTF (btf_vmlinux.c), or NULL if the parser refused it. */
extern struct btf *btf_vmlinux;
void btf_vmlinux_init(void);

#endif
