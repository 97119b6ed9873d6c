/* The in-memory file tree: nodes, path resolution, and the read/write doors every file goes through. */
#include "kernel/fs/fs.h"
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "lib/errno.h"
#include "lib/string.h"

static struct fnode root = { .name = "", .is_dir = true, .sb = &rootfs_sb };

struct fnode *fs_root(void)
{
	return &root;
}

struct fnode *fs_lookup(struct fnode *dir, const char *name, size_t len)
{
	for (struct fnode *c = dir->children; c; c = c->next)
		if (strlen(c->name) == len && !strncmp(c->name, name, len))
			return c->mounted ? c->mounted : c;
	return dir->ops && dir->ops->lookup ? dir->ops->lookup(dir, name, len) : NULL;
}

void fs_attach(struct fnode *parent, struct fnode *n, const char *name)
{
	struct fnode **pp;

	strscpy(n->name, name, sizeof(n->name));
	n->parent = parent;
	/* Keep children sorted so ls and completion list them in a stable order. */
	for (pp = &parent->children; *pp && strcmp((*pp)->name, name) < 0; pp = &(*pp)->next)
		;
	n->next = *pp;
	*pp = n;
}

void fs_detach(struct fnode *n)
{
	struct fnode **pp;

	if (!n->parent)
		return;
	for (pp = &n->parent->children; *pp && *pp != n; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = n->next;
	n->next = NULL;
}

static struct fnode *add_node(struct fnode *parent, const char *name, bool is_dir)
{
	struct fnode *n;

	if (strlen(name) > FS_NAME_MAX || fs_lookup(parent, name, strlen(name)))
		return NULL;
	n = kzalloc(sizeof(*n));
	if (!n)
		return NULL;
	n->is_dir = is_dir;
	n->sb = parent->sb;
	fs_attach(parent, n, name);
	return n;
}

struct fnode *fs_mkdir(struct fnode *parent, const char *name)
{
	struct fnode *n = fs_lookup(parent, name, strlen(name));
	if (n)
		return n->is_dir ? n : NULL;
	return add_node(parent, name, true);
}

struct fnode *fs_create(struct fnode *parent, const char *name, const struct file_ops *ops,
			void *priv)
{
	struct fnode *n = add_node(parent, name, false);
	if (n) {
		n->ops = ops;
		n->priv = priv;
	}
	return n;
}

bool fs_busy(const struct fnode *n)
{
	if (n->pins)
		return true;
	for (const struct fnode *c = n->children; c; c = c->next)
		if (fs_busy(c))
			return true;
	return false;
}

/* Frees n and everything under it (already unlinked). */
static void free_tree(struct fnode *n)
{
	while (n->children) {
		struct fnode *c = n->children;
		n->children = c->next;
		free_tree(c);
	}
	if (n->ops && n->ops->evict)
		n->ops->evict(n);
	kfree(n);
}

int fs_remove(struct fnode *n)
{
	if (fs_busy(n))
		return -EBUSY;
	fs_detach(n);
	free_tree(n);
	return 0;
}

void fs_unlink(struct fnode *n)
{
	fs_detach(n);
	/* No way back up: "..", getcwd and tracefs's mode walk stop here. */
	n->parent = NULL;
	n->unlinked = true;
	if (!n->pins)
		free_tree(n);
}

void fs_set_sb(struct fnode *n, struct super_block *sb)
{
	n->sb = sb;
	for (struct fnode *c = n->children; c; c = c->next)
		fs_set_sb(c, sb);
}

int fs_user_mkdir(struct fnode *dir, const char *name)
{
	if (!dir->is_dir)
		return -ENOTDIR;
	if (fs_lookup(dir, name, strlen(name)))
		return -EEXIST;
	if (strlen(name) > FS_NAME_MAX)
		return -ENAMETOOLONG;
	if (!dir->ops || !dir->ops->mkdir)
		return -EPERM;
	return dir->ops->mkdir(dir, name);
}

int fs_user_rmdir(struct fnode *victim)
{
	struct fnode *dir = victim->parent;

	if (!victim->is_dir)
		return -ENOTDIR;
	if (!dir || !dir->ops || !dir->ops->rmdir)
		return -EPERM;
	return dir->ops->rmdir(dir, victim);
}

void fs_pin(struct fnode *n)
{
	__atomic_add_fetch(&n->pins, 1, __ATOMIC_RELAXED);
}

void fs_unpin(struct fnode *n)
{
	if (!__atomic_sub_fetch(&n->pins, 1, __ATOMIC_ACQ_REL) && n->unlinked)
		free_tree(n);
}

struct fnode *fs_mkdir_p(const char *path)
{
	struct fnode *dir = &root;
	char part[FS_NAME_MAX + 1];

	while (*path) {
		size_t len = strcspn(path, "/");
		if (len && len <= FS_NAME_MAX) {
			memcpy(part, path, len);
			part[len] = '\0';
			dir = fs_mkdir(dir, part);
			if (!dir)
				return NULL;
		}
		path += len;
		if (*path == '/')
			path++;
	}
	return dir;
}

int fs_resolve(struct fnode *cwd, const char *path, struct fnode **out)
{
	struct fnode *n = path[0] == '/' ? &root : cwd;

	while (*path) {
		size_t len = strcspn(path, "/");
		if (len == 0 || (len == 1 && path[0] == '.')) {
			/* "//" and "." stay where they are */
		} else if (!n->is_dir) {
			return -ENOTDIR;
		} else if (len == 2 && !strncmp(path, "..", 2)) {
			n = n->parent ? n->parent : n;
		} else {
			n = fs_lookup(n, path, len);
			if (!n)
				return -ENOENT;
		}
		path += len;
		if (*path == '/') {
			path++;
			if (!n->is_dir)
				return -ENOTDIR;
		}
	}
	*out = n;
	return 0;
}

void fs_path(const struct fnode *n, char *buf, size_t size)
{
	const struct fnode *chain[32];
	int depth = 0;
	size_t len = 0;

	for (; n && n->parent && depth < 32; n = n->parent)
		chain[depth++] = n;
	buf[0] = '\0';
	if (!depth)
		strscpy(buf, "/", size);
	while (depth-- > 0 && len + 1 < size) {
		buf[len++] = '/';
		buf[len] = '\0';
		strscpy(buf + len, chain[depth]->name, size - len);
		len = strlen(buf);
	}
}

int fs_write_text(char *dst, size_t size, const char *buf, size_t len)
{
	char *start;

	if (len >= size)
		return -EINVAL;
	memcpy(dst, buf, len);
	dst[len] = '\0';
	start = strim(dst);
	memmove(dst, start, strlen(start) + 1);
	return 0;
}

int fs_write_ulong(const char *buf, size_t len, unsigned long lo, unsigned long hi,
		   unsigned long *out)
{
	char text[24];
	unsigned long v;

	if (fs_write_text(text, sizeof(text), buf, len) || kstrtoul(text, 10, &v) || v < lo ||
	    v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int fs_read(struct fnode *f, struct seq_file *m)
{
	if (f->is_dir)
		return -EISDIR;
	if (!f->ops || !f->ops->show)
		return -EACCES;
	return f->ops->show(m, f);
}

int fs_write(struct fnode *f, const char *buf, size_t len, unsigned int flags)
{
	if (f->is_dir)
		return -EISDIR;
	if (!f->ops || !f->ops->write)
		return -EACCES;
	return f->ops->write(f, buf, len, flags);
}
