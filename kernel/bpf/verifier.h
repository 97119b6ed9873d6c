/* The verifier's state: what each register and stack slot holds on one path (Linux's
 * include/linux/bpf_verifier.h), shared by the verifier's files. */
#ifndef KERNEL_BPF_VERIFIER_H
#define KERNEL_BPF_VERIFIER_H

#include "kernel/bpf/core.h"
#include "kernel/bpf/tnum.h"

enum bpf_reg_type {
	NOT_INIT,
	SCALAR_VALUE,
	PTR_TO_CTX,
	CONST_PTR_TO_MAP,
	PTR_TO_MAP_VALUE,
	PTR_TO_MAP_VALUE_OR_NULL,
	PTR_TO_STACK,
	PTR_TO_MEM,	    /* ringbuf memory from bpf_ringbuf_reserve() */
	PTR_TO_MEM_OR_NULL, /* ... before its NULL check */
};

/*
 * A register. Scalars: the bounds and the known bits of the value. Pointers: a fixed offset off
 * plus a variable part bounded the same way (zero for most). The bounds are kept consistent by
 * reg_bounds_sync(): each of smin/smax, umin/umax and var_off narrows the others.
 */
struct bpf_reg_state {
	enum bpf_reg_type type;
	s32 off;
	struct tnum var_off;
	s64 smin_value, smax_value;
	u64 umin_value, umax_value;
	struct bpf_map *map_ptr; /* map pointers and map values */
	u32 mem_size;		 /* PTR_TO_MEM: bytes reserved */
	u32 id;			 /* _OR_NULL: registers with the same id are NULL together */
	u32 ref_obj_id;		 /* a reference that must be released (ringbuf) */
	u32 frameno;		 /* PTR_TO_STACK: whose frame, 0 the main program's */
};

#define BPF_REG_SIZE 8
#define MAX_BPF_STACK_SLOTS (MAX_BPF_STACK / BPF_REG_SIZE)
enum { STACK_INVALID, STACK_SPILL, STACK_MISC, STACK_ZERO };

struct bpf_stack_state {
	struct bpf_reg_state spilled_ptr; /* valid when slot_type[7] is STACK_SPILL */
	u8 slot_type[BPF_REG_SIZE];	  /* per byte; slot_type[0] is the lowest address */
};

#define MAX_ACQUIRED_REFS 16
#define MAX_CALL_FRAMES 8 /* Linux's: the main program and 7 nested bpf-to-bpf calls */
#define BPF_MAX_SUBPROGS 256

/* A caller's frame, kept while its callee runs (Linux's struct bpf_func_state). */
struct bpf_func_state {
	struct bpf_reg_state regs[MAX_BPF_REG];
	struct bpf_stack_state stack[MAX_BPF_STACK_SLOTS];
};

/*
 * One path's view of the machine at one instruction. regs and stack are the running frame's
 * (curframe); the frames below it are in caller[], which is last so that a copy of a state
 * takes only the frames in use (state_size()).
 */
struct bpf_verifier_state {
	struct bpf_reg_state regs[MAX_BPF_REG];
	struct bpf_stack_state stack[MAX_BPF_STACK_SLOTS]; /* stack[0] is fp-8 .. fp-1 */
	u32 refs[MAX_ACQUIRED_REFS];			   /* acquired ref ids, 0 = free */
	u32 ref_insn[MAX_ACQUIRED_REFS];
	u32 curframe;
	int callsite[MAX_CALL_FRAMES];	/* frame f+1 was called by insn callsite[f] */
	u16 subprogno[MAX_CALL_FRAMES]; /* which subprogram frame f runs */
	struct bpf_func_state caller[MAX_CALL_FRAMES - 1];
};

/* Bytes of st in use: its running frame and the callers below it. */
static inline size_t state_size(const struct bpf_verifier_state *st)
{
	return sizeof(*st) - (MAX_CALL_FRAMES - 1 - st->curframe) * sizeof(st->caller[0]);
}

/* A state kept at a prune point. branches: paths still being walked that passed through it;
 * only a fully explored one (0) may prune another path. */
struct bpf_explored_state {
	struct bpf_explored_state *next, *parent;
	u32 branches;
	u32 regs_hash;		      /* of st.regs: the loop check compares this first */
	u32 hit_cnt, miss_cnt;	      /* pruned a path / did not: one that never helps is dropped */
	struct bpf_verifier_state st; /* last: state_size(&st) of it allocated */
};

/* A path left for later, at a conditional jump. */
struct bpf_verifier_stack_elem {
	struct bpf_explored_state *parent;
	int insn_idx, prev_insn_idx;
	struct bpf_verifier_stack_elem *next;
	struct bpf_verifier_state st; /* last: state_size(&st) of it allocated */
};

struct bpf_insn_aux_data {
	struct bpf_map *map_ptr;	 /* ld_imm64 of a map */
	const struct bpf_func_proto *fn; /* a helper call */
	bool prune_point, seen;
	u16 live, precise; /* registers read later / whose exact value matters (verifier_prune.c) */
};

struct bpf_verifier_env {
	struct bpf_prog *prog;
	const struct bpf_verifier_ops *ops;
	struct bpf_verifier_log *log;
	struct bpf_insn_aux_data *aux;
	struct bpf_verifier_state *cur;
	struct bpf_explored_state *cur_parent; /* the last prune point the path passed */
	struct bpf_explored_state **explored;  /* per instruction */
	struct bpf_verifier_stack_elem *head;  /* pending paths */
	int stack_size;
	bool allow_ptr_leaks; /* privileged: pointers may be stored, compared, returned */
	u32 insn_processed, total_states, peak_states, cur_states, max_states_per_insn;
	u32 id_gen;
	struct bpf_subprog_info
		*subprog; /* BPF_MAX_SUBPROGS + 1 of them: [subprog_cnt].start = len */
	u32 subprog_cnt;
};

/* kernel/bpf/log.c */
void verbose(struct bpf_verifier_env *env, const char *fmt, ...) __printf(2, 3);
void print_bpf_insn(struct bpf_verifier_env *env, const struct bpf_insn *insn);
void print_verifier_state(struct bpf_verifier_env *env, const struct bpf_verifier_state *st);
const char *reg_type_str(enum bpf_reg_type t);
const char *func_id_name(int id);

/* kernel/bpf/verifier_alu.c */
void mark_reg_unknown(struct bpf_reg_state *reg);
void mark_reg_known(struct bpf_reg_state *reg, u64 imm);
void mark_reg_not_init(struct bpf_reg_state *reg);
void reg_bounds_sync(struct bpf_reg_state *reg);
bool reg_is_pointer(const struct bpf_reg_state *reg);
int check_alu_op(struct bpf_verifier_env *env, const struct bpf_insn *insn);
int check_cond_jmp_op(struct bpf_verifier_env *env, const struct bpf_insn *insn, int *insn_idx);
int check_reg_arg(struct bpf_verifier_env *env, u32 regno, bool src);

/* kernel/bpf/verifier_mem.c */
int check_mem_insn(struct bpf_verifier_env *env, const struct bpf_insn *insn);
int check_helper_mem_access(struct bpf_verifier_env *env, int regno, int size, bool zero_ok,
			    bool uninit);
int check_helper_call(struct bpf_verifier_env *env, const struct bpf_insn *insn, int insn_idx);

/* kernel/bpf/verifier.c */
struct bpf_verifier_state *push_stack(struct bpf_verifier_env *env, int insn_idx, int prev_idx);

/* kernel/bpf/verifier_subprog.c: bpf-to-bpf calls */
bool bpf_pseudo_call(const struct bpf_insn *insn);
int check_subprogs(struct bpf_verifier_env *env);
int subprog_of(const struct bpf_verifier_env *env, int insn_idx);
int check_func_call(struct bpf_verifier_env *env, const struct bpf_insn *insn, int *insn_idx);
int prepare_func_exit(struct bpf_verifier_env *env, int *insn_idx);
int check_max_stack_depth(struct bpf_verifier_env *env);
int fixup_subprogs(struct bpf_verifier_env *env);
struct bpf_stack_state *frame_stack(struct bpf_verifier_state *st, u32 frameno);
struct bpf_reg_state *frame_regs(struct bpf_verifier_state *st, u32 frameno);

/* kernel/bpf/verifier_prune.c: which registers matter at each insn, and pruning by them */
int compute_live_regs(struct bpf_verifier_env *env);
int is_state_visited(struct bpf_verifier_env *env, int insn_idx);

#endif
