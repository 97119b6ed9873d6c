/* ulib.h: the whole C library of our own test programs: raw Linux system calls and a few printers. */
#ifndef TESTS_USER_ULIB_H
#define TESTS_USER_ULIB_H

typedef unsigned long size_t;
typedef long ssize_t;

/* Linux's x86-64 numbers: the programs speak the ABI directly, as no libc stands between. */
enum {
	NR_read = 0,
	NR_write = 1,
	NR_open = 2,
	NR_close = 3,
	NR_stat = 4,
	NR_fstat = 5,
	NR_lstat = 6,
	NR_lseek = 8,
	NR_mmap = 9,
	NR_mprotect = 10,
	NR_munmap = 11,
	NR_brk = 12,
	NR_rt_sigaction = 13,
	NR_rt_sigprocmask = 14,
	NR_ioctl = 16,
	NR_pread64 = 17,
	NR_readv = 19,
	NR_writev = 20,
	NR_access = 21,
	NR_pipe = 22,
	NR_sched_yield = 24,
	NR_dup = 32,
	NR_dup2 = 33,
	NR_nanosleep = 35,
	NR_getpid = 39,
	NR_clone = 56,
	NR_fork = 57,
	NR_execve = 59,
	NR_exit = 60,
	NR_wait4 = 61,
	NR_uname = 63,
	NR_fcntl = 72,
	NR_getcwd = 79,
	NR_chdir = 80,
	NR_readlink = 89,
	NR_umask = 95,
	NR_gettimeofday = 96,
	NR_sysinfo = 99,
	NR_getuid = 102,
	NR_getppid = 110,
	NR_arch_prctl = 158,
	NR_gettid = 186,
	NR_getdents64 = 217,
	NR_set_tid_address = 218,
	NR_clock_gettime = 228,
	NR_exit_group = 231,
	NR_openat = 257,
	NR_newfstatat = 262,
	NR_set_robust_list = 273,
	NR_dup3 = 292,
	NR_pipe2 = 293,
	NR_prlimit64 = 302,
	NR_getrandom = 318,
	NR_rseq = 334,
};

static inline long syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#define sys0(n) syscall6(n, 0, 0, 0, 0, 0, 0)
#define sys1(n, a) syscall6(n, (long)(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b) syscall6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define sys3(n, a, b, c) syscall6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sys4(n, a, b, c, d) syscall6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sys6(n, a, b, c, d, e, f)                                                                  \
	syscall6(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
long atol(const char *s);
/* 0 when s starts with prefix. */
int memcmp_prefix(const char *s, const char *prefix);
/* Where n first occurs in h, or 0. */
const char *strstr(const char *h, const char *n);
void *memset(void *d, int c, size_t n);
void *memcpy(void *d, const void *s, size_t n);
void puts_fd(int fd, const char *s);
void put_str(const char *s);
void put_num(long v);
void put_hex(unsigned long v);
void __attribute__((noreturn)) exit_group(int code);

/* The test programs' checks, one line each ("ok 3 name", or "not ok 3 name: got X, want Y"), and
 * their last line, "PASS n/m" or "FAIL n/m"; check_summary() returns main's exit status. */
extern int checks, failed;
void check(const char *name, long got, long want);
int check_summary(void);

/* The program: main(argc, argv, envp), called by _start in ulib.c. */
int main(int argc, char **argv, char **envp);

#endif
