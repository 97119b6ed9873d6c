/* Self-tests of BPF trampolines: fentry and fexit programs (interpreted and JITed) on a function of
 * this file, its arguments and return value as they see them, the site a direct call while
 * attached and a NOP after; a trampoline rebuilt when one of two programs leaves; refusals. */
#include "kernel/bpf/btf.h"
#include "kernel/bpf/btf_format.h"
#include "kernel/bpf/core.h"
#include "kernel/bpf/maps.h"
#include "kernel/bpf/trampoline.h"
#include "kernel/fs/file.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/selftest.h"
#include "kernel/smp.h"
#include "kernel/trace/ftrace.h"
#include "lib/string.h"

#define INSN(c, d, s, o, i)                                                                        \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define LOG_SIZE 4096
#define SLOTS 10 /* the map value: fentry's args, calls; fexit's args, ret, calls */

/* What the programs trace: out of line, unspecialised, with its __fentry__ site (shared, so
 * that BTF and kallsyms have it). */
u64 bpf_tramp_selftest_target(u64 a, u64 b, u64 c);
u64 bpf_tramp_selftest_notrace(u64 a);
__attribute__((__noinline__)) __attribute__((noipa)) u64 bpf_tramp_selftest_target(u64 a, u64 b,
										   u64 c)
{
	return a * b + c;
}

/* The same without a site: nothing to attach to. */
notrace __attribute__((__noinline__)) __attribute__((noipa)) u64 bpf_tramp_selftest_notrace(u64 a)
{
	return a + 1;
}

static u32 tramp_test_ids = 3U << 29; /* never a loaded program's */

/*
 * value[base + i] = ctx[i] for i < nslots; value[base + nslots] += 1. The loads are the
 * verifier's to allow or refuse: nslots past the function's slots is a refused program.
 */
static u32 gen_prog(struct bpf_insn *p, int map_fd, int base, int nslots)
{
	u32 n = 0;

	p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0);
	p[n++] = INSN(BPF_ST | BPF_W | BPF_MEM, 10, 0, -4, 0);
	p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	p[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -4);
	p[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, map_fd);
	p[n++] = INSN(0, 0, 0, 0, 0);
	p[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	p[n++] = INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2 * nslots + 2, 0);
	for (int i = 0; i < nslots; i++) {
		p[n++] = INSN(BPF_LDX | BPF_DW | BPF_MEM, 1, 6, 8 * i, 0);
		p[n++] = INSN(BPF_STX | BPF_DW | BPF_MEM, 0, 1, 8 * (base + i), 0);
	}
	p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 1);
	p[n++] = INSN(BPF_STX | BPF_DW | BPF_ATOMIC, 0, 1, 8 * (base + nslots), BPF_ADD);
	p[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

/* PROG_LOAD's path for a tracing program: its fd, or -errno with the reason in log_buf. */
static int load_tracing(const struct bpf_insn *insns, u32 len, u32 attach_type, u32 btf_id,
			bool jit, char *log_buf)
{
	union bpf_attr attr = { .prog_type = BPF_PROG_TYPE_TRACING,
				.expected_attach_type = attach_type,
				.attach_btf_id = btf_id };
	struct bpf_verifier_log log = { .buf = log_buf, .size = LOG_SIZE, .level = 1 };
	struct bpf_prog *prog = bpf_prog_alloc(len);
	int err, fd;

	if (!prog)
		return -ENOMEM;
	log_buf[0] = 0;
	memcpy(prog->insnsi, insns, len * sizeof(*insns));
	prog->type = BPF_PROG_TYPE_TRACING;
	prog->expected_attach_type = attach_type;
	prog->refcnt = 1;
	prog->id = ++tramp_test_ids;
	err = bpf_check_attach_target(prog, &attr, &log) ?: bpf_check(prog, &log, true);
	if (err)
		goto free;
	prog->bpf_func = __bpf_prog_run;
	if (jit)
		bpf_int_jit_compile(prog);
	fd = bpf_prog_new_fd(prog);
	if (fd >= 0)
		return fd;
	err = fd;
free:
	bpf_prog_free(prog);
	return err;
}

static u32 func_id(const char *name)
{
	s32 id = btf_find_by_name_kind(btf_vmlinux, name, BTF_KIND_FUNC);

	return id < 0 ? 0 : id;
}

static bool site_direct(unsigned long ip)
{
	struct dyn_ftrace *rec = ftrace_lookup_ip(ip);

	return rec && (rec->flags & FTRACE_FL_ENABLED) && (rec->flags & FTRACE_FL_DIRECT_EN);
}

struct tramp_env {
	int map_fd;
	struct bpf_map *map;
	u64 *v;
	u32 id;
	unsigned long ip;
	char *log;
	struct files_struct *saved; /* the shell's thread has no fds: it borrows the console's */
};

static bool env_init(struct ktest *t, struct tramp_env *e)
{
	union bpf_attr ma = { .map_type = BPF_MAP_TYPE_ARRAY,
			      .key_size = 4,
			      .value_size = 8 * SLOTS,
			      .max_entries = 1 };
	u32 key = 0;

	e->saved = current->files;
	if (!current->files)
		current->files = console_files();
	e->log = kzalloc(LOG_SIZE);
	e->map_fd = bpf_map_create_kernel(&ma);
	e->map = e->map_fd >= 0 ? bpf_map_get(e->map_fd) : NULL;
	e->v = e->map && !IS_ERR(e->map) ? e->map->ops->map_lookup_elem(e->map, &key) : NULL;
	e->id = func_id("bpf_tramp_selftest_target");
	e->ip = (unsigned long)bpf_tramp_selftest_target;
	KT_EXPECT(t, e->id != 0);
	return e->log && e->v && e->id;
}

static void env_fini(struct tramp_env *e)
{
	if (e->map && !IS_ERR(e->map))
		bpf_map_put(e->map);
	if (e->map_fd >= 0)
		close_fd(current->files, e->map_fd);
	kfree(e->log);
	if (!e->saved && current->files) {
		put_files_struct(current->files);
		current->files = NULL;
	}
}

SELFTEST_DYNAMIC(bpf_trampoline_fentry_fexit)
{
	struct tramp_env e = { .map_fd = -1 };
	struct bpf_insn p[40];
	int entry, exit, l1, l2;

	if (!env_init(t, &e))
		goto out;
	entry = load_tracing(p, gen_prog(p, e.map_fd, 0, 3), BPF_TRACE_FENTRY, e.id, false, e.log);
	exit = load_tracing(p, gen_prog(p, e.map_fd, 4, 4), BPF_TRACE_FEXIT, e.id, true, e.log);
	KT_ASSERT(t, entry >= 0 && exit >= 0);
	l1 = bpf_tracing_raw_tp_open(entry);
	l2 = bpf_tracing_raw_tp_open(exit);
	KT_ASSERT(t, l1 >= 0 && l2 >= 0);
	KT_EXPECT(t, site_direct(e.ip));
	KT_EXPECT_EQ(t, bpf_trampoline_links(e.ip), 2);
	KT_EXPECT_EQ(t, bpf_tracing_raw_tp_open(entry), -EBUSY); /* once per trampoline */
	/* through the trampoline, fexit's call of the function included: the caller's answer */
	KT_EXPECT_EQ(t, bpf_tramp_selftest_target(6, 7, 8), 50);
	KT_EXPECT_EQ(t, bpf_tramp_selftest_target(2, 3, 4), 10);
	KT_EXPECT_EQ(t, e.v[0], 2);
	KT_EXPECT_EQ(t, e.v[1], 3);
	KT_EXPECT_EQ(t, e.v[2], 4);
	KT_EXPECT_EQ(t, e.v[3], 2); /* fentry runs */
	KT_EXPECT_EQ(t, e.v[4] + e.v[5] + e.v[6], 9);
	KT_EXPECT_EQ(t, e.v[7], 10); /* fexit saw the return value after the arguments */
	KT_EXPECT_EQ(t, e.v[8], 2);
	/* one leaves: the trampoline is rebuilt with fexit alone, the site moved in one patch */
	close_fd(current->files, l1);
	KT_EXPECT_EQ(t, bpf_trampoline_links(e.ip), 1);
	KT_EXPECT(t, site_direct(e.ip));
	KT_EXPECT_EQ(t, bpf_tramp_selftest_target(1, 1, 1), 2);
	KT_EXPECT_EQ(t, e.v[3], 2);
	KT_EXPECT_EQ(t, e.v[8], 3);
	close_fd(current->files, l2);
	KT_EXPECT_EQ(t, bpf_trampoline_links(e.ip), 0);
	KT_EXPECT(t, !site_direct(e.ip));
	KT_EXPECT_EQ(t, bpf_tramp_selftest_target(1, 1, 1), 2);
	KT_EXPECT_EQ(t, e.v[8], 3);
	close_fd(current->files, entry);
	close_fd(current->files, exit);
out:
	env_fini(&e);
}

SELFTEST_DYNAMIC(bpf_trampoline_refusals)
{
	struct tramp_env e = { .map_fd = -1 };
	struct bpf_insn p[40];
	u32 len;
	int fd;

	if (!env_init(t, &e))
		goto out;
	len = gen_prog(p, e.map_fd, 0, 3);
	KT_EXPECT_EQ(t, load_tracing(p, len, BPF_TRACE_FENTRY, 0, false, e.log), -EINVAL);
	KT_EXPECT_STREQ(t, e.log, "Tracing programs must provide btf_id\n");
	fd = btf_find_by_name_kind(btf_vmlinux, "bpf_prog", BTF_KIND_STRUCT);
	KT_EXPECT_EQ(t, load_tracing(p, len, BPF_TRACE_FENTRY, fd, false, e.log), -EINVAL);
	KT_EXPECT(t, strstr(e.log, "is not a function") != NULL);
	KT_EXPECT_EQ(t, load_tracing(p, len, 99, e.id, false, e.log), -EINVAL);
	/* tp_btf names the typedef btf_trace_<tracepoint>, nothing else */
	KT_EXPECT_EQ(t, load_tracing(p, len, BPF_TRACE_RAW_TP, e.id, false, e.log), -EINVAL);
	KT_EXPECT(t, strstr(e.log, "is not a typedef") != NULL);
	fd = btf_find_by_name_kind(btf_vmlinux, "u64", BTF_KIND_TYPEDEF);
	KT_EXPECT_EQ(t, load_tracing(p, len, BPF_TRACE_RAW_TP, fd, false, e.log), -EINVAL);
	KT_EXPECT(t, strstr(e.log, "points to wrong type name u64") != NULL);
	/* a fourth slot: fentry has three arguments; fexit's fourth is the return, its fifth none */
	len = gen_prog(p, e.map_fd, 0, 4);
	KT_EXPECT_EQ(t, load_tracing(p, len, BPF_TRACE_FENTRY, e.id, false, e.log), -EACCES);
	KT_EXPECT(t, strstr(e.log, "func 'bpf_tramp_selftest_target' doesn't have 4-th argument"));
	len = gen_prog(p, e.map_fd, 0, 5);
	KT_EXPECT_EQ(t, load_tracing(p, len, BPF_TRACE_FEXIT, e.id, false, e.log), -EACCES);
	/* the context is read-only */
	p[8] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 1, 0, 0, 5);
	p[9] = INSN(BPF_STX | BPF_DW | BPF_MEM, 6, 1, 0, 0);
	KT_EXPECT_EQ(t, load_tracing(p, len, BPF_TRACE_FEXIT, e.id, false, e.log), -EACCES);
	KT_EXPECT(t, strstr(e.log, "invalid bpf_context access off=0 size=8") != NULL);
	/* a function without a __fentry__ site loads, and has nothing to attach to */
	len = gen_prog(p, e.map_fd, 0, 1);
	fd = load_tracing(p, len, BPF_TRACE_FENTRY, func_id("bpf_tramp_selftest_notrace"), false,
			  e.log);
	KT_EXPECT(t, fd >= 0);
	if (fd >= 0) {
		KT_EXPECT_EQ(t, bpf_tracing_raw_tp_open(fd), -EBUSY);
		close_fd(current->files, fd);
	}
	KT_EXPECT_EQ(t, bpf_tracing_raw_tp_open(e.map_fd), -EBADF);
	/* LINK_CREATE: the attach type must be the program's own */
	len = gen_prog(p, e.map_fd, 0, 3);
	fd = load_tracing(p, len, BPF_TRACE_FENTRY, e.id, true, e.log);
	KT_EXPECT(t, fd >= 0);
	if (fd >= 0) {
		union bpf_attr la = { .link_create = { .prog_fd = fd,
						       .attach_type = BPF_TRACE_FEXIT } };
		int link;

		KT_EXPECT_EQ(t, bpf_tracing_link_create(&la), -EINVAL);
		la.link_create.attach_type = BPF_TRACE_FENTRY;
		link = bpf_tracing_link_create(&la);
		KT_EXPECT(t, link >= 0 && site_direct(e.ip));
		if (link >= 0)
			close_fd(current->files, link);
		KT_EXPECT(t, !site_direct(e.ip));
		close_fd(current->files, fd);
	}
out:
	env_fini(&e);
}

/* ---- attached and detached while another CPU calls the function ---- */

struct tramp_loop {
	volatile bool stop, done;
	u64 runs, bad; /* answers that are not the function's */
};

static void tramp_caller_loop(void *arg)
{
	struct tramp_loop *s = arg;

	for (u64 i = 1; !s->stop; i++) {
		if (bpf_tramp_selftest_target(i, 3, 1) != 3 * i + 1)
			s->bad++;
		s->runs++;
		cond_resched();
	}
	__atomic_store_n(&s->done, true, __ATOMIC_RELEASE);
}

SELFTEST_DYNAMIC(bpf_trampoline_rebuilt_while_called)
{
	static struct tramp_loop s;
	struct tramp_env e = { .map_fd = -1 };
	struct bpf_insn p[40];
	int entry, exit;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs 2 CPUs");
		return;
	}
	memset(&s, 0, sizeof(s));
	if (!env_init(t, &e))
		goto out;
	entry = load_tracing(p, gen_prog(p, e.map_fd, 0, 3), BPF_TRACE_FENTRY, e.id, true, e.log);
	exit = load_tracing(p, gen_prog(p, e.map_fd, 4, 4), BPF_TRACE_FEXIT, e.id, true, e.log);
	KT_ASSERT(t, entry >= 0 && exit >= 0);
	KT_ASSERT(t, kthread_create(tramp_caller_loop, &s, 1, "tramp-loop") != NULL);
	/* each step moves the site: NOP -> fentry image -> both -> fexit alone -> NOP */
	for (int round = 0; round < 8; round++) {
		int l1 = bpf_tracing_raw_tp_open(entry), l2 = bpf_tracing_raw_tp_open(exit);

		KT_EXPECT(t, l1 >= 0 && l2 >= 0);
		if (l1 >= 0)
			close_fd(current->files, l1);
		if (l2 >= 0)
			close_fd(current->files, l2);
	}
	s.stop = true;
	while (!__atomic_load_n(&s.done, __ATOMIC_ACQUIRE))
		msleep(1);
	KT_EXPECT(t, s.runs > 0);
	KT_EXPECT_EQ(t, s.bad, 0);
	KT_EXPECT_EQ(t, bpf_trampoline_links(e.ip), 0);
	KT_EXPECT(t, !site_direct(e.ip));
	KT_EXPECT(t, e.v[3] <= s.runs && e.v[8] <= s.runs);
	if (e.v[8]) /* the last run fexit saw: the arguments and the return of one call */
		KT_EXPECT_EQ(t, e.v[7], e.v[4] * e.v[5] + e.v[6]);
	close_fd(current->files, entry);
	close_fd(current->files, exit);
out:
	env_fini(&e);
}

/* ---- a call asleep inside the function under fexit when its link closes ---- */

static volatile bool sleeper_in, sleeper_release;

/* What the fexit program traces: it waits (sleeping) until the test lets it return. */
u64 bpf_tramp_selftest_sleeper(u64 a);
__attribute__((__noinline__)) __attribute__((noipa)) u64 bpf_tramp_selftest_sleeper(u64 a)
{
	sleeper_in = true;
	while (!sleeper_release)
		msleep(1);
	return a + 1;
}

struct sleeper_call {
	volatile bool done;
	u64 ret;
};

static void sleeper_thread(void *arg)
{
	struct sleeper_call *c = arg;

	c->ret = bpf_tramp_selftest_sleeper(41);
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
}

SELFTEST_DYNAMIC(bpf_trampoline_fexit_outlives_its_link)
{
	static struct sleeper_call c;
	struct tramp_env e = { .map_fd = -1 };
	unsigned long ip = (unsigned long)bpf_tramp_selftest_sleeper;
	struct bpf_insn p[40];
	int prog, link;

	memset(&c, 0, sizeof(c));
	sleeper_in = sleeper_release = false;
	if (!env_init(t, &e))
		goto out;
	prog = load_tracing(p, gen_prog(p, e.map_fd, 0, 2), BPF_TRACE_FEXIT,
			    func_id("bpf_tramp_selftest_sleeper"), true, e.log);
	KT_ASSERT(t, prog >= 0);
	link = bpf_tracing_raw_tp_open(prog);
	KT_ASSERT(t, link >= 0);
	KT_ASSERT(t, kthread_create(sleeper_thread, &c, smp_processor_id(), "tramp-sleeper"));
	while (!sleeper_in)
		msleep(1);
	/* the sleeper's return address is in the image: closing the link must not free it */
	close_fd(current->files, link);
	close_fd(current->files, prog);
	KT_EXPECT_EQ(t, bpf_trampoline_links(ip), 0);
	KT_EXPECT(t, !site_direct(ip));
	KT_EXPECT_EQ(t, e.v[2], 0);
	sleeper_release = true;
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE))
		msleep(1);
	/* it came back through the old image, whose fexit program (held by the image) still ran */
	KT_EXPECT_EQ(t, c.ret, 42);
	KT_EXPECT_EQ(t, e.v[0], 41);
	KT_EXPECT_EQ(t, e.v[1], 42);
	KT_EXPECT_EQ(t, e.v[2], 1);
out:
	env_fini(&e);
}
