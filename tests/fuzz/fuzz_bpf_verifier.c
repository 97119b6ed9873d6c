/*
 * The verifier against random instruction streams (kernel/bpf/verifier*.c): whatever it accepts
 * is run in the interpreter (kernel/bpf/core.c), where ASan and UBSan see every access the
 * program and its helpers make. The context, the map values and the helpers' buffers are heap
 * blocks of exactly their size, so an access the verifier should have refused lands in a red
 * zone. Every allocation and every map reference must be given back after each input.
 *
 * Input: byte 0 chooses privileged (bit 0) and the program type (bits 1-2); then up to 256
 * instructions of 8 bytes. Map fds 1 (array, value 16 bytes) and 2 (hash, key 8, value 24) exist.
 */
#include "tests/fuzz/fuzz.h"
#include "kernel/bpf/maps.h"
#include "kernel/bpf/core.h"
#include "arch/x86/traps.h"
#include "lib/string.h"

void *malloc(size_t size);
void free(void *p);

struct fuzz_map {
	struct bpf_map map;
	u8 *values[4]; /* heap blocks of value_size: one per key slot */
};

static void *fuzz_lookup(struct bpf_map *map, void *key)
{
	struct fuzz_map *m = container_of(map, struct fuzz_map, map);
	u8 k = *(u8 *)key;

	for (u32 i = 0; i < map->key_size; i++)
		k ^= ((u8 *)key)[i];
	return k % 5 == 4 ? NULL : m->values[k % 4];
}

static long fuzz_update(struct bpf_map *map, void *key, void *value, u64 flags)
{
	void *slot = fuzz_lookup(map, key);

	if (slot)
		memcpy(slot, value, map->value_size);
	return slot ? 0 : -E2BIG;
}

static long fuzz_delete(struct bpf_map *map, void *key)
{
	return fuzz_lookup(map, key) ? 0 : -ENOENT;
}

static const struct bpf_map_ops fuzz_map_ops = {
	.map_lookup_elem = fuzz_lookup,
	.map_update_elem = fuzz_update,
	.map_delete_elem = fuzz_delete,
};

static struct fuzz_map maps[2] = {
	{ .map = { .ops = &fuzz_map_ops, .map_type = BPF_MAP_TYPE_ARRAY, .key_size = 4,
		   .value_size = 16, .max_entries = 4, .refcnt = 1 } },
	{ .map = { .ops = &fuzz_map_ops, .map_type = BPF_MAP_TYPE_HASH, .key_size = 8,
		   .value_size = 24, .max_entries = 4, .refcnt = 1 } },
};

struct bpf_map *bpf_map_get(int ufd)
{
	if (ufd != 1 && ufd != 2)
		return ERR_PTR(-EBADF);
	maps[ufd - 1].map.refcnt++;
	return &maps[ufd - 1].map;
}

void bpf_map_put(struct bpf_map *map)
{
	map->refcnt--;
}

void *bpf_array_value_addr(struct bpf_map *map, u32 off)
{
	return container_of(map, struct fuzz_map, map)->values[0] + off;
}

void bpf_jit_free(struct bpf_prog *prog)
{
}

/* Helpers that touch exactly the memory their protos promise. */
static u64 h_lookup(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	struct bpf_map *map = (void *)(unsigned long)r1;
	return (u64)(unsigned long)map->ops->map_lookup_elem(map, (void *)(unsigned long)r2);
}

static u64 h_update(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	struct bpf_map *map = (void *)(unsigned long)r1;
	return map->ops->map_update_elem(map, (void *)(unsigned long)r2, (void *)(unsigned long)r3,
					 r4);
}

static u64 h_fill(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	memset((void *)(unsigned long)r1, 0x5a, r2); /* probe_read, get_current_comm: writes */
	return 0;
}

static u64 h_read(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	u8 sum = 0; /* trace_printk: reads the whole format */

	for (u64 i = 0; i < r2; i++)
		sum += ((u8 *)(unsigned long)r1)[i];
	return sum;
}

static u64 h_const(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	return 0x123456789ULL;
}

static u64 h_ctx(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	return ((struct pt_regs *)(unsigned long)r1)->ip;
}

static const struct bpf_func_proto protos[] = {
	[BPF_FUNC_map_lookup_elem] = { .func = h_lookup,
				       .ret_type = RET_PTR_TO_MAP_VALUE_OR_NULL,
				       .arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY } },
	[BPF_FUNC_map_update_elem] = { .func = h_update,
				       .arg_type = { ARG_CONST_MAP_PTR, ARG_PTR_TO_MAP_KEY,
						     ARG_PTR_TO_MAP_VALUE, ARG_ANYTHING } },
	[BPF_FUNC_ktime_get_ns] = { .func = h_const },
	[BPF_FUNC_get_current_comm] = { .func = h_fill,
					.arg_type = { ARG_PTR_TO_UNINIT_MEM, ARG_CONST_SIZE } },
	[BPF_FUNC_probe_read_kernel] = { .func = h_fill,
					 .arg_type = { ARG_PTR_TO_UNINIT_MEM,
						       ARG_CONST_SIZE_OR_ZERO, ARG_ANYTHING } },
	[BPF_FUNC_trace_printk] = { .func = h_read,
				    .arg_type = { ARG_PTR_TO_MEM, ARG_CONST_SIZE } },
	[BPF_FUNC_get_func_ip] = { .func = h_ctx, .arg_type = { ARG_PTR_TO_CTX } },
};

static const struct bpf_func_proto *fuzz_func_proto(enum bpf_func_id id)
{
	return id < ARRAY_SIZE(protos) && protos[id].func ? &protos[id] : NULL;
}

static bool fuzz_valid_access(int off, int size, bool write)
{
	return !write && off >= 0 && off + size <= (int)sizeof(struct pt_regs) && !(off % size);
}

static const struct bpf_verifier_ops fuzz_ops = { .get_func_proto = fuzz_func_proto,
						  .is_valid_access = fuzz_valid_access };

const struct bpf_verifier_ops *bpf_verifier_ops_of(u32 prog_type)
{
	return prog_type == BPF_PROG_TYPE_KPROBE ? &fuzz_ops : NULL;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static char log_buf[4096];
	struct bpf_verifier_log log = { .buf = log_buf, .size = sizeof(log_buf), .level = 1 };
	u32 len = (size - 1) / sizeof(struct bpf_insn);
	struct bpf_prog *prog;
	void *ctx;

	if (size < 1 + sizeof(struct bpf_insn) || len > 256)
		return 0;
	bpf_complexity_limit = 20000; /* a loop explored 1M times would take a second per input */
	if (!maps[0].map.key_size || !maps[0].values[0])
		for (int m = 0; m < 2; m++)
			for (int i = 0; i < 4; i++)
				maps[m].values[i] = malloc(maps[m].map.value_size);
	prog = bpf_prog_alloc(len);
	memcpy(prog->insnsi, data + 1, len * sizeof(struct bpf_insn));
	prog->type = BPF_PROG_TYPE_KPROBE;
	log.level = data[0] & 2 ? 2 : 1;
	log_buf[0] = 0;
	if (!bpf_check(prog, &log, data[0] & 1)) {
		ctx = malloc(sizeof(struct pt_regs));
		memset(ctx, 0, sizeof(struct pt_regs));
		__bpf_prog_run(ctx, prog->insnsi);
		free(ctx);
	}
	FUZZ_CHECK(log.len < log.size && !log_buf[log.len], "log not terminated");
	bpf_prog_free(prog);
	FUZZ_CHECK(fuzz_live_allocs == 0, "%ld allocations leaked", fuzz_live_allocs);
	FUZZ_CHECK(maps[0].map.refcnt == 1 && maps[1].map.refcnt == 1, "map reference leaked");
	return 0;
}
