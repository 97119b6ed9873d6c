/* BPF trampolines: fentry/fexit programs called from a function's __fentry__ site through an
 * ftrace direct call (Linux's include/linux/bpf.h, kernel/bpf/trampoline.c). */
#ifndef KERNEL_BPF_TRAMPOLINE_H
#define KERNEL_BPF_TRAMPOLINE_H

#include "kernel/bpf/bpf.h"
#include "kernel/percpu.h"

/* Linux's enum bpf_attach_type values that a BPF_PROG_TYPE_TRACING program names. */
#define BPF_TRACE_RAW_TP 23
#define BPF_TRACE_FENTRY 24
#define BPF_TRACE_FEXIT 25
#define BPF_LINK_TYPE_TRACING 2

#define BPF_MAX_TRAMP_LINKS 38 /* Linux's, on x86-64 */
#define BPF_TRAMP_MAX_ARGS 6   /* what arrives in registers: Linux 6.1's x86 limit too */

enum bpf_tramp_prog_type { BPF_TRAMP_FENTRY, BPF_TRAMP_FEXIT, BPF_TRAMP_MAX };

/* One program's place in an image: the image holds the program and counts its runs per CPU, so
 * that a program whose helper reaches the traced function again is skipped, not re-entered. */
struct bpf_tramp_run_ctx {
	struct bpf_prog *prog;
	int active[NR_CPUS];
	u64 misses; /* runs skipped that way (Linux's recursion_misses) */
};

/* What arch_prepare_bpf_trampoline() is given: the programs of each kind, in attach order. */
struct bpf_tramp_progs {
	struct bpf_tramp_run_ctx *runs[BPF_TRAMP_MAX][BPF_MAX_TRAMP_LINKS];
	int nr[BPF_TRAMP_MAX];
};

/* One built trampoline: executable code, never writable, and what it calls. in_flight counts the
 * calls of the original function made from it (fexit) that have not come back. */
struct bpf_tramp_image {
	void *image;
	u32 size;
	long in_flight;
	int nr_runs;
	struct bpf_tramp_run_ctx runs[];
};

/*
 * Writes the trampoline for a function of nr_args arguments whose body starts at orig_call (its
 * __fentry__ site's end) into buf (size bytes): 0 and *len, or -ENOTSUPP (too many arguments),
 * -E2BIG (buf too small). im is what it passes to __bpf_tramp_enter/exit around the call.
 */
int arch_prepare_bpf_trampoline(struct bpf_tramp_image *im, u8 *buf, u32 size, u32 *len,
				int nr_args, const struct bpf_tramp_progs *progs,
				unsigned long orig_call);

/* What the trampoline calls around each program and around the original function. */
u64 __bpf_prog_enter(struct bpf_tramp_run_ctx *run);
void __bpf_prog_exit(struct bpf_tramp_run_ctx *run);
void __bpf_tramp_enter(struct bpf_tramp_image *im);
void __bpf_tramp_exit(struct bpf_tramp_image *im);

struct bpf_verifier_log;
/* PROG_LOAD of a BPF_PROG_TYPE_TRACING program: checks expected_attach_type and attach_btf_id
 * against the kernel's BTF and fills prog's attach_* fields; -errno with a line in log. */
int bpf_check_attach_target(struct bpf_prog *prog, const union bpf_attr *attr,
			    struct bpf_verifier_log *log);
/* The verifier's context check for these programs (Linux's btf_ctx_access()): 0 or -EACCES. */
struct bpf_verifier_env;
int bpf_tracing_ctx_access(struct bpf_verifier_env *env, int off, int size, bool write);

/* Attaching (trampoline.c): BPF_RAW_TRACEPOINT_OPEN with no name, and BPF_LINK_CREATE with an
 * attach type bpf_tracing_attach_type() says is ours. A link fd or -errno. */
int bpf_tracing_raw_tp_open(int prog_fd);
int bpf_tracing_link_create(const union bpf_attr *attr);
static inline bool bpf_tracing_attach_type(u32 type)
{
	return type == BPF_TRACE_FENTRY || type == BPF_TRACE_FEXIT || type == BPF_TRACE_RAW_TP;
}
/* kernel/bpf/syscall.c: prog (its reference taken over) on tracepoint name: a link fd or -errno. */
int bpf_raw_tp_link_open(struct bpf_prog *prog, const char *name);

/* How many programs are attached to the function at ip now (the self-test and `bpftramp`). */
int bpf_trampoline_links(unsigned long ip);

#endif
