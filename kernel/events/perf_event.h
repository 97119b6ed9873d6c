/* perf events: Linux's perf_event_open(2) ABI (attr, ring page, records) and the kernel's side. */
#ifndef KERNEL_EVENTS_PERF_EVENT_H
#define KERNEL_EVENTS_PERF_EVENT_H

#include "lib/types.h"
#include "kernel/irq_work.h"
#include "kernel/sched/wait.h"
#include "kernel/syscalls.h"

/* --- the ABI: every number and layout here is Linux's (include/uapi/linux/perf_event.h) ----- */

enum perf_type_id {
	PERF_TYPE_HARDWARE = 0,
	PERF_TYPE_SOFTWARE = 1,
	PERF_TYPE_TRACEPOINT = 2,
	PERF_TYPE_HW_CACHE = 3,
	PERF_TYPE_RAW = 4,
	PERF_TYPE_BREAKPOINT = 5,
	PERF_TYPE_MAX, /* dynamic PMUs (kprobe, uprobe) get the numbers from here on */
};

/* Our two dynamic PMUs, in the order Linux registers them (its numbers depend on the config). */
#define PERF_TYPE_KPROBE (PERF_TYPE_MAX + 0)
#define PERF_TYPE_UPROBE (PERF_TYPE_MAX + 1)

enum perf_sw_ids {
	PERF_COUNT_SW_CPU_CLOCK = 0,
	PERF_COUNT_SW_TASK_CLOCK = 1,
	PERF_COUNT_SW_PAGE_FAULTS = 2,
	PERF_COUNT_SW_CONTEXT_SWITCHES = 3,
	PERF_COUNT_SW_CPU_MIGRATIONS = 4,
	PERF_COUNT_SW_PAGE_FAULTS_MIN = 5,
	PERF_COUNT_SW_PAGE_FAULTS_MAJ = 6,
	PERF_COUNT_SW_ALIGNMENT_FAULTS = 7,
	PERF_COUNT_SW_EMULATION_FAULTS = 8,
	PERF_COUNT_SW_DUMMY = 9,
	PERF_COUNT_SW_BPF_OUTPUT = 10,
	PERF_COUNT_SW_CGROUP_SWITCHES = 11,
	PERF_COUNT_SW_MAX,
};

#define PERF_SAMPLE_IP (1U << 0)
#define PERF_SAMPLE_TID (1U << 1)
#define PERF_SAMPLE_TIME (1U << 2)
#define PERF_SAMPLE_ADDR (1U << 3)
#define PERF_SAMPLE_READ (1U << 4)
#define PERF_SAMPLE_CALLCHAIN (1U << 5)
#define PERF_SAMPLE_ID (1U << 6)
#define PERF_SAMPLE_CPU (1U << 7)
#define PERF_SAMPLE_PERIOD (1U << 8)
#define PERF_SAMPLE_STREAM_ID (1U << 9)
#define PERF_SAMPLE_RAW (1U << 10)
#define PERF_SAMPLE_IDENTIFIER (1U << 16)
#define PERF_SAMPLE_MAX (1U << 25)
/* What this kernel writes; the other bits are refused with EINVAL rather than left out silently. */
#define PERF_SAMPLE_SUPPORTED                                                                      \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |                  \
	 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |           \
	 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_RAW | PERF_SAMPLE_IDENTIFIER)

#define PERF_FORMAT_TOTAL_TIME_ENABLED (1U << 0)
#define PERF_FORMAT_TOTAL_TIME_RUNNING (1U << 1)
#define PERF_FORMAT_ID (1U << 2)
#define PERF_FORMAT_GROUP (1U << 3)
#define PERF_FORMAT_LOST (1U << 4)
#define PERF_FORMAT_MAX (1U << 5)

#define PERF_ATTR_SIZE_VER0 64
#define PERF_ATTR_SIZE_VER7 128

/* The attr as user space passes it; a shorter (older) one is read as if zero-extended. */
struct perf_event_attr {
	u32 type;
	u32 size;
	u64 config;
	union {
		u64 sample_period;
		u64 sample_freq;
	};
	u64 sample_type;
	u64 read_format;
	u64 disabled : 1, inherit : 1, pinned : 1, exclusive : 1, exclude_user : 1,
		exclude_kernel : 1, exclude_hv : 1, exclude_idle : 1, mmap : 1, comm : 1, freq : 1,
		inherit_stat : 1, enable_on_exec : 1, task : 1, watermark : 1, precise_ip : 2,
		mmap_data : 1, sample_id_all : 1, exclude_host : 1, exclude_guest : 1,
		exclude_callchain_kernel : 1, exclude_callchain_user : 1, mmap2 : 1, comm_exec : 1,
		use_clockid : 1, context_switch : 1, write_backward : 1, namespaces : 1,
		ksymbol : 1, bpf_event : 1, aux_output : 1, cgroup : 1, text_poke : 1, build_id : 1,
		inherit_thread : 1, remove_on_exec : 1, sigtrap : 1, __reserved_1 : 26;
	union {
		u32 wakeup_events;
		u32 wakeup_watermark;
	};
	u32 bp_type;
	union {
		u64 bp_addr;
		u64 kprobe_func; /* the kprobe PMU: a user pointer to the symbol's name */
		u64 uprobe_path; /* the uprobe PMU: a user pointer to the file's path */
		u64 config1;
	};
	union {
		u64 bp_len;
		u64 kprobe_addr;  /* the kprobe PMU when kprobe_func is 0 */
		u64 probe_offset; /* both probe PMUs: the offset from the symbol or in the file */
		u64 config2;
	};
	u64 branch_sample_type;
	u64 sample_regs_user;
	u32 sample_stack_user;
	s32 clockid;
	u64 sample_regs_intr;
	u32 aux_watermark;
	u16 sample_max_stack;
	u16 __reserved_2;
	u32 aux_sample_size;
	u32 __reserved_3;
	u64 sig_data;
};
_Static_assert(sizeof(struct perf_event_attr) == PERF_ATTR_SIZE_VER7, "attr VER7");

/* The first page of the mapping: the head and tail the kernel and the reader move. */
struct perf_event_mmap_page {
	u32 version, compat_version;
	u32 lock, index;
	s64 offset;
	u64 time_enabled, time_running;
	u64 capabilities;
	u16 pmc_width, time_shift;
	u32 time_mult;
	u64 time_offset, time_zero;
	u32 size, __reserved_1;
	u64 time_cycles, time_mask;
	u8 __reserved[116 * 8];
	u64 data_head; /* written by the kernel after the record is complete */
	u64 data_tail; /* written by the reader once it has consumed up to there */
	u64 data_offset, data_size;
	u64 aux_head, aux_tail, aux_offset, aux_size;
};
_Static_assert(__builtin_offsetof(struct perf_event_mmap_page, data_head) == 1024, "data_head");

struct perf_event_header {
	u32 type;
	u16 misc;
	u16 size;
};

#define PERF_RECORD_LOST 2
#define PERF_RECORD_SAMPLE 9
#define PERF_RECORD_MISC_KERNEL (1 << 0)
#define PERF_RECORD_MISC_USER (2 << 0)

/* Markers inside a callchain: the entries after one are kernel or user addresses. */
#define PERF_CONTEXT_KERNEL ((u64)-128)
#define PERF_CONTEXT_USER ((u64)-512)
#define PERF_MAX_STACK_DEPTH 127 /* Linux's kernel.perf_event_max_stack default */

#define PERF_FLAG_FD_NO_GROUP (1UL << 0)
#define PERF_FLAG_FD_OUTPUT (1UL << 1)
#define PERF_FLAG_PID_CGROUP (1UL << 2)
#define PERF_FLAG_FD_CLOEXEC (1UL << 3)

/* ioctl numbers: _IO('$', n), _IOW('$', n, u64 / char * / u32), _IOR('$', 7, u64 *). */
#define PERF_EVENT_IOC_ENABLE 0x2400
#define PERF_EVENT_IOC_DISABLE 0x2401
#define PERF_EVENT_IOC_REFRESH 0x2402
#define PERF_EVENT_IOC_RESET 0x2403
#define PERF_EVENT_IOC_PERIOD 0x40082404
#define PERF_EVENT_IOC_SET_OUTPUT 0x2405
#define PERF_EVENT_IOC_SET_FILTER 0x40082406
#define PERF_EVENT_IOC_ID 0x80082407
#define PERF_EVENT_IOC_SET_BPF 0x40042408
#define PERF_EVENT_IOC_PAUSE_OUTPUT 0x40042409
#define PERF_IOC_FLAG_GROUP 1U

/* --- the kernel's side -------------------------------------------------------------------- */

struct trace_event_call;
struct event_filter;
struct perf_buffer;
struct file;
struct task;

enum perf_event_state {
	PERF_EVENT_STATE_OFF = -1,
	PERF_EVENT_STATE_ACTIVE = 1,
};

/*
 * One opened event (Linux's struct perf_event, trimmed). It counts or samples where it matches:
 * a task's events (pid >= 0) while that task runs, on any CPU; a CPU's (cpu >= 0) on that CPU.
 * Its hook list (a tracepoint's, a software event's) is walked with interrupts off, so an event
 * is unhooked, then tracepoint_synchronize_unregister() waits for every walker, then it is freed.
 */
struct perf_event {
	struct perf_event_attr attr;
	int cpu;   /* -1: any */
	int pid;   /* the task counted (-1: any on cpu) */
	u64 id;	   /* PERF_EVENT_IOC_ID, PERF_FORMAT_ID, PERF_SAMPLE_ID */
	int state; /* enum perf_event_state */
	u64 count; /* what read() reports; added to only where the event matches */
	u64 total_time_enabled, total_time_running;
	u64 tstamp;	    /* ktime when last enabled (the running total is added at disable) */
	u64 clock_start;    /* task-clock/cpu-clock: ktime from which the next delta counts */
	bool clock_running; /* the clock is counting now (its task is on a CPU) */
	u64 sample_period;
	u64 period_left;		  /* counts down to the next sample */
	u64 lost;			  /* samples that found the ring full */
	struct perf_event *group_leader;  /* itself when alone */
	struct perf_event *sibling_next;  /* the leader's other members */
	struct perf_buffer *rb;		  /* after mmap(), else NULL */
	struct trace_event_call *tp_call; /* a tracepoint's (or probe's) event */
	struct event_filter *filter;	  /* PERF_EVENT_IOC_SET_FILTER */
	void *probe;			  /* the kprobe or uprobe a probe PMU event made */
	void *prog;			  /* the BPF program attached (PERF_EVENT_IOC_SET_BPF) */
	struct perf_event *hook_next;	  /* on its tracepoint's or software event's list */
	int refcount;			  /* the file, and each mapping of the ring */
	/* epoll's sleepers, woken from a sample through pending_irq (it may come in an NMI or under
	 * the runqueue lock), at wakeup_events samples or wakeup_watermark bytes */
	struct wait_queue_head waitq;
	struct irq_work pending_irq;
};

/* The one sample being written: what the hook knows, the rest is filled from current. */
struct perf_sample_data {
	u64 ip;
	u64 period;
	const void *raw; /* a tracepoint's record (PERF_SAMPLE_RAW) */
	u32 raw_size;
	const struct pt_regs *regs; /* the interrupted state (cpu-clock), or NULL: here */
};

/* kernel/events/core.c */
extern int sysctl_perf_event_paranoid;
bool perf_event_matches(const struct perf_event *e);
/* Counts nr for e and, when it samples, writes a sample each time its period runs out. */
void perf_event_count(struct perf_event *e, u64 nr, struct perf_sample_data *d);
void perf_event_get(struct perf_event *e);
void perf_event_put(struct perf_event *e);
/* The event behind a perf_event_open() fd, or NULL (for bpf's link_create and SET_BPF). */
struct perf_event *perf_event_get_file(struct file *f);
void perf_event_init(void);

/* kernel/events/sw_event.c: the software events' hooks. */
void perf_sw_add(struct perf_event *e);
void perf_sw_del(struct perf_event *e);
/* enable/disable of a clock event: its clock starts or stops. */
void perf_sw_clock_start(struct perf_event *e);
void perf_sw_clock_stop(struct perf_event *e);
void perf_sw_context_switch(struct task *prev, struct task *next);
void perf_sw_timer_tick(struct pt_regs *regs);
void perf_sw_page_fault(const struct pt_regs *regs);
extern int perf_sw_events; /* software events open: the hooks' one test while there are none */

/* kernel/events/ring_buffer.c */
int perf_mmap(struct file *f, struct perf_event *e, unsigned long addr, unsigned long len);
void perf_buffer_put(struct perf_buffer *rb);
bool perf_buffer_has_data(struct perf_buffer *rb);
/* Writes one PERF_RECORD_SAMPLE (or a PERF_RECORD_LOST first, when some were lost). */
void perf_output_sample(struct perf_event *e, struct perf_sample_data *d);

/* kernel/events/callchain.c: PERF_CONTEXT_KERNEL, kernel frames, PERF_CONTEXT_USER, user frames;
 * the number of entries written into ips (at most max). */
u32 perf_callchain(u64 *ips, u32 max, const struct pt_regs *regs, bool kernel, bool user);

/* kernel/trace/trace_event_perf.c: a tracepoint event's perf side. */
int perf_trace_init(struct perf_event *e);
void perf_trace_destroy(struct perf_event *e);
int perf_trace_set_filter(struct perf_event *e, const char __user *ufilter);
/* A record kept on the ftrace path's scratch copy, handed to every perf event of its call. */
void perf_trace_buf_submit(struct trace_event_call *call, void *rec, u32 len);
/* A kprobe or uprobe event's registers while its record is made (NULL after), interrupts off. */
void perf_trace_probe_regs(struct pt_regs *regs);

/* kernel/events/bpf_perf.c: BPF programs on perf events (PERF_EVENT_IOC_SET_BPF, BPF_LINK_CREATE)
 * and bpf_perf_event_output() into a perf event's ring. */
int perf_event_set_bpf_prog(struct perf_event *e, int prog_fd);
void perf_event_free_bpf_prog(struct perf_event *e);
/* Runs e's program on a hit: false when it returned 0 (the hit is not counted, as Linux's). */
bool perf_event_run_bpf(struct perf_event *e, const void *rec, const struct pt_regs *regs);
/* A software event's BPF_PROG_TYPE_PERF_EVENT program at a sample: false drops the sample. */
bool perf_event_overflow_bpf(struct perf_event *e, const struct perf_sample_data *d);
union bpf_attr;
/* BPF_LINK_CREATE with attach_type BPF_PERF_EVENT: a link fd, or -errno. */
int bpf_perf_link_attach(const union bpf_attr *attr);

#endif
