/* BTF's load log: each type as Linux's BTF verifier writes it, "[3] STRUCT s size=16 vlen=2"
 * and its members below (Linux's kernel/bpf/btf.c, the log_details of each kind). */
#include "kernel/bpf/btf_format.h"

static const char *const kind_str[NR_BTF_KINDS] = {
	"UNKNOWN", "INT",     "PTR",	  "ARRAY",    "STRUCT",	  "UNION",  "ENUM",
	"FWD",	   "TYPEDEF", "VOLATILE", "CONST",    "RESTRICT", "FUNC",   "FUNC_PROTO",
	"VAR",	   "DATASEC", "FLOAT",	  "DECL_TAG", "TYPE_TAG", "ENUM64",
};

void btf_log(struct btf_env *env, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bpf_verifier_vlog(env->log, fmt, ap);
	va_end(ap);
}

const char *btf_name(const struct btf *btf, u32 off)
{
	if (!off)
		return "(anon)";
	return off < btf->str_len ? btf->strings + off : "(invalid-name-offset)";
}

static const char *int_encoding_str(u32 enc)
{
	switch (enc) {
	case 0:
		return "(none)";
	case 1:
		return "SIGNED";
	case 2:
		return "CHAR";
	case 4:
		return "BOOL";
	default:
		return "UNKN";
	}
}

/* A FUNC_PROTO's "return=R args=(T name, ...)", a trailing type 0 being "vararg". */
static void btf_log_func_proto(struct btf_env *env, const struct btf_type *t)
{
	const struct btf_param *p = (const void *)(t + 1);
	u32 n = BTF_INFO_VLEN(t->info);

	btf_log(env, "return=%u args=(", t->size_or_type);
	if (!n)
		btf_log(env, "void");
	for (u32 i = 0; i < n; i++) {
		const char *sep = i ? ", " : "";
		if (i == n - 1 && !p[i].type)
			btf_log(env, "%svararg", sep);
		else
			btf_log(env, "%s%u %s", sep, p[i].type, btf_name(env->btf, p[i].name_off));
	}
	btf_log(env, ")");
}

/* What each kind's log_details writes after the name. */
static void btf_log_details(struct btf_env *env, const struct btf_type *t)
{
	const u32 *extra = (const u32 *)(t + 1);
	const struct btf_array *a = (const void *)(t + 1);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		btf_log(env, "size=%u bits_offset=%u nr_bits=%u encoding=%s", t->size_or_type,
			(extra[0] >> 16) & 0xff, extra[0] & 0xff,
			int_encoding_str((extra[0] >> 24) & 0xf));
		break;
	case BTF_KIND_ARRAY:
		btf_log(env, "type_id=%u index_type_id=%u nr_elems=%u", a->type, a->index_type,
			a->nelems);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_DATASEC:
		btf_log(env, "size=%u vlen=%u", t->size_or_type, BTF_INFO_VLEN(t->info));
		break;
	case BTF_KIND_FLOAT:
		btf_log(env, "size=%u", t->size_or_type);
		break;
	case BTF_KIND_FWD:
		btf_log(env, "%s", t->info >> 31 ? "union" : "struct");
		break;
	case BTF_KIND_VAR:
		btf_log(env, "type_id=%u linkage=%u", t->size_or_type, extra[0]);
		break;
	case BTF_KIND_DECL_TAG:
		btf_log(env, "type=%u component_idx=%d", t->size_or_type, (int)extra[0]);
		break;
	case BTF_KIND_FUNC_PROTO:
		btf_log_func_proto(env, t);
		break;
	default: /* PTR, TYPEDEF, the modifiers, FUNC, TYPE_TAG */
		btf_log(env, "type_id=%u", t->size_or_type);
	}
}

void btf_log_type(struct btf_env *env, const struct btf_type *t, bool details, const char *msg)
{
	btf_log(env, "[%u] %s %s%s", env->log_type_id, kind_str[BTF_INFO_KIND(t->info)],
		btf_name(env->btf, t->name_off), details ? " " : "");
	if (details)
		btf_log_details(env, t);
	btf_log(env, "%s%s\n", msg ? " " : "", msg ? msg : "");
}

void btf_log_members(struct btf_env *env, const struct btf_type *t)
{
	const struct btf_member *m = (const void *)(t + 1);
	const struct btf_param *e = (const void *)(t + 1);
	const struct btf_var_secinfo *v = (const void *)(t + 1);

	for (u32 i = 0; i < BTF_INFO_VLEN(t->info); i++) {
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			if (t->info >> 31) /* kind_flag: bitfield size in the offset's top byte */
				btf_log(env, "\t%s type_id=%u bitfield_size=%u bits_offset=%u\n",
					btf_name(env->btf, m[i].name_off), m[i].type,
					m[i].offset >> 24, m[i].offset & 0xffffff);
			else
				btf_log(env, "\t%s type_id=%u bits_offset=%u\n",
					btf_name(env->btf, m[i].name_off), m[i].type, m[i].offset);
			break;
		case BTF_KIND_ENUM:
			btf_log(env, "\t%s val=%d\n", btf_name(env->btf, e[i].name_off),
				(int)e[i].type);
			break;
		case BTF_KIND_DATASEC:
			btf_log(env, "\t type_id=%u offset=%u size=%u\n", v[i].type, v[i].offset,
				v[i].size);
			break;
		}
	}
}
