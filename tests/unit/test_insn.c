/* Unit tests for arch/x86/insn.c: hand-checked encodings of every instruction class, refusals, cut buffers. */
#include "arch/x86/insn.h"
#include "lib/compiler.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "tests/unit/ktest_host.h"

void *malloc(size_t size);
void free(void *p);

/* Where a displacement or immediate sits: offset from the first byte, size, value. */
struct field {
	u8 offset, size;
	s64 value;
};

/* An encoding and everything insn_decode() must say about it. */
struct good {
	const char *hex;
	const char *text;	/* the instruction, as objdump prints it */
	u8 length;
	struct field disp, imm;
	bool rip;
	u8 rex, operand_size;
	const char *prefixes;	/* in the order recorded */
};

#define NONE { 0, 0, 0 }

static const struct good good[] = {
	/* push and pop: 64-bit by default, 16 under 66 */
	{ "55", "push %rbp", 1, NONE, NONE, 0, 0, 8, "" },
	{ "41 57", "push %r15", 2, NONE, NONE, 0, 0x41, 8, "" },
	{ "5d", "pop %rbp", 1, NONE, NONE, 0, 0, 8, "" },
	{ "41 5c", "pop %r12", 2, NONE, NONE, 0, 0x41, 8, "" },
	{ "66 50", "push %ax", 2, NONE, NONE, 0, 0, 2, "66" },
	{ "8f 00", "pop (%rax)", 2, NONE, NONE, 0, 0, 8, "" },
	{ "ff 35 10 00 00 00", "push 0x10(%rip)", 6, { 2, 4, 16 }, NONE, 1, 0, 8, "" },
	{ "68 78 56 34 12", "push $0x12345678", 5, NONE, { 1, 4, 0x12345678 }, 0, 0, 8, "" },
	{ "66 68 34 12", "pushw $0x1234", 4, NONE, { 2, 2, 0x1234 }, 0, 0, 2, "66" },
	{ "6a ff", "push $-1", 2, NONE, { 1, 1, -1 }, 0, 0, 8, "" },
	{ "9c", "pushf", 1, NONE, NONE, 0, 0, 8, "" },
	{ "0f a0", "push %fs", 2, NONE, NONE, 0, 0, 8, "" },

	/* mov r/m, each mod; r12 and r13 as base */
	{ "48 89 c7", "mov %rax,%rdi", 3, NONE, NONE, 0, 0x48, 8, "" },
	{ "48 8b 07", "mov (%rdi),%rax", 3, NONE, NONE, 0, 0x48, 8, "" },
	{ "48 8b 47 08", "mov 0x8(%rdi),%rax", 4, { 3, 1, 8 }, NONE, 0, 0x48, 8, "" },
	{ "48 8b 47 f8", "mov -0x8(%rdi),%rax", 4, { 3, 1, -8 }, NONE, 0, 0x48, 8, "" },
	{ "48 8b 87 00 01 00 00", "mov 0x100(%rdi),%rax", 7, { 3, 4, 0x100 }, NONE, 0, 0x48, 8, "" },
	{ "48 8b 87 00 ff ff ff", "mov -0x100(%rdi),%rax", 7, { 3, 4, -0x100 }, NONE, 0, 0x48, 8,
	  "" },
	{ "8b 45 00", "mov 0x0(%rbp),%eax", 3, { 2, 1, 0 }, NONE, 0, 0, 4, "" },
	{ "41 8b 45 00", "mov 0x0(%r13),%eax", 4, { 3, 1, 0 }, NONE, 0, 0x41, 4, "" },
	{ "66 8b 07", "mov (%rdi),%ax", 3, NONE, NONE, 0, 0, 2, "66" },
	{ "88 07", "mov %al,(%rdi)", 2, NONE, NONE, 0, 0, 4, "" },

	/* SIB: rsp and r12 need one; base 5 with mod 0 means no base, a disp32 */
	{ "8b 04 24", "mov (%rsp),%eax", 3, NONE, NONE, 0, 0, 4, "" },
	{ "41 8b 04 24", "mov (%r12),%eax", 4, NONE, NONE, 0, 0x41, 4, "" },
	{ "8b 44 24 08", "mov 0x8(%rsp),%eax", 4, { 3, 1, 8 }, NONE, 0, 0, 4, "" },
	{ "8b 84 24 00 10 00 00", "mov 0x1000(%rsp),%eax", 7, { 3, 4, 0x1000 }, NONE, 0, 0, 4, "" },
	{ "48 8b 04 c7", "mov (%rdi,%rax,8),%rax", 4, NONE, NONE, 0, 0x48, 8, "" },
	{ "8b 04 25 00 10 00 00", "mov 0x1000,%eax", 7, { 3, 4, 0x1000 }, NONE, 0, 0, 4, "" },
	{ "8b 04 cd 00 50 20 00", "mov 0x205000(,%rcx,8),%eax", 7, { 3, 4, 0x205000 }, NONE, 0, 0, 4,
	  "" },
	{ "41 8b 04 25 78 56 34 12", "mov 0x12345678,%eax", 8, { 4, 4, 0x12345678 }, NONE, 0, 0x41,
	  4, "" },
	{ "43 8b 44 25 00", "mov 0x0(%r13,%r12,1),%eax", 5, { 4, 1, 0 }, NONE, 0, 0x43, 4, "" },
	{ "8b 44 05 10", "mov 0x10(%rbp,%rax,1),%eax", 4, { 3, 1, 16 }, NONE, 0, 0, 4, "" },

	/* rip-relative loads, stores, lea; with an immediate after the disp; under 67 */
	{ "48 8b 05 f9 ff ff ff", "mov -0x7(%rip),%rax", 7, { 3, 4, -7 }, NONE, 1, 0x48, 8, "" },
	{ "48 89 05 00 10 00 00", "mov %rax,0x1000(%rip)", 7, { 3, 4, 0x1000 }, NONE, 1, 0x48, 8, "" },
	{ "48 8d 3d 00 00 00 80", "lea -0x80000000(%rip),%rdi", 7, { 3, 4, -0x80000000ll }, NONE,
	  1, 0x48, 8, "" },
	{ "0f b6 05 10 00 00 00", "movzbl 0x10(%rip),%eax", 7, { 3, 4, 16 }, NONE, 1, 0, 4, "" },
	{ "80 3d 10 00 00 00 00", "cmpb $0x0,0x10(%rip)", 7, { 2, 4, 16 }, { 6, 1, 0 }, 1, 0, 4, "" },
	{ "c6 05 10 00 00 00 01", "movb $0x1,0x10(%rip)", 7, { 2, 4, 16 }, { 6, 1, 1 }, 1, 0, 4, "" },
	{ "c7 05 10 00 00 00 01 00 00 00", "movl $0x1,0x10(%rip)", 10, { 2, 4, 16 }, { 6, 4, 1 }, 1,
	  0, 4, "" },
	{ "48 c7 05 f0 ff ff ff ff ff ff ff", "movq $-1,-0x10(%rip)", 11, { 3, 4, -16 }, { 7, 4, -1 },
	  1, 0x48, 8, "" },
	{ "f0 48 ff 05 a0 e9 0d 00", "lock incq 0xde9a0(%rip)", 8, { 4, 4, 0xde9a0 }, NONE, 1, 0x48,
	  8, "f0" },
	{ "67 8b 05 00 00 00 00", "mov 0x0(%eip),%eax", 7, { 3, 4, 0 }, NONE, 1, 0, 4, "67" },

	/* immediates: 66 makes Iz 16 bits, REX.W leaves it 32 (sign-extended) */
	{ "83 c0 01", "add $0x1,%eax", 3, NONE, { 2, 1, 1 }, 0, 0, 4, "" },
	{ "66 83 c0 ff", "add $-1,%ax", 4, NONE, { 3, 1, -1 }, 0, 0, 2, "66" },
	{ "81 c3 78 56 34 12", "add $0x12345678,%ebx", 6, NONE, { 2, 4, 0x12345678 }, 0, 0, 4, "" },
	{ "48 81 c3 00 00 00 80", "add $-0x80000000,%rbx", 7, NONE, { 3, 4, -0x80000000ll }, 0, 0x48,
	  8, "" },
	{ "66 81 c3 34 12", "add $0x1234,%bx", 5, NONE, { 3, 2, 0x1234 }, 0, 0, 2, "66" },
	{ "66 c7 00 34 12", "movw $0x1234,(%rax)", 5, NONE, { 3, 2, 0x1234 }, 0, 0, 2, "66" },
	{ "66 c7 05 10 00 00 00 34 12", "movw $0x1234,0x10(%rip)", 9, { 3, 4, 16 }, { 7, 2, 0x1234 },
	  1, 0, 2, "66" },
	{ "66 48 c7 c0 78 56 34 12", "mov $0x12345678,%rax", 8, NONE, { 4, 4, 0x12345678 }, 0, 0x48,
	  8, "66" },
	{ "48 c7 c0 ff ff ff ff", "mov $-1,%rax", 7, NONE, { 3, 4, -1 }, 0, 0x48, 8, "" },
	{ "05 78 56 34 12", "add $0x12345678,%eax", 5, NONE, { 1, 4, 0x12345678 }, 0, 0, 4, "" },
	{ "66 05 34 12", "add $0x1234,%ax", 4, NONE, { 2, 2, 0x1234 }, 0, 0, 2, "66" },
	{ "a8 01", "test $0x1,%al", 2, NONE, { 1, 1, 1 }, 0, 0, 4, "" },
	{ "6b c0 0c", "imul $0xc,%eax,%eax", 3, NONE, { 2, 1, 12 }, 0, 0, 4, "" },
	{ "69 c0 e8 03 00 00", "imul $0x3e8,%eax,%eax", 6, NONE, { 2, 4, 1000 }, 0, 0, 4, "" },
	{ "c1 e0 15", "shl $0x15,%eax", 3, NONE, { 2, 1, 0x15 }, 0, 0, 4, "" },
	{ "d1 e0", "shl %eax", 2, NONE, NONE, 0, 0, 4, "" },
	{ "48 0f a4 c2 05", "shld $0x5,%rax,%rdx", 5, NONE, { 4, 1, 5 }, 0, 0x48, 8, "" },
	{ "0f ba e0 05", "bt $0x5,%eax", 4, NONE, { 3, 1, 5 }, 0, 0, 4, "" },

	/* mov r, imm (b8+r): the only 64-bit immediate */
	{ "48 b8 ef cd ab 89 67 45 23 01", "movabs $0x123456789abcdef,%rax", 10, NONE,
	  { 2, 8, 0x0123456789abcdefll }, 0, 0x48, 8, "" },
	{ "49 bb 00 00 00 00 00 00 00 80", "movabs $0x8000000000000000,%r11", 10, NONE,
	  { 2, 8, (s64)0x8000000000000000ull }, 0, 0x49, 8, "" },
	{ "b8 78 56 34 12", "mov $0x12345678,%eax", 5, NONE, { 1, 4, 0x12345678 }, 0, 0, 4, "" },
	{ "41 b8 ff ff ff ff", "mov $0xffffffff,%r8d", 6, NONE, { 2, 4, -1 }, 0, 0x41, 4, "" },
	{ "66 b8 10 00", "mov $0x10,%ax", 4, NONE, { 2, 2, 16 }, 0, 0, 2, "66" },
	{ "41 b0 01", "mov $0x1,%r8b", 3, NONE, { 2, 1, 1 }, 0, 0x41, 4, "" },

	/* a0-a3: an 8-byte absolute address, 4 bytes under 67; no ModRM */
	{ "a0 88 77 66 55 44 33 22 11", "movabs 0x1122334455667788,%al", 9,
	  { 1, 8, 0x1122334455667788ll }, NONE, 0, 0, 4, "" },
	{ "48 a1 00 10 00 80 ff ff ff ff", "movabs 0xffffffff80001000,%rax", 10,
	  { 2, 8, (s64)0xffffffff80001000ull }, NONE, 0, 0x48, 8, "" },
	{ "a2 08 07 06 05 04 03 02 01", "movabs %al,0x102030405060708", 9,
	  { 1, 8, 0x0102030405060708ll }, NONE, 0, 0, 4, "" },
	{ "66 a3 08 07 06 05 04 03 02 01", "movabs %ax,0x102030405060708", 10,
	  { 2, 8, 0x0102030405060708ll }, NONE, 0, 0, 2, "66" },
	{ "67 a0 44 33 22 11", "addr32 mov 0x11223344,%al", 6, { 2, 4, 0x11223344 }, NONE, 0, 0, 4,
	  "67" },

	/* group 3: test has an immediate (/0, and its alias /1), not neg mul div do not */
	{ "f6 c1 01", "test $0x1,%cl", 3, NONE, { 2, 1, 1 }, 0, 0, 4, "" },
	{ "f6 c9 01", "test $0x1,%cl (f6 /1)", 3, NONE, { 2, 1, 1 }, 0, 0, 4, "" },
	{ "f6 05 10 00 00 00 80", "testb $0x80,0x10(%rip)", 7, { 2, 4, 16 }, { 6, 1, -128 }, 1, 0,
	  4, "" },
	{ "f7 c7 00 00 01 00", "test $0x10000,%edi", 6, NONE, { 2, 4, 0x10000 }, 0, 0, 4, "" },
	{ "48 f7 c7 ff ff ff ff", "test $-1,%rdi", 7, NONE, { 3, 4, -1 }, 0, 0x48, 8, "" },
	{ "66 f7 c7 34 12", "test $0x1234,%di", 5, NONE, { 3, 2, 0x1234 }, 0, 0, 2, "66" },
	{ "f6 d8", "neg %al", 2, NONE, NONE, 0, 0, 4, "" },
	{ "f7 d8", "neg %eax", 2, NONE, NONE, 0, 0, 4, "" },
	{ "48 f7 d0", "not %rax", 3, NONE, NONE, 0, 0x48, 8, "" },
	{ "48 f7 e2", "mul %rdx", 3, NONE, NONE, 0, 0x48, 8, "" },
	{ "f7 7d f8", "idivl -0x8(%rbp)", 3, { 2, 1, -8 }, NONE, 0, 0, 4, "" },

	/* calls, jumps, returns: 64-bit operand size */
	{ "e8 00 00 00 00", "call (next)", 5, NONE, { 1, 4, 0 }, 0, 0, 8, "" },
	{ "e8 fb ff ff ff", "call (self)", 5, NONE, { 1, 4, -5 }, 0, 0, 8, "" },
	{ "e9 00 01 00 00", "jmp +0x100", 5, NONE, { 1, 4, 0x100 }, 0, 0, 8, "" },
	{ "eb fe", "jmp (self)", 2, NONE, { 1, 1, -2 }, 0, 0, 8, "" },
	{ "74 05", "je +5", 2, NONE, { 1, 1, 5 }, 0, 0, 8, "" },
	{ "7f 80", "jg -0x80", 2, NONE, { 1, 1, -128 }, 0, 0, 8, "" },
	{ "0f 84 00 01 00 00", "je +0x100", 6, NONE, { 2, 4, 0x100 }, 0, 0, 8, "" },
	{ "0f 8f fa ff ff ff", "jg (self)", 6, NONE, { 2, 4, -6 }, 0, 0, 8, "" },
	{ "e3 10", "jrcxz +0x10", 2, NONE, { 1, 1, 16 }, 0, 0, 8, "" },
	{ "e2 fe", "loop (self)", 2, NONE, { 1, 1, -2 }, 0, 0, 8, "" },
	{ "2e 74 05", "je,pn +5", 3, NONE, { 2, 1, 5 }, 0, 0, 8, "2e" },
	{ "ff d0", "call *%rax", 2, NONE, NONE, 0, 0, 8, "" },
	{ "41 ff e3", "jmp *%r11", 3, NONE, NONE, 0, 0x41, 8, "" },
	{ "ff 25 00 00 00 00", "jmp *0x0(%rip)", 6, { 2, 4, 0 }, NONE, 1, 0, 8, "" },
	{ "ff 14 c5 00 10 00 00", "call *0x1000(,%rax,8)", 7, { 3, 4, 0x1000 }, NONE, 0, 0, 8, "" },
	{ "c3", "ret", 1, NONE, NONE, 0, 0, 8, "" },
	{ "f3 c3", "repz ret", 2, NONE, NONE, 0, 0, 8, "f3" },
	{ "c2 08 00", "ret $0x8", 3, NONE, { 1, 2, 8 }, 0, 0, 8, "" },
	{ "cb", "lret", 1, NONE, NONE, 0, 0, 4, "" },
	{ "48 cb", "lretq", 2, NONE, NONE, 0, 0x48, 8, "" },
	{ "ca 10 00", "lret $0x10", 3, NONE, { 1, 2, 16 }, 0, 0, 4, "" },
	{ "48 cf", "iretq", 2, NONE, NONE, 0, 0x48, 8, "" },

	/* enter's two immediates read as one of 3 bytes, size in the low 16 bits */
	{ "c8 10 00 00", "enter $0x10,$0x0", 4, NONE, { 1, 3, 0x10 }, 0, 0, 8, "" },
	{ "c8 00 ff 02", "enter $0xff00,$0x2", 4, NONE, { 1, 3, 0x02ff00 }, 0, 0, 8, "" },
	{ "c9", "leave", 1, NONE, NONE, 0, 0, 8, "" },

	/* nops as gcc and gas pad with them, up to 15 bytes of repeated prefixes */
	{ "90", "nop", 1, NONE, NONE, 0, 0, 4, "" },
	{ "66 90", "xchg %ax,%ax", 2, NONE, NONE, 0, 0, 2, "66" },
	{ "f3 90", "pause", 2, NONE, NONE, 0, 0, 4, "f3" },
	{ "0f 1f 00", "nopl (%rax)", 3, NONE, NONE, 0, 0, 4, "" },
	{ "0f 1f 40 00", "nopl 0x0(%rax)", 4, { 3, 1, 0 }, NONE, 0, 0, 4, "" },
	{ "0f 1f 44 00 00", "nopl 0x0(%rax,%rax,1)", 5, { 4, 1, 0 }, NONE, 0, 0, 4, "" },
	{ "66 0f 1f 44 00 00", "nopw 0x0(%rax,%rax,1)", 6, { 5, 1, 0 }, NONE, 0, 0, 2, "66" },
	{ "0f 1f 80 00 00 00 00", "nopl 0x0(%rax)", 7, { 3, 4, 0 }, NONE, 0, 0, 4, "" },
	{ "0f 1f 84 00 00 00 00 00", "nopl 0x0(%rax,%rax,1)", 8, { 4, 4, 0 }, NONE, 0, 0, 4, "" },
	{ "66 2e 0f 1f 84 00 00 00 00 00", "cs nopw 0x0(%rax,%rax,1)", 10, { 6, 4, 0 }, NONE, 0, 0,
	  2, "66 2e" },
	{ "66 66 2e 0f 1f 84 00 00 00 00 00", "data16 cs nopw 0x0(%rax,%rax,1)", 11, { 7, 4, 0 },
	  NONE, 0, 0, 2, "66 2e" },
	{ "66 66 66 66 66 66 2e 0f 1f 84 00 00 00 00 00", "data16 (x5) cs nopw 0x0(%rax,%rax,1)",
	  15, { 11, 4, 0 }, NONE, 0, 0, 2, "66 2e" },

	/* traps and system instructions */
	{ "cc", "int3", 1, NONE, NONE, 0, 0, 4, "" },
	{ "cd 80", "int $0x80", 2, NONE, { 1, 1, -128 }, 0, 0, 4, "" },
	{ "0f 0b", "ud2", 2, NONE, NONE, 0, 0, 4, "" },
	{ "f4", "hlt", 1, NONE, NONE, 0, 0, 4, "" },
	{ "0f 01 15 18 10 20 00", "lgdt 0x201018(%rip)", 7, { 3, 4, 0x201018 }, NONE, 1, 0, 4, "" },
	{ "0f 01 f8", "swapgs", 3, NONE, NONE, 0, 0, 4, "" },
	{ "0f 00 d8", "ltr %ax", 3, NONE, NONE, 0, 0, 4, "" },
	{ "0f 20 c0", "mov %cr0,%rax", 3, NONE, NONE, 0, 0, 8, "" },
	{ "0f 22 d8", "mov %rax,%cr3", 3, NONE, NONE, 0, 0, 8, "" },
	{ "0f 20 05", "mov %cr0,%rbp (mod 0 ignored: no disp)", 3, NONE, NONE, 0, 0, 8, "" },
	{ "0f a2", "cpuid", 2, NONE, NONE, 0, 0, 4, "" },
	{ "0f 31", "rdtsc", 2, NONE, NONE, 0, 0, 4, "" },
	{ "0f ae f0", "mfence", 3, NONE, NONE, 0, 0, 4, "" },
	{ "0f c7 f0", "rdrand %eax", 3, NONE, NONE, 0, 0, 4, "" },
	{ "f3 0f b8 c1", "popcnt %ecx,%eax", 4, NONE, NONE, 0, 0, 4, "f3" },
	{ "48 0f c8", "bswap %rax", 3, NONE, NONE, 0, 0x48, 8, "" },
	{ "c7 f8 00 01 00 00", "xbegin +0x100", 6, NONE, { 2, 4, 0x100 }, 0, 0, 8, "" },
	{ "c6 f8 ff", "xabort $0xff", 3, NONE, { 2, 1, -1 }, 0, 0, 4, "" },

	/* lock, rep and segment prefixes */
	{ "f0 0f b1 17", "lock cmpxchg %edx,(%rdi)", 4, NONE, NONE, 0, 0, 4, "f0" },
	{ "f0 48 0f c1 07", "lock xadd %rax,(%rdi)", 5, NONE, NONE, 0, 0x48, 8, "f0" },
	{ "f3 48 ab", "rep stos %rax,%es:(%rdi)", 3, NONE, NONE, 0, 0x48, 8, "f3" },
	{ "f3 a4", "rep movsb", 2, NONE, NONE, 0, 0, 4, "f3" },
	{ "f2 ae", "repnz scas %es:(%rdi),%al", 2, NONE, NONE, 0, 0, 4, "f2" },
	{ "64 48 8b 04 25 28 00 00 00", "mov %fs:0x28,%rax", 9, { 5, 4, 0x28 }, NONE, 0, 0x48, 8,
	  "64" },
	{ "f0 f2 f3 2e 90", "four different prefixes", 5, NONE, NONE, 0, 0, 4, "f0 f2 f3 2e" },
	{ "48 66 90", "REX before a prefix is ignored", 3, NONE, NONE, 0, 0, 2, "66" },

	/* the three-byte maps: 0f 38 takes no immediate, 0f 3a an imm8 */
	{ "66 0f 38 00 c1", "pshufb %xmm1,%xmm0", 5, NONE, NONE, 0, 0, 2, "66" },
	{ "0f 38 f0 07", "movbe (%rdi),%eax", 4, NONE, NONE, 0, 0, 4, "" },
	{ "f2 48 0f 38 f1 c1", "crc32q %rcx,%rax", 6, NONE, NONE, 0, 0x48, 8, "f2" },
	{ "66 0f 3a 0f c1 08", "palignr $0x8,%xmm1,%xmm0", 6, NONE, { 5, 1, 8 }, 0, 0, 2, "66" },
	{ "66 0f 3a 44 05 10 00 00 00 01", "pclmulqdq $0x1,0x10(%rip),%xmm0", 10, { 5, 4, 16 },
	  { 9, 1, 1 }, 1, 0, 2, "66" },
};

/* Parses "48 8b 05" into buf; returns the number of bytes. */
static int parse_hex(const char *s, u8 *buf)
{
	int n = 0, digit;

	for (; *s; s++) {
		if (*s == ' ')
			continue;
		digit = *s <= '9' ? *s - '0' : *s - 'a' + 10;
		if (n % 2 == 0)
			buf[n / 2] = digit << 4;
		else
			buf[n / 2] |= digit;
		n++;
	}
	return n / 2;
}

/* Decodes the first n bytes of buf from a heap copy of exactly n bytes, so ASan sees overreads. */
static int decode_exact(struct insn *insn, const u8 *buf, int n)
{
	u8 *copy = malloc(n ? n : 1);
	int ret;

	memcpy(copy, buf, n);
	ret = insn_decode(insn, copy, n);
	free(copy);
	return ret;
}

/* Checks one field of table entry g, naming the entry when it is wrong. */
#define CHECK(got, want)							\
	ktest_check((long long)(got) == (long long)(want), __FILE__, __LINE__,	\
		    "%s (%s): %s == %lld, expected %lld", g->text, g->hex, #got,	\
		    (long long)(got), (long long)(want))

/* Checks every field insn_decode() filled in for table entry g. */
static void check_good(const struct good *g, const struct insn *insn)
{
	u8 want[4];
	int i, n = parse_hex(g->prefixes, want);

	CHECK(insn->length, g->length);
	CHECK(insn->disp_offset, g->disp.offset);
	CHECK(insn->disp_size, g->disp.size);
	CHECK(insn->disp, g->disp.value);
	CHECK(insn->imm_offset, g->imm.offset);
	CHECK(insn->imm_size, g->imm.size);
	CHECK(insn->imm, g->imm.value);
	CHECK(insn->rip_relative, g->rip);
	CHECK(insn->rex, g->rex);
	CHECK(insn->operand_size, g->operand_size);
	CHECK(insn->nr_prefixes, n);
	for (i = 0; i < n && i < insn->nr_prefixes; i++) {
		CHECK(insn->prefixes[i], want[i]);
		CHECK(insn_has_prefix(insn, want[i]), true);
	}
	CHECK(insn_has_prefix(insn, 0x3e), false);
}

KTEST(insn_decodes_each_class)
{
	const struct good *g;
	struct insn insn;
	u8 buf[MAX_INSN_SIZE];
	int n, ret;

	for (g = good; g < good + ARRAY_SIZE(good); g++) {
		n = parse_hex(g->hex, buf);
		ret = decode_exact(&insn, buf, n);
		if (CHECK(n, g->length) && CHECK(ret, 0))
			check_good(g, &insn);
	}
}

/* Every prefix of a valid instruction shorter than it is refused, the empty one too. */
KTEST(insn_refuses_cut_instructions)
{
	const struct good *g;
	struct insn insn;
	u8 buf[MAX_INSN_SIZE];
	int n, cut;

	for (g = good; g < good + ARRAY_SIZE(good); g++) {
		n = parse_hex(g->hex, buf);
		for (cut = 0; cut < n; cut++)
			ktest_check(decode_exact(&insn, buf, cut) == -EINVAL, __FILE__, __LINE__,
				    "%s (%s) cut to %d bytes: not refused", g->text, g->hex, cut);
	}
	EXPECT_EQ(insn_decode(&insn, buf, -1), -EINVAL);
}

/*
 * A len beyond 15 reads no further: the bytes sit in a heap block of exactly 15 and are decoded
 * with len 64, so reading a 16th would stop ASan. Valid instructions decode as with their own
 * length; 15 bytes that are not yet a whole instruction are refused.
 */
KTEST(insn_reads_at_most_15_bytes)
{
	static const char *const unfinished[] = {
		"66 66 66 66 66 66 66 66 66 66 66 66 66 66 66",		/* no opcode yet */
		"66 66 66 66 66 66 66 2e 0f 1f 84 00 00 00 00",		/* disp32 at 11..14: 1 short */
		"f0 f0 f0 f0 f0 f0 f0 f0 f0 48 c7 05 00 00 00",		/* disp32 and imm32 to come */
	};
	const struct good *g;
	struct insn insn;
	u8 *buf = malloc(MAX_INSN_SIZE);
	unsigned int i;

	for (g = good; g < good + ARRAY_SIZE(good); g++) {
		memset(buf, 0xcc, MAX_INSN_SIZE);
		parse_hex(g->hex, buf);
		if (CHECK(insn_decode(&insn, buf, 64), 0))
			CHECK(insn.length, g->length);
	}
	for (i = 0; i < ARRAY_SIZE(unfinished); i++) {
		EXPECT_EQ(parse_hex(unfinished[i], buf), MAX_INSN_SIZE);
		ktest_check(insn_decode(&insn, buf, 64) == -EINVAL, __FILE__, __LINE__,
			    "%s: not refused", unfinished[i]);
	}
	free(buf);
}

/* Bytes no 64-bit instruction starts with, each followed by enough bytes to be whole. */
static const struct {
	const char *hex;
	const char *why;
} refused[] = {
	{ "06", "push es" },
	{ "07", "pop es" },
	{ "0e", "push cs" },
	{ "16", "push ss" },
	{ "17", "pop ss" },
	{ "1e", "push ds" },
	{ "1f", "pop ds" },
	{ "27", "daa" },
	{ "2f", "das" },
	{ "37", "aaa" },
	{ "3f", "aas" },
	{ "60", "pusha" },
	{ "61", "popa" },
	{ "62 f1 7c 48 10 00", "bound, now EVEX: not decoded" },
	{ "82 c0 01", "the 32-bit alias of 80" },
	{ "9a 00 00 00 00 08 00", "far call" },
	{ "c4 e2 79 18 00", "les, now VEX3: not decoded" },
	{ "c5 f8 77", "lds, now VEX2 (vzeroupper): not decoded" },
	{ "ce", "into" },
	{ "d4 0a", "aam" },
	{ "d5 0a", "aad" },
	{ "d6", "salc" },
	{ "ea 00 00 00 00 08 00", "far jmp" },
	{ "0f 04", "undefined" },
	{ "0f 0a", "undefined" },
	{ "0f 0c", "undefined" },
	{ "0f 0e", "femms (3DNow!)" },
	{ "0f 0f c1 9e", "3DNow! (pfadd)" },
	{ "0f 24 c0", "mov from tr (386)" },
	{ "0f 26 c0", "mov to tr (386)" },
	{ "0f 36", "undefined" },
	{ "0f 39", "undefined" },
	{ "0f 3b", "undefined" },
	{ "0f 7a c0", "undefined" },
	{ "0f a6 c0", "VIA PadLock, not Intel's" },
	{ "0f b8 00 00 00 00", "jmpe: popcnt needs f3" },
	{ "0f 38 50 c0", "undefined in 0f 38 without VEX" },
	{ "0f 3a 00 c0 00", "vpermq exists only as VEX" },
	{ "8f c8", "8f /1: AMD's XOP escape" },
	{ "fe d0", "fe /2" },
	{ "ff f8", "ff /7" },
	{ "ff d8", "ff /3 (far call) with a register" },
	{ "ff e8", "ff /5 (far jmp) with a register" },
	{ "c6 c8 00", "c6 /1" },
	{ "c7 c8 00 00 00 00", "c7 /1" },
	{ "c7 f9 00 00 00 00", "c7 /7 other than f8 (xbegin)" },
	{ "0f 00 f0", "0f 00 /6" },
	{ "0f ba c0 01", "0f ba /0: bt imm is /4 to /7" },
	{ "8d c0", "lea with a register" },
	{ "0f b2 c0", "lss with a register" },
	{ "0f c3 c0", "movnti with a register" },
	{ "66 e8 00 00", "66 call: rel16 on AMD, rel32 on Intel" },
	{ "66 e9 00 00 00 00", "66 jmp rel32" },
	{ "66 eb 00", "66 jmp rel8" },
	{ "66 74 00", "66 jcc rel8" },
	{ "66 0f 84 00 00 00 00", "66 jcc rel32" },
	{ "66 c3", "66 ret" },
	{ "66 c2 08 00", "66 ret imm16" },
	{ "66 ff d0", "66 call *%rax" },
	{ "66 0f 78 c0 01 02", "extrq (AMD SSE4a), not vmread" },
	{ "f2 0f 79 c1", "insertq (AMD SSE4a), not vmwrite" },
	{ "66 67 f0 f2 f3 90", "five different prefixes" },
	{ "66 66 66 66 66 66 66 2e 0f 1f 84 00 00 00 00 00", "16 bytes" },
	{ "66 66 66 66 66 66 66 66 66 66 66 66 66 66 66 90", "no opcode in 15 bytes" },
};

KTEST(insn_refuses_invalid)
{
	struct insn insn;
	u8 buf[16];
	unsigned int i;
	int n;

	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		memset(buf, 0, sizeof(buf));
		n = parse_hex(refused[i].hex, buf);
		ktest_check(insn_decode(&insn, buf, n > MAX_INSN_SIZE ? n : MAX_INSN_SIZE) == -EINVAL,
			    __FILE__, __LINE__, "%s (%s): decoded, length %d", refused[i].why,
			    refused[i].hex, insn.length);
	}
}

/* Whether two decodings agree in every field. */
static bool same_insn(const struct insn *a, const struct insn *b)
{
	return a->length == b->length && a->nr_prefixes == b->nr_prefixes &&
	       !memcmp(a->prefixes, b->prefixes, a->nr_prefixes) && a->rex == b->rex &&
	       a->opcode_offset == b->opcode_offset && a->opcode_len == b->opcode_len &&
	       !memcmp(a->opcode, b->opcode, a->opcode_len) && a->has_modrm == b->has_modrm &&
	       a->modrm == b->modrm && a->has_sib == b->has_sib && a->sib == b->sib &&
	       a->disp_offset == b->disp_offset && a->disp_size == b->disp_size &&
	       a->disp == b->disp && a->imm_offset == b->imm_offset &&
	       a->imm_size == b->imm_size && a->imm == b->imm &&
	       a->operand_size == b->operand_size && a->rip_relative == b->rip_relative;
}

/* The shape every accepted decoding has: parts in order, inside the length, the imm last. */
static bool well_formed(const struct insn *insn)
{
	int end = insn->opcode_offset + insn->opcode_len + insn->has_modrm + insn->has_sib;

	if (insn->disp_size && insn->disp_offset != end)
		return false;
	end += insn->disp_size;
	if (insn->imm_size && insn->imm_offset != end)
		return false;
	return end + insn->imm_size == insn->length && insn->length <= MAX_INSN_SIZE &&
	       (!insn->rip_relative || insn->disp_size == 4) && insn->nr_prefixes <= 4;
}

/*
 * Random bytes, biased towards prefixes and the 0f maps: whatever is accepted is well formed,
 * decodes the same whatever follows it, and is refused when cut by a byte.
 */
KTEST(insn_random_bytes)
{
	static const u8 starts[] = { 0x66, 0x67, 0xf0, 0xf3, 0x48, 0x41, 0x0f, 0x0f };
	struct insn insn, again;
	u8 buf[MAX_INSN_SIZE];
	int i, j, accepted = 0;

	for (i = 0; i < 200000; i++) {
		for (j = 0; j < MAX_INSN_SIZE; j++)
			buf[j] = ktest_random();
		for (j = 0; j < 3 && ktest_random() % 2; j++)
			buf[j] = starts[ktest_random() % ARRAY_SIZE(starts)];
		if (insn_decode(&insn, buf, MAX_INSN_SIZE))
			continue;
		accepted++;
		if (!ktest_check(well_formed(&insn), __FILE__, __LINE__, "malformed decoding, length %d",
				 insn.length))
			return;
		for (j = insn.length; j < MAX_INSN_SIZE; j++)
			buf[j] = ~buf[j];
		if (!EXPECT_EQ(decode_exact(&again, buf, insn.length), 0) ||
		    !EXPECT_TRUE(same_insn(&insn, &again)) ||
		    !EXPECT_EQ(decode_exact(&again, buf, insn.length - 1), -EINVAL))
			return;
	}
	EXPECT_TRUE(accepted > 100000);
}
