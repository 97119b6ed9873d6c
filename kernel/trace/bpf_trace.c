/* What tracing programs may call and read: the *_func_proto sets, bpf_trace_printk(), the
 * probe_read family, and each program type's context (Linux's kernel/trace/bpf_trace.c). */
#include "kernel/bpf/helpers.h"
#include "kernel/bpf/maps.h"
#include "kernel/bpf/trampoline.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/events/bpf_trace.h"
#include "lib/printf.h"
#include "lib/string.h"

#define HELPER(name) static u64 bpf_##name(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
#define PTR(x) ((void *)(unsigned long)(x))
#define PERF_MAX_TRACE_SIZE 2048 /* what a tracepoint program may read of its record */

/* ---- probe_read: memory nobody vouches for, zeroed when the read faults ---- */

HELPER(probe_read_kernel)
{
	long err = copy_from_kernel_nofault(PTR(r1), PTR(r3), r2);
	if (err)
		memset(PTR(r1), 0, r2);
	return err;
}

HELPER(probe_read_user)
{
	long err = copy_from_user_nofault(PTR(r1), PTR(r3), r2);
	if (err)
		memset(PTR(r1), 0, r2);
	return err;
}

HELPER(probe_read_kernel_str)
{
	long n = strncpy_from_kernel_nofault(PTR(r1), PTR(r3), r2);
	if (n < 0)
		memset(PTR(r1), 0, r2);
	return n;
}

HELPER(probe_read_user_str)
{
	long n = strncpy_from_user_nofault(PTR(r1), PTR(r3), r2);
	if (n < 0)
		memset(PTR(r1), 0, r2);
	return n;
}

/* The old helpers read either half, by the address (Linux: x86's non-overlapping halves). */
HELPER(probe_read_compat)
{
	return r3 >= PAGE_OFFSET ? bpf_probe_read_kernel(r1, r2, r3, 0, 0)
				 : bpf_probe_read_user(r1, r2, r3, 0, 0);
}

HELPER(probe_read_compat_str)
{
	return r3 >= PAGE_OFFSET ? bpf_probe_read_kernel_str(r1, r2, r3, 0, 0)
				 : bpf_probe_read_user_str(r1, r2, r3, 0, 0);
}

#define PROBE_READ_PROTO(name)                                                                     \
	static const struct bpf_func_proto bpf_##name##_proto = {                                  \
		.func = bpf_##name,                                                                \
		.ret_type = RET_INTEGER,                                                           \
		.arg_type = { ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING },       \
	}
PROBE_READ_PROTO(probe_read_kernel);
PROBE_READ_PROTO(probe_read_user);
PROBE_READ_PROTO(probe_read_kernel_str);
PROBE_READ_PROTO(probe_read_user_str);
PROBE_READ_PROTO(probe_read_compat);
PROBE_READ_PROTO(probe_read_compat_str);

/* ---- bpf_trace_printk(fmt, fmt_size, a1, a2, a3) ---- */

/*
 * Linux's rules for the format: at most three conversions, each one of %d %i %u %x %X %c %p %s
 * %% with an optional l or ll, and %s strings read safely. Fills args (strings replaced by copies
 * in strs) and returns 0, or -EINVAL.
 */
static int printk_args(const char *fmt, u32 size, u64 *args, char strs[3][64])
{
	int n = 0;

	if (!size || fmt[size - 1])
		return -EINVAL;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		if (n == 3)
			return -EINVAL;
		for (int l = 0; l < 2 && *p == 'l'; l++)
			p++;
		if (*p == 's') {
			const void *src = PTR(args[n]);
			long r = (unsigned long)src >= PAGE_OFFSET
					 ? strncpy_from_kernel_nofault(strs[n], src, 64)
					 : strncpy_from_user_nofault(strs[n], src, 64);
			if (r < 0)
				strscpy(strs[n], "(fault)", 64);
			args[n] = (u64)(unsigned long)strs[n];
		} else if (!strchr("diuxXcp", *p) || !*p) {
			return -EINVAL;
		}
		n++;
	}
	return 0;
}

static char printk_buf[NR_CPUS][256];

HELPER(trace_printk)
{
	u64 args[3] = { r3, r4, r5 };
	char strs[3][64];
	char *buf = printk_buf[smp_processor_id()];
	int err = printk_args(PTR(r1), r2, args, strs);

	if (err)
		return err;
	err = snprintf(buf, sizeof(printk_buf[0]), PTR(r1), args[0], args[1], args[2]);
	trace_bpf_trace_printk(buf);
	return err;
}

static const struct bpf_func_proto bpf_trace_printk_proto = {
	.func = bpf_trace_printk,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_MEM, ARG_CONST_SIZE },
};

/* Linux turns the event on when a program that prints is loaded: trace_pipe shows the lines. */
static const struct bpf_func_proto *bpf_get_trace_printk_proto(void)
{
	struct trace_event_call *call = trace_event_find("bpf_trace", "bpf_trace_printk");

	if (call)
		trace_event_enable_disable(call, true);
	return &bpf_trace_printk_proto;
}

/* ---- get_func_ip, perf_event_output ---- */

/* A kprobe's handlers see regs->ip one past the probed address, on int3 and ftrace alike. */
HELPER(get_func_ip_kprobe)
{
	const struct pt_regs *regs = PTR(r1);
	return regs->ip - 1;
}

static const struct bpf_func_proto bpf_get_func_ip_proto_kprobe = {
	.func = bpf_get_func_ip_kprobe,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX },
};

/* Until kernel/events/ brings perf events, no file is one and an output finds no event. */
__attribute__((weak)) bool bpf_is_perf_event_file(struct file *f)
{
	return false;
}

__attribute__((weak)) long bpf_perf_event_output_file(struct file *event_file, int cpu,
						      const void *data, u64 size)
{
	return -ENOENT;
}

HELPER(perf_event_output)
{
	struct bpf_map *map = PTR(r2);
	u64 index = r3 & BPF_F_INDEX_MASK;
	struct file *f;

	if (r3 & ~BPF_F_INDEX_MASK)
		return -EINVAL;
	if (index == BPF_F_CURRENT_CPU)
		index = smp_processor_id();
	if (index >= map->max_entries)
		return -E2BIG;
	f = bpf_perf_event_array_file(map, index);
	if (!f)
		return -ENOENT;
	return bpf_perf_event_output_file(f, smp_processor_id(), PTR(r4), r5);
}

static const struct bpf_func_proto bpf_perf_event_output_proto = {
	.func = bpf_perf_event_output,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING, ARG_PTR_TO_MEM,
		      ARG_CONST_SIZE_OR_ZERO },
	.map_type = BPF_MAP_TYPE_PERF_EVENT_ARRAY,
};

/* ---- the sets: what each program type may call ---- */

/* Linux's bpf_tracing_func_proto(): every tracing type's common set. */
static const struct bpf_func_proto *bpf_tracing_func_proto(enum bpf_func_id id)
{
	switch (id) {
	case BPF_FUNC_get_current_pid_tgid:
		return &bpf_get_current_pid_tgid_proto;
	case BPF_FUNC_get_current_uid_gid:
		return &bpf_get_current_uid_gid_proto;
	case BPF_FUNC_get_current_comm:
		return &bpf_get_current_comm_proto;
	case BPF_FUNC_trace_printk:
		return bpf_get_trace_printk_proto();
	case BPF_FUNC_probe_read_user:
		return &bpf_probe_read_user_proto;
	case BPF_FUNC_probe_read_kernel:
		return &bpf_probe_read_kernel_proto;
	case BPF_FUNC_probe_read_user_str:
		return &bpf_probe_read_user_str_proto;
	case BPF_FUNC_probe_read_kernel_str:
		return &bpf_probe_read_kernel_str_proto;
	case BPF_FUNC_probe_read:
		return &bpf_probe_read_compat_proto;
	case BPF_FUNC_probe_read_str:
		return &bpf_probe_read_compat_str_proto;
	default:
		return bpf_base_func_proto(id);
	}
}

static const struct bpf_func_proto *kprobe_prog_func_proto(enum bpf_func_id id)
{
	switch (id) {
	case BPF_FUNC_perf_event_output:
		return &bpf_perf_event_output_proto;
	case BPF_FUNC_get_stackid:
		return &bpf_get_stackid_proto;
	case BPF_FUNC_get_func_ip:
		return &bpf_get_func_ip_proto_kprobe;
	default:
		return bpf_tracing_func_proto(id);
	}
}

/* Linux's pe_prog_func_proto(): the sample's registers lead ctx, so get_stackid walks them as a
 * kprobe program's does. */
static const struct bpf_func_proto *pe_prog_func_proto(enum bpf_func_id id)
{
	switch (id) {
	case BPF_FUNC_perf_event_output:
		return &bpf_perf_event_output_proto;
	case BPF_FUNC_get_stackid:
		return &bpf_get_stackid_proto;
	default:
		return bpf_tracing_func_proto(id);
	}
}

static const struct bpf_func_proto *tp_prog_func_proto(enum bpf_func_id id)
{
	switch (id) {
	case BPF_FUNC_perf_event_output:
		return &bpf_perf_event_output_proto;
	case BPF_FUNC_get_stackid:
		return &bpf_get_stackid_proto_tp;
	default:
		return bpf_tracing_func_proto(id);
	}
}

/* ---- raw tracepoints: the program sees the tracepoint's arguments as u64s ---- */

static int bpf_raw_tp_active[NR_CPUS];

/*
 * Called as any probe is, fn(data, args...), with interrupts off. Five arguments are taken (every
 * tracepoint here has at most five); slots past them read as 0. A program that prints from a
 * tracepoint its print fires does not run again inside itself (Linux's bpf_prog_active).
 */
static void __bpf_trace_run(void *data, u64 a0, u64 a1, u64 a2, u64 a3, u64 a4)
{
	struct bpf_prog *prog = data;
	u64 args[MAX_BPF_FUNC_ARGS] = { a0, a1, a2, a3, a4 };
	int cpu = smp_processor_id();

	if (!bpf_raw_tp_active[cpu]++)
		bpf_prog_run(prog, args);
	bpf_raw_tp_active[cpu]--;
}

int bpf_raw_tp_register(struct bpf_raw_tp_link *link, const char *name)
{
	struct trace_event_call *call = trace_event_find(NULL, name);

	if (!call || !call->tp)
		return -ENOENT;
	link->tp = call->tp;
	return tracepoint_probe_register(link->tp, (void *)__bpf_trace_run, link->prog);
}

void bpf_raw_tp_unregister(struct bpf_raw_tp_link *link)
{
	tracepoint_probe_unregister(link->tp, (void *)__bpf_trace_run, link->prog);
	tracepoint_synchronize_unregister();
}

/* ---- contexts: what a program may read of what it is given ---- */

static bool kprobe_prog_is_valid_access(int off, int size, bool write)
{
	return !write && off >= 0 && off + size <= (int)sizeof(struct pt_regs) && !(off % size);
}

/* The record's first 8 bytes (the common fields) are not the program's, as on Linux. */
static bool tp_prog_is_valid_access(int off, int size, bool write)
{
	return !write && off >= (int)sizeof(void *) && off + size <= PERF_MAX_TRACE_SIZE &&
	       !(off % size);
}

static bool raw_tp_prog_is_valid_access(int off, int size, bool write)
{
	return !write && off >= 0 && off + size <= MAX_BPF_FUNC_ARGS * 8 && !(off % size);
}

/* struct bpf_perf_event_data: the sampled registers, then sample_period and addr. */
static bool pe_prog_is_valid_access(int off, int size, bool write)
{
	return !write && off >= 0 && off + size <= (int)sizeof(struct pt_regs) + 16 &&
	       !(off % size);
}

static const struct bpf_verifier_ops kprobe_verifier_ops = {
	.get_func_proto = kprobe_prog_func_proto,
	.is_valid_access = kprobe_prog_is_valid_access,
};
static const struct bpf_verifier_ops tracepoint_verifier_ops = {
	.get_func_proto = tp_prog_func_proto,
	.is_valid_access = tp_prog_is_valid_access,
};
static const struct bpf_verifier_ops raw_tracepoint_verifier_ops = {
	.get_func_proto = tp_prog_func_proto,
	.is_valid_access = raw_tp_prog_is_valid_access,
};
static const struct bpf_verifier_ops perf_event_verifier_ops = {
	.get_func_proto = pe_prog_func_proto,
	.is_valid_access = pe_prog_is_valid_access,
};

/* fentry/fexit: the function's arguments, as many as its BTF prototype has (tracing_btf.c). */
static const struct bpf_verifier_ops tracing_verifier_ops = {
	.get_func_proto = bpf_tracing_func_proto,
	.ctx_access = bpf_tracing_ctx_access,
};

const struct bpf_verifier_ops *bpf_verifier_ops_of(u32 prog_type)
{
	switch (prog_type) {
	case BPF_PROG_TYPE_KPROBE:
		return &kprobe_verifier_ops;
	case BPF_PROG_TYPE_TRACEPOINT:
		return &tracepoint_verifier_ops;
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		return &raw_tracepoint_verifier_ops;
	case BPF_PROG_TYPE_TRACING:
		return &tracing_verifier_ops;
	case BPF_PROG_TYPE_PERF_EVENT:
		return &perf_event_verifier_ops;
	default:
		return NULL;
	}
}
