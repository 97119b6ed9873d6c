/* The handful of x86 instructions C cannot say: port I/O, MSRs, control registers, TSC, CPUID. */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include "lib/types.h"
#include "lib/compiler.h"

#define X86_EFLAGS_IF (1UL << 9)
#define X86_EFLAGS_TF (1UL << 8)

#define X86_EFLAGS_DF (1UL << 10)
#define X86_EFLAGS_IOPL (3UL << 12)
#define X86_EFLAGS_NT (1UL << 14)
#define X86_EFLAGS_RF (1UL << 16)
#define X86_EFLAGS_AC (1UL << 18)

#define X86_CR0_MP (1UL << 1)
#define X86_CR0_EM (1UL << 2)
#define X86_CR0_TS (1UL << 3)
#define X86_CR4_OSFXSR (1UL << 9)
#define X86_CR4_OSXMMEXCPT (1UL << 10)
#define X86_CR4_SMEP (1UL << 20)
#define X86_CR4_SMAP (1UL << 21)

#define MSR_EFER 0xc0000080
#define EFER_SCE (1UL << 0) /* syscall/sysret enabled */
#define MSR_STAR 0xc0000081
#define MSR_LSTAR 0xc0000082
#define MSR_SYSCALL_MASK 0xc0000084
#define MSR_FS_BASE 0xc0000100
#define MSR_GS_BASE 0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102 /* the user's GS base while in the kernel: swapgs swaps it */
#define MSR_APIC_BASE 0x1b

static __always_inline void outb(u16 port, u8 v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static __always_inline void outw(u16 port, u16 v)
{
	__asm__ volatile("outw %0, %1" : : "a"(v), "Nd"(port));
}

static __always_inline void outl(u16 port, u32 v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

static __always_inline u8 inb(u16 port)
{
	u8 v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static __always_inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static __always_inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

static __always_inline u64 rdtsc(void)
{
	u64 lo, hi; /* rdtsc clears both upper halves: no zero-extension needed */
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (hi << 32) | lo;
}

static __always_inline void cpuid(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(sub));
}

/* DR6 says why #DB came (bit 14, BS: a single step); the CPU never clears it itself. */
static __always_inline void write_dr6(unsigned long v)
{
	__asm__ volatile("mov %0, %%dr6" : : "r"(v));
}

static __always_inline unsigned long read_cr2(void)
{
	unsigned long v;
	__asm__ volatile("mov %%cr2, %0" : "=r"(v));
	return v;
}

static __always_inline unsigned long read_cr3(void)
{
	unsigned long v;
	__asm__ volatile("mov %%cr3, %0" : "=r"(v));
	return v;
}

static __always_inline void write_cr3(unsigned long v)
{
	__asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory");
}

static __always_inline unsigned long read_cr0(void)
{
	unsigned long v;
	__asm__ volatile("mov %%cr0, %0" : "=r"(v));
	return v;
}

static __always_inline unsigned long read_cr4(void)
{
	unsigned long v;
	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static __always_inline void write_cr0(unsigned long v)
{
	__asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory");
}

static __always_inline void write_cr4(unsigned long v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

static __always_inline void invlpg(unsigned long va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static __always_inline unsigned long read_flags(void)
{
	unsigned long f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f) : : "memory");
	return f;
}

/* The bare instructions (Linux's raw_local_irq_*()); kernel/irqflags.h builds local_irq_*() on
 * them with the latency tracers' hooks. */
static __always_inline void raw_local_irq_disable(void)
{
	__asm__ volatile("cli" : : : "memory");
}

static __always_inline void raw_local_irq_enable(void)
{
	__asm__ volatile("sti" : : : "memory");
}

static __always_inline unsigned long raw_local_irq_save(void)
{
	unsigned long f = read_flags();
	raw_local_irq_disable();
	return f;
}

static __always_inline void raw_local_irq_restore(unsigned long f)
{
	if (f & X86_EFLAGS_IF)
		raw_local_irq_enable();
}

static __always_inline bool irqs_disabled(void)
{
	return !(read_flags() & X86_EFLAGS_IF);
}

static __always_inline void cpu_relax(void)
{
	__asm__ volatile("pause" : : : "memory");
}

static __always_inline void halt(void)
{
	__asm__ volatile("hlt" : : : "memory");
}

/* sti takes effect after the next instruction, so no interrupt can slip in between and be missed. */
static __always_inline void raw_safe_halt(void)
{
	__asm__ volatile("sti; hlt" : : : "memory");
}

/*
 * CPUID is serializing: after it, this CPU refetches instructions, so bytes another CPU (or this
 * one, through an alias) has just patched are seen. Linux calls this sync_core().
 */
static __always_inline void sync_core(void)
{
	u32 a, b, c, d;
	cpuid(0, 0, &a, &b, &c, &d);
}

/* local_irq_*() and safe_halt(): the instructions above plus the latency tracers' hooks. */
#include "kernel/irqflags.h"

#endif
