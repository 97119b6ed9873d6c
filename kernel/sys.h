/* Process-level services shared across the kernel: exec from the kernel, random bytes, CPU caps. */
#ifndef KERNEL_SYS_H
#define KERNEL_SYS_H

#include "lib/types.h"

struct pt_regs;

/* kernel/fs/exec.c: the current task becomes the program at filename (a kernel string, looked up
 * from its cwd); regs receive its first user registers. 0 or -errno, nothing changed on error. */
int kernel_execve(const char *filename, const char *const *argv, const char *const *envp,
		  struct pt_regs *regs);
/* arch/x86/entry/entry_64.asm: enters ring 3 with regs (never returns). */
void __attribute__((noreturn)) ret_to_user_mode(struct pt_regs *regs);

/* kernel/sys.c */
void get_random_bytes(void *buf, size_t len);
/* CPUID 1's EDX: the feature bits AT_HWCAP carries on x86. */
unsigned long cpu_hwcap(void);

/* kernel/fork.c: a new process for the kernel shell: path run with argv as a child of the
 * calling kernel thread, its cwd cwd, fds 0-2 on the console. Its pid, or -errno. */
struct fnode;
int user_process_start(const char *path, const char *const *argv, struct fnode *cwd);

#endif
