/*
 * bpf_lab: chapter 23's lab. `bpf_lab refuse` loads a program that reads a map value without its
 * NULL check and prints the verifier's log; `bpf_lab count` attaches a counting program to the
 * sys_enter tracepoint, makes ten getppid() calls and prints what the map counted; `bpf_lab hold
 * SECONDS` leaves the counting program attached that long in a child, for `bpfprog` to show.
 */
#include "bpf_sys.h"

enum { NR_nanosleep_ = 35 };
static char log_buf[4096];

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
	return bpf_prog_load_log(BPF_PROG_TYPE_RAW_TRACEPOINT, p, sizeof(p) / sizeof(p[0]), map,
				 "count_syscalls", 1, log_buf, sizeof(log_buf));
}

static long count_of(long map)
{
	int key = 0;
	long value = -1;

	bpf_map_cmd(BPF_MAP_LOOKUP_ELEM, map, &key, &value, 0);
	return value;
}

static int refuse(void)
{
	long map = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
	struct bpf_insn p[] = {
		ST(BPF_W, 10, -4, 0),
		MOV64_REG(2, 10),
		ALU64_IMM(BPF_ADD, 2, -4),
		LD_MAP(1),
		CALL(BPF_FUNC_map_lookup_elem),
		LDX(BPF_DW, 0, 0, 0),
		EXIT,
	};
	long r = bpf_prog_load_log(BPF_PROG_TYPE_RAW_TRACEPOINT, p, sizeof(p) / sizeof(p[0]), map,
				   "no_null_check", 1, log_buf, sizeof(log_buf));

	put_str("bpf(BPF_PROG_LOAD) = ");
	put_num(r);
	put_str("\n");
	put_str(log_buf);
	return r < 0 ? 0 : 1;
}

static int count(void)
{
	long map = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1), prog = load_counter(map),
	     link = bpf_raw_tp_open("sys_enter", prog), before, after;

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
	int fds[2];
	char ok = 0;

	/* the shell gets its prompt back once the child has the program attached, not before: a
	 * `bpfprog` typed at once then always finds it */
	if (sys2(NR_pipe2, fds, 0))
		return 1;
	if (sys0(NR_fork)) {
		sys1(NR_close, fds[1]);
		sys3(NR_read, fds[0], &ok, 1);
		return !ok;
	}
	sys1(NR_close, fds[0]);
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
	prog = load_counter(map);
	link = bpf_raw_tp_open("sys_enter", prog);
	ok = link >= 0;
	sys3(NR_write, fds[1], &ok, 1);
	sys1(NR_close, fds[1]);
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
