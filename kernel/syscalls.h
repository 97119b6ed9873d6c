/* SYSCALL_DEFINEn(): a system call's entry point, named and described as Linux names them. */
#ifndef KERNEL_SYSCALLS_H
#define KERNEL_SYSCALLS_H

#include "arch/x86/traps.h"
#include "lib/compiler.h"
#include "lib/types.h"

/* Marks a pointer that comes from user space: only the uaccess helpers may follow it. */
#define __user

/* Linux's names for argument types: a syscall's format file shows the type as declared. */
typedef unsigned short umode_t;
typedef long off_t;
typedef long long loff_t;
typedef long __kernel_old_time_t;

/*
 * SYSCALL_DEFINE3(write, unsigned int, fd, const char __user *, buf, size_t, count) { ... } gives:
 *
 *   long __x64_sys_write(const struct pt_regs *regs)   the table's entry: the arguments are read
 *                                                       from rdi, rsi, rdx, r10, r8, r9 (the ABI)
 *   static long __se_sys_write(long, long, long)       each argument as a full register,
 *   static long __do_sys_write(unsigned int fd, ...)   then narrowed to its declared type: the body
 *
 * and a struct syscall_metadata in the __syscalls_metadata section (the name, the number of
 * arguments, their types and names as text), which syscall trace events will read, as Linux's
 * SYSCALL_METADATA() does. The names are Linux's, so a function trace reads like Linux's.
 */
struct syscall_metadata {
	const char *name; /* "sys_write" */
	int nb_args;
	const char *types[6];
	const char *args[6];
};

#define __MAP0(m, ...)
#define __MAP1(m, t, a, ...) m(t, a)
#define __MAP2(m, t, a, ...) m(t, a), __MAP1(m, __VA_ARGS__)
#define __MAP3(m, t, a, ...) m(t, a), __MAP2(m, __VA_ARGS__)
#define __MAP4(m, t, a, ...) m(t, a), __MAP3(m, __VA_ARGS__)
#define __MAP5(m, t, a, ...) m(t, a), __MAP4(m, __VA_ARGS__)
#define __MAP6(m, t, a, ...) m(t, a), __MAP5(m, __VA_ARGS__)
#define __MAP(n, ...) __MAP##n(__VA_ARGS__)

#define __SC_DECL(t, a) t a
#define __SC_LONG(t, a) long a
#define __SC_CAST(t, a) (t) a
#define __SC_ARGS(t, a) a
#define __SC_STR_TDECL(t, a) #t
#define __SC_STR_ADECL(t, a) #a

/* The registers of the x86-64 system-call convention, in argument order (r10, not rcx: syscall
 * keeps the return address in rcx). Written as type-name pairs so __MAP can take the first n. */
#define SC_X86_64_REGS_TO_ARGS(x, regs)                                                            \
	__MAP(x, __SC_ARGS, , (regs)->di, , (regs)->si, , (regs)->dx, , (regs)->r10, , (regs)->r8, \
	      , (regs)->r9)

#define SYSCALL_METADATA(sname, nb, ...)                                                           \
	static const struct syscall_metadata __syscall_meta_##sname __used __section(              \
		"__syscalls_metadata") __aligned(8) = {                                            \
		.name = "sys" #sname,                                                              \
		.nb_args = nb,                                                                     \
		.types = { __MAP(nb, __SC_STR_TDECL, __VA_ARGS__) },                               \
		.args = { __MAP(nb, __SC_STR_ADECL, __VA_ARGS__) },                                \
	}

#define SYSCALL_DEFINEx(x, sname, ...)                                                             \
	SYSCALL_METADATA(sname, x, __VA_ARGS__);                                                   \
	long __x64_sys##sname(const struct pt_regs *regs);                                         \
	static long __se_sys##sname(__MAP(x, __SC_LONG, __VA_ARGS__));                             \
	static inline long __do_sys##sname(__MAP(x, __SC_DECL, __VA_ARGS__));                      \
	long __x64_sys##sname(const struct pt_regs *regs)                                          \
	{                                                                                          \
		return __se_sys##sname(SC_X86_64_REGS_TO_ARGS(x, regs));                           \
	}                                                                                          \
	static long __se_sys##sname(__MAP(x, __SC_LONG, __VA_ARGS__))                              \
	{                                                                                          \
		return __do_sys##sname(__MAP(x, __SC_CAST, __VA_ARGS__));                          \
	}                                                                                          \
	static inline long __do_sys##sname(__MAP(x, __SC_DECL, __VA_ARGS__))

#define SYSCALL_DEFINE0(sname)                                                                     \
	SYSCALL_METADATA(_##sname, 0);                                                             \
	long __x64_sys_##sname(const struct pt_regs *regs);                                        \
	long __x64_sys_##sname(const struct pt_regs *regs __attribute__((unused)))
#define SYSCALL_DEFINE1(name, ...) SYSCALL_DEFINEx(1, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE2(name, ...) SYSCALL_DEFINEx(2, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE3(name, ...) SYSCALL_DEFINEx(3, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE4(name, ...) SYSCALL_DEFINEx(4, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE5(name, ...) SYSCALL_DEFINEx(5, _##name, __VA_ARGS__)
#define SYSCALL_DEFINE6(name, ...) SYSCALL_DEFINEx(6, _##name, __VA_ARGS__)

typedef long (*sys_call_ptr_t)(const struct pt_regs *regs);
#define NR_syscalls 512
/* Indexed by Linux's x86-64 numbers (arch/x86/entry/syscalls_64.h); NULL: -ENOSYS. */
extern const sys_call_ptr_t sys_call_table[NR_syscalls];
/* The name of a syscall number ("write"), or NULL if this kernel does not answer it. */
const char *syscall_name(unsigned long nr);

extern const struct syscall_metadata __start___syscalls_metadata[], __stop___syscalls_metadata[];

#endif
