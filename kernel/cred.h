/* Credentials (kernel/cred.c): who the current process is, for permission checks. */
#ifndef KERNEL_CRED_H
#define KERNEL_CRED_H

#include "lib/types.h"

#define MAY_EXEC 1
#define MAY_WRITE 2
#define MAY_READ 4

/* The caller acts as root (effective uid 0): Linux's capable() for every capability. */
bool capable_root(void);
/* 0 or -EACCES: may the caller do mask (MAY_*) to a root-owned node of this mode? */
int generic_permission_mode(unsigned int mode, int mask);

struct fnode;
/* kernel/fs/permission.c: 0 or -EACCES for mask on n; tracefs's own modes (0 if not in it). */
int fnode_permission(const struct fnode *n, int mask);
unsigned int tracefs_mode(const struct fnode *n);
void tracefs_permission_init(void);

#endif
