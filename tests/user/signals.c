/*
 * signals: handlers, masks, queues and the rt_sigframe as a program sees them, one check a line
 * ("ok N name" or "not ok N name: got X, want Y") and "PASS n/m" at the end
 * (tests/integration/test_signals.py runs it).
 */
#include "usignal.h"

#define EINTR 4
#define EAGAIN 11
#define EINVAL 22

/* The kernel's ucontext up to the sigmask: flags, link, stack, sigcontext (256), mask. */
struct ucontext {
	unsigned long flags, link, ss_sp;
	int ss_flags, pad;
	unsigned long ss_size;
	unsigned long r8, r9, r10, r11, r12, r13, r14, r15, di, si, bp, bx, dx, ax, cx, sp, ip;
	unsigned long eflags, segs, err, trapno, oldmask, cr2, fpstate, reserved[8];
	unsigned long sigmask;
};

static long on(int sig, void *fn, unsigned long flags, unsigned long mask)
{
	return sigact(sig, fn, flags | SA_SIGINFO, mask);
}

static void sleep_ms(long ms)
{
	long ts[2] = { ms / 1000, (ms % 1000) * 1000000 };
	sys2(NR_nanosleep, ts, 0);
}

static volatile int hits, last_sig, last_code, last_pid, last_status;
static volatile unsigned long mask_in_handler, altstack_seen;
static char altstack[16384];

static void handler(int sig, struct siginfo *si, struct ucontext *uc)
{
	unsigned long cur;
	char here;

	hits++;
	last_sig = sig;
	last_code = si->code;
	last_pid = si->chld.pid;
	last_status = si->chld.status;
	setmask(0, 0, &cur);
	mask_in_handler = cur;
	altstack_seen = &here >= altstack && &here < altstack + sizeof(altstack);
	/* Clobber what the frame must give back. */
	__asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm7, %%xmm7" ::: "xmm0", "xmm7");
}

static void segv_handler(int sig, struct siginfo *si, struct ucontext *uc)
{
	put_str(si->code == 1 && si->addr == (void *)8 && uc->cr2 == 8 ? "segv caught\n"
									 : "segv wrong info\n");
	exit_group(42);
}

static int child_status(long pid)
{
	int status = -1;
	sys4(NR_wait4, pid, &status, 0, 0);
	return status;
}

static void test_handler_and_frame(void)
{
	unsigned long before = 0, after = 0;
	double x = 1.5;

	check("rt_sigaction SIGUSR1", on(SIGUSR1, handler, 0, BIT(SIGUSR2)), 0);
	hits = 0;
	__asm__ volatile("movsd %0, %%xmm7" ::"m"(x) : "xmm7");
	setmask(0, 0, &before);
	check("kill self", sys2(NR_kill, sys0(NR_getpid), SIGUSR1), 0);
	__asm__ volatile("movsd %%xmm7, %0" : "=m"(x));
	setmask(0, 0, &after);
	check("handler ran once", hits, 1);
	check("signo", last_sig, SIGUSR1);
	check("si_code SI_USER", last_code, 0);
	check("si_pid is the sender", last_pid, sys0(NR_getpid));
	check("mask in handler: sa_mask and the signal",
	      mask_in_handler == (before | BIT(SIGUSR1) | BIT(SIGUSR2)), 1);
	check("mask back after rt_sigreturn", after == before, 1);
	check("xmm7 restored by the frame", x == 1.5, 1);
	check("tgkill", sys3(NR_tgkill, sys0(NR_getpid), sys0(NR_gettid), SIGUSR1), 0);
	check("si_code SI_TKILL", last_code, -6);
	check("SIGKILL cannot be caught", on(SIGKILL, handler, 0, 0), -EINVAL);
	check("signal 65 refused", sys2(NR_kill, sys0(NR_getpid), 65), -EINVAL);
	check("kill of no process", sys2(NR_kill, 99999, 0), -3);
}

static void test_queueing(void)
{
	unsigned long pend = 0;

	on(SIGRTMIN + 2, handler, 0, 0);
	on(SIGUSR2, handler, 0, 0);
	setmask(0, BIT(SIGRTMIN + 2) | BIT(SIGUSR2), 0);
	for (int i = 0; i < 3; i++) {
		sys2(NR_kill, sys0(NR_getpid), SIGRTMIN + 2);
		sys2(NR_kill, sys0(NR_getpid), SIGUSR2);
	}
	sys2(NR_rt_sigpending, &pend, 8);
	check("both pending while blocked", pend == (BIT(SIGRTMIN + 2) | BIT(SIGUSR2)), 1);
	hits = 0;
	setmask(1, BIT(SIGRTMIN + 2) | BIT(SIGUSR2), 0);
	check("3 real-time + 1 standard delivered", hits, 4);
}

static void test_faults_and_defaults(void)
{
	long pid = sys0(NR_fork);

	if (!pid) {
		volatile unsigned long bad = 8;
		on(SIGSEGV, segv_handler, 0, 0);
		*(volatile int *)bad = 1;
		exit_group(1);
	}
	check("SIGSEGV handler ran, child exit 42", child_status(pid), 42 << 8);
	if (!(pid = sys0(NR_fork))) {
		sys2(NR_kill, sys0(NR_getpid), SIGTERM);
		exit_group(1);
	}
	check("SIGTERM default: killed", child_status(pid), SIGTERM);
}

static void test_eintr_and_restart(void)
{
	long pid;

	/* No SA_RESTART: nanosleep in the child ends with -EINTR. */
	if (!(pid = sys0(NR_fork))) {
		long ts[2] = { 5, 0 };
		on(SIGUSR1, handler, 0, 0);
		exit_group(sys2(NR_nanosleep, ts, 0) == -EINTR ? 7 : 1);
	}
	sleep_ms(100);
	sys2(NR_kill, pid, SIGUSR1);
	check("nanosleep -EINTR", child_status(pid), 7 << 8);

	/* wait4 interrupted: -EINTR without SA_RESTART, the child's pid with it. */
	for (int restart = 0; restart < 2; restart++) {
		if (!(pid = sys0(NR_fork))) {
			long c, me = sys0(NR_getpid);
			int st = 0;
			on(SIGUSR1, handler, restart ? SA_RESTART : 0, 0);
			if (!(c = sys0(NR_fork))) {
				sleep_ms(100);
				sys2(NR_kill, me, SIGUSR1);
				sleep_ms(100);
				exit_group(5);
			}
			long r = sys4(NR_wait4, c, &st, 0, 0);
			if (!restart)
				exit_group(r == -EINTR ? 3 : 1);
			exit_group(r == c && st == 5 << 8 ? 4 : 1);
		}
		check(restart ? "wait4 restarted (SA_RESTART)" : "wait4 -EINTR", child_status(pid),
		      (restart ? 4 : 3) << 8);
	}
}

static void test_sigchld_and_waits(void)
{
	struct siginfo si;
	long ts[2] = { 0, 0 }, pid;

	on(SIGCHLD, handler, 0, 0);
	hits = 0;
	if (!(pid = sys0(NR_fork)))
		exit_group(9);
	child_status(pid);
	check("SIGCHLD delivered", hits >= 1 && last_sig == SIGCHLD, 1);
	check("CLD_EXITED, status 9", last_code == 1 && last_status == 9 && last_pid == pid, 1);

	setmask(0, BIT(SIGUSR1), 0);
	sys2(NR_kill, sys0(NR_getpid), SIGUSR1);
	check("rt_sigtimedwait takes it",
	      sys4(NR_rt_sigtimedwait, &(unsigned long){ BIT(SIGUSR1) }, &si, ts, 8), SIGUSR1);
	check("its siginfo", si.signo == SIGUSR1 && si.chld.pid == sys0(NR_getpid), 1);
	check("rt_sigtimedwait nothing: EAGAIN",
	      sys4(NR_rt_sigtimedwait, &(unsigned long){ BIT(SIGUSR1) }, &si, ts, 8), -EAGAIN);

	/* sigsuspend: the handler runs, the call says -EINTR, the blocking mask is back. The child,
	 * on another CPU perhaps, exits only once the parent has looked: its SIGCHLD would run the
	 * handler a second time inside the same sigsuspend otherwise. */
	int go[2];
	char c;

	sys2(NR_pipe2, go, 0);
	on(SIGUSR1, handler, 0, 0);
	if (!(pid = sys0(NR_fork))) {
		sleep_ms(50);
		sys2(NR_kill, sys0(NR_getppid), SIGUSR1);
		sys3(NR_read, go[0], &c, 1);
		exit_group(0);
	}
	hits = 0;
	check("rt_sigsuspend -EINTR", sys2(NR_rt_sigsuspend, &(unsigned long){ 0 }, 8), -EINTR);
	unsigned long now = 0;
	setmask(0, 0, &now);
	check("handler ran, mask back", hits == 1 && (now & BIT(SIGUSR1)), 1);
	sys3(NR_write, go[1], "g", 1);
	child_status(pid);
	setmask(2, 0, 0);
}

/* A stop and a continue, as a shell's wait4 sees them (WUNTRACED, WCONTINUED). */
static void test_stop_and_continue(void)
{
	int status = 0, go[2];
	long pid;
	char c;

	sys2(NR_pipe2, go, 0);
	if (!(pid = sys0(NR_fork))) {
		sys2(NR_kill, sys0(NR_getpid), 19 /* SIGSTOP */);
		sys3(NR_read, go[0], &c, 1); /* until the parent has seen the continue */
		exit_group(6);
	}
	check("wait4 WUNTRACED: stopped by SIGSTOP", sys4(NR_wait4, pid, &status, 2, 0), pid);
	check("status 0x137f", status, 0x137f);
	sys2(NR_kill, pid, 18 /* SIGCONT */);
	check("wait4 WCONTINUED", sys4(NR_wait4, pid, &status, 8, 0), pid);
	check("status 0xffff", status, 0xffff);
	sys3(NR_write, go[1], "g", 1);
	check("then its exit", child_status(pid), 6 << 8);
}

static void test_altstack(void)
{
	unsigned long ss[3] = { (unsigned long)altstack, 0, sizeof(altstack) };

	check("sigaltstack", sys2(NR_sigaltstack, ss, 0), 0);
	on(SIGUSR2, handler, SA_ONSTACK, 0);
	altstack_seen = 0;
	sys2(NR_kill, sys0(NR_getpid), SIGUSR2);
	check("handler on the alternate stack", altstack_seen, 1);
	ss[2] = 100;
	check("sigaltstack too small: ENOMEM", sys2(NR_sigaltstack, ss, 0), -12);
}

/* A handler's changes to the frame's rcx and r11, which sysretq would overwrite with rip and rflags. */
static void regs_handler(int sig, struct siginfo *si, struct ucontext *uc)
{
	uc->cx = 0x1111;
	uc->r11 = 0x2222;
	uc->bx = 0x3333;
}

static void test_sigreturn_registers(void)
{
	unsigned long rcx, r11, rbx, ax = NR_kill;

	on(SIGUSR2, regs_handler, 0, 0);
	/* The signal lands as kill returns; rt_sigreturn must come back through iretq (force_iret). */
	__asm__ volatile("syscall\n\tmov %%rcx, %0\n\tmov %%r11, %1\n\tmov %%rbx, %2"
			 : "=r"(rcx), "=r"(r11), "=r"(rbx), "+a"(ax)
			 : "D"(sys0(NR_getpid)), "S"(SIGUSR2)
			 : "rcx", "r11", "rbx", "memory");
	check("kill returns 0 after the handler", ax, 0);
	check("rcx from the frame", rcx, 0x1111);
	check("r11 from the frame", r11, 0x2222);
	check("rbx from the frame", rbx, 0x3333);
}

/*
 * `signals trace`, for test_signal_events.py: one signal of each fate signal_generate reports, its
 * pid, handler and flags printed first so the test knows what the events must show.
 */
static int trace_signals(void)
{
	long pid = sys0(NR_getpid);

	on(SIGUSR1, handler, SA_RESTART, 0);
	on(SIGUSR2, handler, 0, 0);
	put_str("pid=");
	put_num(pid);
	put_str(" handler=");
	put_hex((unsigned long)handler);
	put_str("\n");
	sys2(NR_kill, pid, SIGUSR1);	     /* delivered, then taken by the handler */
	setmask(0, BIT(SIGUSR2), 0);	     /* SIG_BLOCK */
	sys3(NR_tgkill, pid, pid, SIGUSR2); /* to this thread: pending */
	sys3(NR_tgkill, pid, pid, SIGUSR2); /* already pending: merged */
	setmask(1, BIT(SIGUSR2), 0);	     /* SIG_UNBLOCK: taken now */
	on(SIGUSR1, (void *)1, 0, 0);	     /* SIG_IGN */
	sys2(NR_kill, pid, SIGUSR1);	     /* ignored */
	return hits == 2 ? 0 : 1;
}

int main(int argc, char **argv, char **envp)
{
	if (argc > 1 && !strcmp(argv[1], "trace"))
		return trace_signals();
	test_handler_and_frame();
	test_queueing();
	test_faults_and_defaults();
	test_eintr_and_restart();
	test_sigchld_and_waits();
	test_stop_and_continue();
	test_altstack();
	test_sigreturn_registers();
	return check_summary();
}
