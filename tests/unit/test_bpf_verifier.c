/* Unit tests for the BPF verifier (kernel/bpf/verifier*.c) and interpreter (kernel/bpf/core.c):
 * bounded loops, bounds on map-value indexes, bpf-to-bpf calls and their limits. */
#include "kernel/bpf/verifier.h"
#include "kernel/bpf/maps.h"
#include "arch/x86/traps.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

void *malloc(size_t size);
void free(void *p);

#define INSN(c, d, s, o, i) { .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) }
#define MOV_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ALU_IMM(op, d, i) INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define ALU_REG(op, d, s) INSN(BPF_ALU64 | (op) | BPF_X, d, s, 0, 0)
#define LDX(sz, d, s, o) INSN(BPF_LDX | (sz) | BPF_MEM, d, s, o, 0)
#define STX(sz, d, s, o) INSN(BPF_STX | (sz) | BPF_MEM, d, s, o, 0)
#define ST(sz, d, o, i) INSN(BPF_ST | (sz) | BPF_MEM, d, 0, o, i)
#define JMP_IMM(op, d, i, o) INSN(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JA(o) INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define PCALL(o) INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, o) /* a subprogram at +o+1 */
#define EXIT INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define LD_MAP(d) INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, 1), INSN(0, 0, 0, 0, 0)
/* r0 = the array map's value 0 (256 bytes), or the program returns 0 */
#define VALUE0                                                                                    \
	ST(BPF_W, 10, -4, 0), MOV_REG(2, 10), ALU_IMM(BPF_ADD, 2, -4), LD_MAP(1),                 \
		CALL(BPF_FUNC_map_lookup_elem), JMP_IMM(BPF_JNE, 0, 0, 1), EXIT

/* ---- what the verifier takes from the kernel: one array map, two helpers ---- */

static u8 value0[256];
static const struct bpf_map_ops array_ops;
static struct bpf_map array = { .ops = &array_ops, .map_type = BPF_MAP_TYPE_ARRAY,
				.key_size = 4, .value_size = 256, .max_entries = 1, .refcnt = 1 };

struct bpf_map *bpf_map_get(int ufd)
{
	if (ufd != 1)
		return ERR_PTR(-EBADF);
	array.refcnt++;
	return &array;
}

void bpf_map_put(struct bpf_map *map)
{
	map->refcnt--;
}

void *bpf_array_value_addr(struct bpf_map *map, u32 off)
{
	return value0 + off;
}

void bpf_jit_free(struct bpf_prog *prog)
{
}

static u64 h_lookup(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	return *(u32 *)(unsigned long)r2 ? 0 : (u64)(unsigned long)value0;
}

static u64 h_ktime(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	return 1000;
}

static const struct bpf_func_proto protos[] = {
	[BPF_FUNC_map_lookup_elem] = { .func = h_lookup,
				       .ret_type = RET_PTR_TO_MAP_VALUE_OR_NULL,
				       .arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY } },
	[BPF_FUNC_ktime_get_ns] = { .func = h_ktime },
};

static const struct bpf_func_proto *test_func_proto(enum bpf_func_id id)
{
	return id < ARRAY_SIZE(protos) && protos[id].func ? &protos[id] : NULL;
}

static bool test_valid_access(int off, int size, bool write)
{
	return !write && off >= 0 && off + size <= (int)sizeof(struct pt_regs) && !(off % size);
}

static const struct bpf_verifier_ops test_ops = { .get_func_proto = test_func_proto,
						  .is_valid_access = test_valid_access };

const struct bpf_verifier_ops *bpf_verifier_ops_of(u32 prog_type)
{
	return prog_type == BPF_PROG_TYPE_KPROBE ? &test_ops : NULL;
}

/* ---- loading and running ---- */

static char log_buf[1 << 16];
static u32 processed, log_level = 1;
static bool privileged = true;

/* The verifier's verdict on insns; a program it accepts is run, its r0 in *ret. */
static int check(const struct bpf_insn *insns, u32 n, u64 *ret)
{
	struct bpf_verifier_log log = { .buf = log_buf, .size = sizeof(log_buf), .level = log_level };
	struct bpf_prog *prog = bpf_prog_alloc(n);
	struct pt_regs ctx;
	int err;

	memcpy(prog->insnsi, insns, n * sizeof(*insns));
	prog->type = BPF_PROG_TYPE_KPROBE;
	log_buf[0] = 0;
	err = bpf_check(prog, &log, privileged);
	processed = prog->verified_insns;
	if (!err && ret) {
		memset(&ctx, 0, sizeof(ctx));
		*ret = __bpf_prog_run(&ctx, prog->insnsi);
	}
	bpf_prog_free(prog);
	EXPECT_EQ(array.refcnt, 1);
	return err;
}

#define CHECK(ret, ...)                                                                            \
	({                                                                                         \
		const struct bpf_insn __p[] = { __VA_ARGS__ };                                     \
		check(__p, ARRAY_SIZE(__p), ret);                                                  \
	})

static bool logged(const char *line)
{
	return ktest_check(strstr(log_buf, line) != NULL, __FILE__, __LINE__,
			   "log has \"%s\"; log:\n%s", line, log_buf);
}

/* ---- bounded loops ---- */

KTEST(bpf_verifier_loop_31_steps)
{
	u64 r = 0;

	/* r0 = sum of 0..30 */
	EXPECT_EQ(CHECK(&r, MOV_IMM(0, 0), MOV_IMM(1, 0), ALU_REG(BPF_ADD, 0, 1),
			ALU_IMM(BPF_ADD, 1, 1), JMP_IMM(BPF_JLT, 1, 31, -3), EXIT),
		  0);
	EXPECT_EQ(r, 465);
}

/* What clang -O2 makes of `for (i = 0; i < 31; i++) v[i] += i` over a map value. */
KTEST(bpf_verifier_loop_over_map_value)
{
	u64 r = 1;

	memset(value0, 0, sizeof(value0));
	EXPECT_EQ(CHECK(&r, MOV_IMM(6, 0), VALUE0, LDX(BPF_DW, 1, 0, 0), MOV_REG(2, 6),
			ALU_REG(BPF_ADD, 2, 1), STX(BPF_DW, 0, 2, 0), ALU_IMM(BPF_ADD, 0, 8),
			ALU_IMM(BPF_ADD, 6, 1), JMP_IMM(BPF_JNE, 6, 31, -7), MOV_IMM(0, 0), EXIT),
		  0);
	EXPECT_EQ(r, 0);
	EXPECT_EQ(((u64 *)value0)[30], 30);
}

/* A branch in the body on what was read: without liveness each iteration doubles the paths. */
KTEST(bpf_verifier_loop_with_branch_prunes)
{
	u64 r = 1;

	memset(value0, 0, sizeof(value0));
	value0[8] = 7;
	EXPECT_EQ(CHECK(&r, MOV_IMM(6, 0), MOV_IMM(7, 0), VALUE0, LDX(BPF_B, 1, 0, 0),
			JMP_IMM(BPF_JLT, 1, 5, 1), ALU_IMM(BPF_ADD, 7, 1), ALU_IMM(BPF_ADD, 0, 1),
			ALU_IMM(BPF_ADD, 6, 1), JMP_IMM(BPF_JNE, 6, 31, -6), MOV_REG(0, 7), EXIT),
		  0);
	EXPECT_EQ(r, 1);
	EXPECT_TRUE(processed < 2000);
}

/* A loop whose end the walk never reaches is stopped by the complexity limit, Linux's 1M. */
#define TOO_LONG MOV_IMM(0, 0), ALU_IMM(BPF_ADD, 0, 1), JMP_IMM(BPF_JNE, 0, 2000000, -2), EXIT

KTEST(bpf_verifier_loop_too_long)
{
	/* the log of a million insns would not fit: without one, then with a lower limit */
	log_level = 0;
	EXPECT_EQ(CHECK(NULL, TOO_LONG), -E2BIG);
	EXPECT_EQ(processed, 1000001);
	log_level = 1;
	bpf_complexity_limit = 1000;
	EXPECT_EQ(CHECK(NULL, TOO_LONG), -E2BIG);
	bpf_complexity_limit = BPF_COMPLEXITY_LIMIT_INSNS;
	logged("BPF program is too large. Processed 1001 insn");
}

/* A loop that never changes its state is found at once. */
KTEST(bpf_verifier_loop_infinite)
{
	EXPECT_EQ(CHECK(NULL, MOV_IMM(0, 0), ALU_IMM(BPF_AND, 0, 1), JMP_IMM(BPF_JLT, 0, 2, -2),
			EXIT),
		  -EINVAL);
	logged("infinite loop detected at insn 1");
}

/* ---- bounds of an index into a map value ---- */

/* r1 = a byte of the value (0..255), then bounded by a check or a mask, then used as an index */
#define INDEX(...)                                                                                 \
	VALUE0, LDX(BPF_B, 1, 0, 0), __VA_ARGS__, ALU_REG(BPF_ADD, 0, 1), LDX(BPF_DW, 0, 0, 0), EXIT

KTEST(bpf_verifier_bounded_index)
{
	u64 r = 0;

	memset(value0, 0, sizeof(value0));
	value0[0] = 8;
	value0[8] = 42;
	/* if (r1 > 248) return; 248 + 8 = 256: every byte in the value */
	EXPECT_EQ(CHECK(&r, INDEX(JMP_IMM(BPF_JLE, 1, 248, 2), MOV_IMM(0, 0), EXIT)), 0);
	EXPECT_EQ(r, 42);
	/* r1 &= 0xf8 */
	EXPECT_EQ(CHECK(&r, INDEX(ALU_IMM(BPF_AND, 1, 0xf8))), 0);
	EXPECT_EQ(r, 42);
	/* one more is one byte past the end */
	EXPECT_EQ(CHECK(NULL, INDEX(JMP_IMM(BPF_JLE, 1, 249, 2), MOV_IMM(0, 0), EXIT)), -EACCES);
	logged("invalid access to map value, value_size=256 off=249 size=8");
	/* signed bound only: negative indexes stay possible */
	EXPECT_EQ(CHECK(NULL, VALUE0, LDX(BPF_DW, 1, 0, 0), JMP_IMM(BPF_JSGT, 1, 248, 2),
			ALU_REG(BPF_ADD, 0, 1), LDX(BPF_DW, 0, 0, 0), EXIT),
		  -EACCES);
	logged("R0 min value is negative, either use unsigned index or do a if (index >=0) check.");
}

KTEST(bpf_verifier_unbounded_index)
{
	/* a u64 from the map, halved so that it is not negative, as the index */
	EXPECT_EQ(CHECK(NULL, VALUE0, LDX(BPF_DW, 1, 0, 0), ALU_IMM(BPF_RSH, 1, 1),
			ALU_REG(BPF_ADD, 0, 1), LDX(BPF_DW, 0, 0, 0), EXIT),
		  -EACCES);
	logged("R0 unbounded memory access, make sure to bounds check any such access");
	/* the map value added to the index in r1 */
	EXPECT_EQ(CHECK(NULL, VALUE0, LDX(BPF_DW, 1, 0, 0), ALU_IMM(BPF_RSH, 1, 1),
			ALU_REG(BPF_ADD, 1, 0), LDX(BPF_DW, 0, 1, 0), EXIT),
		  -EACCES);
	logged("R1 unbounded memory access, make sure to bounds check any such access");
}

/* ---- bpf-to-bpf calls ---- */

KTEST(bpf_verifier_call_args_and_saved_regs)
{
	u64 r = 0;

	/* main: r6 = 100; r0 = f(5, 7); r0 += r6   f: r6 = 1; r0 = r1 + r2 */
	EXPECT_EQ(CHECK(&r, MOV_IMM(6, 100), MOV_IMM(1, 5), MOV_IMM(2, 7), PCALL(2),
			ALU_REG(BPF_ADD, 0, 6), EXIT, MOV_IMM(6, 1), MOV_REG(0, 1),
			ALU_REG(BPF_ADD, 0, 2), EXIT),
		  0);
	EXPECT_EQ(r, 112);
	/* after the call R1-R5 are gone */
	EXPECT_EQ(CHECK(NULL, MOV_IMM(1, 5), PCALL(2), MOV_REG(0, 1), EXIT, MOV_IMM(0, 0), EXIT),
		  -EACCES);
	logged("R1 !read_ok");
	/* the callee sees no more than R1-R5 */
	EXPECT_EQ(CHECK(NULL, MOV_IMM(6, 5), PCALL(1), EXIT, MOV_REG(0, 6), EXIT), -EACCES);
	logged("R6 !read_ok");
}

KTEST(bpf_verifier_call_caller_stack)
{
	u64 r = 0;

	/* main: fp-8 = 9; r0 = f(fp-8) + fp-8   f: fp-16 = *r1 * 2; *r1 = 3; r0 = fp-16 */
	EXPECT_EQ(CHECK(&r, ST(BPF_DW, 10, -8, 9), MOV_REG(1, 10), ALU_IMM(BPF_ADD, 1, -8),
			PCALL(3), LDX(BPF_DW, 1, 10, -8), ALU_REG(BPF_ADD, 0, 1), EXIT,
			LDX(BPF_DW, 2, 1, 0), ALU_IMM(BPF_MUL, 2, 2), STX(BPF_DW, 10, 2, -16),
			ST(BPF_DW, 1, 0, 3), LDX(BPF_DW, 0, 10, -16), EXIT),
		  0);
	EXPECT_EQ(r, 21);
	/* the callee's own stack is not its caller's */
	EXPECT_EQ(CHECK(NULL, ST(BPF_DW, 10, -8, 9), PCALL(1), EXIT, LDX(BPF_DW, 0, 10, -8), EXIT),
		  -EACCES);
	logged("invalid read from stack off -8+0 size 8");
	/* nor may its frame outlive it */
	EXPECT_EQ(CHECK(NULL, PCALL(1), EXIT, MOV_REG(0, 10), EXIT), -EINVAL);
	logged("cannot return stack pointer to the caller");
}

KTEST(bpf_verifier_call_in_loop)
{
	u64 r = 0;

	/* for (r6 = 0, r7 = 0; r6 < 31; r6++) r7 += f(r6)   f: r0 = r1 * 2 */
	EXPECT_EQ(CHECK(&r, MOV_IMM(6, 0), MOV_IMM(7, 0), MOV_REG(1, 6), PCALL(5),
			ALU_REG(BPF_ADD, 7, 0), ALU_IMM(BPF_ADD, 6, 1), JMP_IMM(BPF_JLT, 6, 31, -5),
			MOV_REG(0, 7), EXIT, MOV_REG(0, 1), ALU_IMM(BPF_MUL, 0, 2), EXIT),
		  0);
	EXPECT_EQ(r, 930);
}

/* n frames: main and n - 1 functions each calling the next; the last returns 4 */
static int call_chain(int n, u64 *r)
{
	struct bpf_insn p[2 * MAX_CALL_FRAMES + 4], call = PCALL(1), exit = EXIT,
						    mov = MOV_IMM(0, 4);
	int len = 0;

	for (int i = 0; i < n - 1; i++) {
		p[len++] = call;
		p[len++] = exit;
	}
	p[len++] = mov;
	p[len++] = exit;
	return check(p, len, r);
}

KTEST(bpf_verifier_call_depth)
{
	u64 r = 0;

	EXPECT_EQ(call_chain(MAX_CALL_FRAMES, &r), 0);
	EXPECT_EQ(r, 4);
	EXPECT_EQ(call_chain(MAX_CALL_FRAMES + 1, NULL), -E2BIG);
	logged("the call stack of 9 frames is too deep");
}

KTEST(bpf_verifier_call_combined_stack)
{
	u64 r = 0;

	/* 256 + 256: all of it */
	EXPECT_EQ(CHECK(&r, ST(BPF_DW, 10, -256, 1), PCALL(2), LDX(BPF_DW, 0, 10, -256), EXIT,
			ST(BPF_DW, 10, -256, 2), LDX(BPF_DW, 0, 10, -256), EXIT),
		  0);
	EXPECT_EQ(r, 1);
	/* 256 + 288 (264 rounded up to 32) */
	EXPECT_EQ(CHECK(NULL, ST(BPF_DW, 10, -256, 1), PCALL(2), LDX(BPF_DW, 0, 10, -256), EXIT,
			ST(BPF_DW, 10, -264, 2), LDX(BPF_DW, 0, 10, -264), EXIT),
		  -EACCES);
	logged("combined stack size of 2 calls is 544. Too large");
}

KTEST(bpf_verifier_call_refused)
{
	/* a function calling itself */
	EXPECT_EQ(CHECK(NULL, PCALL(1), EXIT, PCALL(-1), EXIT), -EINVAL);
	logged("back-edge from insn 2 to 2");
	/* a jump from main into a function */
	EXPECT_EQ(CHECK(NULL, MOV_IMM(0, 0), JA(2), PCALL(1), EXIT, EXIT), -EINVAL);
	logged("jump out of range from insn 1 to 4");
	EXPECT_EQ(CHECK(NULL, PCALL(5), EXIT), -EINVAL);
	logged("call to invalid destination");
	EXPECT_EQ(CHECK(NULL, PCALL(1), EXIT, MOV_IMM(0, 0)), -EINVAL);
	logged("last insn is not an exit or jmp");
	/* code after main's exit that no call reaches */
	EXPECT_EQ(CHECK(NULL, PCALL(1), EXIT, MOV_IMM(0, 0), EXIT, MOV_IMM(0, 1), EXIT), -EINVAL);
	logged("unreachable insn 4");
	privileged = false;
	EXPECT_EQ(CHECK(NULL, PCALL(1), EXIT, MOV_IMM(0, 0), EXIT), -EPERM);
	privileged = true;
	logged("loading/calling other bpf or kernel functions are allowed for CAP_BPF and CAP_SYS_ADMIN");
}
