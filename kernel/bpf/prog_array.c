/* BPF_MAP_TYPE_PROG_ARRAY and bpf_tail_call(): slots of programs a program jumps into (Linux's
 * prog_array_map_ops in kernel/bpf/arraymap.c, bpf_prog_map_compatible() in kernel/bpf/core.c). */
#include "kernel/bpf/core.h"
#include "kernel/bpf/maps.h"
#include "kernel/mm/mm.h"
#include "kernel/sched/sched.h"
#include "kernel/spinlock.h"

static DEFINE_SPINLOCK(owner_lock);

static int prog_array_alloc_check(union bpf_attr *attr)
{
	if (attr->key_size != 4 || attr->value_size != 4 || !attr->max_entries || attr->map_flags)
		return -EINVAL;
	if (attr->max_entries > 65536) /* ours: the slots are one kzalloc */
		return -E2BIG;
	return 0;
}

static struct bpf_map *prog_array_alloc(union bpf_attr *attr)
{
	struct bpf_prog_array_map *a =
		kzalloc(sizeof(*a) + attr->max_entries * sizeof(struct bpf_prog *));

	return a ? &a->map : ERR_PTR(-ENOMEM);
}

/* The last reference: no program that uses the map is left, so none can be inside a slot. */
static void prog_array_free(struct bpf_map *map)
{
	struct bpf_prog_array_map *a = container_of(map, struct bpf_prog_array_map, map);

	for (u32 i = 0; i < map->max_entries; i++)
		bpf_prog_put(a->ptrs[i]);
	kfree(a);
}

/*
 * One type, interpreted or JITed alike, for every program in the map and every program that
 * tail-calls through it: the first one met sets the owner. A JITed caller jumps past the target's
 * prologue, which only a JITed target has; the interpreter runs the target's instructions.
 */
bool bpf_prog_map_compatible(struct bpf_map *map, const struct bpf_prog *prog)
{
	struct bpf_prog_array_map *a = container_of(map, struct bpf_prog_array_map, map);
	unsigned long irq;
	bool ok = true;

	if (map->map_type != BPF_MAP_TYPE_PROG_ARRAY)
		return true;
	irq = spin_lock_irqsave(&owner_lock);
	if (!a->owner_set) {
		a->owner_set = true;
		a->owner_type = prog->type;
		a->owner_jited = prog->jited;
	} else {
		ok = a->owner_type == prog->type && a->owner_jited == prog->jited;
	}
	spin_unlock_irqrestore(&owner_lock, irq);
	return ok;
}

/*
 * Swaps slot index for prog (NULL: empty) and drops the old program once no CPU can be inside
 * it: a CPU that read the slot before the swap may still run the old one, so the wait is for
 * every task to pass a voluntary switch (programs run with preemption off), as Linux waits for
 * an RCU grace period before the old program goes.
 */
static struct bpf_prog *slot_swap(struct bpf_prog_array_map *a, u32 index, struct bpf_prog *prog)
{
	return __atomic_exchange_n(&a->ptrs[index], prog, __ATOMIC_ACQ_REL);
}

static void put_after_grace(struct bpf_prog *old)
{
	if (!old)
		return;
	synchronize_rcu_tasks();
	bpf_prog_put(old);
}

/* From bpf(2) only: the value is a program fd; BPF_ANY alone, as Linux's fd arrays take. */
static long prog_array_update(struct bpf_map *map, void *key, void *value, u64 flags)
{
	struct bpf_prog_array_map *a = container_of(map, struct bpf_prog_array_map, map);
	u32 index = *(u32 *)key;
	struct bpf_prog *prog;

	if (flags != BPF_ANY)
		return -EINVAL;
	if (index >= map->max_entries)
		return -E2BIG;
	prog = bpf_prog_get(*(u32 *)value);
	if (IS_ERR(prog))
		return PTR_ERR(prog);
	if (!bpf_prog_map_compatible(map, prog)) {
		bpf_prog_put(prog);
		return -EINVAL;
	}
	put_after_grace(slot_swap(a, index, prog)); /* bpf_prog_get()'s reference is the slot's */
	return 0;
}

static long prog_array_delete(struct bpf_map *map, void *key)
{
	struct bpf_prog_array_map *a = container_of(map, struct bpf_prog_array_map, map);
	u32 index = *(u32 *)key;
	struct bpf_prog *old;

	if (index >= map->max_entries)
		return -E2BIG;
	old = slot_swap(a, index, NULL);
	if (!old)
		return -ENOENT;
	put_after_grace(old);
	return 0;
}

/* bpf(2)'s lookup gives the program's id, never a pointer (Linux's prog_fd_array_sys_lookup_elem). */
static int prog_array_copy(struct bpf_map *map, void *key, void *value)
{
	struct bpf_prog_array_map *a = container_of(map, struct bpf_prog_array_map, map);
	u32 index = *(u32 *)key;
	struct bpf_prog *prog;

	if (index >= map->max_entries)
		return -ENOENT;
	prog = READ_ONCE(a->ptrs[index]);
	if (!prog)
		return -ENOENT;
	*(u32 *)value = prog->id;
	return 0;
}

const struct bpf_map_ops prog_array_map_ops = {
	.map_alloc_check = prog_array_alloc_check,
	.map_alloc = prog_array_alloc,
	.map_free = prog_array_free,
	.map_update_elem = prog_array_update,
	.map_delete_elem = prog_array_delete,
	.map_get_next_key = array_map_get_next_key,
	.map_copy_value = prog_array_copy,
};

/* Never called: the verifier turns the call into BPF_JMP | BPF_TAIL_CALL, which the interpreter
 * and the JIT carry out themselves (the jump leaves no frame to return to). */
static u64 bpf_tail_call(u64 r1, u64 r2, u64 r3, u64 r4, u64 r5)
{
	return 0;
}

const struct bpf_func_proto bpf_tail_call_proto = {
	.func = bpf_tail_call,
	.ret_type = RET_VOID,
	.arg_type = { ARG_PTR_TO_CTX, ARG_CONST_MAP_PTR, ARG_ANYTHING },
	.map_type = BPF_MAP_TYPE_PROG_ARRAY,
};
