/* Boot-time tracing: Linux 6.1's kernel command-line parameters, applied once every tracing file
 * exists and before the shell starts, by writing the files a user would write.
 *
 *   trace_buf_size=1M  trace_clock=global  trace_options=sym-offset,noirq-info
 *   ftrace_filter=a,b  ftrace_notrace=  ftrace_graph_filter=  ftrace_graph_notrace=
 *   ftrace_graph_max_depth=N  ftrace=function  kprobe_event=p:name,sym,args;p:...
 *   trace_event=sched:sched_switch,irq:*  trace_instance=name,event,...  stacktrace
 *   tp_printk  ftrace_dump_on_oops[=orig_cpu]
 *
 * From here on the boot is traced: the rest of kmain() (workloads, livepatch, mounts) and the
 * shell's start. What ran before (memory, interrupts, ftrace's own conversion, the other CPUs'
 * start) cannot be: the buffer and the tracers do not exist yet. A bad value is said on the
 * console and ignored; the boot goes on.
 */
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_snapshot.h"
#include "kernel/fs/tracefs.h"
#include "kernel/multiboot.h"
#include "kernel/printk/printk.h"
#include "lib/errno.h"
#include "lib/printf.h"
#include "lib/string.h"

#define T "/sys/kernel/tracing/"

/* The value of param= on the command line into val (NULL if absent; "" for a bare word). */
static bool boot_param(const char *param, char *val, size_t size)
{
	size_t n = strlen(param);

	for (const char *p = boot_info.cmdline; (p = strstr(p, param)) != NULL; p += n) {
		const char *v = p + n, *end;
		if (p != boot_info.cmdline && p[-1] != ' ')
			continue;
		if (*v != '=' && *v != ' ' && *v)
			continue;
		v += *v == '=';
		end = strchr(v, ' ') ?: v + strlen(v);
		if ((size_t)(end - v) >= size)
			return false;
		memcpy(val, v, end - v);
		val[end - v] = '\0';
		return true;
	}
	return false;
}

static void commas_to(char *s, char c)
{
	for (; *s; s++)
		if (*s == ',')
			*s = c;
}

/* One write to a tracefs file, as `echo` makes it; what went wrong said, naming the parameter. */
static int boot_write(const char *param, const char *path, const char *text, unsigned int flags)
{
	struct fnode *f;
	int err = fs_resolve(fs_root(), path, &f);

	if (!err)
		err = f->is_dir ? -EISDIR : fs_write(f, text, strlen(text), flags);
	if (err)
		pr_warn("tracing: %s=%s: %s, ignored\n", param, text, strerror(err));
	return err;
}

/* trace_buf_size=N[KMG]: bytes per CPU, as Linux's memparse reads them; our unit is KiB. */
static void boot_buf_size(const char *val)
{
	static const char units[] = "kKmMgG";
	unsigned long long bytes;
	char num[32], kb[24];
	size_t n = strlen(val);
	const char *unit = n ? strchr(units, val[n - 1]) : NULL;

	if (unit && val[n - 1])
		n--;
	if (n >= sizeof(num))
		n = 0;
	memcpy(num, val, n);
	num[n] = '\0';
	if (!n || kstrtoull(num, 0, &bytes)) {
		pr_warn("tracing: trace_buf_size=%s: not a size, ignored\n", val);
		return;
	}
	if (unit && val[strlen(val) - 1])
		bytes <<= 10 * (1 + (unit - units) / 2);
	snprintf(kb, sizeof(kb), "%llu", (bytes + 1023) / 1024);
	boot_write("trace_buf_size", T "buffer_size_kb", kb, FS_TRUNC);
}

/* trace_instance=name,event,...: the instance, then its events (Linux 6.1's syntax). */
static void boot_instance(char *val)
{
	char *events = strchr(val, ','), path[FS_PATH_MAX];
	struct fnode *dir;
	int err;

	if (events)
		*events++ = '\0';
	err = fs_resolve(fs_root(), T "instances", &dir);
	if (!err)
		err = fs_user_mkdir(dir, val);
	if (err) {
		pr_warn("tracing: trace_instance=%s: %s, ignored\n", val, strerror(err));
		return;
	}
	if (!events)
		return;
	commas_to(events, ' ');
	snprintf(path, sizeof(path), T "instances/%s/set_event", val);
	boot_write("trace_instance", path, events, FS_APPEND);
}

/* A comma-separated list one item at a time (each appended): a bad one is said, the others
 * still apply, as Linux's early filters, events and options do. */
static void boot_each(const char *param, const char *path, char *val)
{
	char *p = val, *item;

	while ((item = strsep(&p, ",")) != NULL)
		if (*item && boot_write(param, path, item, FS_APPEND) &&
		    !strcmp(param, "trace_event"))
			pr_warn("Failed to enable trace event: %s\n", item); /* Linux's line */
}

/* kprobe_event=p:name,sym,args;p:...: commas for spaces, a semicolon between definitions. */
static void boot_kprobes(char *val)
{
	char *p = val, *def;

	commas_to(val, ' ');
	while ((def = strsep(&p, ";")) != NULL)
		if (*def)
			boot_write("kprobe_event", T "kprobe_events", def, FS_APPEND);
}

/* Parameters whose value goes to one file, a comma-separated list item by item. */
static const struct {
	const char *param, *path;
} simple[] = {
	{ "trace_clock", T "trace_clock" },
	{ "trace_options", T "trace_options" },
	{ "ftrace_filter", T "set_ftrace_filter" },
	{ "ftrace_notrace", T "set_ftrace_notrace" },
	{ "ftrace_graph_filter", T "set_graph_function" },
	{ "ftrace_graph_notrace", T "set_graph_notrace" },
	{ "ftrace_graph_max_depth", T "max_graph_depth" },
};

unsigned long tracepoint_printk;
static const struct tracefs_ulong tp_printk = { .value = &tracepoint_printk, .max = 1 };
static const struct tracefs_file tp_printk_file =
	TRACEFS_ULONG("/proc/sys/kernel/tracepoint_printk", &tp_printk);

void trace_boot_init(void)
{
	char val[256];

	if (tracefs_create_files(NULL, &tp_printk_file, 1))
		pr_err("tracing: cannot create tracepoint_printk\n");

	if (boot_param("trace_buf_size", val, sizeof(val)))
		boot_buf_size(val);
	for (size_t i = 0; i < ARRAY_SIZE(simple); i++)
		if (boot_param(simple[i].param, val, sizeof(val)))
			boot_each(simple[i].param, simple[i].path, val);
	if (boot_param("kprobe_event", val, sizeof(val)))
		boot_kprobes(val);
	if (boot_param("ftrace", val, sizeof(val)) &&
	    tracing_set_tracer(val)) /* Linux's words for a tracer it does not have */
		pr_warn("ftrace bootup tracer '%s' not registered.\n", val);
	if (boot_param("trace_event", val, sizeof(val)))
		boot_each("trace_event", T "set_event", val);
	if (boot_param("trace_instance", val, sizeof(val)))
		boot_instance(val);
	if (boot_param("stacktrace", val, sizeof(val)))
		boot_write("stacktrace", "/proc/sys/kernel/stack_tracer_enabled", "1", FS_TRUNC);
	if (boot_param("tp_printk", val, sizeof(val)))
		boot_write("tp_printk", "/proc/sys/kernel/tracepoint_printk", "1", FS_TRUNC);
	if (boot_param("ftrace_dump_on_oops", val, sizeof(val)))
		boot_write("ftrace_dump_on_oops", "/proc/sys/kernel/ftrace_dump_on_oops",
			   !strcmp(val, "orig_cpu") ? "2" : "1", FS_TRUNC);
	/* Linux's alloc_snapshot: the top array's snapshot buffer from boot on, so a snapshot taken
	 * before anyone wrote 1 to the snapshot file is not lost to "SNAPSHOT NOT ALLOCATED". */
	if (boot_param("alloc_snapshot", val, sizeof(val)) &&
	    tracing_alloc_snapshot_instance(&global_trace))
		pr_warn("tracing: alloc_snapshot: no memory for the snapshot buffer\n");
	if (boot_param("traceoff_on_warning", val, sizeof(val)))
		pr_warn("tracing: traceoff_on_warning: this kernel has no WARN(), ignored\n");
}
