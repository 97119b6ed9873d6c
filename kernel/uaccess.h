/* Reading and writing user memory: copy_from_user() and friends, -EFAULT for any pointer that is bad. */
#ifndef KERNEL_UACCESS_H
#define KERNEL_UACCESS_H

#include "kernel/mm/mm.h"
#include "kernel/syscalls.h"
#include "lib/errno.h"
#include "lib/string.h"

/* The range lies wholly in the user half: a kernel pointer never gets as far as a copy. */
static inline bool access_ok(const void __user *p, unsigned long n)
{
	unsigned long a = (unsigned long)p;
	return n <= TASK_SIZE_MAX && a <= TASK_SIZE_MAX - n;
}

/* arch/x86/lib/copy_user.asm */
unsigned long copy_user_generic(void *to, const void *from, unsigned long n);
long __strncpy_from_user(char *dst, const char __user *src, long count);
/* A locked cmpxchg on a user word (the robust-futex walk at exit): 0 and *uval = its old value,
 * or -EFAULT. Linux's arch/x86/include/asm/futex.h has the same. */
int futex_atomic_cmpxchg_inatomic(u32 *uval, u32 __user *uaddr, u32 oldval, u32 newval);

/* Both return the number of bytes NOT copied, 0 on success, as Linux's. A short read zeroes the
 * rest of the kernel buffer, so no stale kernel bytes travel on. */
static inline unsigned long copy_from_user(void *to, const void __user *from, unsigned long n)
{
	unsigned long left = access_ok(from, n) ? copy_user_generic(to, from, n) : n;
	if (left)
		memset((char *)to + (n - left), 0, left);
	return left;
}

static inline unsigned long copy_to_user(void __user *to, const void *from, unsigned long n)
{
	return access_ok(to, n) ? copy_user_generic(to, from, n) : n;
}

/* The length of the string copied (without its NUL, which is copied), count when no NUL came in
 * count bytes (dst then holds no NUL), or -EFAULT. */
static inline long strncpy_from_user(char *dst, const char __user *src, long count)
{
	unsigned long a = (unsigned long)src;

	if (count <= 0)
		return 0;
	if (a >= TASK_SIZE_MAX)
		return -EFAULT;
	if ((unsigned long)count > TASK_SIZE_MAX - a) {
		long n = __strncpy_from_user(dst, src, TASK_SIZE_MAX - a);
		return n == (long)(TASK_SIZE_MAX - a) ? -EFAULT : n;
	}
	return __strncpy_from_user(dst, src, count);
}

/* One value of *ptr's type: 0 or -EFAULT. */
#define get_user(x, ptr)                                                                           \
	({                                                                                         \
		__typeof__((__typeof__(*(ptr)))0) __gu_v;                                          \
		int __gu_e = copy_from_user(&__gu_v, (ptr), sizeof(__gu_v)) ? -EFAULT : 0;         \
		(x) = __gu_e ? (__typeof__(*(ptr)))0 : __gu_v;                                     \
		__gu_e;                                                                            \
	})

#define put_user(x, ptr)                                                                           \
	({                                                                                         \
		__typeof__(*(ptr)) __pu_v = (x);                                                   \
		copy_to_user((ptr), &__pu_v, sizeof(__pu_v)) ? -EFAULT : 0;                        \
	})

/* arch/x86/mm/extable.c: an instruction allowed to fault, and where to resume when it does. */
struct exception_table_entry {
	unsigned long insn, fixup;
};
bool search_exception_tables(unsigned long ip);
bool fixup_exception(struct pt_regs *regs);

#endif
