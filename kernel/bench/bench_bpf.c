/* Benchmarks of eBPF (docs/23): one run of a program through bpf_prog_run(), interpreted and
 * JITed, for an empty program and two counting ones, with what the verifier walked for each. */
#include "kernel/bench/bench.h"
#include "kernel/bpf/core.h"
#include "kernel/fs/file.h"
#include "kernel/printk/printk.h"
#include "kernel/sched/sched.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "lib/sort.h"
#include "lib/string.h"

#define INSN(c, d, s, o, i)                                                                        \
	{                                                                                          \
		.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)                \
	}
#define MAPFD 0x7ff0 /* replaced by the map's fd */

struct bench_bpf_prog {
	const char *what;
	u32 map_type, key_size, len;
	struct bpf_insn insns[16];
};

static const struct bench_bpf_prog progs[] = {
	{ "empty (r0 = 0; exit)",
	  0,
	  0,
	  2,
	  { INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0), INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0) } },
	/* the lab's count_syscalls: array lookup, atomic add */
	{ "counting, array map lookup + atomic add",
	  BPF_MAP_TYPE_ARRAY,
	  4,
	  11,
	  { INSN(BPF_ST | BPF_W | BPF_MEM, 10, 0, -4, 0),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
	    INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
	    INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, MAPFD), INSN(0, 0, 0, 0, 0),
	    INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
	    INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1),
	    INSN(BPF_STX | BPF_DW | BPF_ATOMIC, 0, 1, 0, BPF_ADD),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0), INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0) } },
	/* a hash map keyed by the ctx's first argument, value 1 written (update) */
	{ "counting, hash map update",
	  BPF_MAP_TYPE_HASH,
	  8,
	  13,
	  { INSN(BPF_LDX | BPF_DW | BPF_MEM, 6, 1, 112, 0),
	    INSN(BPF_STX | BPF_DW | BPF_MEM, 10, 6, -8, 0),
	    INSN(BPF_ST | BPF_DW | BPF_MEM, 10, 0, -16, 1),
	    INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, MAPFD), INSN(0, 0, 0, 0, 0),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0),
	    INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -8),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0),
	    INSN(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, -16),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, BPF_ANY),
	    INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_update_elem),
	    INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0), INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0) } },
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;
	return x < y ? -1 : x > y;
}

/* Median over BENCH_RUNS of the ticks one bpf_prog_run() costs, loop included. */
static u64 bench_prog_run(const struct bpf_prog *prog, const struct pt_regs *regs)
{
	u64 runs[BENCH_RUNS];
	volatile u32 sink;

	for (int r = 0; r < BENCH_RUNS; r++) {
		unsigned long flags = local_irq_save();
		u64 t0 = rdtsc();
		for (int i = 0; i < BENCH_LOOPS; i++)
			sink = bpf_prog_run(prog, regs);
		u64 t1 = rdtsc();
		local_irq_restore(flags);
		runs[r] = (t1 - t0 + BENCH_LOOPS / 2) / BENCH_LOOPS;
	}
	(void)sink;
	sort(runs, BENCH_RUNS, sizeof(runs[0]), cmp_u64, NULL);
	return runs[BENCH_RUNS / 2];
}

/* A verified copy of p, its map fd (if any) put in place; NULL when refused. */
static struct bpf_prog *bench_load(const struct bench_bpf_prog *p, int map_fd)
{
	struct bpf_verifier_log log = { 0 };
	struct bpf_prog *prog = bpf_prog_alloc(p->len);

	if (!prog)
		return NULL;
	memcpy(prog->insnsi, p->insns, p->len * sizeof(struct bpf_insn));
	for (u32 i = 0; i < p->len; i++)
		if (prog->insnsi[i].imm == MAPFD)
			prog->insnsi[i].imm = map_fd;
	prog->type = BPF_PROG_TYPE_KPROBE;
	if (bpf_check(prog, &log, true)) {
		bpf_prog_free(prog);
		return NULL;
	}
	prog->bpf_func = __bpf_prog_run;
	return prog;
}

static void bench_one(const struct bench_bpf_prog *p, const struct pt_regs *regs)
{
	union bpf_attr attr = {
		.map_type = p->map_type, .key_size = p->key_size, .value_size = 8, .max_entries = 64
	};
	int fd = p->map_type ? bpf_map_create_kernel(&attr) : -1;
	struct bpf_prog *prog = fd >= 0 || !p->map_type ? bench_load(p, fd) : NULL;
	u64 interp, jit = 0;

	if (prog) {
		interp = bench_prog_run(prog, regs);
		bpf_int_jit_compile(prog);
		if (prog->jited)
			jit = bench_prog_run(prog, regs);
		cprintf("| %-44s | %8llu | %8llu | %8u |\n", p->what, interp, jit,
			prog->verified_insns);
		bpf_prog_free(prog);
	} else {
		cprintf("| %-44s | refused or no map                |\n", p->what);
	}
	if (fd >= 0)
		close_fd(current->files, fd);
}

void bench_bpf(void)
{
	struct files_struct *saved = current->files;
	struct pt_regs regs = { .di = 7 };

	/* the kernel shell has no fd table; the maps need one while the programs are loaded */
	if (!saved && !(current->files = console_files()))
		return;
	cprintf("\n| %-44s | %8s | %8s | %8s |\n", "BPF program, one bpf_prog_run() (ticks)",
		"interp", "JIT", "verified");
	cprintf("|----------------------------------------------|---------:|---------:|---------:|"
		"\n");
	for (size_t i = 0; i < ARRAY_SIZE(progs); i++)
		bench_one(&progs[i], &regs);
	if (!saved) {
		put_files_struct(current->files);
		current->files = NULL;
	}
}
