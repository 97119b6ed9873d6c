/* The GDT's selectors, in the order `syscall` and `sysretq` demand of them (MSR_STAR). */
#ifndef ARCH_X86_SEGMENT_H
#define ARCH_X86_SEGMENT_H

/*
 *   0x00  null
 *   0x08  kernel code (64-bit)    syscall loads CS = STAR[47:32]
 *   0x10  kernel data             ... and SS = STAR[47:32] + 8
 *   0x18  TSS (two slots)
 *   0x28  user code, 32-bit       STAR[63:48]: sysretl would load it; left null (no IA32 emulation)
 *   0x30  user data               sysretq loads SS = STAR[63:48] + 8
 *   0x38  user code (64-bit)      ... and CS = STAR[63:48] + 16
 * The low two bits of a user selector are its privilege level, 3.
 */
#define __KERNEL_CS 0x08
#define __KERNEL_DS 0x10
#define GDT_TSS 0x18
#define __USER32_CS 0x2b
#define __USER_DS 0x33
#define __USER_CS 0x3b
#define GDT_ENTRIES 8

#endif
