/*
 * Credentials (Linux: kernel/sys.c, kernel/groups.c): real, effective, saved and filesystem user
 * and group ids. Root (euid 0) may set any; anyone else only moves between the ids it already
 * has. The file-system uid follows the effective one, as Linux's does unless setfsuid() is used.
 */
#include "kernel/cred.h"
#include "kernel/sched/sched.h"
#include "kernel/syscalls.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"

#define NO_CHANGE ((unsigned int)-1)

bool capable_root(void)
{
	return current->euid == 0;
}

/* May the caller take id? Root, or one of its own three. */
static bool may_take(unsigned int id, unsigned int r, unsigned int e, unsigned int s)
{
	return capable_root() || id == r || id == e || id == s;
}

static long set_ids(unsigned int *r, unsigned int *e, unsigned int *s, unsigned int *fs,
		    unsigned int nr, unsigned int ne, unsigned int ns)
{
	if ((nr != NO_CHANGE && !may_take(nr, *r, *e, *s)) ||
	    (ne != NO_CHANGE && !may_take(ne, *r, *e, *s)) ||
	    (ns != NO_CHANGE && !may_take(ns, *r, *e, *s)))
		return -EPERM;
	if (nr != NO_CHANGE)
		*r = nr;
	if (ne != NO_CHANGE)
		*e = ne;
	if (ns != NO_CHANGE)
		*s = ns;
	*fs = *e;
	return 0;
}

SYSCALL_DEFINE3(setresuid, unsigned int, ruid, unsigned int, euid, unsigned int, suid)
{
	struct task *t = current;
	return set_ids(&t->uid, &t->euid, &t->suid, &t->fsuid, ruid, euid, suid);
}

SYSCALL_DEFINE3(setresgid, unsigned int, rgid, unsigned int, egid, unsigned int, sgid)
{
	struct task *t = current;
	return set_ids(&t->gid, &t->egid, &t->sgid, &t->fsgid, rgid, egid, sgid);
}

/* setuid: root sets all three; others only the effective one, to their real or saved id. */
SYSCALL_DEFINE1(setuid, unsigned int, uid)
{
	struct task *t = current;

	if (uid == NO_CHANGE)
		return -EINVAL;
	if (capable_root())
		return set_ids(&t->uid, &t->euid, &t->suid, &t->fsuid, uid, uid, uid);
	if (uid != t->uid && uid != t->suid)
		return -EPERM;
	return set_ids(&t->uid, &t->euid, &t->suid, &t->fsuid, NO_CHANGE, uid, NO_CHANGE);
}

SYSCALL_DEFINE1(setgid, unsigned int, gid)
{
	struct task *t = current;

	if (gid == NO_CHANGE)
		return -EINVAL;
	if (capable_root())
		return set_ids(&t->gid, &t->egid, &t->sgid, &t->fsgid, gid, gid, gid);
	if (gid != t->gid && gid != t->sgid)
		return -EPERM;
	return set_ids(&t->gid, &t->egid, &t->sgid, &t->fsgid, NO_CHANGE, gid, NO_CHANGE);
}

/* setreuid: a changed real id, or an effective one other than the old real, saves the new
 * effective id as the saved one (Linux's rule). */
SYSCALL_DEFINE2(setreuid, unsigned int, ruid, unsigned int, euid)
{
	struct task *t = current;
	unsigned int old_r = t->uid, suid = NO_CHANGE;

	if (ruid != NO_CHANGE && !capable_root() && ruid != t->uid && ruid != t->euid)
		return -EPERM;
	if (ruid != NO_CHANGE || (euid != NO_CHANGE && euid != old_r))
		suid = euid != NO_CHANGE ? euid : t->euid;
	return set_ids(&t->uid, &t->euid, &t->suid, &t->fsuid, ruid, euid, suid);
}

SYSCALL_DEFINE2(setregid, unsigned int, rgid, unsigned int, egid)
{
	struct task *t = current;
	unsigned int old_r = t->gid, sgid = NO_CHANGE;

	if (rgid != NO_CHANGE && !capable_root() && rgid != t->gid && rgid != t->egid)
		return -EPERM;
	if (rgid != NO_CHANGE || (egid != NO_CHANGE && egid != old_r))
		sgid = egid != NO_CHANGE ? egid : t->egid;
	return set_ids(&t->gid, &t->egid, &t->sgid, &t->fsgid, rgid, egid, sgid);
}

static long put_three(unsigned int a, unsigned int b, unsigned int c, unsigned int __user *pa,
		      unsigned int __user *pb, unsigned int __user *pc)
{
	if (put_user(a, pa) || put_user(b, pb) || put_user(c, pc))
		return -EFAULT;
	return 0;
}

SYSCALL_DEFINE3(getresuid, unsigned int __user *, ruid, unsigned int __user *, euid,
		unsigned int __user *, suid)
{
	return put_three(current->uid, current->euid, current->suid, ruid, euid, suid);
}

SYSCALL_DEFINE3(getresgid, unsigned int __user *, rgid, unsigned int __user *, egid,
		unsigned int __user *, sgid)
{
	return put_three(current->gid, current->egid, current->sgid, rgid, egid, sgid);
}

/* No supplementary groups are kept: none are reported, and only root may set (to nothing more). */
SYSCALL_DEFINE2(getgroups, int, size, unsigned int __user *, list)
{
	return size < 0 ? -EINVAL : 0;
}

SYSCALL_DEFINE2(setgroups, int, size, const unsigned int __user *, list)
{
	if (!capable_root())
		return -EPERM;
	return size < 0 || size > 65536 ? -EINVAL : 0;
}

/* Access to a node of mode (owner root, group root): the owner's bits for root-owned files
 * as uid 0, the others' for everyone else. Root passes but for execute, which needs one x bit. */
int generic_permission_mode(unsigned int mode, int mask)
{
	unsigned int bits;

	if (current->fsuid == 0)
		return (mask & 1) && !(mode & 0111) && (mode & 0170000) != 0040000 ? -EACCES : 0;
	bits = current->fsgid == 0 ? (mode >> 3) & 7 : mode & 7;
	return (bits & mask) == (unsigned int)mask ? 0 : -EACCES;
}
