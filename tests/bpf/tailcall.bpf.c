/* tailcall: a tracepoint program on syscalls:sys_enter_getppid that tail-calls through a
 * BPF_MAP_TYPE_PROG_ARRAY libbpf fills from the object itself: odd calls to one program, even
 * calls to another, which tail-calls an empty slot and so goes on with its own next line. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 5);
	__type(key, __u32);
	__type(value, __u64);
} tailcounts SEC(".maps");

/* counts: 0 entries, 1 even, 2 odd, 3 entry fell through, 4 even fell through (slot 3 empty) */
static __always_inline __u64 bump(__u32 key)
{
	__u64 *v = bpf_map_lookup_elem(&tailcounts, &key);

	return v ? __sync_add_and_fetch(v, 1) : 0;
}

int tail_even(void *ctx);
int tail_odd(void *ctx);

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 4);
	__uint(key_size, sizeof(__u32));
	__array(values, int(void *));
} jmp_table SEC(".maps") = {
	.values = { [0] = (void *)&tail_even, [1] = (void *)&tail_odd },
};

SEC("tracepoint")
int tail_even(void *ctx)
{
	bump(1);
	bpf_tail_call(ctx, &jmp_table, 3);
	bump(4);
	return 0;
}

SEC("tracepoint")
int tail_odd(void *ctx)
{
	bump(2);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_getppid")
int tail_entry(void *ctx)
{
	__u64 n = bump(0);

	bpf_tail_call(ctx, &jmp_table, n & 1);
	bump(3);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
