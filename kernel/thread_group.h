/* Threads: the tasks of one process, sharing its memory, files and handlers (kernel/thread_group.c). */
#ifndef KERNEL_THREAD_GROUP_H
#define KERNEL_THREAD_GROUP_H

#include "kernel/sched/sched.h"
#include "kernel/sched/wait.h"

/*
 * What the threads of a process share beyond mm and files (Linux's signal_struct, trimmed). A
 * process that never made a thread has none (task->signal NULL): the first CLONE_THREAD makes it
 * for the caller, the group leader, whose pid is the process's (tgid).
 *
 *   leader (pid 50, tgid 50) --signal--> { nr_threads 3, thread_head -> 50 -> 51 -> 52 }
 *   thread (pid 51, tgid 50) --signal--^      every thread links through task->thread_next
 *
 * Every field is guarded by the tasklist lock. The leader's task outlives every thread: until the
 * last one has ended the process (ended) its zombie is neither reaped by wait4 nor freed, so
 * leader stays valid.
 */
struct signal_struct {
	int nr_threads;		  /* threads not yet exited, the leader among them until it does */
	struct task *thread_head; /* those threads */
	struct task *leader;	  /* the first thread; its pid is the tgid */
	bool group_exit;     /* exit_group() or a fatal signal: every thread is on its way out */
	int group_exit_code; /* the process's wait status once group_exit is set */
	struct k_sigaction *sighand;	      /* the actions every thread shares (CLONE_SIGHAND) */
	struct wait_queue_head wait_chldexit; /* threads in wait4 for the process's children */
	struct task *exec_waiter;	      /* execve waiting for the other threads to go */
	bool ended; /* the last thread has exited and the parent was told: the leader may go */
};

/* A leader the parent may not reap yet, nor an orphan's end free (Linux's delay_group_leader()):
 * its process has threads, or the last of them is still on its way out. Tasklist lock held. */
static inline bool delay_group_leader(const struct task *p)
{
	return p->signal && !p->signal->ended;
}

/* clone(CLONE_THREAD): p joins current's group (made now if current had none). 0 or -ENOMEM. */
int copy_thread_group(struct task *p);
/* The task that stands for t's process: its leader (or t when single). Inline: getppid, on the
 * measured system-call round trip, asks it. */
static inline struct task *process_of(struct task *t)
{
	return t->signal ? t->signal->leader : t;
}
/* do_exit(): t leaves its group; true if it was the last thread (the process is over). */
bool thread_group_leave(struct task *t);
/* exit_group() and fatal signals: every other thread gets SIGKILL; the status the process ends
 * with (the first group exit's, if there was one already). */
int zap_other_threads(int code);
/* A wait4 anywhere in parent's process looks again (tasklist lock or interrupts off). */
void wake_up_parent(struct task *parent);
/* execve in a multi-threaded process: the other threads end first. 0 or -EINTR (killed). */
int de_thread(void);
/* free_task(): the leader takes the group's struct with it. */
void exit_thread_group(struct task *t);
/* chdir and umask: current's, and every CLONE_FS thread's of its group (Linux's fs_struct). */
struct fnode;
void set_fs_pwd(struct fnode *dir);
unsigned int set_fs_umask(unsigned int mask);
/* A live task of process tgid (the leader or, once it exited, another thread), or NULL. */
struct task *find_thread_group(int tgid);

#endif
