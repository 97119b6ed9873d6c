/*
 * perfprobe: the kprobe and uprobe PMUs, as libbpf 1.1 opens them: the type and the retprobe bit
 * from /sys/bus/event_source/devices/, a probe made by perf_event_open alone (config1 the name or
 * path, config2 the offset) and listed nowhere, counted; a uprobe program reading the probed ip
 * and sp where bpf_tracing.h's PT_REGS_IP and PT_REGS_SP read them in Linux's struct pt_regs; and
 * Linux's errors (argv[1], if given, a name two functions share). One check a line, "PASS n/m"
 * last (tests/integration/test_perf_events.py).
 */
#include "bpf_insn.h"

enum { NR_perf_event_open = 298, NR_setuid = 105 };
#define ENOENT 2
#define EFAULT 14
#define EACCES 13
#define E2BIG 7
#define EINVAL 22
#define EOPNOTSUPP 95
#define EADDRNOTAVAIL 99

#define PERF_EVENT_IOC_SET_BPF 0x40042408
#define PT_REGS_SP_OFF 152 /* Linux's offsetof(struct pt_regs, sp) */
#define PT_REGS_IP_OFF 128 /* and ip */

/* Linux's perf_event_attr up to config2 (VER1, 72 bytes). */
struct attr {
	unsigned int type, size;
	unsigned long config, sample_period, sample_type, read_format, flags;
	unsigned int wakeup_events, bp_type;
	unsigned long config1, config2;
};

static long probe_open(long type, unsigned long config, unsigned long config1,
		       unsigned long config2, long pid, long cpu)
{
	struct attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.size = sizeof(a);
	a.config = config;
	a.config1 = config1;
	a.config2 = config2;
	return sys6(NR_perf_event_open, &a, pid, cpu, -1, 0, 0);
}

/* A whole small file, NUL-terminated; its length or -errno. */
static long read_text(const char *path, char *buf, long size)
{
	long fd = sys3(NR_open, path, 0, 0), n;

	if (fd < 0)
		return fd;
	n = sys3(NR_read, fd, buf, size - 1);
	sys1(NR_close, fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static long read_u64(long fd)
{
	unsigned long v = ~0UL;

	return sys3(NR_read, fd, &v, sizeof(v)) == sizeof(v) ? (long)v : -1;
}

static long map_lookup(long fd, const void *key, void *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (unsigned long)key;
	a.value = (unsigned long)value;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a));
}

static void getppid_n(int n)
{
	for (int i = 0; i < n; i++)
		sys0(NR_getppid);
}

/* Where the probe goes: not inlined, not merged, called through a volatile pointer. */
__attribute__((noinline)) long uprobe_target(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

/* A USDT semaphore for the uprobe PMU's ref_ctr_offset: in a section of its own with bytes in the
 * file, as `sdt.h` puts its semaphores in `.probes`. */
__attribute__((section(".probes"), used)) volatile unsigned short perfprobe_semaphore = 0;

/* The file offset of vaddr in this (static, non-PIE) executable, from its program headers. */
static long file_offset(const char *exe, unsigned long vaddr)
{
	unsigned char eh[64], ph[56];
	long fd = sys3(NR_open, exe, 0, 0), off = -1;
	unsigned long phoff;
	unsigned short phnum;

	if (fd < 0 || sys3(NR_read, fd, eh, sizeof(eh)) != sizeof(eh))
		return -1;
	memcpy(&phoff, eh + 32, 8);
	memcpy(&phnum, eh + 56, 2);
	for (int i = 0; i < phnum && off < 0; i++) {
		unsigned long p_offset, p_vaddr, p_filesz;
		unsigned int p_type;

		sys6(NR_pread64, fd, ph, sizeof(ph), phoff + i * sizeof(ph), 0, 0);
		memcpy(&p_type, ph, 4);
		memcpy(&p_offset, ph + 8, 8);
		memcpy(&p_vaddr, ph + 16, 8);
		memcpy(&p_filesz, ph + 32, 8);
		if (p_type == 1 && vaddr >= p_vaddr && vaddr < p_vaddr + p_filesz)
			off = vaddr - p_vaddr + p_offset;
	}
	sys1(NR_close, fd);
	return off;
}

static long kprobe_type, uprobe_type;

static void test_sysfs(void)
{
	char buf[32];

	read_text("/sys/bus/event_source/devices/kprobe/type", buf, sizeof(buf));
	kprobe_type = atol(buf);
	read_text("/sys/bus/event_source/devices/uprobe/type", buf, sizeof(buf));
	uprobe_type = atol(buf);
	check("kprobe and uprobe PMUs have types past Linux's fixed ones",
	      kprobe_type > 5 && uprobe_type > 5 && kprobe_type != uprobe_type, 1);
	read_text("/sys/bus/event_source/devices/kprobe/format/retprobe", buf, sizeof(buf));
	check("kprobe/format/retprobe is config:0", strcmp(buf, "config:0\n"), 0);
	read_text("/sys/bus/event_source/devices/uprobe/format/retprobe", buf, sizeof(buf));
	check("uprobe/format/retprobe is config:0", strcmp(buf, "config:0\n"), 0);
}

static void test_kprobe_counts(void)
{
	long kp = probe_open(kprobe_type, 0, (unsigned long)"__x64_sys_getppid", 0, 0, -1);
	long rp = probe_open(kprobe_type, 1, (unsigned long)"__x64_sys_getppid", 0, 0, -1);
	char buf[256];

	check("kprobe PMU: __x64_sys_getppid opens", kp >= 0, 1);
	check("kprobe PMU, retprobe bit: opens", rp >= 0, 1);
	getppid_n(12);
	check("the kprobe counted 12 calls", read_u64(kp), 12);
	check("the kretprobe counted 12 returns", read_u64(rp), 12);
	read_text("/sys/kernel/tracing/kprobe_events", buf, sizeof(buf));
	check("perf's own probes are not in kprobe_events", strlen(buf), 0);
	sys1(NR_close, kp);
	sys1(NR_close, rp);
	kp = probe_open(kprobe_type, 0, (unsigned long)"__x64_sys_getppid", 0, 0, -1);
	getppid_n(3);
	check("closed and opened again: a new probe counts from 0", read_u64(kp), 3);
	sys1(NR_close, kp);
}

/* A uprobe program storing ctx's ip and sp slots (Linux's layout) in an array map of two u64;
 * it returns 1, so the perf event counts the hit as well. */
static void test_uprobe_regs(const char *exe)
{
	union bpf_attr a;
	long map, prog, fd, off = file_offset(exe, (unsigned long)uprobe_target), sum;
	long (*volatile call)(long, long) = uprobe_target;
	unsigned long v[2] = { 0, 0 };
	int key0 = 0, key1 = 1, here;
	struct bpf_insn p[] = {
		MOV64_REG(6, 1),
		LOOKUP_SLOT(0),
		JMP_IMM(BPF_JEQ, 0, 0, 2),
		LDX(BPF_DW, 1, 6, PT_REGS_IP_OFF),
		STX(BPF_DW, 0, 1, 0),
		LOOKUP_SLOT(1),
		JMP_IMM(BPF_JEQ, 0, 0, 2),
		LDX(BPF_DW, 1, 6, PT_REGS_SP_OFF),
		STX(BPF_DW, 0, 1, 0),
		MOV64_IMM(0, 1), /* 1: the hit is counted too */
		EXIT,
	};

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 2;
	map = sys_bpf(BPF_MAP_CREATE, &a, sizeof(a));
	for (unsigned int i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (p[i].code == (BPF_LD | BPF_DW | BPF_IMM) && p[i].imm == MAPFD)
			p[i].imm = map;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.insns = (unsigned long)p;
	a.insn_cnt = sizeof(p) / sizeof(p[0]);
	a.license = (unsigned long)"GPL";
	prog = sys_bpf(BPF_PROG_LOAD, &a, sizeof(a));
	check("a kprobe program reading ctx's ip and sp loads", prog >= 0, 1);
	check("uprobe_target's file offset found", off > 0, 1);
	fd = probe_open(uprobe_type, 0, (unsigned long)exe, off, 0, -1);
	check("uprobe PMU: this program's uprobe_target opens", fd >= 0, 1);
	check("SET_BPF on it", sys3(NR_ioctl, fd, PERF_EVENT_IOC_SET_BPF, prog), 0);
	sum = call(40, 2);
	check("the probed function still answers", sum, 42);
	map_lookup(map, &key0, &v[0]);
	map_lookup(map, &key1, &v[1]);
	check("PT_REGS_IP (offset 128) is the probed function",
	      v[0] == (unsigned long)uprobe_target, 1);
	check("PT_REGS_SP (offset 152) is this stack, below our frame",
	      v[1] < (unsigned long)&here && (unsigned long)&here - v[1] < 4096, 1);
	check("the uprobe counted one hit", read_u64(fd), 1);
	sys1(NR_close, fd);
	sys1(NR_close, prog);
	sys1(NR_close, map);
}

/* config's upper half is a semaphore's file offset (format/ref_ctr_offset): counted up in this
 * process while the uprobe is installed here, once however many perf events share the uprobe; a
 * different semaphore for the same place is refused. */
static void test_uprobe_ref_ctr(const char *exe)
{
	long off = file_offset(exe, (unsigned long)uprobe_target);
	long sem = file_offset(exe, (unsigned long)&perfprobe_semaphore);
	long (*volatile call)(long, long) = uprobe_target;
	long fd, fd2;
	char buf[32];

	read_text("/sys/bus/event_source/devices/uprobe/format/ref_ctr_offset", buf, sizeof(buf));
	check("uprobe/format/ref_ctr_offset is config:32-63", strcmp(buf, "config:32-63\n"), 0);
	check("the semaphore's file offset found", sem > 0, 1);
	check("no probe yet: the semaphore reads 0", perfprobe_semaphore, 0);
	fd = probe_open(uprobe_type, (unsigned long)sem << 32, (unsigned long)exe, off, 0, -1);
	check("uprobe PMU with a ref_ctr_offset: opens", fd >= 0, 1);
	check("installed here: the semaphore reads 1", perfprobe_semaphore, 1);
	fd2 = probe_open(uprobe_type, (unsigned long)sem << 32, (unsigned long)exe, off, 0, -1);
	check("a second event on the same place and semaphore: opens", fd2 >= 0, 1);
	check("one breakpoint for both: the semaphore still reads 1", perfprobe_semaphore, 1);
	check("another semaphore for the same place: EINVAL",
	      probe_open(uprobe_type, (unsigned long)(sem + 2) << 32, (unsigned long)exe, off, 0, -1),
	      -EINVAL);
	call(1, 2);
	call(3, 4);
	check("the first event counted both hits", read_u64(fd), 2);
	check("the second event counted both hits", read_u64(fd2), 2);
	sys1(NR_close, fd);
	check("one event left: the semaphore still reads 1", perfprobe_semaphore, 1);
	call(5, 6);
	check("the one left counts on", read_u64(fd2), 3);
	sys1(NR_close, fd2);
	check("none left: the semaphore reads 0", perfprobe_semaphore, 0);
}

static void test_errors(const char *dup)
{
	char longname[200];
	long fd, pid;
	int status = -1;

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	check("kprobe PMU, no such function: ENOENT",
	      probe_open(kprobe_type, 0, (unsigned long)"no_such_function_here", 0, -1, 0),
	      -ENOENT);
	if (dup) /* a name two static functions share (the test finds one in /proc/kallsyms) */
		check("kprobe PMU, a name two functions share: EADDRNOTAVAIL",
		      probe_open(kprobe_type, 0, (unsigned long)dup, 0, -1, 0), -EADDRNOTAVAIL);
	check("kprobe PMU, a name past KSYM_NAME_LEN: E2BIG",
	      probe_open(kprobe_type, 0, (unsigned long)longname, 0, -1, 0), -E2BIG);
	check("kprobe PMU, a bad name pointer: EFAULT", probe_open(kprobe_type, 0, 8, 0, -1, 0),
	      -EFAULT);
	check("kprobe PMU, neither name nor address: EINVAL",
	      probe_open(kprobe_type, 0, 0, 0, -1, 0), -EINVAL);
	check("uprobe PMU, no such file: ENOENT",
	      probe_open(uprobe_type, 0, (unsigned long)"/tests/nothing", 0, -1, 0), -ENOENT);
	check("uprobe PMU, a directory: EINVAL",
	      probe_open(uprobe_type, 0, (unsigned long)"/tests", 0, -1, 0), -EINVAL);
	check("uprobe PMU, no path: EINVAL", probe_open(uprobe_type, 0, 0, 0, -1, 0), -EINVAL);
	pid = sys0(NR_fork);
	if (pid == 0) {
		sys1(NR_setuid, 1000);
		fd = probe_open(kprobe_type, 0, (unsigned long)"__x64_sys_getppid", 0, 0, -1);
		exit_group(fd == -EACCES ? 0 : 1);
	}
	sys4(NR_wait4, pid, &status, 0, 0);
	check("uid 1000 opening the kprobe PMU: EACCES", status, 0);
}

int main(int argc, char **argv, char **envp)
{
	test_sysfs();
	test_kprobe_counts();
	test_uprobe_regs(argc > 0 ? argv[0] : "/tests/perfprobe");
	test_uprobe_ref_ctr(argc > 0 ? argv[0] : "/tests/perfprobe");
	test_errors(argc > 1 ? argv[1] : 0);
	return check_summary();
}
