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
 * With sym-userobj, an address inside a mapping of a file is printed as the file and the offset
 * from the mapping's start, " => /tests/tracee[+0x2f0]" (and " <address>" after it with
 * sym-addr), looked up when `trace` is read, in the process's mappings then: a process gone by
 * then, or an address in anonymous memory (the stack, the heap), keeps the raw form.
 *
 * Linux: kernel/trace/trace.c (ftrace_trace_userstack()), arch/x86/kernel/stacktrace.c
 * (arch_stack_walk_user()), kernel/trace/trace_output.c (trace_user_stack_print() and
 * seq_print_user_ip()).
 */
#include "kernel/trace/trace.h"
#include "arch/x86/traps.h"
#include "kernel/fs/fs.h"
#include "kernel/mm/mm.h"
#include "kernel/percpu.h"
#include "kernel/sched/sched.h"
#include "kernel/mm/mm_types.h"
#include "lib/string.h"

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

/* What sym-userobj needs of a process's mappings, taken in one look: the file's path, and for
 * each address its offset in the file mapping holding it (USEROBJ_NONE: none does). */
#define USEROBJ_NONE (~0UL)
struct userobj {
	int tgid;
	bool found;
	char path[sizeof(((struct mm_struct *)0)->exe_path)];
	const unsigned long *ips;
	unsigned long off[FTRACE_STACK_ENTRIES];
};

static void userobj_offsets(const struct mm_struct *mm, struct userobj *u)
{
	strscpy(u->path, mm->exe_path, sizeof(u->path));
	for (int i = 0; i < FTRACE_STACK_ENTRIES && u->ips[i]; i++) {
		const struct vm_area_struct *v = mm->mmap;

		while (v && v->vm_end <= u->ips[i])
			v = v->vm_next;
		u->off[i] = v && v->vm_start <= u->ips[i] && v->vm_inode ? u->ips[i] - v->vm_start
									 : USEROBJ_NONE;
	}
}

/* Under the task's runqueue lock, as uprobes reach another process's mm: a task of the process
 * (Linux looks up the thread group leader, which may have gone while other threads run). */
static void userobj_match(struct task *t, void *arg)
{
	struct userobj *u = arg;

	if (u->found || !t->mm || (t->tgid ?: t->pid) != u->tgid)
		return;
	u->found = true;
	userobj_offsets(t->mm, u);
}

static void print_user_ip(struct seq_file *m, const struct userobj *u, int i, bool sym_addr)
{
	unsigned long ip = u->ips[i];
	bool file = u->found && u->off[i] != USEROBJ_NONE;

	if (file)
		seq_printf(m, "%s[+0x%lx]", u->path, u->off[i]);
	if (sym_addr || !file)
		seq_printf(m, " <%016lx>", ip);
}

bool trace_user_stack_print(struct seq_file *m, struct trace_iterator *it)
{
	const struct userstack_entry *e = (const void *)it->ent;
	struct trace_array *tr = it->tr ?: &global_trace;
	struct userobj u = { .tgid = (int)e->tgid, .ips = e->caller };

	trace_print_context(m, it);
	seq_puts(m, "<user stack trace>\n");
	if (trace_array_option(tr, TRACE_OPT_SYM_USEROBJ))
		for_each_task(userobj_match, &u);
	for (int i = 0; i < FTRACE_STACK_ENTRIES && e->caller[i]; i++) {
		seq_puts(m, " => ");
		print_user_ip(m, &u, i, trace_array_option(tr, TRACE_OPT_SYM_ADDR));
		seq_putc(m, '\n');
	}
	return true;
}
