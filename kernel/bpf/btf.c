/* BPF_BTF_LOAD: a BTF blob checked as Linux checks it, held behind an fd that maps and programs
 * name (Linux's kernel/bpf/btf.c, btf_parse()). */
#include "kernel/bpf/btf.h"
#include "kernel/bpf/btf_format.h"
#include "kernel/bpf/core.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/uaccess.h"
#include "lib/printf.h"
#include "lib/string.h"

static u32 btf_next_id;

static const struct btf_type *btf_type_by_id(const struct btf *btf, u32 id)
{
	return id && id <= btf->nr_types ? btf->types[id] : NULL;
}

/* What a kind adds after its struct btf_type, in bytes. */
static u32 btf_meta_extra(const struct btf_type *t)
{
	u32 vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
	case BTF_KIND_ENUM64:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	default:
		return 0;
	}
}

static bool name_offset_valid(const struct btf *btf, u32 off)
{
	return off < btf->str_len;
}

/* Linux's btf_check_meta(): the struct btf_type and what its kind adds fit, with a known kind,
 * no reserved info bits and names inside the string section. The bytes it takes, or -EINVAL. */
static int btf_check_meta(struct btf_env *env, const struct btf_type *t, u32 meta_left)
{
	const struct btf_member *m = (const void *)(t + 1);
	u32 kind, extra;

	if (meta_left < sizeof(*t)) {
		btf_log(env, "[%u] meta_left:%u meta_needed:%zu\n", env->log_type_id, meta_left,
			sizeof(*t));
		return -EINVAL;
	}
	meta_left -= sizeof(*t);
	if (t->info & ~BTF_INFO_MASK) {
		btf_log(env, "[%u] Invalid btf_info:%x\n", env->log_type_id, t->info);
		return -EINVAL;
	}
	kind = BTF_INFO_KIND(t->info);
	if (kind >= NR_BTF_KINDS || kind == BTF_KIND_UNKN) {
		btf_log(env, "[%u] Invalid kind:%u\n", env->log_type_id, kind);
		return -EINVAL;
	}
	if (!name_offset_valid(env->btf, t->name_off)) {
		btf_log(env, "[%u] Invalid name_offset:%u\n", env->log_type_id, t->name_off);
		return -EINVAL;
	}
	extra = btf_meta_extra(t);
	if (meta_left < extra) {
		char msg[48];
		snprintf(msg, sizeof(msg), "meta_left:%u meta_needed:%u", meta_left, extra);
		btf_log_type(env, t, false, msg);
		return -EINVAL;
	}
	if (kind == BTF_KIND_STRUCT || kind == BTF_KIND_UNION)
		for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++)
			if (!name_offset_valid(env->btf, m[i].name_off)) {
				btf_log_type(env, t, true, "Invalid member name_offset");
				return -EINVAL;
			}
	btf_log_type(env, t, true, NULL);
	btf_log_members(env, t);
	return sizeof(*t) + extra;
}

/* Every type of the section, one after another, indexed by id. */
static int btf_check_all_metas(struct btf_env *env, const u8 *cur, const u8 *end)
{
	struct btf *btf = env->btf;
	u32 cap = 0;

	while (cur < end) {
		const struct btf_type *t = (const void *)cur;
		int n;

		env->log_type_id = btf->nr_types + 1;
		if ((n = btf_check_meta(env, t, end - cur)) < 0)
			return n;
		if (btf->nr_types + 1 > BTF_MAX_TYPE) {
			btf_log(env, "Exceeded max num of types\n");
			return -E2BIG;
		}
		if (btf->nr_types + 1 >= cap) {
			const struct btf_type **grown;
			cap = cap ? cap * 2 : 64;
			if (!(grown = kzalloc(cap * sizeof(*grown))))
				return -ENOMEM;
			if (btf->types)
				memcpy(grown, btf->types, (btf->nr_types + 1) * sizeof(*grown));
			kfree(btf->types);
			btf->types = grown;
		}
		btf->types[++btf->nr_types] = t;
		cur += n;
	}
	return 0;
}

/* One referenced id: void (0) or a type of this blob. */
static int btf_check_ref(struct btf_env *env, const struct btf_type *t, u32 id, const char *what)
{
	if (id <= env->btf->nr_types)
		return 0;
	btf_log_type(env, t, true, what);
	return -EINVAL;
}

/* Linux's btf_check_all_types(), its id checks: every type a type names exists. */
static int btf_check_all_types(struct btf_env *env)
{
	struct btf *btf = env->btf;
	int err = 0;

	for (u32 id = 1; id <= btf->nr_types && !err; id++) {
		const struct btf_type *t = btf->types[id];
		const struct btf_member *m = (const void *)(t + 1);
		const struct btf_param *p = (const void *)(t + 1);
		const struct btf_array *a = (const void *)(t + 1);
		u32 vlen = BTF_INFO_VLEN(t->info);

		env->log_type_id = id;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_PTR:
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
		case BTF_KIND_FUNC:
		case BTF_KIND_VAR:
		case BTF_KIND_DECL_TAG:
			err = btf_check_ref(env, t, t->size_or_type, "Invalid type_id");
			break;
		case BTF_KIND_ARRAY:
			err = btf_check_ref(env, t, a->type, "Invalid elem")
				      ?: btf_check_ref(env, t, a->index_type, "Invalid index");
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			for (u32 i = 0; i < vlen && !err; i++)
				err = btf_check_ref(env, t, m[i].type, "Invalid member");
			break;
		case BTF_KIND_DATASEC:
			for (u32 i = 0; i < vlen && !err; i++)
				err = btf_check_ref(env, t,
						    ((const struct btf_var_secinfo *)m)[i].type,
						    "Invalid type");
			break;
		case BTF_KIND_FUNC_PROTO:
			err = btf_check_ref(env, t, t->size_or_type, "Invalid return type");
			for (u32 i = 0; i < vlen && !err; i++)
				err = btf_check_ref(env, t, p[i].type, "Invalid arg");
			break;
		}
	}
	return err;
}

/* Linux's btf_parse_hdr() and btf_check_sec_info(): the header, then the two sections back to
 * back from the header's end to the blob's, in either order, no gap, no overlap. */
static int btf_parse_hdr(struct btf_env *env)
{
	struct btf *btf = env->btf;
	struct btf_header *hdr = &env->hdr;
	u32 total = 0, expected, first, second;
	struct {
		u32 off, len;
	} sec[2];

	if (btf->data_size < offsetof(struct btf_header, type_off)) {
		btf_log(env, "hdr_len not found\n");
		return -EINVAL;
	}
	memcpy(&hdr->hdr_len, btf->data + offsetof(struct btf_header, hdr_len), 4);
	if (btf->data_size < hdr->hdr_len) {
		btf_log(env, "btf_header not found\n");
		return -EINVAL;
	}
	for (u32 i = sizeof(*hdr); i < hdr->hdr_len; i++)
		if (btf->data[i]) {
			btf_log(env, "Unsupported btf_header\n");
			return -E2BIG;
		}
	memcpy(hdr, btf->data, MIN(hdr->hdr_len, (u32)sizeof(*hdr)));
	btf_log(env, "magic: 0x%x\nversion: %u\nflags: 0x%x\nhdr_len: %u\n", hdr->magic,
		hdr->version, hdr->flags, hdr->hdr_len);
	btf_log(env, "type_off: %u\ntype_len: %u\nstr_off: %u\nstr_len: %u\nbtf_total_size: %u\n",
		hdr->type_off, hdr->type_len, hdr->str_off, hdr->str_len, btf->data_size);
	if (hdr->magic != BTF_MAGIC) {
		btf_log(env, "Invalid magic\n");
		return -EINVAL;
	}
	if (hdr->version != BTF_VERSION) {
		btf_log(env, "Unsupported version\n");
		return -ENOTSUPP;
	}
	if (hdr->flags) {
		btf_log(env, "Unsupported flags\n");
		return -ENOTSUPP;
	}
	if (btf->data_size == hdr->hdr_len) {
		btf_log(env, "No data\n");
		return -EINVAL;
	}
	expected = btf->data_size - hdr->hdr_len;
	first = hdr->str_off < hdr->type_off;
	second = !first;
	sec[0].off = first ? hdr->str_off : hdr->type_off;
	sec[0].len = first ? hdr->str_len : hdr->type_len;
	sec[1].off = second ? hdr->str_off : hdr->type_off;
	sec[1].len = second ? hdr->str_len : hdr->type_len;
	for (int i = 0; i < 2; i++) {
		if (sec[i].off < total) {
			btf_log(env, "Invalid section offset\n");
			return -EINVAL;
		}
		if (total < sec[i].off) {
			btf_log(env, "Unsupported section found\n");
			return -EINVAL;
		}
		if (expected - total < sec[i].len) {
			btf_log(env, "Total section length too long\n");
			return -EINVAL;
		}
		total += sec[i].len;
	}
	if (expected != total) {
		btf_log(env, "Unsupported section found\n");
		return -EINVAL;
	}
	return 0;
}

/* Linux's btf_parse_str_sec(): last in the blob, "\0" first, NUL-terminated. */
static int btf_parse_str_sec(struct btf_env *env)
{
	struct btf *btf = env->btf;
	const struct btf_header *hdr = &env->hdr;
	const char *start = (const char *)btf->data + hdr->hdr_len + hdr->str_off;

	if (start + hdr->str_len != (const char *)btf->data + btf->data_size) {
		btf_log(env, "String section is not at the end\n");
		return -EINVAL;
	}
	if (!hdr->str_len || hdr->str_len - 1 > BTF_MAX_NAME_OFFSET || start[hdr->str_len - 1] ||
	    start[0]) {
		btf_log(env, "Invalid string section\n");
		return -EINVAL;
	}
	btf->strings = start;
	btf->str_len = hdr->str_len;
	return 0;
}

static int btf_parse_type_sec(struct btf_env *env)
{
	const struct btf_header *hdr = &env->hdr;
	const u8 *start = env->btf->data + hdr->hdr_len + hdr->type_off;
	int err;

	if (hdr->type_off & 3) {
		btf_log(env, "Unaligned type_off\n");
		return -EINVAL;
	}
	if (!hdr->type_len) {
		btf_log(env, "No type found\n");
		return -EINVAL;
	}
	if ((err = btf_check_all_metas(env, start, start + hdr->type_len)))
		return err;
	return btf_check_all_types(env);
}

void btf_put(struct btf *btf)
{
	if (btf && !__atomic_sub_fetch(&btf->refcnt, 1, __ATOMIC_ACQ_REL)) {
		kfree(btf->types);
		kfree(btf->data);
		kfree(btf);
	}
}

static void btf_release(struct file *f)
{
	btf_put(f->private_data);
	f->private_data = NULL;
}

static const struct file_operations btf_fops = { .release = btf_release, .mode = 0600 };

struct btf *btf_get_by_fd(int fd)
{
	struct file *f = fd < 0 ? NULL : fget(fd);

	if (!f)
		return ERR_PTR(-EBADF);
	if (f->f_op != &btf_fops)
		return ERR_PTR(-EINVAL);
	return f->private_data;
}

/* The size of a value of type id (modifiers and typedefs followed), or 0 for none: void, a
 * function, a forward declaration. */
u32 btf_type_id_size(const struct btf *btf, u32 id)
{
	for (int depth = 0; depth < BTF_TYPE_DEPTH; depth++) {
		const struct btf_type *t = btf_type_by_id(btf, id);
		const struct btf_array *a = t ? (const void *)(t + 1) : NULL;
		u32 elem;

		if (!t)
			return 0;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_INT:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_FLOAT:
		case BTF_KIND_DATASEC:
			return t->size_or_type;
		case BTF_KIND_PTR:
			return sizeof(void *);
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->size_or_type;
			break;
		case BTF_KIND_ARRAY:
			elem = btf_type_id_size(btf, a->type);
			return a->nelems && elem > ~0U / a->nelems ? 0 : elem * a->nelems;
		default:
			return 0;
		}
	}
	return 0; /* a loop of modifiers */
}

static int btf_copy_log(struct bpf_verifier_log *log, u64 ubuf)
{
	void __user *to = (void __user *)(unsigned long)ubuf;

	if (log->level && copy_to_user(to, log->buf, MIN(log->len + 1, log->size)))
		return -EFAULT;
	return log->truncated ? -ENOSPC : 0;
}

/* Linux's btf_new_fd(): the blob copied in, checked, and an fd holding it. */
int btf_new_fd(const union bpf_attr *attr)
{
	struct bpf_verifier_log log = { .level = attr->btf_log_level, .size = attr->btf_log_size };
	struct btf_env env = { .log = &log };
	struct btf *btf;
	struct file *f;
	int err, fd;

	if (attr->btf_size > BTF_MAX_SIZE)
		return -E2BIG;
	if ((attr->btf_log_buf || attr->btf_log_size || attr->btf_log_level) &&
	    (!attr->btf_log_buf || attr->btf_log_size < 128 || !attr->btf_log_level ||
	     attr->btf_log_size > (~0U >> 2)))
		return -EINVAL;
	if (!(btf = kzalloc(sizeof(*btf))))
		return -ENOMEM;
	btf->refcnt = 1;
	btf->data_size = attr->btf_size;
	err = -ENOMEM;
	if (!(btf->data = kmalloc(attr->btf_size + 1)))
		goto out;
	log.size = MIN(log.size, 1U << 20); /* a kernel copy, handed back at the end */
	if (log.level && !(log.buf = kzalloc(log.size)))
		goto out;
	err = -EFAULT;
	if (copy_from_user(btf->data, (const void __user *)(unsigned long)attr->btf,
			   attr->btf_size))
		goto out;
	env.btf = btf;
	err = btf_parse_hdr(&env) ?: btf_parse_str_sec(&env) ?: btf_parse_type_sec(&env);
	if (log.level) {
		int lerr = btf_copy_log(&log, attr->btf_log_buf);
		err = err ?: lerr;
	}
	if (err)
		goto out;
	btf->id = __atomic_add_fetch(&btf_next_id, 1, __ATOMIC_RELAXED);
	err = -ENOMEM;
	if (!(f = alloc_file(&btf_fops, O_RDWR)))
		goto out;
	f->private_data = btf;
	fd = fd_install_from(f, 0, true);
	if (fd >= 0) { /* the fd's file owns btf now */
		fput(f);
		kfree(log.buf);
		return fd;
	}
	f->private_data = NULL;
	fput(f);
	err = fd;
out:
	kfree(log.buf);
	btf_put(btf);
	return err;
}

/* BPF_OBJ_GET_INFO_BY_FD of a BTF fd (Linux's btf_get_info_by_fd()): the id, the whole size,
 * and as much of the blob as info->btf_size has room for, into info->btf. */
int btf_get_info_by_fd(const struct btf *btf, struct bpf_btf_info *info)
{
	void __user *to = (void __user *)(unsigned long)info->btf;

	if (to && copy_to_user(to, btf->data, MIN(info->btf_size, btf->data_size)))
		return -EFAULT;
	info->id = btf->id;
	info->btf_size = btf->data_size;
	return 0;
}
