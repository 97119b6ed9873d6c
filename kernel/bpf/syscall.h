/* What the files of bpf(2)'s commands share: the attr's rules, user pointers, fds of objects. */
#ifndef KERNEL_BPF_SYSCALL_H
#define KERNEL_BPF_SYSCALL_H

#include "kernel/bpf/bpf.h"
#include "kernel/syscalls.h"

struct file_operations;

/* Bytes of attr past what a command reads must be zero (Linux's CHECK_ATTR): -EINVAL. */
bool bpf_attr_tail_nonzero(const union bpf_attr *attr, size_t used);
#define offsetofend(T, m) (offsetof(T, m) + sizeof(((T *)0)->m))
#define CHECK_ATTR(attr, last) bpf_attr_tail_nonzero(attr, offsetofend(union bpf_attr, last))

static inline const void __user *u64_to_user_ptr(u64 v)
{
	return (const void __user *)(unsigned long)v;
}

/* A kernel copy of n bytes of user memory (kfree() it), or ERR_PTR(-ENOMEM/-EFAULT). */
void *memdup_user(const void __user *p, size_t n);

/* kernel/bpf/objs.c: a new fd (O_CLOEXEC, flags' access mode) holding obj, the caller's reference
 * given to it. */
int bpf_anon_fd(const struct file_operations *fops, void *obj, unsigned int flags);
/* A new object's id, never one used before, and its place on the list of live ones. */
void bpf_prog_alloc_id(struct bpf_prog *prog);
void bpf_map_alloc_id(struct bpf_map *map);
/* The id commands: cmd is BPF_PROG_GET_NEXT_ID, BPF_MAP_GET_NEXT_ID or BPF_BTF_GET_NEXT_ID. */
int bpf_obj_get_next_id(const union bpf_attr *attr, union bpf_attr __user *uattr, int cmd);
int bpf_prog_get_fd_by_id(const union bpf_attr *attr);
int bpf_map_get_fd_by_id(const union bpf_attr *attr);

/* kernel/bpf/map_syscall.c */
int map_create(union bpf_attr *attr);
int map_elem_cmd(int cmd, union bpf_attr *attr);

#endif
