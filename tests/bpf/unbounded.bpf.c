/* unbounded: refused on purpose. It indexes a map value by the CPU number without checking it,
 * and the verifier says "unbounded memory access", as Linux's does (chapter 23). */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[16]);
} slots SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_getppid")
int unbounded_index(void *ctx)
{
	__u32 key = 0, cpu = bpf_get_smp_processor_id();
	__u64 *slot = bpf_map_lookup_elem(&slots, &key);

	if (slot)
		slot[cpu] += 1; /* no `cpu < 16` first */
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
