/* BPF_MAP_TYPE_STACK_TRACE and bpf_get_stackid(): call stacks stored once, named by an id the
 * program puts in its own maps (Linux's kernel/bpf/stackmap.c). */
#include "kernel/bpf/helpers.h"
#include "kernel/bpf/maps.h"
#include "kernel/mm/mm.h"
#include "kernel/spinlock.h"
#include "arch/x86/traps.h"
#include "lib/string.h"

/*
 * max_entries buckets; a stack goes in bucket hash(ips) % max_entries, its id. A different stack
 * already there is kept (-EEXIST) unless the program asks BPF_F_REUSE_STACKID.
 *
 *   bucket: | nr | hash | ip[0] ... ip[value_size / 8 - 1] |
 */
struct stack_bucket {
	u32 nr, hash;
	u64 ip[];
};

struct bpf_stack_map {
	struct bpf_map map;
	spinlock_t lock;
	u32 bucket_size;
	u8 buckets[] __aligned(8);
};

#define MAX_STACK_DEPTH 127 /* Linux's sysctl_perf_event_max_stack */

static struct stack_bucket *bucket(struct bpf_stack_map *s, u32 id)
{
	return (void *)(s->buckets + (u64)id * s->bucket_size);
}

static int stack_map_alloc_check(union bpf_attr *attr)
{
	if (attr->key_size != 4 || attr->value_size < 8 || attr->value_size % 8 ||
	    !attr->max_entries || attr->map_flags & ~(BPF_F_RDONLY | BPF_F_WRONLY))
		return -EINVAL;
	if (attr->value_size / 8 > MAX_STACK_DEPTH)
		return -EINVAL;
	return 0;
}

static struct bpf_map *stack_map_alloc(union bpf_attr *attr)
{
	u32 size = sizeof(struct stack_bucket) + attr->value_size;
	u64 total = (u64)size * attr->max_entries;
	struct bpf_stack_map *s;

	if (total > (64ULL << 20))
		return ERR_PTR(-ENOMEM);
	s = kzalloc(sizeof(*s) + total);
	if (!s)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&s->lock);
	s->bucket_size = size;
	return &s->map;
}

static void stack_map_free(struct bpf_map *map)
{
	kfree(container_of(map, struct bpf_stack_map, map));
}

static int stack_map_copy(struct bpf_map *map, void *key, void *value)
{
	struct bpf_stack_map *s = container_of(map, struct bpf_stack_map, map);
	u32 id = *(u32 *)key;
	unsigned long irq;
	int err = -ENOENT;

	if (id >= map->max_entries)
		return -ENOENT;
	irq = spin_lock_irqsave(&s->lock);
	if (bucket(s, id)->nr) {
		memset(value, 0, map->value_size);
		memcpy(value, bucket(s, id)->ip, bucket(s, id)->nr * sizeof(u64));
		err = 0;
	}
	spin_unlock_irqrestore(&s->lock, irq);
	return err;
}

static int stack_map_get_next_key(struct bpf_map *map, void *key, void *next_key)
{
	struct bpf_stack_map *s = container_of(map, struct bpf_stack_map, map);
	u32 id = key && *(u32 *)key < map->max_entries ? *(u32 *)key + 1 : 0;

	for (; id < map->max_entries; id++)
		if (READ_ONCE(bucket(s, id)->nr)) {
			*(u32 *)next_key = id;
			return 0;
		}
	return -ENOENT;
}

static long stack_map_delete(struct bpf_map *map, void *key)
{
	struct bpf_stack_map *s = container_of(map, struct bpf_stack_map, map);
	u32 id = *(u32 *)key;
	unsigned long irq;
	int err = -ENOENT;

	if (id >= map->max_entries)
		return -EINVAL;
	irq = spin_lock_irqsave(&s->lock);
	if (bucket(s, id)->nr) {
		bucket(s, id)->nr = 0;
		err = 0;
	}
	spin_unlock_irqrestore(&s->lock, irq);
	return err;
}

static long stack_map_update(struct bpf_map *map, void *key, void *value, u64 flags)
{
	return -EINVAL; /* stacks come only from bpf_get_stackid() */
}

const struct bpf_map_ops stack_trace_map_ops = {
	.map_alloc_check = stack_map_alloc_check,
	.map_alloc = stack_map_alloc,
	.map_free = stack_map_free,
	.map_update_elem = stack_map_update,
	.map_delete_elem = stack_map_delete,
	.map_get_next_key = stack_map_get_next_key,
	.map_copy_value = stack_map_copy,
};

/* Return addresses from regs (ip, then the frame-pointer chain from bp), or from our caller's
 * frames when regs is NULL. Each frame is read nofault: a broken chain ends the walk. */
static u32 walk_stack(const struct pt_regs *regs, u64 *ips, u32 max)
{
	unsigned long fp, frame[2];
	u32 n = 0;

	if (regs) {
		ips[n++] = regs->ip;
		fp = regs->bp;
	} else {
		fp = (unsigned long)__builtin_frame_address(0);
	}
	while (n < max && fp >= PAGE_OFFSET && !(fp & 7)) {
		if (copy_from_kernel_nofault(frame, (void *)fp, sizeof(frame)) || !frame[1])
			break;
		ips[n++] = frame[1];
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return n;
}

u64 bpf_get_stackid_regs(const struct pt_regs *regs, struct bpf_map *map, u64 flags)
{
	struct bpf_stack_map *s = container_of(map, struct bpf_stack_map, map);
	u32 skip = flags & BPF_F_SKIP_FIELD_MASK, depth = map->value_size / 8, n,
	    hash = 2166136261u;
	u64 ips[MAX_STACK_DEPTH + 32];
	struct stack_bucket *b;
	unsigned long irq;
	long id;

	if (flags & ~(BPF_F_SKIP_FIELD_MASK | BPF_F_FAST_STACK_CMP | BPF_F_REUSE_STACKID))
		return -EINVAL; /* BPF_F_USER_STACK too: user stacks are not walked here */
	n = walk_stack(regs, ips, MIN(skip + depth, (u32)ARRAY_SIZE(ips)));
	if (n <= skip)
		return -EFAULT;
	n = MIN(n - skip, depth);
	for (u32 i = 0; i < n * 8; i++)
		hash = (hash ^ ((u8 *)&ips[skip])[i]) * 16777619u;
	id = hash % map->max_entries;
	irq = spin_lock_irqsave(&s->lock);
	b = bucket(s, id);
	if (b->nr && (b->hash != hash || b->nr != n || memcmp(b->ip, &ips[skip], n * 8))) {
		if (!(flags & BPF_F_REUSE_STACKID)) {
			spin_unlock_irqrestore(&s->lock, irq);
			return -EEXIST;
		}
	}
	b->nr = n;
	b->hash = hash;
	memcpy(b->ip, &ips[skip], n * 8);
	spin_unlock_irqrestore(&s->lock, irq);
	return id;
}

static u64 bpf_get_stackid(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	return bpf_get_stackid_regs((const struct pt_regs *)(unsigned long)r1,
				    (struct bpf_map *)(unsigned long)r2, r3);
}

/* A tracepoint's program: the stack is the one the tracepoint was hit on, ours. */
static u64 bpf_get_stackid_tp(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	return bpf_get_stackid_regs(NULL, (struct bpf_map *)(unsigned long)r2, r3);
}

const struct bpf_func_proto bpf_get_stackid_proto = {
	.func = bpf_get_stackid,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING },
	.map_type = BPF_MAP_TYPE_STACK_TRACE,
};

const struct bpf_func_proto bpf_get_stackid_proto_tp = {
	.func = bpf_get_stackid_tp,
	.ret_type = RET_INTEGER,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING },
	.map_type = BPF_MAP_TYPE_STACK_TRACE,
};
