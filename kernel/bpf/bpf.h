/* eBPF inside the kernel: programs, maps, and what other subsystems call (Linux's linux/bpf.h). */
#ifndef KERNEL_BPF_BPF_H
#define KERNEL_BPF_BPF_H

#include "kernel/bpf/bpf_uapi.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/types.h"

/* Linux's kernel-internal errno, which bpf(2) hands to user space as it is (an fd's mmap()). */
#define ENOTSUPP 524

struct file;
struct poll_table_struct;
struct vm_area_struct;
struct pt_regs;
struct bpf_map;
struct btf;

/* Pointers that carry an errno, as Linux's ERR_PTR(): the top 4095 addresses are never objects. */
#ifndef IS_ERR
#define MAX_ERRNO 4095
static inline void *ERR_PTR(long err)
{
	return (void *)err;
}
static inline long PTR_ERR(const void *p)
{
	return (long)p;
}
static inline bool IS_ERR(const void *p)
{
	return (unsigned long)p >= (unsigned long)-MAX_ERRNO;
}
#endif

/* What a map type does (Linux's struct bpf_map_ops): each kernel/bpf/<map>.c fills one. */
struct bpf_map_ops {
	int (*map_alloc_check)(union bpf_attr *attr);
	struct bpf_map *(*map_alloc)(union bpf_attr *attr);
	void (*map_free)(struct bpf_map *map);
	/* From a program: a pointer to the value (this CPU's for per-CPU maps), or NULL. */
	void *(*map_lookup_elem)(struct bpf_map *map, void *key);
	long (*map_update_elem)(struct bpf_map *map, void *key, void *value, u64 flags);
	long (*map_delete_elem)(struct bpf_map *map, void *key);
	int (*map_get_next_key)(struct bpf_map *map, void *key, void *next_key);
	/* From bpf(2) on a per-CPU map: every CPU's value, one after another, each rounded to 8. */
	int (*map_copy_value)(struct bpf_map *map, void *key, void *value);
	int (*map_update_percpu)(struct bpf_map *map, void *key, void *value, u64 flags);
	/* mmap() of the map fd (ringbuf): fills the area made at byte off of the map, or -errno. */
	int (*map_mmap)(struct bpf_map *map, struct vm_area_struct *vma, unsigned long off);
	/* poll() and epoll of the map fd: the EPOLL* events ready now. */
	unsigned int (*map_poll)(struct bpf_map *map, struct file *f, struct poll_table_struct *pt);
};

struct bpf_map {
	const struct bpf_map_ops *ops;
	u32 map_type, key_size, value_size, max_entries, map_flags;
	u32 id;
	u32 btf_id, btf_key_type_id, btf_value_type_id; /* what MAP_CREATE named, for its info */
	int refcnt;					/* fds and programs that use it */
	char name[BPF_OBJ_NAME_LEN];
	struct bpf_map *next_loaded; /* every live map, by id (kernel/bpf/objs.c) */
};

/* A loaded program. bpf_func is what runs it: the interpreter, or the JITed image. */
struct bpf_prog {
	u32 type; /* enum bpf_prog_type */
	u32 expected_attach_type;
	u32 len; /* instructions in insnsi */
	u32 id;
	int refcnt; /* fds, links and perf events that hold it */
	bool jited;
	u32 jited_len;
	u32 verified_insns; /* insns the verifier processed */
	u32 stack_depth;
	u8 tag[BPF_TAG_SIZE];
	char name[BPF_OBJ_NAME_LEN];
	u64 load_time;
	u32 uid;
	u32 used_map_cnt;
	struct bpf_map **used_maps;
	u32 subprog_cnt;		   /* functions: 1 + bpf-to-bpf call targets */
	struct bpf_subprog_info *subprogs; /* each one's start and stack depth */
	void *jit_image;		   /* execmem, RX */
	void *tail_call_entry;		   /* where a JITed tail call into it lands */
	struct bpf_prog *next_loaded;	   /* every loaded program, by id (objs.c) */
	struct btf *btf;		   /* the BTF its func_info points into, or NULL */
	bool gpl_compatible;		   /* its license is one Linux takes as GPL */
	/* BPF_PROG_TYPE_TRACING: the function attach_btf_id names (kernel/bpf/tracing_btf.c) */
	u32 attach_btf_id, attach_nr_args;
	unsigned long attach_func_addr;
	const char *attach_func_name;
	u64 (*bpf_func)(const void *ctx, const struct bpf_insn *insn);
	struct bpf_insn insnsi[];
};

/*
 * The seam with perf events and probes (kernel/bpf/syscall.c). bpf_prog_get_type() takes a
 * reference on the program behind fd ufd if it is of type type: ERR_PTR(-EBADF) when ufd is not
 * a program, ERR_PTR(-EINVAL) when it is of another type. bpf_prog_put() drops the reference.
 */
struct bpf_prog *bpf_prog_get_type(int ufd, enum bpf_prog_type type);
void bpf_prog_put(struct bpf_prog *prog);
void bpf_prog_inc(struct bpf_prog *prog);

/*
 * Runs prog on ctx and returns its r0. ctx is what the program type reads: for
 * BPF_PROG_TYPE_KPROBE a struct pt_regs * (the probed registers), for BPF_PROG_TYPE_TRACEPOINT
 * the raw record as the event stores it (its common fields first), for RAW_TRACEPOINT a u64
 * array of the tracepoint's arguments. Call it with preemption off (any context).
 */
static inline u32 bpf_prog_run(const struct bpf_prog *prog, const void *ctx)
{
	/* no run_cnt/run_time_ns: Linux counts only with kernel.bpf_stats_enabled, which we lack */
	return (u32)prog->bpf_func(ctx, prog->insnsi);
}

/*
 * The perf side's half of bpf_perf_event_output(): a weak default here answers -ENOENT until
 * kernel/events/ defines these. event_file is what a PERF_EVENT_ARRAY slot holds (an open perf
 * event); cpu is the CPU running the program.
 */
bool bpf_is_perf_event_file(struct file *f);
long bpf_perf_event_output_file(struct file *event_file, int cpu, const void *data, u64 size);

/* kernel/bpf/syscall.c */
void bpf_init(void);
extern unsigned long sysctl_unprivileged_bpf_disabled;
extern unsigned long bpf_jit_enable;

#endif
