/* userstacktrace: after each event of a process, the process's own return addresses.
 *
 *   echo userstacktrace > trace_options
 *   tracee-2  [000] .....  0.175820: myup: (0x4012f0) a=0xa
 *   tracee-2  [000] .....  0.175822: <user stack trace>
 *    =>  <00000000004012f0>          where ring 3 was (the probe's address, a syscall's return)
 *    =>  <000000000040105e>          then one return address per frame, while rbp chains them
 *
 * The walk reads the user's frame pointers (rbp -> saved rbp, return address) through the uaccess
 * helpers and stops at the first that is not a user address, goes down the stack, or cannot be read:
 * a program built without frame pointers shows its rip alone, as it does on Linux.
 *
 * Linux: kernel/trace/trace.c (ftrace_trace_userstack()), arch/x86/kernel/stacktrace.c
 * (arch_stack_walk_user()), kernel/trace/trace_output.c (trace_user_stack_print(), which prints
 * " =>  <%016lx>" without sym-userobj, the option not offered here).
 */
#include "kernel/trace/trace.h"
#include "arch/x86/traps.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"

void ftrace_trace_userstack(void)
{
	struct task *t = current;
	const struct pt_regs *regs;
	struct userstack_entry *e;
	unsigned long fp, frame[2];
	struct rb_reserve r;
	int n = 0;

	if (!t || !t->mm || this_cpu()->nmi_depth)
		return;
	/* Every way in from ring 3 (syscall, interrupt, exception, a uprobe's int3) saves the user
	 * registers at the top of the task's kernel stack. */
	regs = task_pt_regs(t);
	e = trace_reserve(&r, TRACE_USER_STACK, sizeof(*e), 0, 0);
	if (!e)
		return;
	e->tgid = t->tgid;
	e->caller[n++] = regs->ip;
	for (fp = regs->bp; n < FTRACE_STACK_ENTRIES; fp = frame[0]) {
		if (fp & 7 || fp >= TASK_SIZE_MAX || fp < regs->sp ||
		    copy_from_user_nofault(frame, (const void *)fp, sizeof(frame)) || !frame[1])
			break;
		e->caller[n++] = frame[1];
		if (frame[0] <= fp)
			break;
	}
	while (n < FTRACE_STACK_ENTRIES)
		e->caller[n++] = 0;
	ring_buffer_unlock_commit(&r);
}

bool trace_user_stack_print(struct seq_file *m, struct trace_iterator *it)
{
	const struct userstack_entry *e = (const void *)it->ent;

	trace_print_context(m, it);
	seq_puts(m, "<user stack trace>\n");
	for (int i = 0; i < FTRACE_STACK_ENTRIES && e->caller[i]; i++)
		seq_printf(m, " =>  <%016lx>\n", e->caller[i]);
	return true;
}
