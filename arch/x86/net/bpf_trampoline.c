/* The x86-64 BPF trampoline: the code an fentry/fexit function's __fentry__ site calls, that
 * saves the arguments, runs the programs and, for fexit, calls the function itself (Linux's
 * arch_prepare_bpf_trampoline() in arch/x86/net/bpf_jit_comp.c). */
#include "kernel/bpf/trampoline.h"
#include "lib/string.h"

/*
 * Entered by the site's `call` (or by ftrace_regs_caller's `ret` when the site is shared), with
 * [rsp] = F+5 and [rsp+8] = F's caller, the argument registers live and rsp 16-aligned:
 *
 *   push rbp; mov rbp, rsp; sub rsp, frame      rbp-8*(nr+1) .. rbp-8: ctx = args[0..nr-1], ret
 *   mov [ctx+8*i], <arg i>                      the programs' u64 context
 *   for each fentry program: run(prog)
 *   fexit:  __bpf_tramp_enter(im); restore args; call F+5; mov [ctx+8*nr], rax;
 *           __bpf_tramp_exit(im); for each fexit program: run(prog);
 *           mov rax, [ctx+8*nr]; leave; add rsp, 8; ret      back to F's caller: F ran already
 *   else:   restore args; leave; ret                          into F, which runs as if untouched
 *
 *   run(prog): if (__bpf_prog_enter(run)) prog->bpf_func(ctx, prog->insnsi); __bpf_prog_exit(run)
 *
 * Every call goes through rax (movabs): the image sits in execmem, out of rel32 reach of nothing
 * in particular, and one encoding keeps the size independent of where it lands.
 */
enum { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9 };
static const u8 arg_regs[BPF_TRAMP_MAX_ARGS] = { RDI, RSI, RDX, RCX, R8, R9 };

struct tramp_buf {
	u8 *p;
	u32 len, size;
};

static void put(struct tramp_buf *b, const u8 *bytes, int n)
{
	for (int i = 0; i < n; i++, b->len++)
		if (b->len < b->size)
			b->p[b->len] = bytes[i];
}

#define OUT(b, ...)                                                                                \
	do {                                                                                       \
		const u8 __x[] = { __VA_ARGS__ };                                                  \
		put(b, __x, sizeof(__x));                                                          \
	} while (0)

static void out_u32(struct tramp_buf *b, u32 v)
{
	OUT(b, v, v >> 8, v >> 16, v >> 24);
}

/* movabs reg, imm64 (reg one of rax..r9). */
static void load_imm64(struct tramp_buf *b, u8 reg, u64 imm)
{
	OUT(b, 0x48 | (reg >> 3), 0xb8 | (reg & 7));
	out_u32(b, imm);
	out_u32(b, imm >> 32);
}

static void call_abs(struct tramp_buf *b, const void *fn)
{
	load_imm64(b, RAX, (unsigned long)fn);
	OUT(b, 0xff, 0xd0); /* call rax */
}

/* mov [rbp + disp], reg (store) or mov reg, [rbp + disp] (load); disp32 always. */
static void rbp_slot(struct tramp_buf *b, bool store, u8 reg, s32 disp)
{
	OUT(b, 0x48 | ((reg >> 3) << 2), store ? 0x89 : 0x8b, 0x85 | ((reg & 7) << 3));
	out_u32(b, disp);
}

static void run_prog(struct tramp_buf *b, struct bpf_tramp_run_ctx *run, s32 ctx_off)
{
	u32 skip_at;

	load_imm64(b, RDI, (unsigned long)run);
	call_abs(b, __bpf_prog_enter);
	OUT(b, 0x48, 0x85, 0xc0); /* test rax, rax */
	OUT(b, 0x0f, 0x84);	  /* je skip: recursion, the program does not run */
	skip_at = b->len;
	out_u32(b, 0);
	OUT(b, 0x48, 0x8d, 0xbd); /* lea rdi, [rbp + ctx_off] */
	out_u32(b, ctx_off);
	load_imm64(b, RSI, (unsigned long)run->prog->insnsi);
	call_abs(b, run->prog->bpf_func);
	if (skip_at + 4 <= b->size) {
		u32 rel = b->len - (skip_at + 4);
		memcpy(b->p + skip_at, &rel, 4);
	}
	load_imm64(b, RDI, (unsigned long)run);
	call_abs(b, __bpf_prog_exit);
}

static void move_args(struct tramp_buf *b, bool store, int nr_args, s32 ctx_off)
{
	for (int i = 0; i < nr_args; i++)
		rbp_slot(b, store, arg_regs[i], ctx_off + 8 * i);
}

int arch_prepare_bpf_trampoline(struct bpf_tramp_image *im, u8 *buf, u32 size, u32 *len,
				int nr_args, const struct bpf_tramp_progs *progs,
				unsigned long orig_call)
{
	struct tramp_buf b = { .p = buf, .size = size };
	int slots = nr_args + 1;  /* the arguments and the return value */
	s32 ctx_off = -8 * slots; /* ctx, from rbp */
	u32 frame =
		8 * (slots | 1); /* after push rbp, an odd number of slots keeps calls aligned */
	bool fexit = progs->nr[BPF_TRAMP_FEXIT] > 0;

	if (nr_args < 0 || nr_args > BPF_TRAMP_MAX_ARGS)
		return -ENOTSUPP;
	OUT(&b, 0x55, 0x48, 0x89, 0xe5); /* push rbp; mov rbp, rsp */
	OUT(&b, 0x48, 0x81, 0xec);	 /* sub rsp, frame */
	out_u32(&b, frame);
	move_args(&b, true, nr_args, ctx_off);
	for (int i = 0; i < progs->nr[BPF_TRAMP_FENTRY]; i++)
		run_prog(&b, progs->runs[BPF_TRAMP_FENTRY][i], ctx_off);
	if (fexit) {
		load_imm64(&b, RDI, (unsigned long)im);
		call_abs(&b, __bpf_tramp_enter);
		move_args(&b, false, nr_args, ctx_off);
		call_abs(&b, (void *)orig_call);
		rbp_slot(&b, true, RAX, ctx_off + 8 * nr_args);
		load_imm64(&b, RDI, (unsigned long)im);
		call_abs(&b, __bpf_tramp_exit);
		for (int i = 0; i < progs->nr[BPF_TRAMP_FEXIT]; i++)
			run_prog(&b, progs->runs[BPF_TRAMP_FEXIT][i], ctx_off);
		rbp_slot(&b, false, RAX, ctx_off + 8 * nr_args);
		OUT(&b, 0xc9, 0x48, 0x83, 0xc4, 0x08, 0xc3); /* leave; add rsp, 8; ret */
	} else {
		move_args(&b, false, nr_args, ctx_off);
		OUT(&b, 0xc9, 0xc3); /* leave; ret */
	}
	*len = b.len;
	return b.len > size ? -E2BIG : 0;
}
