/* A BTF blob checked as Linux's btf_parse() checks it: the header, the sections, the strings, each
 * type's meta and the ids it names; pure, so the host fuzzes it too (tests/fuzz/fuzz_btf.c). */
#include "kernel/bpf/btf_format.h"
#include "kernel/mm/mm.h"
#include "lib/printf.h"
#include "lib/string.h"

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
	if (kind == BTF_KIND_ENUM)
		for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++)
			if (!name_offset_valid(env->btf,
					       ((const struct btf_param *)m)[i].name_off)) {
				btf_log(env, "\tInvalid name_offset:%u\n",
					((const struct btf_param *)m)[i].name_off);
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

/* Walks what type id is made of by value (a modifier's or typedef's type, an array's elements, a
 * struct's members; a pointer ends the walk): reaching a type still on the walk is a type made of
 * itself, which has no size (Linux's resolve: "Loop detected"). state: 1 on the walk, 2 done. */
static int btf_visit(struct btf_env *env, u8 *state, u32 id, int depth)
{
	const struct btf_type *t = btf_type_by_id(env->btf, id);
	const struct btf_member *m = t ? (const void *)(t + 1) : NULL;
	int err = 0;

	if (!t || state[id] == 2)
		return 0;
	env->log_type_id = id;
	if (state[id] == 1) {
		btf_log_type(env, t, true, "Loop detected");
		return -EINVAL;
	}
	if (depth >= BTF_TYPE_DEPTH) {
		btf_log_type(env, t, true, "Exceeded max resolving depth");
		return -E2BIG;
	}
	state[id] = 1;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		err = btf_visit(env, state, t->size_or_type, depth + 1);
		break;
	case BTF_KIND_ARRAY:
		err = btf_visit(env, state, ((const struct btf_array *)m)->type, depth + 1);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (u32 i = 0; i < BTF_INFO_VLEN(t->info) && !err; i++)
			err = btf_visit(env, state, m[i].type, depth + 1);
		break;
	}
	state[id] = 2;
	return err;
}

static int btf_check_loops(struct btf_env *env)
{
	u8 *state = kzalloc(env->btf->nr_types + 1);
	int err = 0;

	if (!state)
		return -ENOMEM;
	for (u32 id = 1; id <= env->btf->nr_types && !err; id++)
		err = btf_visit(env, state, id, 0);
	kfree(state);
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
	return btf_check_all_types(env) ?: btf_check_loops(env);
}

int btf_parse(struct btf *btf, struct bpf_verifier_log *log)
{
	struct btf_env env = { .btf = btf, .log = log };

	return btf_parse_hdr(&env) ?: btf_parse_str_sec(&env) ?: btf_parse_type_sec(&env);
}

/* depth counts every modifier and array followed, so a loop through arrays (which the load does
 * not refuse, as Linux's resolve does) ends too: an array of itself has no size. */
static u32 type_size(const struct btf *btf, u32 id, int depth)
{
	for (; depth < BTF_TYPE_DEPTH; depth++) {
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
			elem = type_size(btf, a->type, depth + 1);
			return a->nelems && elem > ~0U / a->nelems ? 0 : elem * a->nelems;
		default:
			return 0;
		}
	}
	return 0; /* a loop of modifiers */
}

/* The size of a value of type id (modifiers and typedefs followed), or 0 for none: void, a
 * function, a forward declaration, a loop. */
u32 btf_type_id_size(const struct btf *btf, u32 id)
{
	return type_size(btf, id, 0);
}
