/* Self-tests of bpf_tail_call() through a BPF_MAP_TYPE_PROG_ARRAY, interpreted and JITed: the
 * 33-call limit, falling through on a bad index or an empty slot, a refused mix of program types,
 * a slot replaced again and again while another CPU runs the caller in a loop, and tail calls
 * made inside bpf-to-bpf callees with the stack limit that comes with them. */
#include "kernel/bpf/core.h"
#include "kernel/bpf/maps.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "arch/x86/traps.h"
#include "lib/string.h"

#define INSN(c, d, s, o, i)                                                                        \
	{                                                                                          \
		.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)                \
	}
#define MOV_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define LD_MAP(d, fd)                                                                              \
	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), INSN(0, 0, 0, 0, 0)
#define CALL(id) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id)
#define EXIT INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* the map fds, put in when a program is loaded */
#define PROG_ARRAY 0x7ff0
#define COUNTER 0x7ff1
#define LOG_SIZE 4096

struct tc_maps {
	int array_fd, counter_fd;
	struct bpf_map *array, *counter;
};

static u32 test_ids = 1U << 30; /* never a loaded program's */

/* Loads insns as a kprobe program (JITed if jit) and gives its fd, or -errno; log has why. */
static int load(const struct bpf_insn *insns, u32 len, const struct tc_maps *m, bool jit,
		char *log_buf)
{
	struct bpf_verifier_log log = { .buf = log_buf, .size = LOG_SIZE, .level = 1 };
	struct bpf_prog *prog = bpf_prog_alloc(len);
	int err, fd;

	if (!prog)
		return -ENOMEM;
	log_buf[0] = 0;
	memcpy(prog->insnsi, insns, len * sizeof(*insns));
	for (u32 i = 0; i < len; i++)
		if (prog->insnsi[i].imm == PROG_ARRAY || prog->insnsi[i].imm == COUNTER)
			prog->insnsi[i].imm =
				prog->insnsi[i].imm == PROG_ARRAY ? m->array_fd : m->counter_fd;
	prog->type = BPF_PROG_TYPE_KPROBE;
	prog->refcnt = 1;
	prog->id = ++test_ids;
	err = bpf_check(prog, &log, true);
	if (err)
		goto free;
	prog->bpf_func = __bpf_prog_run;
	if (jit)
		bpf_int_jit_compile(prog);
	err = -EINVAL;
	for (u32 i = 0; i < prog->used_map_cnt; i++)
		if (!bpf_prog_map_compatible(prog->used_maps[i], prog))
			goto free;
	fd = bpf_prog_new_fd(prog);
	if (fd >= 0)
		return fd;
	err = fd;
free:
	bpf_prog_free(prog);
	return err;
}

/* counter[0] += 1; bpf_tail_call(ctx, prog_array, index); return 7 */
static const struct bpf_insn counting[] = {
	MOV_REG(6, 1),
	INSN(BPF_ST | BPF_W | BPF_MEM, 10, 0, -4, 0),
	MOV_REG(2, 10),
	INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
	LD_MAP(1, COUNTER),
	CALL(BPF_FUNC_map_lookup_elem),
	INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
	MOV_IMM(1, 1),
	INSN(BPF_STX | BPF_DW | BPF_ATOMIC, 0, 1, 0, BPF_ADD),
	MOV_REG(1, 6),
	LD_MAP(2, PROG_ARRAY),
	MOV_IMM(3, 0), /* the index: slot 0, or what tail_to() puts here */
	CALL(BPF_FUNC_tail_call),
	MOV_IMM(0, 7),
	EXIT,
};
#define INDEX_INSN 13

/* count to 2000, then return ret: long enough that the other CPU is often inside it at a swap */
static int load_ret(const struct tc_maps *m, bool jit, s32 ret, char *log)
{
	struct bpf_insn p[] = { MOV_IMM(0, 0), INSN(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 0, 1),
				INSN(BPF_JMP | BPF_JLT | BPF_K, 0, 0, -2, 2000), MOV_IMM(0, ret),
				EXIT };

	return load(p, ARRAY_SIZE(p), m, jit, log);
}

/* The counting program with a tail call into slot index. */
static int load_tail_to(const struct tc_maps *m, bool jit, s32 index, char *log)
{
	struct bpf_insn p[ARRAY_SIZE(counting)];

	memcpy(p, counting, sizeof(p));
	p[INDEX_INSN].imm = index;
	return load(p, ARRAY_SIZE(p), m, jit, log);
}

static u64 counter_value(const struct tc_maps *m)
{
	u32 key = 0;
	u64 *v = m->counter->ops->map_lookup_elem(m->counter, &key);

	return v ? __atomic_exchange_n(v, 0, __ATOMIC_RELAXED) : ~0ULL;
}

static u64 run_fd(int fd)
{
	struct bpf_prog *prog = bpf_prog_get(fd);
	struct pt_regs regs;
	u64 r;

	if (IS_ERR(prog))
		return ~0ULL;
	memset(&regs, 0, sizeof(regs));
	preempt_disable();
	r = bpf_prog_run(prog, &regs);
	preempt_enable_no_resched();
	bpf_prog_put(prog);
	return r;
}

static int set_slot(const struct tc_maps *m, u32 index, int prog_fd)
{
	return bpf_map_update_value(m->array, &index, &prog_fd, BPF_ANY);
}

static int make_maps(struct tc_maps *m)
{
	union bpf_attr pa = { .map_type = BPF_MAP_TYPE_PROG_ARRAY,
			      .key_size = 4,
			      .value_size = 4,
			      .max_entries = 4 };
	union bpf_attr ca = {
		.map_type = BPF_MAP_TYPE_ARRAY, .key_size = 4, .value_size = 8, .max_entries = 1
	};

	m->array_fd = bpf_map_create_kernel(&pa);
	m->counter_fd = bpf_map_create_kernel(&ca);
	if (m->array_fd < 0 || m->counter_fd < 0)
		return -1;
	m->array = bpf_map_get(m->array_fd);
	m->counter = bpf_map_get(m->counter_fd);
	return IS_ERR(m->array) || IS_ERR(m->counter) ? -1 : 0;
}

static void drop_maps(struct tc_maps *m)
{
	if (!m->array && !IS_ERR(m->array))
		bpf_map_put(m->array);
	if (!m->counter && !IS_ERR(m->counter))
		bpf_map_put(m->counter);
	close_fd(current->files, m->array_fd);
	close_fd(current->files, m->counter_fd);
}

static void check_runtime(struct ktest *t, bool jit)
{
	struct tc_maps m = { 0 };
	static char log[LOG_SIZE];
	int self, bad, empty, ret42, other, key = 0;
	u32 id;

	KT_ASSERT(t, make_maps(&m) == 0);
	self = load_tail_to(&m, jit, 0, log);
	bad = load_tail_to(&m, jit, 4, log); /* max_entries is 4 */
	empty = load_tail_to(&m, jit, 2, log);
	ret42 = load_ret(&m, jit, 42, log);
	KT_ASSERT(t, self >= 0 && bad >= 0 && empty >= 0 && ret42 >= 0);
	KT_EXPECT_EQ(t, set_slot(&m, 0, self), 0);
	/* the first run, then 33 tail calls into itself, the 34th falls through */
	KT_EXPECT_EQ(t, run_fd(self), 7);
	KT_EXPECT_EQ(t, counter_value(&m), 1 + MAX_TAIL_CALL_CNT);
	KT_EXPECT_EQ(t, run_fd(bad), 7);
	KT_EXPECT_EQ(t, counter_value(&m), 1);
	KT_EXPECT_EQ(t, run_fd(empty), 7);
	KT_EXPECT_EQ(t, counter_value(&m), 1);
	KT_EXPECT_EQ(t, set_slot(&m, 2, ret42), 0);
	KT_EXPECT_EQ(t, run_fd(empty), 42);
	KT_EXPECT_EQ(t, counter_value(&m), 1);
	/* bpf(2)'s lookup gives the id; the map is the JIT's or the interpreter's alone */
	KT_EXPECT_EQ(t, bpf_map_copy_value(m.array, &key, &id), 0);
	KT_EXPECT_EQ(t, id, bpf_prog_get(self)->id);
	bpf_prog_put(bpf_prog_get(self));
	other = load_ret(&m, !jit, 1, log);
	KT_EXPECT(t, other < 0 || set_slot(&m, 1, other) == -EINVAL);
	if (other >= 0)
		close_fd(current->files, other);
	KT_EXPECT_EQ(t, set_slot(&m, 1, 12345), -EBADF);
	key = 4;
	KT_EXPECT_EQ(t, set_slot(&m, 4, ret42), -E2BIG);
	key = 1;
	KT_EXPECT_EQ(t, m.array->ops->map_delete_elem(m.array, &key), -ENOENT);
	key = 2;
	KT_EXPECT_EQ(t, m.array->ops->map_delete_elem(m.array, &key), 0);
	KT_EXPECT_EQ(t, run_fd(empty), 7);
	key = 0; /* self in its own slot holds the map: empty it, or neither ever goes */
	KT_EXPECT_EQ(t, m.array->ops->map_delete_elem(m.array, &key), 0);
	close_fd(current->files, self);
	close_fd(current->files, bad);
	close_fd(current->files, empty);
	close_fd(current->files, ret42);
	drop_maps(&m);
}

static struct files_struct *test_files(void)
{
	if (!current->files)
		current->files = console_files();
	return current->files;
}

static void put_test_files(struct files_struct *saved)
{
	if (!saved && current->files) {
		put_files_struct(current->files);
		current->files = NULL;
	}
}

SELFTEST(bpf_tail_call_limit_and_fall_through)
{
	struct files_struct *saved = current->files;

	KT_ASSERT(t, test_files() != NULL);
	check_runtime(t, false);
	check_runtime(t, true);
	put_test_files(saved);
}

/* ---- a slot replaced while another CPU runs the caller ---- */

struct loop_state {
	struct bpf_prog *caller;
	volatile bool stop, done;
	u64 runs, bad; /* results neither program's */
};

static void caller_loop(void *arg)
{
	struct loop_state *s = arg;
	struct pt_regs regs;

	memset(&regs, 0, sizeof(regs));
	while (!s->stop) {
		u64 r;

		preempt_disable();
		r = bpf_prog_run(s->caller, &regs);
		preempt_enable_no_resched();
		s->runs++;
		if (r != 100 && r != 200)
			s->bad++;
		cond_resched();
	}
	__atomic_store_n(&s->done, true, __ATOMIC_RELEASE);
}

static void check_replace(struct ktest *t, bool jit)
{
	static struct loop_state s;
	struct tc_maps m = { 0 };
	static char log[LOG_SIZE];
	int caller, first;

	memset(&s, 0, sizeof(s));
	KT_ASSERT(t, make_maps(&m) == 0);
	caller = load_tail_to(&m, jit, 1, log);
	first = load_ret(&m, jit, 100, log);
	KT_ASSERT(t, caller >= 0 && first >= 0);
	KT_EXPECT_EQ(t, set_slot(&m, 1, first), 0);
	close_fd(current->files, first); /* the slot holds the only reference now */
	s.caller = bpf_prog_get(caller);
	KT_ASSERT(t, kthread_create(caller_loop, &s, 1, "tailcall-loop") != NULL);
	/* each new program is the slot's alone: the one it replaces is freed (its JIT image filled
	 * with int3) as soon as the update decides no CPU can be inside it */
	for (int round = 0; round < 20; round++) {
		int fd = load_ret(&m, jit, round % 2 ? 100 : 200, log);

		KT_EXPECT(t, fd >= 0);
		if (fd < 0)
			break;
		KT_EXPECT_EQ(t, set_slot(&m, 1, fd), 0);
		close_fd(current->files, fd);
	}
	s.stop = true;
	while (!__atomic_load_n(&s.done, __ATOMIC_ACQUIRE))
		msleep(1);
	KT_EXPECT(t, s.runs > 0);
	KT_EXPECT_EQ(t, s.bad, 0);
	bpf_prog_put(s.caller);
	close_fd(current->files, caller);
	drop_maps(&m);
}

SELFTEST(bpf_tail_call_slot_replaced_while_running)
{
	struct files_struct *saved = current->files;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	KT_ASSERT(t, test_files() != NULL);
	check_replace(t, false);
	check_replace(t, true);
	put_test_files(saved);
}

/* The verifier's refusals, each with Linux's log line. */
SELFTEST(bpf_tail_call_refused)
{
	struct files_struct *saved = current->files;
	struct tc_maps m = { 0 };
	static char log[LOG_SIZE];
	/* a lookup in a prog array */
	struct bpf_insn lookup[] = {
		INSN(BPF_ST | BPF_W | BPF_MEM, 10, 0, -4, 0),
		MOV_REG(2, 10),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
		LD_MAP(1, PROG_ARRAY),
		CALL(BPF_FUNC_map_lookup_elem),
		MOV_IMM(0, 0),
		EXIT,
	};
	/* a tail call through an array map */
	struct bpf_insn not_prog_array[] = {
		LD_MAP(2, COUNTER), MOV_IMM(3, 0), CALL(BPF_FUNC_tail_call), MOV_IMM(0, 0), EXIT,
	};
	/* the context is not R1 */
	struct bpf_insn no_ctx[] = {
		MOV_IMM(1, 0), LD_MAP(2, PROG_ARRAY),
		MOV_IMM(3, 0), CALL(BPF_FUNC_tail_call),
		MOV_IMM(0, 0), EXIT,
	};

	KT_ASSERT(t, test_files() != NULL);
	KT_ASSERT(t, make_maps(&m) == 0);
	KT_EXPECT_EQ(t, load(lookup, ARRAY_SIZE(lookup), &m, false, log), -EINVAL);
	KT_EXPECT(t, strstr(log, "cannot pass map_type 3 into func bpf_map_lookup_elem#1"));
	KT_EXPECT_EQ(t, load(not_prog_array, ARRAY_SIZE(not_prog_array), &m, false, log), -EINVAL);
	KT_EXPECT(t, strstr(log, "cannot pass map_type 2 into func bpf_tail_call#12"));
	KT_EXPECT_EQ(t, load(no_ctx, ARRAY_SIZE(no_ctx), &m, false, log), -EACCES);
	KT_EXPECT(t, strstr(log, "R1 type=scalar expected=ctx"));
	drop_maps(&m);
	put_test_files(saved);
}

/* main: r0 = callee(ctx) + 100; the callee: bpf_tail_call(ctx, prog_array, 0); return 7 */
static const struct bpf_insn call_then_tail[] = {
	INSN(BPF_ST | BPF_DW | BPF_MEM, 10, 0, -8, 0),
	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 2),
	INSN(BPF_ALU64 | BPF_ADD | BPF_K, 0, 0, 0, 100),
	EXIT,
	LD_MAP(2, PROG_ARRAY),
	MOV_IMM(3, 0),
	CALL(BPF_FUNC_tail_call),
	MOV_IMM(0, 7),
	EXIT,
};

/* counter[0] += 1; return callee(ctx), the callee tail-calling slot 0 (this program again) */
static const struct bpf_insn count_then_call[] = {
	MOV_REG(6, 1),
	INSN(BPF_ST | BPF_W | BPF_MEM, 10, 0, -4, 0),
	MOV_REG(2, 10),
	INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4),
	LD_MAP(1, COUNTER),
	CALL(BPF_FUNC_map_lookup_elem),
	INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2, 0),
	MOV_IMM(1, 1),
	INSN(BPF_STX | BPF_DW | BPF_ATOMIC, 0, 1, 0, BPF_ADD),
	MOV_REG(1, 6),
	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, 1),
	EXIT,
	LD_MAP(2, PROG_ARRAY),
	MOV_IMM(3, 0),
	CALL(BPF_FUNC_tail_call),
	MOV_IMM(0, 7),
	EXIT,
};

static void check_mix(struct ktest *t, bool jit)
{
	struct tc_maps m = { 0 };
	static char log[LOG_SIZE];
	int mix, ret42, chain, key = 0;

	KT_ASSERT(t, make_maps(&m) == 0);
	mix = load(call_then_tail, ARRAY_SIZE(call_then_tail), &m, jit, log);
	ret42 = load_ret(&m, jit, 42, log);
	chain = load(count_then_call, ARRAY_SIZE(count_then_call), &m, jit, log);
	KT_ASSERT(t, mix >= 0 && ret42 >= 0 && chain >= 0);
	KT_EXPECT_EQ(t, bpf_prog_get(mix)->jited, jit);
	bpf_prog_put(bpf_prog_get(mix));
	/* an empty slot: the callee goes on and returns 7 to main */
	KT_EXPECT_EQ(t, run_fd(mix), 107);
	/* the target replaces the callee: its 42 is what main gets back */
	KT_EXPECT_EQ(t, set_slot(&m, 0, ret42), 0);
	KT_EXPECT_EQ(t, run_fd(mix), 142);
	/*
	 * Each callee tail-calls the whole program again, under its caller's frame. The JIT carries
	 * the count through the calls, so the run stops at MAX_TAIL_CALL_CNT as a flat chain does;
	 * the interpreter gives each such target a fresh stack window and stops after
	 * BPF_TAIL_CALL_WINDOWS (4) of them (kernel/bpf/core.c: tail_call_window()).
	 */
	KT_EXPECT_EQ(t, set_slot(&m, 0, chain), 0);
	KT_EXPECT_EQ(t, run_fd(chain), 7);
	KT_EXPECT_EQ(t, counter_value(&m), jit ? 1 + MAX_TAIL_CALL_CNT : 1 + 4);
	KT_EXPECT_EQ(t, m.array->ops->map_delete_elem(m.array, &key), 0);
	close_fd(current->files, mix);
	close_fd(current->files, ret42);
	close_fd(current->files, chain);
	drop_maps(&m);
}

SELFTEST(bpf_tail_call_from_callee)
{
	struct files_struct *saved = current->files;

	KT_ASSERT(t, test_files() != NULL);
	check_mix(t, false);
	check_mix(t, true);
	put_test_files(saved);
}

/*
 * The frames above a callee that tail-calls must stay under 256 bytes (Linux's
 * check_max_stack_depth()): a main frame of 224 bytes passes, one of 256 is refused with EACCES.
 */
SELFTEST(bpf_tail_call_from_callee_stack_limit)
{
	struct files_struct *saved = current->files;
	struct tc_maps m = { 0 };
	static char log[LOG_SIZE];
	struct bpf_insn p[ARRAY_SIZE(call_then_tail)];
	int fd;

	KT_ASSERT(t, test_files() != NULL);
	KT_ASSERT(t, make_maps(&m) == 0);
	memcpy(p, call_then_tail, sizeof(p));
	p[0].off = -224;
	fd = load(p, ARRAY_SIZE(p), &m, true, log);
	KT_EXPECT(t, fd >= 0);
	if (fd >= 0)
		close_fd(current->files, fd);
	p[0].off = -256;
	KT_EXPECT_EQ(t, load(p, ARRAY_SIZE(p), &m, true, log), -EACCES);
	KT_EXPECT(t, strstr(log, "tail_calls are not allowed when call stack of previous frames is "
				 "256 bytes. Too large"));
	KT_EXPECT_EQ(t, load(p, ARRAY_SIZE(p), &m, false, log), -EACCES);
	drop_maps(&m);
	put_test_files(saved);
}
