/* What poll(), ppoll() and epoll ask of a file: the events it has ready (Linux's eventpoll.h). */
#ifndef KERNEL_FS_POLL_H
#define KERNEL_FS_POLL_H

struct file;
struct wait_queue_head;

/* Linux's values, the same for poll()'s POLL* and epoll's EPOLL*. */
#define EPOLLIN 0x001
#define EPOLLPRI 0x002
#define EPOLLOUT 0x004
#define EPOLLERR 0x008
#define EPOLLHUP 0x010
#define EPOLLNVAL 0x020
#define EPOLLRDNORM 0x040
#define EPOLLWRNORM 0x100
/* A file without a poll operation never blocks (Linux's DEFAULT_POLLMASK). */
#define DEFAULT_POLLMASK (EPOLLIN | EPOLLOUT | EPOLLRDNORM | EPOLLWRNORM)

/*
 * Linux's poll_table: what a poll operation is asked besides its mask. A file that can say when it
 * becomes ready names its wait queue with poll_wait(); epoll hooks an entry there
 * (ep_ptable_queue_proc()) and is woken by the file's own wake_up(). NULL: the mask only.
 */
typedef struct poll_table_struct {
	void (*_qproc)(struct file *f, struct wait_queue_head *wq, struct poll_table_struct *pt);
} poll_table;

static inline void poll_wait(struct file *f, struct wait_queue_head *wq, poll_table *pt)
{
	if (pt && pt->_qproc)
		pt->_qproc(f, wq, pt);
}

/* kernel/fs/select.c: f's ready events, its f_op->poll or DEFAULT_POLLMASK. */
unsigned int vfs_poll(struct file *f, poll_table *pt);

#endif
