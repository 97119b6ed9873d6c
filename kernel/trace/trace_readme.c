/* README: a short guide to this directory, read by people and by Linux's ftracetest, which greps
 * it for the syntax strings of the features it may test. Written for this kernel: it names only
 * what is built here, in the notation Linux's own README uses for the same syntax, so a test of a
 * feature we lack is skipped and one we have is run. */
#include "kernel/trace/trace.h"
#include "kernel/fs/tracefs.h"
#include "kernel/printk/printk.h"

static const char readme_text[] =
	"tracing mini-HOWTO (ftrace-os):\n\n"
	"# echo 0 > tracing_on : stop recording, keep what is there\n"
	"# echo 1 > tracing_on : record again\n\n"
	" Files of this directory (and of each instances/<name>/):\n"
	"  trace\t\t\t- the buffer, oldest first; echo > trace empties it\n"
	"  trace_pipe\t\t- the same lines, taken out as they are read\n"
	"  current_tracer\t- the tracer filling the buffer (available_tracers lists them)\n"
	"  tracing_on\t\t- 0 or 1: whether anything is recorded\n"
	"  buffer_size_kb\t- each CPU's buffer, in KiB; what is recorded stays (X: CPUs differ)\n"
	"  trace_options\t\t- the options, one a line; options/ has a file for each\n"
	"  trace_marker\t\t- a line written here goes into the buffer\n"
	"  trace_marker_raw\t- binary: a 4-byte id, then the bytes to keep\n"
	"  trace_clock\t\t- what the stamps count; a change empties the buffer\n"
	"\t\tlocal: the TSC as ns since boot, per CPU (the default)\n"
	"\t\tglobal, perf, mono, mono_raw, boot, tai: ns since boot, every CPU's the same\n"
	"\t\tcounter: a count, one per event; uptime: jiffies; x86-tsc: the raw TSC\n"
	"  timestamp_mode\t- how events are stamped: [delta] from their page's stamp\n"
	"  printk_formats\t- the formats trace_printk() records point at\n"
	"  saved_cmdlines\t- the task names the trace prints\n"
	"  error_log\t\t- why the last bad filters and probe definitions were refused\n"
	"  instances/\t\t- mkdir instances/<name>: a trace array of its own; rmdir removes it\n"
	"  per_cpu/cpu<N>/\t- one CPU's trace, trace_pipe, trace_pipe_raw, stats, "
	"buffer_size_kb\n\n"
	"  available_filter_functions - every function the function tracers can trace\n"
	"  enabled_functions\t- the call sites switched on now\n"
	"  set_ftrace_filter\t- only these functions are traced (empty: all)\n"
	"\t    accepts: func_full_name or glob-matching-pattern, !name to remove\n"
	"\t    commands: <func>:traceon|traceoff|stacktrace|dump|cpudump[:count]\n"
	"  set_ftrace_notrace\t- these functions are never traced\n"
	"  set_ftrace_pid\t- only these tasks are traced by the function tracers\n"
	"  set_ftrace_notrace_pid - these tasks never are\n"
	"  set_graph_function\t- function_graph: these functions and what they call\n"
	"  set_graph_notrace\t- function_graph: not these, nor what they call\n"
	"  max_graph_depth\t- function_graph: how deep to go (0: all)\n"
	"  tracing_thresh\t- function_graph: only calls longer than this (us)\n"
	"  function_profile_enabled - count calls and time per function (trace_stat/)\n"
	"  stack_trace\t\t- the deepest kernel stack seen (stack_max_size)\n"
	"  stack_trace_filter\t- the stack tracer measures at these functions only\n"
	"  tracing_cpumask\t- the CPUs that record, a hex bitmap\n\n"
	"  set_event\t\t- the events recorded, <system>:<event>; !<system>:<event> removes\n"
	"  set_event_pid\t\t- only these tasks' events are recorded\n"
	"  set_event_notrace_pid\t- these tasks' events never are\n"
	"  available_events\t- every event\n"
	"  events/<system>/<event>/\n"
	"      enable\t\t- 0 or 1\n"
	"      filter\t\t- only records matching it are kept\n"
	"      trigger\t\t- <trigger>[:count][if <filter>]\n"
	"\t   trigger: traceon, traceoff, stacktrace\n"
	"      format, id\t- the record's layout and type number\n\n"
	"  dynamic_events\t- Create/append/remove/show the probe events of every kind\n"
	"  kprobe_events\t\t- Create/append/remove/show the kernel probe events\n"
	"  uprobe_events\t\t- Create/append/remove/show the user-space probe events\n"
	"\t  accepts: event-definitions (one definition per line)\n"
	"\t   Format: p[:[<group>/][<event>]] <place> [<args>]\n"
	"\t           r[maxactive][:[<group>/][<event>]] <place> [<args>]\n"
	"\t           e[:[<group>/][<event>]] <attached-group>.<attached-event> [<args>] [if "
	"<filter>]\n"
	"\t           -:[<group>/][<event>]\n"
	"\t    place: <symbol>[+<offset>]|<memaddr>\n"
	"  place (kretprobe): <symbol>[+<offset>]%return|<memaddr>\n"
	"   place (uprobe): <path>:<offset>\n"
	"\t     args: <name>=fetcharg[:type]\n"
	"\t fetcharg: %<register>, $<efield>, @<address>, @<symbol>[+|-<offset>], $stack<index>, "
	"$stack, $retval, $comm, $arg<N>,\n"
	"\t           +|-[u]<offset>(<fetcharg>), \\imm-value, \\\"imm-string\"\n"
	"\t     type: s8/16/32/64, u8/16/32/64, x8/16/32/64, string, symbol,\n"
	"\t           b<bit-width>@<bit-offset>/<container-size>, ustring,\n"
	"\t           symstr, <type>\\[<array-size>\\]\n";

static int readme_show(struct seq_file *m, struct fnode *f)
{
	seq_puts(m, readme_text);
	return 0;
}

static const struct tracefs_file readme_file =
	TRACEFS_FILE("/sys/kernel/tracing/README", readme_show, NULL);

void trace_readme_init(void)
{
	if (tracefs_create_files(NULL, &readme_file, 1))
		pr_err("tracing: cannot create README\n");
}
