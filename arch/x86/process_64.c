/*
 * A task switch's user side: the kernel stack ring 3 enters on, the page tables, the FS and GS
 * bases, and the FPU/SSE registers. Kernel threads have none of it and keep what was loaded, but
 * for CR3: the kernel's page tables, so a process's can be freed while a kernel thread runs.
 */
#include "arch/x86/process.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "kernel/sched/sched.h"
#include "lib/string.h"

static void fxsave(struct fxregs_state *st)
{
	__asm__ volatile("fxsave64 %0" : "=m"(*st));
}

static void fxrstor(const struct fxregs_state *st)
{
	__asm__ volatile("fxrstor64 %0" : : "m"(*st));
}

void __switch_to_xtra(struct task *prev, struct task *next)
{
	if (prev->fpu && prev->mm)
		fxsave(prev->fpu);
	if (next->stack) {
		this_cpu()->top_of_stack = task_top_of_stack(next);
		tss_set_sp0(task_top_of_stack(next));
	}
	switch_mm(next->mm);
	if (next->mm) {
		wrmsr(MSR_FS_BASE, next->fsbase);
		wrmsr(MSR_KERNEL_GS_BASE, next->gsbase);
		if (next->fpu)
			fxrstor(next->fpu);
	}
}

/* fninit's state and MXCSR's reset value (every SSE exception masked): bytes 0-1 FCW, 24-27 MXCSR. */
int fpu_init_task(struct task *t)
{
	if (!t->fpu && !(t->fpu = kmalloc(sizeof(*t->fpu))))
		return -1;
	memset(t->fpu, 0, sizeof(*t->fpu));
	t->fpu->bytes[0] = 0x7f;
	t->fpu->bytes[1] = 0x03;
	*(u32 *)&t->fpu->bytes[24] = 0x1f80;
	if (t == current) /* exec: the old program's registers go now */
		fxrstor(t->fpu);
	return 0;
}

int fpu_copy_current(struct task *child)
{
	if (!(child->fpu = kmalloc(sizeof(*child->fpu))))
		return -1;
	fxsave(child->fpu); /* the parent's registers are live: save them straight into the child */
	return 0;
}
