/*
 * bpf_lab: chapter 23's lab. `bpf_lab refuse` loads a program that reads a map value without its
 * NULL check and prints the verifier's log; `bpf_lab count` attaches a counting program to the
 * sys_enter tracepoint, makes ten getppid() calls and prints what the map counted; `bpf_lab hold
 * SECONDS` leaves the counting program attached that long in a child, for `bpfprog` to show.
 */
#include "bpf_insn.h"

enum { NR_nanosleep_ = 35 };
static char log_buf[4096];

static long map_create(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	return sys_bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

static long load(struct bpf_insn *p, int n, long map, const char *name)
{
	union bpf_attr a;

	for (int i = 0; i < n; i++)
		if (p[i].code == (BPF_LD | BPF_DW | BPF_IMM) && p[i].imm == MAPFD)
			p[i].imm = map;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	a.insns = (unsigned long)p;
	a.insn_cnt = n;
	a.log_level = 1;
	a.log_buf = (unsigned long)log_buf;
	a.log_size = sizeof(log_buf);
	memcpy(a.prog_name, name, strlen(name));
	return sys_bpf(BPF_PROG_LOAD, &a, sizeof(a));
}

/* count[0] += 1 on every system call entry */
static long load_counter(long map)
{
	struct bpf_insn p[] = {
		ST(BPF_W, 10, -4, 0),
		MOV64_REG(2, 10),
		ALU64_IMM(BPF_ADD, 2, -4),
		LD_MAP(1),
		CALL(BPF_FUNC_map_lookup_elem),
		JMP_IMM(BPF_JEQ, 0, 0, 2),
		MOV64_IMM(1, 1),
		ATOMIC_ADD64(0, 1, 0),
		MOV64_IMM(0, 0),
		EXIT,
	};
	return load(p, sizeof(p) / sizeof(p[0]), map, "count_syscalls");
}

static long attach(long prog)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = (unsigned long)"sys_enter";
	a.raw_tracepoint.prog_fd = prog;
	return sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a, sizeof(a));
}

static long count_of(long map)
{
	union bpf_attr a;
	int key = 0;
	long value = -1;

	memset(&a, 0, sizeof(a));
	a.map_fd = map;
	a.key = (unsigned long)&key;
	a.value = (unsigned long)&value;
	sys_bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a));
	return value;
}

static int refuse(void)
{
	long map = map_create();
	struct bpf_insn p[] = {
		ST(BPF_W, 10, -4, 0),
		MOV64_REG(2, 10),
		ALU64_IMM(BPF_ADD, 2, -4),
		LD_MAP(1),
		CALL(BPF_FUNC_map_lookup_elem),
		LDX(BPF_DW, 0, 0, 0),
		EXIT,
	};
	long r = load(p, sizeof(p) / sizeof(p[0]), map, "no_null_check");

	put_str("bpf(BPF_PROG_LOAD) = ");
	put_num(r);
	put_str("\n");
	put_str(log_buf);
	return r < 0 ? 0 : 1;
}

static int count(void)
{
	long map = map_create(), prog = load_counter(map), link = attach(prog), before, after;

	if (map < 0 || prog < 0 || link < 0) {
		put_str(log_buf);
		return 1;
	}
	before = count_of(map);
	for (int i = 0; i < 10; i++)
		sys0(NR_getppid);
	after = count_of(map);
	put_str("system calls counted around ten getppid calls: ");
	put_num(after - before);
	put_str("\n");
	return 0;
}

static int hold(const char *secs)
{
	long ts[2] = { secs[0] - '0', 0 }, map, prog, link;

	if (sys0(NR_fork))
		return 0; /* the child keeps the program attached; the shell gets its prompt back */
	map = map_create();
	prog = load_counter(map);
	link = attach(prog);
	sys2(NR_nanosleep_, ts, 0);
	exit_group(link < 0);
}

int main(int argc, char **argv, char **envp)
{
	if (argc == 2 && !strcmp(argv[1], "refuse"))
		return refuse();
	if (argc == 2 && !strcmp(argv[1], "count"))
		return count();
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(argv[2]);
	put_str("usage: bpf_lab refuse | count | hold SECONDS\n");
	return 2;
}
