/* usignal.h: the signal ABI as the test programs speak it (numbers, sigaction, siginfo, the restorer). */
#ifndef TESTS_USER_USIGNAL_H
#define TESTS_USER_USIGNAL_H

#include "ulib.h"

#define NR_rt_sigreturn 15
#define NR_pause 34
#define NR_kill 62
#define NR_rt_sigpending 127
#define NR_rt_sigtimedwait 128
#define NR_rt_sigsuspend 130
#define NR_sigaltstack 131
#define NR_tgkill 234

/* Linux's x86-64 numbers (include/uapi/asm-generic/signal.h). */
#define SIGHUP 1
#define SIGINT 2
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGTERM 15
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGRTMIN 32

#define SIG_DFL ((void *)0)
#define SIG_IGN ((void *)1)
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

#define SA_NOCLDSTOP 0x1
#define SA_SIGINFO 0x4
#define SA_RESTORER 0x04000000
#define SA_ONSTACK 0x08000000
#define SA_RESTART 0x10000000

/* si_code of SIGCHLD (include/uapi/asm-generic/siginfo.h). */
#define CLD_EXITED 1
#define CLD_KILLED 2
#define CLD_STOPPED 5
#define CLD_CONTINUED 6

#define WNOHANG 1
#define WUNTRACED 2
#define WCONTINUED 8

#define BIT(sig) (1UL << ((sig)-1))

/* The kernel's struct sigaction (not glibc's): the mask last, 8 bytes of it. */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

struct siginfo {
	int signo, errno_, code, pad;
	union {
		struct {
			int pid, uid, status;
		} chld;
		void *addr;
	};
	char rest[96];
};

/* Every handler returns through it: rt_sigreturn, as glibc's __restore_rt. */
void restore_rt(void);
__asm__(".globl restore_rt\nrestore_rt:\n\tmov $15, %eax\n\tsyscall\n\thlt\n");

/* rt_sigaction(sig) with the restorer; fn takes (sig) or, with SA_SIGINFO, (sig, si, uc). */
static inline long sigact(int sig, void *fn, unsigned long flags, unsigned long mask)
{
	struct ksigaction a = { fn, flags | SA_RESTORER, restore_rt, mask };

	return sys4(NR_rt_sigaction, sig, &a, 0, 8);
}

static inline long setmask(int how, unsigned long set, unsigned long *old)
{
	return sys4(NR_rt_sigprocmask, how, &set, old, 8);
}

#endif
