/* readtramp: fentry and fexit programs on file_read(f, buf, count, pos), our read(2)'s door, run by
 * a BPF trampoline. Per process: calls seen on entry and on return, the bytes the calls returned,
 * the count argument as each side saw it, and whether the first argument was a kernel pointer.
 * Built for Linux with clang -target bpf; libbpf finds file_read's BTF id in /sys/kernel/btf/vmlinux. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define PID_MAP(name)                                                                              \
	struct {                                                                                   \
		__uint(type, BPF_MAP_TYPE_HASH);                                                   \
		__uint(max_entries, 64);                                                           \
		__type(key, __u32);                                                                \
		__type(value, __u64);                                                              \
	} name SEC(".maps")

PID_MAP(entries);     /* fentry runs */
PID_MAP(exits);	      /* fexit runs */
PID_MAP(bytes);	      /* the sum of file_read()'s returns, as fexit saw them */
PID_MAP(entry_count); /* the last count argument fentry saw */
PID_MAP(exit_count);  /* the same argument, as fexit saw it after the call */
PID_MAP(kernel_file); /* calls whose f was a kernel address */

static void add(void *map, __u32 pid, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(map, &pid);

	if (v)
		__sync_fetch_and_add(v, n);
	else
		bpf_map_update_elem(map, &pid, &n, BPF_NOEXIST);
}

static void set(void *map, __u32 pid, __u64 n)
{
	bpf_map_update_elem(map, &pid, &n, BPF_ANY);
}

/* ctx: file_read()'s four arguments as u64s; for fexit its return value after them. */
SEC("fentry/file_read")
int read_entry(unsigned long long *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;

	add(&entries, pid, 1);
	set(&entry_count, pid, ctx[2]);
	if (ctx[0] >= 0xffff800000000000ULL)
		add(&kernel_file, pid, 1);
	return 0;
}

SEC("fexit/file_read")
int read_exit(unsigned long long *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	long ret = ctx[4];

	add(&exits, pid, 1);
	set(&exit_count, pid, ctx[2]);
	if (ret > 0)
		add(&bytes, pid, ret);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
