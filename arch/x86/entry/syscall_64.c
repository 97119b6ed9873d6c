/* sys_call_table: Linux's x86-64 numbers to this kernel's __x64_sys_* entry points. */
#include "kernel/syscalls.h"

#define __SYSCALL(nr, name) long __x64_sys_##name(const struct pt_regs *regs);
#include "arch/x86/entry/syscalls_64.h"
#undef __SYSCALL

#define __SYSCALL(nr, name) [nr] = __x64_sys_##name,
const sys_call_ptr_t sys_call_table[NR_syscalls] = {
#include "arch/x86/entry/syscalls_64.h"
};
#undef __SYSCALL

#define __SYSCALL(nr, name) [nr] = #name,
static const char *const syscall_names[NR_syscalls] = {
#include "arch/x86/entry/syscalls_64.h"
};
#undef __SYSCALL

const char *syscall_name(unsigned long nr)
{
	return nr < NR_syscalls ? syscall_names[nr] : NULL;
}
