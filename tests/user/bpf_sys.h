/* bpf_sys.h: the bpf(2) calls the test programs make (maps, loading, raw tracepoints), raw, as
 * libbpf's bpf.c would make them; once here for tests/user/bpf.c, perfbpf.c, bpf_lab.c, ringbuf.c. */
#ifndef TESTS_USER_BPF_SYS_H
#define TESTS_USER_BPF_SYS_H

#include "bpf_insn.h"

/* The errnos the bpf tests expect, Linux's values (ENOTSUPP is the kernel's own, 524). */
#define EPERM 1
#define ENOENT 2
#define E2BIG 7
#define EBADF 9
#define EACCES 13
#define EFAULT 14
#define EEXIST 17
#define EINVAL 22
#define ENOSPC 28
#define ELOOP 40
#define ENOTSUPP 524

static inline long bpf_map_create(int type, int key, int value, int max)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = max;
	return sys_bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

/* BPF_MAP_LOOKUP_ELEM, UPDATE_ELEM, DELETE_ELEM, GET_NEXT_KEY (value is the next key there). */
static inline long bpf_map_cmd(int cmd, long fd, const void *key, void *value, long flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (unsigned long)key;
	a.value = (unsigned long)value;
	a.flags = flags;
	return sys_bpf(cmd, &a, sizeof(a));
}

/* Loads n instructions, every LD_MAP's MAPFD patched to map_fd, named name (or not, if NULL),
 * with the verifier's log at level into log (size bytes) when level is not 0. */
static inline long bpf_prog_load_log(int type, struct bpf_insn *insns, int n, long map_fd,
				     const char *name, int level, char *log, unsigned int size)
{
	union bpf_attr a;

	for (int i = 0; i < n; i++)
		if (insns[i].code == (BPF_LD | BPF_DW | BPF_IMM) && insns[i].imm == MAPFD)
			insns[i].imm = map_fd;
	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (unsigned long)insns;
	a.insn_cnt = n;
	a.license = (unsigned long)"GPL";
	if (level) {
		a.log_level = level;
		a.log_buf = (unsigned long)log;
		a.log_size = size;
		log[0] = 0;
	}
	if (name)
		memcpy(a.prog_name, name, strlen(name));
	return sys_bpf(BPF_PROG_LOAD, &a, sizeof(a));
}

/* BPF_RAW_TRACEPOINT_OPEN: the link's fd; closing it detaches the program. */
static inline long bpf_raw_tp_open(const char *name, long prog_fd)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = (unsigned long)name;
	a.raw_tracepoint.prog_fd = prog_fd;
	return sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a, sizeof(a));
}

/* The length of a program's JITed code, 0 if it runs in the interpreter (BPF_OBJ_GET_INFO_BY_FD). */
static inline long bpf_prog_jited_len(long prog)
{
	struct bpf_prog_info info;
	union bpf_attr a;

	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = prog;
	a.info.info_len = sizeof(info);
	a.info.info = (unsigned long)&info;
	sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a, sizeof(a));
	return info.jited_prog_len;
}

#endif
