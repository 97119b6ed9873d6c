/*
 * robust: glibc's robust mutexes without glibc. A thread that ends holding one leaves it to the
 * kernel, which walks the thread's set_robust_list() list at exit, marks the word
 * FUTEX_OWNER_DIED and wakes a waiter; one check a line, "PASS n/m" at the end
 * (tests/integration/test_threads.py runs it).
 */
#include "ulib.h"
#include "uthread.h"

#define NR_get_robust_list 274
#define FUTEX_WAITERS 0x80000000u
#define FUTEX_OWNER_DIED 0x40000000u
#define EPERM 1
#define ESRCH 3
#define EAGAIN 11
#define EFAULT 14
#define EINVAL 22

/* Linux's uapi/linux/futex.h, as glibc lays a robust mutex out: the list link, then the word. */
struct robust_list {
	struct robust_list *next;
};

struct robust_list_head {
	struct robust_list list;
	long futex_offset;
	struct robust_list *list_op_pending;
};

struct robust_mutex {
	struct robust_list link;
	unsigned int lock; /* 0 free, else the owner's tid, with FUTEX_WAITERS and FUTEX_OWNER_DIED */
};

/* Each thread's own list head, as glibc keeps one in its struct pthread. */
static struct robust_list_head heads[2];
static struct robust_mutex m1, m2;
static struct thread t1, t2;
static long main_tid;
static int main_waits; /* set just before main's FUTEX_WAIT, its only sleep from then on */

static void take(struct robust_list_head *h, struct robust_mutex *m)
{
	h->list.next = &h->list;
	h->futex_offset = (long)&m->lock - (long)&m->link;
	sys2(NR_set_robust_list, h, sizeof(*h));
	/* glibc: list_op_pending, the cmpxchg, on the list, list_op_pending cleared */
	h->list_op_pending = &m->link;
	__atomic_store_n(&m->lock, (unsigned int)sys0(NR_gettid), __ATOMIC_SEQ_CST);
	m->link.next = h->list.next;
	h->list.next = &m->link;
	h->list_op_pending = 0;
}

/* Takes m1 and ends without unlocking it. */
static int die_holding(void *arg)
{
	take(&heads[0], &m1);
	return 0;
}

/* Takes m2, lets main wait on it, and ends without unlocking it once main sleeps. */
static int die_with_a_waiter(void *arg)
{
	take(&heads[1], &m2);
	while (!__atomic_load_n(&main_waits, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	for (int i = 0; i < 5000 && status_field(main_tid, "\nState:\t") != 'S'; i++)
		sleep_ms(1);
	return 0;
}

int main(int argc, char **argv, char **envp)
{
	struct robust_list_head *got = 0;
	size_t len = 0;
	unsigned int w;
	long ret, tid;

	main_tid = sys0(NR_gettid);
	check("set_robust_list with a wrong size", sys2(NR_set_robust_list, &heads[0], 23), -EINVAL);
	check("set_robust_list", sys2(NR_set_robust_list, &heads[0], sizeof(heads[0])), 0);
	check("get_robust_list(0) gives it back", sys3(NR_get_robust_list, 0, &got, &len), 0);
	check("...the head", (long)got, (long)&heads[0]);
	check("...its size", len, sizeof(heads[0]));
	check("get_robust_list of no task", sys3(NR_get_robust_list, 999999, &got, &len), -ESRCH);
	check("get_robust_list to a bad pointer", sys3(NR_get_robust_list, 0, 8, &len), -EFAULT);
	sys2(NR_set_robust_list, 0, sizeof(heads[0]));

	tid = spawn(&t1, die_holding, 0);
	join(&t1);
	check("a lock its dead owner held: FUTEX_OWNER_DIED, no owner", m1.lock, FUTEX_OWNER_DIED);

	tid = spawn(&t2, die_with_a_waiter, 0);
	while (!(w = __atomic_load_n(&m2.lock, __ATOMIC_ACQUIRE)))
		sleep_ms(1);
	check("the owner's tid is in the word", w, tid);
	/* a waiter: the waiters bit set, then asleep on the word as it now is */
	__atomic_fetch_or(&m2.lock, FUTEX_WAITERS, __ATOMIC_SEQ_CST);
	__atomic_store_n(&main_waits, 1, __ATOMIC_RELEASE);
	ret = futex((int *)&m2.lock, FUTEX_WAIT, (int)(w | FUTEX_WAITERS), 0, 0, 0);
	check("the waiter was woken by the owner's death", ret, 0);
	check("...and finds FUTEX_OWNER_DIED with the waiters bit kept", m2.lock,
	      FUTEX_OWNER_DIED | FUTEX_WAITERS);
	join(&t2);
	return check_summary();
}
