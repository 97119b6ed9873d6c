/* uthread.h: threads as pthread_create makes them, for the test programs that need some
 * (threads.c, robust.c): raw clone, futex, join, and a look at a thread in /proc. */
#ifndef TESTS_USER_UTHREAD_H
#define TESTS_USER_UTHREAD_H

#include "ulib.h"

#define NR_futex 202
#define CLONE_VM 0x00000100
#define CLONE_FS 0x00000200
#define CLONE_FILES 0x00000400
#define CLONE_SIGHAND 0x00000800
#define CLONE_THREAD 0x00010000
#define CLONE_SYSVSEM 0x00040000
#define CLONE_SETTLS 0x00080000
#define CLONE_PARENT_SETTID 0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
/* What glibc's pthread_create passes (sysdeps/unix/sysv/linux/createthread.c). */
#define PTHREAD_FLAGS                                                                              \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |        \
	 CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE_FLAG 128
#define STACK_SIZE 16384

struct timespec {
	long sec, nsec;
};

struct thread {
	int ptid, ctid; /* CLONE_PARENT_SETTID's and CLONE_CHILD_CLEARTID's words */
	long tid;
	char stack[STACK_SIZE] __attribute__((aligned(16)));
};

/* clone(flags, stack, &ptid, &ctid, tls); the child pops fn and arg from its new stack, calls
 * fn(arg) and leaves with exit(fn's value): a thread's own end, not the process's. */
long raw_clone(unsigned long flags, void *sp, int *ptid, int *ctid, unsigned long tls);
__asm__(".globl raw_clone\n"
	"raw_clone:\n"
	"	mov %rcx, %r10\n"
	"	mov $56, %eax\n"
	"	syscall\n"
	"	test %rax, %rax\n"
	"	jnz 1f\n"
	"	xor %ebp, %ebp\n"
	"	pop %rax\n"
	"	pop %rdi\n"
	"	call *%rax\n"
	"	mov %eax, %edi\n"
	"	mov $60, %eax\n"
	"	syscall\n"
	"	hlt\n"
	"1:	ret\n");

static inline long futex(int *uaddr, int op, int val, const struct timespec *t, int *uaddr2, int val3)
{
	return sys6(NR_futex, uaddr, op, val, t, uaddr2, val3);
}

static inline long spawn(struct thread *t, int (*fn)(void *), void *arg)
{
	unsigned long *sp = (unsigned long *)(t->stack + STACK_SIZE);

	*--sp = 0; /* keeps the call 16-aligned once fn and arg are popped */
	*--sp = 0;
	*--sp = (unsigned long)arg;
	*--sp = (unsigned long)fn;
	t->ptid = t->ctid = -1;
	t->tid = raw_clone(PTHREAD_FLAGS, sp, &t->ptid, &t->ctid, (unsigned long)t);
	return t->tid;
}

/* pthread_join: sleep on the tid word until the kernel zeroes it at the thread's exit. */
static inline void join(struct thread *t)
{
	int tid;

	while ((tid = __atomic_load_n(&t->ctid, __ATOMIC_ACQUIRE)) != 0)
		futex(&t->ctid, FUTEX_WAIT, tid, 0, 0, 0);
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	sys2(NR_nanosleep, &ts, 0);
}

/* Appends n in decimal at p; the end. */
static inline char *put_dec(char *p, long n)
{
	char digits[20];
	int k = 0;

	do
		digits[k++] = '0' + n % 10;
	while ((n /= 10));
	while (k)
		*p++ = digits[--k];
	return p;
}

/* A number field of a status file ("\nTgid:\t"), the state's letter for "\nState:\t"; -1 when
 * the file or the field is not there. tgid 0: /proc/<tid>/status, else
 * /proc/<tgid>/task/<tid>/status. */
static inline long task_status_field(long tgid, long tid, const char *field)
{
	char path[64], buf[1024], *p = path;
	const char *at;
	long fd, n;

	memcpy(p, "/proc/", 6);
	p = put_dec(p + 6, tgid ? tgid : tid);
	if (tgid) {
		memcpy(p, "/task/", 6);
		p = put_dec(p + 6, tid);
	}
	memcpy(p, "/status", 8);
	if ((fd = sys2(NR_open, path, 0)) < 0)
		return -1;
	n = sys3(NR_read, fd, buf, sizeof(buf) - 1);
	sys1(NR_close, fd);
	buf[n > 0 ? n : 0] = 0;
	if (!(at = strstr(buf, field)))
		return -1;
	at += strlen(field);
	return *at >= '0' && *at <= '9' ? atol(at) : *at;
}

static inline long status_field(long tid, const char *field)
{
	return task_status_field(0, tid, field);
}

#endif
