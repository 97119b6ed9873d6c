/* corefile: CO-RE. A kprobe on file_read() reads the struct file's f_pos with BPF_CORE_READ. The struct
 * below is ours, not the kernel's: f_pos alone, at offset 0, where the kernel has it at 8. libbpf
 * moves the read to the kernel's offset at load time from its BTF (/sys/kernel/btf/vmlinux, found by
 * name "file" and field "f_pos"); left unmoved, it would read f_count and f_flags instead.
 * Built for Linux with clang -target bpf; loaded, unmodified, by bpfload through libbpf. */
#define __TARGET_ARCH_x86 /* what -D__TARGET_ARCH_x86 says for bpf_tracing.h */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

struct file {
	long long f_pos;
} __attribute__((preserve_access_index));

/* key: tgid << 32 | the file position a read starts at; value: reads */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, __u64);
} positions SEC(".maps");

SEC("kprobe/file_read")
int BPF_KPROBE(at_read, struct file *f)
{
	__u64 key = (bpf_get_current_pid_tgid() >> 32) << 32 | (__u32)BPF_CORE_READ(f, f_pos);
	__u64 one = 1, *v = bpf_map_lookup_elem(&positions, &key);

	if (v)
		__sync_fetch_and_add(v, 1);
	else
		bpf_map_update_elem(&positions, &key, &one, BPF_NOEXIST);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
