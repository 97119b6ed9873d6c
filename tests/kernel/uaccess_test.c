/* Self-tests of ring 3's foundations: the uaccess helpers refuse what is not user memory, SMEP and
 * SMAP are on where CPUID says the CPU has them, and the syscall MSRs point where they should. */
#include "arch/x86/cpu.h"
#include "arch/x86/segment.h"
#include "arch/x86/traps.h"
#include "kernel/selftest.h"
#include "kernel/syscalls.h"
#include "kernel/uaccess.h"

void entry_SYSCALL_64(void);

SELFTEST(uaccess_rejects_kernel_and_null)
{
	char buf[16] = "unchanged";
	char kernel_string[] = "kernel";

	/* From a kernel thread nothing below TASK_SIZE_MAX is mapped: every copy fails whole. */
	KT_EXPECT_EQ(t, copy_from_user(buf, NULL, 8), 8UL);
	KT_EXPECT_EQ(t, buf[0], 0); /* a failed copy zeroes what it could not fill */
	KT_EXPECT_EQ(t, copy_from_user(buf, kernel_string, 4), 4UL);
	KT_EXPECT_EQ(t, copy_to_user((void *)0x1000, buf, 8), 8UL);
	KT_EXPECT_EQ(t, copy_to_user(kernel_string, "XXXX", 4), 4UL);
	KT_EXPECT_STREQ(t, kernel_string, "kernel");
	KT_EXPECT_EQ(t, strncpy_from_user(buf, kernel_string, sizeof(buf)), (long)-EFAULT);
	KT_EXPECT_EQ(t, strncpy_from_user(buf, (const char *)0x1000, sizeof(buf)), (long)-EFAULT);
	KT_EXPECT(t, !access_ok((void *)(TASK_SIZE_MAX - 8), 16));
	KT_EXPECT(t, !access_ok((void *)8, ~0UL));
	KT_EXPECT(t, access_ok((void *)0x400000, 4096));
}

SELFTEST(smep_smap_as_cpuid_says)
{
	u32 max, a, b, c, d;
	bool smep = false, smap = false;

	cpuid(0, 0, &max, &b, &c, &d);
	if (max >= 7) {
		cpuid(7, 0, &a, &b, &c, &d);
		smep = b & (1U << 7);
		smap = b & (1U << 20);
	}
	KT_EXPECT_EQ(t, !!(read_cr4() & X86_CR4_SMEP), smep);
	KT_EXPECT_EQ(t, !!(read_cr4() & X86_CR4_SMAP), smap);
	KT_EXPECT_EQ(t, smap_enabled, smap);
}

SELFTEST(syscall_msrs)
{
	KT_EXPECT(t, rdmsr(MSR_EFER) & EFER_SCE);
	KT_EXPECT_EQ(t, rdmsr(MSR_LSTAR), (u64)(unsigned long)entry_SYSCALL_64);
	/* sysretq lands on __USER_CS and __USER_DS: STAR[63:48] + 16 and + 8. */
	KT_EXPECT_EQ(t, ((rdmsr(MSR_STAR) >> 48) + 16) | 3, (u64)__USER_CS);
	KT_EXPECT_EQ(t, ((rdmsr(MSR_STAR) >> 48) + 8) | 3, (u64)__USER_DS);
	KT_EXPECT_EQ(t, (rdmsr(MSR_STAR) >> 32) & 0xffff, (u64)__KERNEL_CS);
	KT_EXPECT(t, rdmsr(MSR_SYSCALL_MASK) & X86_EFLAGS_IF);
	KT_EXPECT(t, sys_call_table[39] != NULL && !strcmp(syscall_name(39), "getpid"));
	KT_EXPECT(t, sys_call_table[400] == NULL && syscall_name(400) == NULL);
}
