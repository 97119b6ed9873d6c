/* Reading kernel memory at an address a user typed (a kprobe's @ADDR, +8(%di)): a bad address
 * is an -EFAULT, never a page fault. */
#include "kernel/mm/mm.h"
#include "arch/x86/paging.h"
#include "lib/errno.h"
#include "kernel/uaccess.h"

/* A canonical address whose page is mapped now. Page tables only grow while we run, except
 * for execmem and text_poke's aliases, which nobody gives a probe as an argument. */
static bool readable(unsigned long addr)
{
	int level;

	if ((unsigned long)((long)(addr << 16) >> 16) != addr)
		return false; /* non-canonical: #GP, not #PF */
	return lookup_pte(addr, &level) != NULL;
}

long copy_from_kernel_nofault(void *dst, const void *src, size_t size)
{
	unsigned long a = (unsigned long)src;
	u8 *d = dst;

	if (a + size < a)
		return -EFAULT;
	/* Check each page the range touches before copying a byte: all or nothing. */
	for (unsigned long p = a & ~(PAGE_SIZE - 1); p < a + size; p += PAGE_SIZE)
		if (!readable(p))
			return -EFAULT;
	for (size_t i = 0; i < size; i++)
		d[i] = ((const volatile u8 *)src)[i];
	return 0;
}

long strncpy_from_kernel_nofault(char *dst, const void *src, long count)
{
	const volatile char *s = src;
	long i;

	if (count <= 0)
		return 0;
	for (i = 0; i < count - 1; i++) {
		unsigned long a = (unsigned long)(s + i);
		if ((i == 0 || !(a & (PAGE_SIZE - 1))) && !readable(a)) {
			dst[0] = 0;
			return -EFAULT;
		}
		dst[i] = s[i];
		if (!dst[i])
			return i + 1;
	}
	dst[i] = 0;
	return i + 1;
}

/* The same for a user address of the running process (a uprobe's fetch arguments): through the
 * uaccess helpers, so SMAP is opened for the copy and a bad pointer is an -EFAULT. */
long copy_from_user_nofault(void *dst, const void __user *src, size_t size)
{
	if (!access_ok(src, size) || copy_from_user(dst, src, size))
		return -EFAULT;
	return 0;
}

long strncpy_from_user_nofault(char *dst, const void __user *src, long count)
{
	long i;

	if (count <= 0)
		return 0;
	for (i = 0; i < count - 1; i++) {
		if (copy_from_user_nofault(&dst[i], (const char __user *)src + i, 1)) {
			dst[0] = 0;
			return -EFAULT;
		}
		if (!dst[i])
			return i + 1;
	}
	dst[i] = 0;
	return i + 1;
}
