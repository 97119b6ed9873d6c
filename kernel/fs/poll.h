/* What poll(), ppoll() and epoll ask of a file: the events it has ready (Linux's eventpoll.h). */
#ifndef KERNEL_FS_POLL_H
#define KERNEL_FS_POLL_H

struct file;

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

/* kernel/fs/select.c: f's ready events, its f_op->poll or DEFAULT_POLLMASK. */
unsigned int vfs_poll(struct file *f);

#endif
