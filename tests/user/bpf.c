/*
 * bpf: bpf(2) from a program, raw, as libbpf would call it: maps, the verifier refusing a corpus
 * of bad programs (each with its errno and log line), good programs attached to raw tracepoints
 * and run (interpreted, then JITed), and what a user without privilege gets. One check a line,
 * "PASS n/m" last (tests/integration/test_bpf.py runs it).
 */
#include "bpf_sys.h"

enum { NR_setresuid = 117, NR_setresgid = 119 };

static char log_buf[65536];

/* Loads n instructions (MAPFD patched to map_fd) with a log at level in log_buf. */
static long load(int type, struct bpf_insn *insns, int n, long map_fd, int level)
{
	return bpf_prog_load_log(type, insns, n, map_fd, 0, level, log_buf, sizeof(log_buf));
}

struct bad_prog {
	const char *name;
	int type;
	long err;
	const char *log;
	int n;
	struct bpf_insn insns[16];
};

#define N(...)                                                                                     \
	sizeof((struct bpf_insn[]){ __VA_ARGS__ }) / sizeof(struct bpf_insn),                      \
	{                                                                                          \
		__VA_ARGS__                                                                        \
	}
#define K BPF_PROG_TYPE_KPROBE
#define TP BPF_PROG_TYPE_TRACEPOINT
/* r2 = fp - 8 with *(u32 *)(fp - 8) = 0: a key for the array map */
#define KEY0 ST(BPF_W, 10, -8, 0), MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -8)

static struct bad_prog bad[] = {
	{ "uninitialised register", K, -EACCES, "R2 !read_ok", N(MOV64_REG(0, 2), EXIT) },
	{ "R0 not set at exit", K, -EACCES, "R0 !read_ok", N(EXIT) },
	{ "stack write below 512", K, -EACCES, "invalid write to stack R10 off=-520 size=8",
	  N(ST(BPF_DW, 10, -520, 0), MOV64_IMM(0, 0), EXIT) },
	{ "stack write above fp", K, -EACCES, "invalid write to stack R10 off=0 size=8",
	  N(ST(BPF_DW, 10, 0, 0), MOV64_IMM(0, 0), EXIT) },
	{ "uninitialised stack read", K, -EACCES, "invalid read from stack off -8+0 size 8",
	  N(LDX(BPF_DW, 0, 10, -8), EXIT) },
	{ "misaligned stack access", K, -EACCES,
	  "misaligned stack access off (0x0; 0x0)+0+-6 size 4",
	  N(ST(BPF_W, 10, -6, 0), MOV64_IMM(0, 0), EXIT) },
	{ "scalar dereference", K, -EACCES, "R1 invalid mem access 'scalar'",
	  N(MOV64_IMM(1, 0), LDX(BPF_DW, 0, 1, 0), EXIT) },
	{ "map value read out of bounds", K, -EACCES,
	  "invalid access to map value, value_size=8 off=8 size=8",
	  N(KEY0, LD_MAP(1), CALL(BPF_FUNC_map_lookup_elem), JMP_IMM(BPF_JEQ, 0, 0, 1),
	    LDX(BPF_DW, 0, 0, 8), EXIT) },
	{ "map value without NULL check", K, -EACCES, "R0 invalid mem access 'map_value_or_null'",
	  N(KEY0, LD_MAP(1), CALL(BPF_FUNC_map_lookup_elem), LDX(BPF_DW, 0, 0, 0), EXIT) },
	{ "unbounded map index", K, -EACCES,
	  "R0 unbounded memory access, make sure to bounds check any such access",
	  N(KEY0, LD_MAP(1), CALL(BPF_FUNC_map_lookup_elem), JMP_IMM(BPF_JEQ, 0, 0, 4),
	    LDX(BPF_DW, 1, 0, 0), ALU64_IMM(BPF_RSH, 1, 1), ALU64_REG(BPF_ADD, 0, 1),
	    LDX(BPF_B, 0, 0, 0), EXIT) },
	{ "negative map index", K, -EACCES, "R0 min value is negative",
	  N(KEY0, LD_MAP(1), CALL(BPF_FUNC_map_lookup_elem), JMP_IMM(BPF_JEQ, 0, 0, 5),
	    LDX(BPF_DW, 1, 0, 0), JMP_IMM(BPF_JGT, 1, 7, 3), ALU64_IMM(BPF_SUB, 1, 4),
	    ALU64_REG(BPF_ADD, 0, 1), LDX(BPF_B, 0, 0, 0), MOV64_IMM(0, 0), EXIT) },
	{ "pointer arithmetic on a map pointer", K, -EACCES,
	  "R1 pointer arithmetic on map_ptr prohibited",
	  N(LD_MAP(1), ALU64_IMM(BPF_ADD, 1, 8), MOV64_IMM(0, 0), EXIT) },
	{ "infinite loop", K, -EINVAL, "infinite loop detected at insn 1",
	  N(MOV64_IMM(0, 0), JA(-1)) },
	{ "helper given a scalar for its map", K, -EACCES, "R1 type=scalar expected=map_ptr",
	  N(KEY0, MOV64_IMM(1, 0), CALL(BPF_FUNC_map_lookup_elem), MOV64_IMM(0, 0), EXIT) },
	{ "helper key uninitialised", K, -EACCES,
	  "invalid indirect read from stack R2 off -8+0 size 4",
	  N(MOV64_REG(2, 10), ALU64_IMM(BPF_ADD, 2, -8), LD_MAP(1), CALL(BPF_FUNC_map_lookup_elem),
	    MOV64_IMM(0, 0), EXIT) },
	{ "jump out of the program", K, -EINVAL, "jump out of range from insn 0 to 6",
	  N(JMP_IMM(BPF_JEQ, 1, 0, 5), MOV64_IMM(0, 0), EXIT) },
	{ "unreachable code", K, -EINVAL, "unreachable insn 2",
	  N(MOV64_IMM(0, 0), EXIT, MOV64_IMM(0, 1), EXIT) },
	{ "division by zero constant", K, -EINVAL, "div by zero",
	  N(MOV64_IMM(0, 1), ALU64_IMM(BPF_DIV, 0, 0), EXIT) },
	{ "unknown helper", K, -EINVAL, "invalid func unknown#9999",
	  N(CALL(9999), MOV64_IMM(0, 0), EXIT) },
	{ "helper of another program type", TP, -EINVAL, "unknown func bpf_get_func_ip#173",
	  N(CALL(BPF_FUNC_get_func_ip), MOV64_IMM(0, 0), EXIT) },
	{ "context write", K, -EACCES, "invalid bpf_context access off=0 size=8",
	  N(ST(BPF_DW, 1, 0, 0), MOV64_IMM(0, 0), EXIT) },
	{ "context read past pt_regs", K, -EACCES, "invalid bpf_context access off=512 size=8",
	  N(LDX(BPF_DW, 0, 1, 512), EXIT) },
	{ "frame pointer written", K, -EACCES, "frame pointer is read only",
	  N(MOV64_IMM(10, 0), MOV64_IMM(0, 0), EXIT) },
	{ "unknown ALU operation", K, -EINVAL, "invalid BPF_ALU opcode f0",
	  N(INSN(0xff, 0, 0, 0, 0), EXIT) },
	{ "unknown jump operation", K, -EINVAL, "unknown opcode e5",
	  N(MOV64_IMM(0, 0), INSN(0xe5, 0, 0, 0, 0), EXIT) },
	{ "bad map fd", K, -EBADF, "fd 99 is not pointing to valid bpf_map",
	  N(INSN(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, 99), INSN(0, 0, 0, 0, 0),
	    MOV64_IMM(0, 0), EXIT) },
};

static void test_bad_programs(long array_fd)
{
	char name[96];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		long r = load(bad[i].type, bad[i].insns, bad[i].n, array_fd, 1);
		name[0] = 0;
		memcpy(name, "refused: ", 9);
		memcpy(name + 9, bad[i].name, strlen(bad[i].name) + 1);
		check(name, r, bad[i].err);
		if (!strstr(log_buf, bad[i].log)) {
			put_str("# log:\n");
			put_str(log_buf);
		}
		check("  log line", strstr(log_buf, bad[i].log) != 0, 1);
		check("  log ends with the processed line", strstr(log_buf, "processed ") != 0, 1);
	}
}

/* ---- bpf(2) itself ---- */

static void test_syscall(void)
{
	union bpf_attr a;
	char big[sizeof(a) + 16];
	long fd, key = 1, value = 0;

	memset(&a, 0, sizeof(a));
	check("unknown command: EINVAL", sys_bpf(999, &a, sizeof(a)), -EINVAL);
	check("attr at a bad address: EFAULT", sys_bpf(BPF_MAP_CREATE, (void *)8, sizeof(a)),
	      -EFAULT);
	memset(big, 0, sizeof(big));
	big[sizeof(a) + 3] = 1;
	check("unknown non-zero tail: E2BIG", sys_bpf(BPF_MAP_CREATE, (void *)big, sizeof(big)),
	      -E2BIG);
	check("map key size 0: EINVAL", bpf_map_create(BPF_MAP_TYPE_HASH, 0, 8, 4), -EINVAL);
	check("array key size 8: EINVAL", bpf_map_create(BPF_MAP_TYPE_ARRAY, 8, 8, 4), -EINVAL);
	check("unknown map type: EINVAL", bpf_map_create(99, 4, 8, 4), -EINVAL);
	/* the same attr, with a zero tail past our size: accepted */
	memset(big, 0, sizeof(big));
	((union bpf_attr *)big)->map_type = BPF_MAP_TYPE_HASH;
	((union bpf_attr *)big)->key_size = 8;
	((union bpf_attr *)big)->value_size = 8;
	((union bpf_attr *)big)->max_entries = 2;
	fd = sys_bpf(BPF_MAP_CREATE, (void *)big, sizeof(big));
	check("hash map with a zero tail: an fd", fd >= 3, 1);
	check("lookup of a missing key: ENOENT",
	      bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, fd, &key, &value, 0), -ENOENT);
	value = 42;
	check("update", bpf_map_cmd(BPF_MAP_UPDATE_ELEM, fd, &key, &value, BPF_ANY), 0);
	check("update NOEXIST of a present key: EEXIST",
	      bpf_map_cmd(BPF_MAP_UPDATE_ELEM, fd, &key, &value, BPF_NOEXIST), -EEXIST);
	key = 2;
	check("update EXIST of a missing key: ENOENT",
	      bpf_map_cmd(BPF_MAP_UPDATE_ELEM, fd, &key, &value, BPF_EXIST), -ENOENT);
	check("second key", bpf_map_cmd(BPF_MAP_UPDATE_ELEM, fd, &key, &value, BPF_ANY), 0);
	key = 3;
	check("third key past max_entries: E2BIG",
	      bpf_map_cmd(BPF_MAP_UPDATE_ELEM, fd, &key, &value, BPF_ANY), -E2BIG);
	key = 1;
	value = 0;
	check("lookup", bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, fd, &key, &value, 0), 0);
	check("lookup: the value stored", value, 42);
	{
		long k, next, seen = 0, n = 0;
		long r = bpf_map_cmd(BPF_MAP_GET_NEXT_KEY, fd, 0, &next, 0);
		while (r == 0 && n < 5) {
			seen |= 1 << next;
			n++;
			k = next;
			r = bpf_map_cmd(BPF_MAP_GET_NEXT_KEY, fd, &k, &next, 0);
		}
		check("get_next_key walks both keys", seen, (1 << 1) | (1 << 2));
		check("get_next_key ends with ENOENT", r, -ENOENT);
	}
	check("delete", bpf_map_cmd(BPF_MAP_DELETE_ELEM, fd, &key, 0, 0), 0);
	check("delete again: ENOENT", bpf_map_cmd(BPF_MAP_DELETE_ELEM, fd, &key, 0, 0), -ENOENT);
	check("key at a bad address: EFAULT",
	      bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, fd, (void *)8, &value, 0), -EFAULT);
	check("not a map fd: EBADF", bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, 60, &key, &value, 0), -EBADF);
	check("stdin is not a map: EINVAL", bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, 0, &key, &value, 0),
	      -EINVAL);
	{
		/* a u32 per CPU, each in an 8-byte slot: written as bpf(2) lays them out, read back */
		long pc = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 4, 2), in[8], out[8];
		int k = 1;

		for (int i = 0; i < 8; i++)
			in[i] = 100 + i, out[i] = 0;
		check("percpu array: update every CPU's value",
		      bpf_map_cmd(BPF_MAP_UPDATE_ELEM, pc, &k, in, 0), 0);
		check("percpu array: lookup", bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, pc, &k, out, 0), 0);
		check("  CPU 0's value, then CPU 1's 8 bytes on", out[0] * 1000 + out[1], 100101);
		k = 0;
		check("  the other element untouched",
		      bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, pc, &k, out, 0) * 1000 + out[0] + out[1], 0);
		sys1(NR_close, pc);
	}
	{
		struct bpf_map_info info;
		memset(&a, 0, sizeof(a));
		memset(&info, 0, sizeof(info));
		a.info.bpf_fd = fd;
		a.info.info_len = sizeof(info);
		a.info.info = (unsigned long)&info;
		check("OBJ_GET_INFO_BY_FD of a map", sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)),
		      0);
		check("  type", info.type, BPF_MAP_TYPE_HASH);
		check("  key_size", info.key_size, 8);
		check("  max_entries", info.max_entries, 2);
	}
	sys1(NR_close, fd);
}

/* ---- good programs, attached to raw tracepoints and run ---- */

/* Slot i (8 bytes) of element 0 of an array map whose values are 32 bytes. */
static long array_get(long fd, int i)
{
	long value[4] = { -1, -1, -1, -1 };
	int key = 0;

	bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, fd, &key, value, 0);
	return value[i];
}

/* Counts sys_enter hits in slot 0 of an array map (atomic add), and writes what the bounded
 * loop, a division by a zero register and a 32-bit wrap computed into slots 1-3. */
static void test_counting(const char *mode)
{
	long map = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 32, 1), prog, link, before, after;
	struct bpf_insn p[] = {
		KEY0,
		LD_MAP(1),
		CALL(BPF_FUNC_map_lookup_elem),
		JMP_IMM(BPF_JEQ, 0, 0, 16),
		MOV64_IMM(1, 1),
		ATOMIC_ADD64(0, 1, 0),
		/* r2 = sum of 0..9 in a loop the verifier walks to its end */
		MOV64_IMM(2, 0),
		MOV64_IMM(3, 0),
		ALU64_REG(BPF_ADD, 2, 3),
		ALU64_IMM(BPF_ADD, 3, 1),
		JMP_IMM(BPF_JLT, 3, 10, -3),
		STX(BPF_DW, 0, 2, 8),
		/* 7 / 0 is 0 at run time, as on Linux */
		MOV64_IMM(4, 7),
		MOV64_IMM(5, 0),
		ALU64_REG(BPF_DIV, 4, 5),
		STX(BPF_DW, 0, 4, 16),
		/* w4 = 0xffffffff + 2 wraps to 1 */
		MOV32_IMM(4, -1),
		MOV32_IMM(5, 2),
		ALU32_REG(BPF_ADD, 4, 5),
		STX(BPF_DW, 0, 4, 24),
		MOV64_IMM(0, 0),
		EXIT,
	};
	char name[64];

	prog = load(BPF_PROG_TYPE_RAW_TRACEPOINT, p, sizeof(p) / sizeof(p[0]), map, 1);
	if (prog < 0)
		put_str(log_buf);
	memcpy(name, "counting program loads (", 24);
	memcpy(name + 24, mode, strlen(mode));
	memcpy(name + 24 + strlen(mode), ")", 2);
	check(name, prog >= 3, 1);
	link = bpf_raw_tp_open("sys_enter", prog);
	check("  attached to sys_enter", link >= 3, 1);
	check("  JITed as bpf_jit_enable says", bpf_prog_jited_len(prog) > 0, mode[0] == 'J');
	before = array_get(map, 0);
	for (int i = 0; i < 10; i++)
		sys0(NR_getppid);
	after = array_get(map, 0);
	check("  counted at least the 10 getppid calls", after - before >= 10, 1);
	check("  bounded loop: sum 0..9", array_get(map, 1), 45);
	check("  division by a zero register: 0", array_get(map, 2), 0);
	check("  32-bit add wraps", array_get(map, 3), 1);
	sys1(NR_close, link);
	before = array_get(map, 0);
	for (int i = 0; i < 10; i++)
		sys0(NR_getppid);
	check("  detached at close: no more counts", array_get(map, 0), before);
	check("raw_tracepoint_open of no such tracepoint: ENOENT",
	      bpf_raw_tp_open("no_such_tp", prog), -ENOENT);
	check("raw_tracepoint_open of a map fd: EBADF", bpf_raw_tp_open("sys_enter", map), -EBADF);
	sys1(NR_close, prog);
	sys1(NR_close, map);
}

/* A hash map keyed by tgid, counted per process; the comm and uid/gid helpers into an array. */
static void test_helpers(void)
{
	long hash = bpf_map_create(BPF_MAP_TYPE_HASH, 4, 8, 64), prog, link, count = 0;
	int pid = sys0(NR_getpid);
	struct bpf_insn p[] = {
		CALL(BPF_FUNC_get_current_pid_tgid),
		ALU64_IMM(BPF_RSH, 0, 32),
		STX(BPF_W, 10, 0, -4),
		ST(BPF_DW, 10, -16, 1),
		/* update with NOEXIST, then add 1 to what is there */
		LD_MAP(1),
		MOV64_REG(2, 10),
		ALU64_IMM(BPF_ADD, 2, -4),
		MOV64_REG(3, 10),
		ALU64_IMM(BPF_ADD, 3, -16),
		MOV64_IMM(4, BPF_NOEXIST),
		CALL(BPF_FUNC_map_update_elem),
		JMP_IMM(BPF_JEQ, 0, 0, 8),
		LD_MAP(1),
		MOV64_REG(2, 10),
		ALU64_IMM(BPF_ADD, 2, -4),
		CALL(BPF_FUNC_map_lookup_elem),
		JMP_IMM(BPF_JEQ, 0, 0, 2),
		MOV64_IMM(1, 1),
		ATOMIC_ADD64(0, 1, 0),
		MOV64_IMM(0, 0),
		EXIT,
	};

	prog = load(BPF_PROG_TYPE_RAW_TRACEPOINT, p, sizeof(p) / sizeof(p[0]), hash, 1);
	if (prog < 0)
		put_str(log_buf);
	check("per-pid counting program loads", prog >= 3, 1);
	link = bpf_raw_tp_open("sys_enter", prog);
	for (int i = 0; i < 5; i++)
		sys0(NR_getppid);
	sys1(NR_close, link);
	check("  lookup of our tgid", bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, hash, &pid, &count, 0), 0);
	check("  our system calls counted", count >= 5, 1);
	sys1(NR_close, prog);
	sys1(NR_close, hash);
}

/* bpf_trace_printk(): the line lands in trace (the integration test reads it). */
static void test_printk(void)
{
	long prog, link;
	struct bpf_insn p[] = {
		/* "bpf says %d\n" on the stack, 16 bytes */
		MOV64_IMM(1, 0x0a642520),
		STX(BPF_DW, 10, 1, -8),
		INSN(BPF_LD | BPF_DW | BPF_IMM, 1, 0, 0, 0x20667062),
		INSN(0, 0, 0, 0, 0x73796173),
		STX(BPF_DW, 10, 1, -16),
		CALL(BPF_FUNC_get_current_pid_tgid),
		MOV64_REG(3, 0),
		ALU64_IMM(BPF_RSH, 3, 32),
		MOV64_REG(1, 10),
		ALU64_IMM(BPF_ADD, 1, -16),
		MOV64_IMM(2, 16),
		CALL(BPF_FUNC_trace_printk),
		MOV64_IMM(0, 0),
		EXIT,
	};

	prog = load(BPF_PROG_TYPE_RAW_TRACEPOINT, p, sizeof(p) / sizeof(p[0]), 0, 1);
	if (prog < 0)
		put_str(log_buf);
	check("trace_printk program loads", prog >= 3, 1);
	link = bpf_raw_tp_open("sys_enter", prog);
	check("  attached", link >= 3, 1);
	sys0(NR_getppid);
	sys1(NR_close, link);
	sys1(NR_close, prog);
}

static void test_log(long array_fd)
{
	struct bpf_insn p[] = { MOV64_IMM(0, 0), EXIT };
	union bpf_attr a;
	long fd;

	fd = load(BPF_PROG_TYPE_KPROBE, p, 2, array_fd, 2);
	check("log level 2: loads", fd >= 3, 1);
	check("  the listing", strstr(log_buf, "0: (b7) r0 = 0") != 0, 1);
	check("  the state", strstr(log_buf, "R1=ctx(off=0,imm=0) R10=fp0") != 0, 1);
	check("  the count", strstr(log_buf, "processed 2 insns (limit 1000000)") != 0, 1);
	{
		struct bpf_prog_info info;
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = fd;
		a.info.info_len = sizeof(info);
		a.info.info = (unsigned long)&info;
		check("OBJ_GET_INFO_BY_FD of a program",
		      sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a)), 0);
		check("  type", info.type, BPF_PROG_TYPE_KPROBE);
		check("  verified_insns", info.verified_insns, 2);
		check("  xlated_prog_len", info.xlated_prog_len, 16);
	}
	sys1(NR_close, fd);
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.insns = (unsigned long)p;
	a.insn_cnt = 2;
	a.log_level = 1;
	a.log_buf = (unsigned long)log_buf;
	a.log_size = 100;
	check("log_size under 128: EINVAL", sys_bpf(BPF_PROG_LOAD, &a, sizeof(a)), -EINVAL);
	a.log_size = 128;
	a.log_level = 2;
	a.insn_cnt = 2;
	check("log too small for the listing: ENOSPC", sys_bpf(BPF_PROG_LOAD, &a, sizeof(a)),
	      -ENOSPC);
	a.log_level = 0;
	a.log_buf = 0;
	a.log_size = 0;
	a.insn_cnt = 1000001;
	check("over a million instructions: E2BIG", sys_bpf(BPF_PROG_LOAD, &a, sizeof(a)), -E2BIG);
	a.insn_cnt = 2;
	a.prog_type = 1; /* socket filters: a type this kernel has not */
	check("program type we lack: EINVAL", sys_bpf(BPF_PROG_LOAD, &a, sizeof(a)), -EINVAL);
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.insns = 8;
	check("instructions at a bad address: EFAULT", sys_bpf(BPF_PROG_LOAD, &a, sizeof(a)),
	      -EFAULT);
}

/* As uid 1000 with unprivileged_bpf_disabled at 2: every command is EPERM. */
static void test_unprivileged(void)
{
	long pid = sys0(NR_fork);
	int status = -1;

	if (!pid) {
		union bpf_attr a;
		checks = failed = 0;
		sys3(NR_setresgid, 1000, 1000, 1000);
		sys3(NR_setresuid, 1000, 1000, 1000);
		memset(&a, 0, sizeof(a));
		exit_group(bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1) == -EPERM &&
					   sys_bpf(BPF_PROG_LOAD, &a, sizeof(a)) == -EPERM
				   ? 0
				   : 1);
	}
	sys4(NR_wait4, pid, &status, 0, 0);
	check("uid 1000: bpf() is EPERM", status, 0);
}

static int set_jit(const char *v)
{
	long fd = sys3(NR_open, "/proc/sys/net/core/bpf_jit_enable", 1, 0);
	long r = fd < 0 ? fd : sys3(NR_write, fd, v, 1);
	if (fd >= 0)
		sys1(NR_close, fd);
	return r == 1 ? 0 : (int)r;
}

int main(int argc, char **argv, char **envp)
{
	long array = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 4);

	check("array map", array >= 3, 1);
	test_syscall();
	test_bad_programs(array);
	test_log(array);
	check("bpf_jit_enable=0", set_jit("0"), 0);
	test_counting("interpreter");
	check("bpf_jit_enable=1", set_jit("1"), 0);
	test_counting("JIT");
	test_helpers();
	test_printk();
	test_unprivileged();
	return check_summary();
}
