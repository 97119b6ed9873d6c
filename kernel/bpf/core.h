/* What the bpf files share among themselves and with the host tests (not the seam: bpf.h). */
#ifndef KERNEL_BPF_CORE_H
#define KERNEL_BPF_CORE_H

#include "kernel/bpf/bpf.h"
#include <stdarg.h>

#define MAX_BPF_STACK 512
#define BPF_MAXINSNS 4096 /* unprivileged programs' size limit */
#define BPF_COMPLEXITY_LIMIT_INSNS                                                                 \
	1000000 /* what the verifier walks at most, and a privileged
					    * program's size limit */
#define MAX_BPF_FUNC_ARGS 12

/* A function of a program: the main one (0) and each bpf-to-bpf call's target, in order. */
struct bpf_subprog_info {
	u32 start;
	u32 stack_depth; /* the deepest byte of its own frame any path touched */
};

/*
 * BPF_MAP_TYPE_PROG_ARRAY (kernel/bpf/prog_array.c): the interpreter and the JIT read max_entries
 * and ptrs[] themselves for BPF_JMP | BPF_TAIL_CALL, what the verifier makes of a call to
 * bpf_tail_call(). Slots change only by an atomic swap, and the program swapped out is dropped
 * once no CPU can be inside it.
 */
#define BPF_TAIL_CALL 0xf0
#define MAX_TAIL_CALL_CNT 33 /* tail calls one run may make, as Linux 6.1 counts them */
struct bpf_prog_array_map {
	struct bpf_map map;
	bool owner_set, owner_jited; /* the one program type (and runtime) the map takes */
	u32 owner_type;
	struct bpf_prog *ptrs[];
};
bool bpf_prog_map_compatible(struct bpf_map *map, const struct bpf_prog *prog);
struct bpf_prog *bpf_prog_get(int ufd);	    /* any type, a reference taken, or ERR_PTR(-EBADF) */
int bpf_prog_new_fd(struct bpf_prog *prog); /* an fd holding the caller's reference, or -errno */

/* kernel/bpf/core.c */
u64 __bpf_call_base(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);
u64 __bpf_prog_run(const void *ctx, const struct bpf_insn *insn);
u64 ___bpf_prog_run(u64 *regs, const struct bpf_insn *insn);
struct bpf_prog *bpf_prog_alloc(u32 len);
int bpf_prog_calc_tag(struct bpf_prog *prog); /* prog->tag, or -ENOMEM */
void bpf_prog_free(struct bpf_prog *prog);

/* kernel/bpf/objs.c */
void bpf_map_inc(struct bpf_map *map);
void bpf_map_put(struct bpf_map *map);
struct bpf_map *bpf_map_get(int ufd); /* a reference taken, or ERR_PTR(-EBADF/-EINVAL) */
/* The same, and the fd's O_ACCMODE in *acc: what the holder of the fd may do with elements. */
struct bpf_map *bpf_map_get_mode(int ufd, unsigned int *acc);
bool bpf_capable(void);
extern const struct file_operations bpf_map_fops, bpf_prog_fops;
/* kernel/bpf/info.c: BPF_OBJ_GET_INFO_BY_FD, the attr's tail already checked. */
union bpf_attr;
int bpf_obj_get_info_by_fd(union bpf_attr *attr, union bpf_attr *uattr); /* uattr: user memory */
int bpf_map_create_kernel(union bpf_attr *attr); /* an fd in current's table, or -errno */
/* The loaded program with this id, a reference taken (Linux's bpf_prog_by_id()), or NULL; id 0:
 * the first one, and bpf_prog_next_id() the one after id. */
struct bpf_prog *bpf_prog_by_id(u32 id);
u32 bpf_prog_next_id(u32 id);

/* arch/x86/net/bpf_jit_comp.c: prog->bpf_func becomes the JITed image, or stays as it was. */
void bpf_int_jit_compile(struct bpf_prog *prog);
void bpf_jit_free(struct bpf_prog *prog);

/* kernel/trace/bpf_trace.c: a raw tracepoint program attached by name (-ENOENT: no such
 * tracepoint), and detached once no CPU can still run it. */
struct tracepoint;
struct bpf_raw_tp_link {
	struct bpf_prog *prog;
	struct tracepoint *tp;
};
int bpf_raw_tp_register(struct bpf_raw_tp_link *link, const char *name);
void bpf_raw_tp_unregister(struct bpf_raw_tp_link *link);

/* What a helper takes and gives, for the verifier (Linux's struct bpf_func_proto). */
enum bpf_arg_type {
	ARG_DONTCARE,
	ARG_CONST_MAP_PTR,	/* a map from ld_imm64 */
	ARG_PTR_TO_MAP_KEY,	/* initialised memory of the map's key_size */
	ARG_PTR_TO_MAP_VALUE,	/* initialised memory of the map's value_size */
	ARG_PTR_TO_MEM,		/* initialised memory whose size is the next argument */
	ARG_PTR_TO_UNINIT_MEM,	/* memory the helper fills, size in the next argument */
	ARG_CONST_SIZE,		/* a bounded size, > 0 */
	ARG_CONST_SIZE_OR_ZERO, /* a bounded size, >= 0 */
	ARG_PTR_TO_CTX,
	ARG_ANYTHING,	      /* any initialised value */
	ARG_PTR_TO_ALLOC_MEM, /* what bpf_ringbuf_reserve() gave */
	ARG_CONST_ALLOC_SIZE_OR_ZERO,
};

enum bpf_return_type {
	RET_INTEGER,
	RET_VOID,
	RET_PTR_TO_MAP_VALUE_OR_NULL,
	RET_PTR_TO_ALLOC_MEM_OR_NULL, /* size: the constant argument 2 */
};

struct bpf_func_proto {
	u64 (*func)(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5);
	const char *name; /* "bpf_map_lookup_elem" in logs */
	enum bpf_return_type ret_type;
	enum bpf_arg_type arg_type[5];
	u32 map_type;	   /* ARG_CONST_MAP_PTR of this type only (0: any with lookup) */
	bool releases_ref; /* ringbuf submit/discard: argument 1 is released */
};

/* What a program type allows (Linux's struct bpf_verifier_ops). */
struct bpf_verifier_env;
struct bpf_verifier_ops {
	const struct bpf_func_proto *(*get_func_proto)(enum bpf_func_id id);
	bool (*is_valid_access)(int off, int size, bool write);
	/* Instead, when the context depends on the program (tracing: its function's arguments):
	 * 0, or -EACCES with the reason logged. */
	int (*ctx_access)(struct bpf_verifier_env *env, int off, int size, bool write);
};

/* kernel/trace/bpf_trace.c (or the fuzz target's own): the ops of a program type, NULL if none. */
const struct bpf_verifier_ops *bpf_verifier_ops_of(u32 prog_type);

/* kernel/bpf/verifier.c: 0 with prog's calls and map loads rewritten, or -errno; the log is
 * written to log (log_size bytes, always NUL-terminated) at log_level. */
struct bpf_verifier_log {
	char *buf;
	u32 size, len;
	u32 level;
	bool truncated;
};
int bpf_check(struct bpf_prog *prog, struct bpf_verifier_log *log, bool privileged);
/* kernel/bpf/log.c: appends to log at any level it has (the verifier's and BTF's logs). */
void bpf_verifier_vlog(struct bpf_verifier_log *log, const char *fmt, va_list ap);
extern u32 bpf_complexity_limit;

#endif
