/* BPF_PROG_TYPE_TRACING at load time: the function attach_btf_id names in the kernel's BTF, and
 * the context the verifier lets an fentry/fexit program read (Linux's bpf_check_attach_target(),
 * btf_distill_func_proto() and btf_ctx_access()). */
#include "kernel/bpf/btf.h"
#include "kernel/bpf/btf_format.h"
#include "kernel/bpf/trampoline.h"
#include "kernel/bpf/verifier.h"
#include "kernel/kallsyms.h"
#include "lib/string.h"

static void attach_log(struct bpf_verifier_log *log, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bpf_verifier_vlog(log, fmt, ap);
	va_end(ap);
}

/* Modifiers and typedefs followed: what a value of type id really is (NULL for void). */
static const struct btf_type *btf_resolve(const struct btf *btf, u32 id)
{
	for (int depth = 0; id && id <= btf->nr_types && depth < BTF_TYPE_DEPTH; depth++) {
		const struct btf_type *t = btf->types[id];

		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->size_or_type;
			break;
		default:
			return t;
		}
	}
	return NULL;
}

/* What fits a u64 slot: an integer, an enum or a pointer of at most 8 bytes (Linux 6.1 takes no
 * struct by value on x86's trampoline either). */
static bool btf_type_is_scalar_slot(const struct btf *btf, u32 id)
{
	const struct btf_type *t = btf_resolve(btf, id);
	u8 kind = t ? BTF_INFO_KIND(t->info) : BTF_KIND_UNKN;

	if (kind == BTF_KIND_PTR)
		return true;
	return (kind == BTF_KIND_INT || kind == BTF_KIND_ENUM || kind == BTF_KIND_ENUM64) &&
	       t->size_or_type <= 8;
}

/* Linux's btf_distill_func_proto(): the argument count, every argument and the return value a
 * slot's worth. */
static int distill_func_proto(struct bpf_prog *prog, const struct btf_type *proto,
			      const char *tname, u32 skip, struct bpf_verifier_log *log)
{
	const struct btf *btf = btf_vmlinux;
	const struct btf_param *p = (const void *)(proto + 1);
	u32 nargs = BTF_INFO_VLEN(proto->info);

	if (nargs < skip)
		return -EINVAL;
	p += skip;
	nargs -= skip;

	if (nargs > MAX_BPF_FUNC_ARGS) {
		attach_log(log, "The function %s has %u arguments. Too many.\n", tname, nargs);
		return -EINVAL;
	}
	if (proto->size_or_type && !btf_type_is_scalar_slot(btf, proto->size_or_type)) {
		attach_log(log, "The function %s return type is unsupported.\n", tname);
		return -EINVAL;
	}
	for (u32 i = 0; i < nargs; i++) {
		if (!p[i].type) {
			attach_log(log, "The function %s with variable args is unsupported.\n",
				   tname);
			return -EINVAL;
		}
		if (!btf_type_is_scalar_slot(btf, p[i].type)) {
			attach_log(log, "The function %s arg%u type is unsupported.\n", tname, i);
			return -EINVAL;
		}
	}
	prog->attach_nr_args = nargs;
	return 0;
}

/* tp_btf: the typedef btf_trace_<tracepoint>, a pointer to the probe's prototype, whose first
 * argument (the probe's data) the program does not see (Linux's bpf_check_attach_target()). */
static int check_tp_btf(struct bpf_prog *prog, u32 id, const char *tname,
			struct bpf_verifier_log *log)
{
	const struct btf *btf = btf_vmlinux;
	const struct btf_type *t = btf->types[id], *ptr;
	const char *prefix = "btf_trace_";
	int err;

	if (BTF_INFO_KIND(t->info) != BTF_KIND_TYPEDEF) {
		attach_log(log, "attach_btf_id %u is not a typedef\n", id);
		return -EINVAL;
	}
	if (strncmp(tname, prefix, strlen(prefix))) {
		attach_log(log, "attach_btf_id %u points to wrong type name %s\n", id, tname);
		return -EINVAL;
	}
	ptr = btf_resolve(btf, t->size_or_type);
	if (!ptr || BTF_INFO_KIND(ptr->info) != BTF_KIND_PTR || !ptr->size_or_type ||
	    BTF_INFO_KIND(btf->types[ptr->size_or_type]->info) != BTF_KIND_FUNC_PROTO)
		return -EINVAL;
	tname += strlen(prefix);
	err = distill_func_proto(prog, btf->types[ptr->size_or_type], tname, 1, log);
	if (err)
		return err;
	if (prog->attach_nr_args > 5) { /* what bpf_trace.c's __bpf_trace_run() passes on */
		attach_log(log, "tracepoint %s has more than 5 arguments\n", tname);
		return -EINVAL;
	}
	prog->attach_btf_id = id;
	prog->attach_func_name = tname;
	return 0;
}

int bpf_check_attach_target(struct bpf_prog *prog, const union bpf_attr *attr,
			    struct bpf_verifier_log *log)
{
	const struct btf *btf = btf_vmlinux;
	u32 id = attr->attach_btf_id;
	const struct btf_type *t;
	const char *tname;
	unsigned long addr;
	int err;

	if (attr->expected_attach_type != BPF_TRACE_FENTRY &&
	    attr->expected_attach_type != BPF_TRACE_FEXIT &&
	    attr->expected_attach_type != BPF_TRACE_RAW_TP)
		return -EINVAL;	    /* fmod_ret, iter: not built here */
	if (attr->attach_prog_fd) { /* a module's BTF or another program: neither exists here */
		struct btf *obj = btf_get_by_fd(attr->attach_prog_fd);

		if (IS_ERR(obj))
			return PTR_ERR(obj);
		err = obj == btf_vmlinux ? 0 : -EINVAL;
		btf_put(obj);
		if (err)
			return err;
	}
	if (!id) {
		attach_log(log, "Tracing programs must provide btf_id\n");
		return -EINVAL;
	}
	if (!btf || id > btf->nr_types) {
		attach_log(log, "attach_btf_id %u is invalid\n", id);
		return -EINVAL;
	}
	t = btf->types[id];
	tname = btf->strings + t->name_off;
	if (attr->expected_attach_type == BPF_TRACE_RAW_TP)
		return check_tp_btf(prog, id, tname, log);
	if (BTF_INFO_KIND(t->info) != BTF_KIND_FUNC) {
		attach_log(log, "attach_btf_id %u is not a function\n", id);
		return -EINVAL;
	}
	err = distill_func_proto(prog, btf->types[t->size_or_type], tname, 0, log);
	if (err)
		return err;
	addr = kallsyms_lookup_name(tname);
	if (!addr) {
		attach_log(log, "The address of function %s cannot be found\n", tname);
		return -ENOENT;
	}
	prog->attach_btf_id = id;
	prog->attach_func_addr = addr;
	prog->attach_func_name = tname;
	return 0;
}

/* Loads only, of u64 slots or parts of them at their own alignment: args[0..nr-1], and for fexit
 * the return value after them. The value is a scalar: a pointer argument is read with
 * bpf_probe_read_kernel(), not dereferenced (Linux types it as PTR_TO_BTF_ID). */
int bpf_tracing_ctx_access(struct bpf_verifier_env *env, int off, int size, bool write)
{
	const struct bpf_prog *prog = env->prog;
	int arg = off / 8, slots = prog->attach_nr_args;

	if (prog->expected_attach_type == BPF_TRACE_FEXIT)
		slots++;
	if (write || off < 0 || off % size || off + size > 8 * (arg + 1))
		goto refuse;
	if (arg >= slots) {
		verbose(env, "func '%s' doesn't have %d-th argument\n", prog->attach_func_name,
			arg + 1);
		goto refuse;
	}
	return 0;
refuse:
	verbose(env, "invalid bpf_context access off=%d size=%d\n", off, size);
	return -EACCES;
}
