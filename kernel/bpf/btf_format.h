/* BTF's format, as clang, pahole and libbpf write it, and what btf.c and btf_log.c share while
 * they check a blob (Linux's include/uapi/linux/btf.h and the verifier env of kernel/bpf/btf.c). */
#ifndef KERNEL_BPF_BTF_FORMAT_H
#define KERNEL_BPF_BTF_FORMAT_H

#include "kernel/bpf/btf.h"
#include "kernel/bpf/core.h"

/*
 * The blob, as clang and pahole write it and libbpf loads it:
 *
 *   struct btf_header { magic 0xeB9F, version 1, flags 0, hdr_len,
 *                       type_off, type_len, str_off, str_len }   offsets from the header's end
 *   type section   struct btf_type { name_off, info, size/type } and what its kind adds after it
 *                  (an INT's encoding, an ARRAY, a STRUCT's members...); type ids count from 1
 *   string section "\0name\0name\0": name_off is an offset in it, 0 the empty name
 *
 * info: vlen in bits 0-15, kind in bits 24-28, kind_flag in bit 31.
 */
#define BTF_MAGIC 0xeB9F
#define BTF_VERSION 1
#define BTF_MAX_SIZE (16 * 1024 * 1024)
#define BTF_MAX_NAME_OFFSET 0xffffff
#define BTF_MAX_TYPE 0xfffff
#define BTF_INFO_MASK 0x9f00ffff
#define BTF_INFO_KIND(info) (((info) >> 24) & 0x1f)
#define BTF_INFO_VLEN(info) ((info)&0xffff)
#define BTF_TYPE_DEPTH 32 /* modifiers followed for a size, at most (Linux: MAX_RESOLVE_DEPTH) */

enum {
	BTF_KIND_UNKN,
	BTF_KIND_INT,
	BTF_KIND_PTR,
	BTF_KIND_ARRAY,
	BTF_KIND_STRUCT,
	BTF_KIND_UNION,
	BTF_KIND_ENUM,
	BTF_KIND_FWD,
	BTF_KIND_TYPEDEF,
	BTF_KIND_VOLATILE,
	BTF_KIND_CONST,
	BTF_KIND_RESTRICT,
	BTF_KIND_FUNC,
	BTF_KIND_FUNC_PROTO,
	BTF_KIND_VAR,
	BTF_KIND_DATASEC,
	BTF_KIND_FLOAT,
	BTF_KIND_DECL_TAG,
	BTF_KIND_TYPE_TAG,
	BTF_KIND_ENUM64,
	NR_BTF_KINDS,
};

struct btf_header {
	u16 magic;
	u8 version, flags;
	u32 hdr_len, type_off, type_len, str_off, str_len;
};

struct btf_type {
	u32 name_off, info;
	u32 size_or_type;
};

struct btf_array {
	u32 type, index_type, nelems;
};

struct btf_member { /* a STRUCT's or UNION's */
	u32 name_off, type, offset;
};

struct btf_var_secinfo { /* a DATASEC's: a VAR and where it lies in the section */
	u32 type, offset, size;
};

struct btf_param { /* a FUNC_PROTO's; an ENUM's btf_enum has the same size */
	u32 name_off, type;
};

struct btf_env {
	struct btf *btf;
	struct bpf_verifier_log *log;
	struct btf_header hdr;
	u32 log_type_id;
};

/* kernel/bpf/btf_parse.c: btf->data and data_size checked, types and strings filled in; 0, or
 * -errno with the reason in log. The caller frees btf->types either way. */
int btf_parse(struct btf *btf, struct bpf_verifier_log *log);
/* kernel/bpf/btf_vmlinux.c: a type's id by kind and name (-ENOENT), a member by name (NULL). */
s32 btf_find_by_name_kind(const struct btf *btf, const char *name, u8 kind);
const struct btf_member *btf_member_by_name(const struct btf *btf, const struct btf_type *t,
					    const char *name);

/* kernel/bpf/btf_log.c: the check's log, in Linux's words and shapes. */
void btf_log(struct btf_env *env, const char *fmt, ...) __printf(2, 3);
const char *btf_name(const struct btf *btf, u32 off); /* "(anon)" for 0, as Linux says one past */
/* "[id] KIND name", the kind's details if asked, and msg if any (__btf_verifier_log_type()). */
void btf_log_type(struct btf_env *env, const struct btf_type *t, bool details, const char *msg);
/* The members of a STRUCT or UNION, the values of an ENUM, the variables of a DATASEC. */
void btf_log_members(struct btf_env *env, const struct btf_type *t);

#endif
