/*
 * segv KIND: a program that does one thing a process must not, so the kernel kills it alone (with
 * Linux's one-line report) and goes on: null (read address 0), write-text (write its own code),
 * kernel (read a kernel address), nx (jump into its stack), int80 (the 32-bit syscall gate, which a
 * kernel without IA32 emulation refuses), ud2, div0, unmapped (touch memory it has just unmapped).
 */
#include "ulib.h"

static void __attribute__((noinline)) run(const char *kind)
{
	volatile long zero = 0;
	char stack_code[4] = { (char)0xc3 }; /* ret */

	if (!strcmp(kind, "null"))
		put_num(*(volatile int *)zero);
	else if (!strcmp(kind, "write-text"))
		*(volatile char *)run = 0;
	else if (!strcmp(kind, "kernel"))
		put_num(*(volatile long *)0xffffffff80000000UL);
	else if (!strcmp(kind, "nx"))
		((void (*)(void))stack_code)();
	else if (!strcmp(kind, "int80"))
		__asm__ volatile("int $0x80" : : "a"(39));
	else if (!strcmp(kind, "ud2"))
		__asm__ volatile("ud2");
	else if (!strcmp(kind, "div0"))
		put_num(100 / zero);
	else if (!strcmp(kind, "unmapped")) {
		char *p = (char *)sys6(NR_mmap, 0, 4096, 3, 0x22, -1, 0);
		p[0] = 1;
		sys2(NR_munmap, p, 4096);
		p[0] = 2;
	}
}

int main(int argc, char **argv, char **envp)
{
	if (argc < 2) {
		put_str("usage: segv null|write-text|kernel|nx|int80|ud2|div0|unmapped\n");
		return 2;
	}
	put_str("segv: ");
	put_str(argv[1]);
	put_str("\n");
	run(argv[1]);
	put_str("segv: still alive\n");
	return 1;
}
