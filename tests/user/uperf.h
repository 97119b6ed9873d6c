/* uperf.h: perf_event_open(2) for our programs: Linux's attr and ring page, and a few helpers. */
#ifndef TESTS_USER_UPERF_H
#define TESTS_USER_UPERF_H

#include "ulib.h"

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned short u16;

enum {
	NR_perf_event_open = 298,
	NR_setresuid = 117,
	NR_setresgid = 119,
	NR_kill = 62,
};

#define PERF_TYPE_SOFTWARE 1
#define PERF_TYPE_TRACEPOINT 2
#define PERF_COUNT_SW_CPU_CLOCK 0
#define PERF_COUNT_SW_TASK_CLOCK 1
#define PERF_COUNT_SW_PAGE_FAULTS 2
#define PERF_COUNT_SW_CONTEXT_SWITCHES 3
#define PERF_COUNT_SW_CPU_MIGRATIONS 4

#define PERF_SAMPLE_IP (1U << 0)
#define PERF_SAMPLE_TID (1U << 1)
#define PERF_SAMPLE_TIME (1U << 2)
#define PERF_SAMPLE_CALLCHAIN (1U << 5)
#define PERF_SAMPLE_ID (1U << 6)
#define PERF_SAMPLE_CPU (1U << 7)
#define PERF_SAMPLE_PERIOD (1U << 8)
#define PERF_SAMPLE_RAW (1U << 10)

#define PERF_FORMAT_TOTAL_TIME_ENABLED (1U << 0)
#define PERF_FORMAT_TOTAL_TIME_RUNNING (1U << 1)
#define PERF_FORMAT_ID (1U << 2)
#define PERF_FORMAT_GROUP (1U << 3)
#define PERF_FORMAT_LOST (1U << 4)

/* attr.flags bits, in the order of Linux's bitfield */
#define ATTR_DISABLED (1ULL << 0)
#define ATTR_EXCLUDE_USER (1ULL << 4)
#define ATTR_EXCLUDE_KERNEL (1ULL << 5)
#define ATTR_FREQ (1ULL << 10)

#define PERF_EVENT_IOC_ENABLE 0x2400
#define PERF_EVENT_IOC_DISABLE 0x2401
#define PERF_EVENT_IOC_RESET 0x2403
#define PERF_EVENT_IOC_SET_FILTER 0x40082406
#define PERF_EVENT_IOC_ID 0x80082407
#define PERF_FLAG_FD_CLOEXEC 8

#define PERF_RECORD_LOST 2
#define PERF_RECORD_SAMPLE 9
#define PERF_CONTEXT_KERNEL ((u64)-128)
#define PERF_CONTEXT_USER ((u64)-512)

/* Linux's struct perf_event_attr (VER7, 128 bytes), its bitfield as one word. */
struct perf_event_attr {
	u32 type, size;
	u64 config;
	u64 sample_period; /* or sample_freq with ATTR_FREQ */
	u64 sample_type, read_format;
	u64 flags;
	u32 wakeup_events, bp_type;
	u64 config1, config2, branch_sample_type, sample_regs_user;
	u32 sample_stack_user;
	int clockid;
	u64 sample_regs_intr;
	u32 aux_watermark;
	u16 sample_max_stack, reserved_2;
	u32 aux_sample_size, reserved_3;
	u64 sig_data;
};

/* The ring's first page, to data_size (offset 1024 on, as Linux lays it out). */
struct perf_event_mmap_page {
	u32 version, compat_version, lock, index;
	u64 pad[(1024 - 16) / 8];
	u64 data_head, data_tail, data_offset, data_size;
};

struct perf_event_header {
	u32 type;
	u16 misc, size;
};

static inline long perf_event_open(struct perf_event_attr *a, long pid, long cpu, long group,
				   unsigned long flags)
{
	return sys6(NR_perf_event_open, a, pid, cpu, group, flags, 0);
}

/* events/<system>/<name>/id, or -1. */
static inline long tracepoint_id(const char *sys_slash_name)
{
	char path[160] = "/sys/kernel/tracing/events/", buf[16];
	long fd, n, v = 0;
	size_t l = strlen(path);

	memcpy(path + l, sys_slash_name, strlen(sys_slash_name) + 1);
	l = strlen(path);
	memcpy(path + l, "/id", 4);
	fd = sys3(NR_open, path, 0, 0);
	if (fd < 0)
		return -1;
	n = sys3(NR_read, fd, buf, sizeof(buf) - 1);
	sys1(NR_close, fd);
	for (long i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		v = v * 10 + buf[i] - '0';
	return n > 0 ? v : -1;
}

#endif
