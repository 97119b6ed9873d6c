/*
 * bpfcalls: bpf-to-bpf calls, bounded loops and map-value bounds through bpf(2), raw (chapter 23,
 * "Loops, calls and bounds"). `bpfcalls test` checks, one a line, "PASS n/m" last
 * (tests/integration/test_bpf_verifier.py): a loop calling a function on each step, attached to
 * sys_enter and run interpreted and JITed, and a corpus of bad programs each refused with its
 * errno and Linux's log line. `bpfcalls loop` and `bpfcalls deep` are the chapter's lab.
 */
#include "bpf_sys.h"

#define PCALL(o) INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, o) /* the function at +o+1 */

static char log_buf[65536];

/* An array map of one element, the results in its four 8-byte slots. */
static long results_map(void)
{
	return bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 32, 1);
}

static long slot(long map, int i)
{
	long value[4] = { -1, -1, -1, -1 };
	int key = 0;

	bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, map, &key, value, 0);
	return value[i];
}

/* n instructions (MAPFD patched to map) as a raw tracepoint program, log at level into log_buf. */
static long load(struct bpf_insn *p, int n, long map, int level)
{
	log_buf[0] = 0;
	return bpf_prog_load_log(BPF_PROG_TYPE_RAW_TRACEPOINT, p, n, map, "loop_and_call", level,
				 log_buf, sizeof(log_buf));
}

/* On every system call entry: slot 0 += 1, slot 1 = the sum of f(i) for i = 0..30, f(x) = x * x
 * a function of its own, then a byte of that sum as an index into the value, checked first. */
static struct bpf_insn loop_prog[] = {
	LOOKUP_SLOT(0), /* r0 = the value, or NULL */
	JMP_IMM(BPF_JEQ, 0, 0, 16),
	MOV64_REG(9, 0),
	MOV64_IMM(1, 1),
	ATOMIC_ADD64(9, 1, 0),
	MOV64_IMM(6, 0), /* i */
	MOV64_IMM(7, 0), /* sum */
	MOV64_REG(1, 6),
	PCALL(11),
	ALU64_REG(BPF_ADD, 7, 0),
	ALU64_IMM(BPF_ADD, 6, 1),
	JMP_IMM(BPF_JLT, 6, 31, -5),
	STX(BPF_DW, 9, 7, 8),
	LDX(BPF_B, 1, 9, 8),   /* a byte of what was just stored: 0..255 */
	JMP_IMM(BPF_JGT, 1, 24, 3), /* the check that makes it an index: 24 + 8 <= 32 */
	ALU64_REG(BPF_ADD, 9, 1),
	LDX(BPF_DW, 1, 9, 0),
	STX(BPF_DW, 9, 1, 0), /* slot[x] = slot[x], through the checked pointer */
	MOV64_IMM(0, 0),
	EXIT,
	/* the function */
	MOV64_REG(0, 1),
	ALU64_REG(BPF_MUL, 0, 0),
	EXIT,
};

static int set_jit(const char *v)
{
	long fd = sys3(NR_open, "/proc/sys/net/core/bpf_jit_enable", 1, 0);
	long r = fd < 0 ? fd : sys3(NR_write, fd, v, 1);

	if (fd >= 0)
		sys1(NR_close, fd);
	return r == 1 ? 0 : (int)r;
}

/* Loads the loop, runs it on ten getppid calls; slot 1 in *sum. */
static long run_loop(long *sum, long *counted, long *jited, int level)
{
	long map = results_map(), prog, link, before;
	struct bpf_insn p[sizeof(loop_prog) / sizeof(loop_prog[0])];

	memcpy(p, loop_prog, sizeof(p));
	prog = load(p, sizeof(p) / sizeof(p[0]), map, level);
	if (prog < 0)
		return prog;
	*jited = bpf_prog_jited_len(prog);
	link = bpf_raw_tp_open("sys_enter", prog);
	if (link < 0)
		return link;
	before = slot(map, 0);
	for (int i = 0; i < 10; i++)
		sys0(NR_getppid);
	*counted = slot(map, 0) - before;
	sys1(NR_close, link);
	*sum = slot(map, 1);
	sys1(NR_close, prog);
	sys1(NR_close, map);
	return 0;
}

static void test_loop(const char *mode)
{
	long sum = 0, counted = 0, jited = 0, r = run_loop(&sum, &counted, &jited, 1);

	if (r)
		put_str(log_buf);
	put_str("# ");
	put_str(mode);
	put_str("\n");
	check("loop calling a function: loads and attaches", r, 0);
	check("  sum of squares 0..30", sum, 9455);
	check("  ran on the ten getppid calls at least", counted >= 10, 1);
	check("  JITed as bpf_jit_enable says", jited > 0, mode[0] == 'J');
}

struct bad_prog {
	const char *name;
	long err;
	const char *log;
	int n;
	struct bpf_insn insns[24];
};

#define N(...)                                                                                     \
	sizeof((struct bpf_insn[]){ __VA_ARGS__ }) / sizeof(struct bpf_insn), { __VA_ARGS__ }
#define RET0 MOV64_IMM(0, 0), EXIT
/* r0 = the results map's value (32 bytes) or exit; r1 = a whole u64 of it */
#define VALUE_U64 LOOKUP_SLOT(0), JMP_IMM(BPF_JNE, 0, 0, 1), EXIT, LDX(BPF_DW, 1, 0, 0)

static struct bad_prog bad[] = {
	{ "nine frames", -E2BIG, "the call stack of 9 frames is too deep",
	  N(PCALL(1), EXIT, PCALL(1), EXIT, PCALL(1), EXIT, PCALL(1), EXIT, PCALL(1), EXIT,
	    PCALL(1), EXIT, PCALL(1), EXIT, PCALL(1), EXIT, RET0) },
	{ "combined stack over 512", -EACCES, "combined stack size of 2 calls is 544. Too large",
	  N(ST(BPF_DW, 10, -256, 0), PCALL(1), EXIT, ST(BPF_DW, 10, -264, 0), RET0) },
	{ "recursion", -EINVAL, "back-edge from insn 2 to 2", N(PCALL(1), EXIT, PCALL(-1), EXIT) },
	{ "jump into another function", -EINVAL, "jump out of range from insn 1 to 4",
	  N(MOV64_IMM(0, 0), JA(2), PCALL(1), EXIT, EXIT) },
	{ "call out of the program", -EINVAL, "call to invalid destination", N(PCALL(5), EXIT) },
	{ "function without exit", -EINVAL, "last insn is not an exit or jmp",
	  N(PCALL(1), EXIT, MOV64_IMM(0, 0)) },
	{ "function returning its stack", -EINVAL, "cannot return stack pointer to the caller",
	  N(PCALL(1), EXIT, MOV64_REG(0, 10), EXIT) },
	{ "caller's R1 after the call", -EACCES, "R1 !read_ok",
	  N(MOV64_IMM(1, 5), PCALL(2), MOV64_REG(0, 1), EXIT, RET0) },
	{ "unreachable function code", -EINVAL, "unreachable insn 4",
	  N(PCALL(1), EXIT, RET0, RET0) },
	{ "unbounded map value index", -EACCES,
	  "R0 unbounded memory access, make sure to bounds check any such access",
	  N(VALUE_U64, ALU64_IMM(BPF_RSH, 1, 1), ALU64_REG(BPF_ADD, 0, 1), LDX(BPF_B, 0, 0, 0),
	    EXIT) },
	{ "index checked one too far", -EACCES,
	  "invalid access to map value, value_size=32 off=25 size=8",
	  N(VALUE_U64, JMP_IMM(BPF_JGT, 1, 25, 2), ALU64_REG(BPF_ADD, 0, 1), LDX(BPF_DW, 0, 0, 0),
	    EXIT) },
	{ "loop that never changes its state", -EINVAL, "infinite loop detected at insn 1",
	  N(MOV64_IMM(0, 0), ALU64_IMM(BPF_AND, 0, 1), JMP_IMM(BPF_JLT, 0, 2, -2), EXIT) },
};

static void test_bad_programs(long map)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		long r = load(bad[i].insns, bad[i].n, map, 1);

		if (!strstr(log_buf, bad[i].log))
			put_str(log_buf);
		put_str("# ");
		put_str(bad[i].name);
		put_str("\n");
		check("refused with its errno", r, bad[i].err);
		check("  and its log line", strstr(log_buf, bad[i].log) != 0, 1);
	}
}

/* A loop that runs past the limit: E2BIG, after exactly a million and one insns walked. */
static void test_too_large(void)
{
	struct bpf_insn p[] = { MOV64_IMM(0, 0), ALU64_IMM(BPF_ADD, 0, 1),
				JMP_IMM(BPF_JNE, 0, 2000000, -2), EXIT };

	check("loop past the complexity limit: E2BIG", load(p, 4, 0, 0), -E2BIG);
}

static void print_result(long r)
{
	put_str("bpf(BPF_PROG_LOAD) = ");
	put_num(r);
	put_str("\n");
}

/* The lab: the loop's result and the verifier's last line (its log, if refused). */
static int lab_loop(void)
{
	long sum = 0, counted = 0, jited = 0, r = run_loop(&sum, &counted, &jited, 1);
	const char *last = strstr(log_buf, "processed ");

	if (r)
		print_result(r);
	put_str("sum of squares 0..30: ");
	put_num(sum);
	put_str("\n");
	put_str(last ? last : log_buf);
	return r != 0;
}

static int lab_deep(void)
{
	long r = load(bad[0].insns, bad[0].n, 0, 1);

	print_result(r);
	put_str(log_buf);
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	long map = results_map();

	if (argc == 2 && !strcmp(argv[1], "loop"))
		return lab_loop();
	if (argc == 2 && !strcmp(argv[1], "deep"))
		return lab_deep();
	if (argc != 2 || strcmp(argv[1], "test")) {
		put_str("usage: bpfcalls test | loop | deep\n");
		return 2;
	}
	test_bad_programs(map);
	test_too_large();
	check("bpf_jit_enable=0", set_jit("0"), 0);
	test_loop("interpreter");
	check("bpf_jit_enable=1", set_jit("1"), 0);
	test_loop("JIT");
	return check_summary();
}
