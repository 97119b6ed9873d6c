/* ulib.c: _start (the stack exec built, read as the ABI says) and the printers of ulib.h. */
#include "ulib.h"

/* rsp -> argc, argv[0..argc], NULL, envp..., NULL, auxv: hand them to main, 16-aligned. */
__asm__(".globl _start\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov (%rsp), %rdi\n"
	"	lea 8(%rsp), %rsi\n"
	"	lea 16(%rsp,%rdi,8), %rdx\n"
	"	and $-16, %rsp\n"
	"	call start_c\n"
	"	hlt\n");

void __attribute__((used)) start_c(int argc, char **argv, char **envp)
{
	exit_group(main(argc, argv, envp));
}

size_t strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}

/* The leading decimal digits of s (the programs' arguments are counts). */
long atol(const char *s)
{
	long v = 0;

	while (*s >= '0' && *s <= '9')
		v = v * 10 + (*s++ - '0');
	return v;
}

int memcmp_prefix(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 1;
	return 0;
}

const char *strstr(const char *h, const char *n)
{
	for (size_t ln = strlen(n); *h; h++) {
		size_t i = 0;
		while (i < ln && h[i] == n[i])
			i++;
		if (i == ln)
			return h;
	}
	return 0;
}

void *memset(void *d, int c, size_t n)
{
	char *p = d;
	while (n--)
		*p++ = c;
	return d;
}

void *memcpy(void *d, const void *s, size_t n)
{
	char *p = d;
	const char *q = s;
	while (n--)
		*p++ = *q++;
	return d;
}

void puts_fd(int fd, const char *s)
{
	sys3(NR_write, fd, s, strlen(s));
}

void put_str(const char *s)
{
	puts_fd(1, s);
}

void put_num(long v)
{
	char buf[24], *p = buf + sizeof(buf);
	unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;

	*--p = '\0';
	do
		*--p = '0' + u % 10;
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	put_str(p);
}

void put_hex(unsigned long v)
{
	char buf[20], *p = buf + sizeof(buf);

	*--p = '\0';
	do
		*--p = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	put_str(p);
}

void exit_group(int code)
{
	for (;;)
		sys1(NR_exit_group, code);
}

int checks, failed;

void check(const char *name, long got, long want)
{
	checks++;
	put_str(got == want ? "ok " : "not ok ");
	put_num(checks);
	put_str(" ");
	put_str(name);
	if (got != want) {
		failed++;
		put_str(": got ");
		put_num(got);
		put_str(", want ");
		put_num(want);
	}
	put_str("\n");
}

int check_summary(void)
{
	put_str(failed ? "FAIL " : "PASS ");
	put_num(checks - failed);
	put_str("/");
	put_num(checks);
	put_str("\n");
	return failed != 0;
}
