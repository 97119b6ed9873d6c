/*
 * execve: a static ELF64 executable replaces the process's program (Linux: fs/exec.c and
 * fs/binfmt_elf.c). Everything is built in a new address space first; only when it is complete
 * does the process switch to it (the point of no return), so a failed exec changes nothing.
 *
 * The new stack, as the x86-64 ABI and glibc's start-up read it (highest address first):
 *
 *   STACK_TOP   8 bytes of zero
 *               the file name (AT_EXECFN), the environment strings, the argument strings
 *               "x86_64" (AT_PLATFORM), 16 random bytes (AT_RANDOM), padding to 16
 *               auxv: (AT_PHDR, a) (AT_PHNUM, n) ... (AT_NULL, 0)
 *               envp[0] ... NULL
 *               argv[0] ... NULL
 *   rsp ->      argc
 */
#include "kernel/futex.h"
#include "kernel/thread_group.h"
#include "kernel/fs/binfmt_elf.h"
#include "arch/x86/cpu.h"
#include "arch/x86/process.h"
#include "arch/x86/segment.h"
#include "kernel/fs/file.h"
#include "kernel/cred.h"
#include "kernel/fs/ramfs.h"
#include "kernel/mm/mm.h"
#include "kernel/mm/mm_types.h"
#include "kernel/signal.h"
#include "kernel/sys.h"
#include "kernel/trace/trace.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"
#include "kernel/events/uprobes.h"
#include "kernel/trace/events/sched.h"
#include "kernel/trace/events/task.h"

#define ARG_MAX_BYTES (128 * 1024) /* argv and envp strings together; beyond: E2BIG */
#define STACK_SIZE (8UL << 20)	   /* RLIMIT_STACK's default */
#define MMAP_GAP (128UL << 20)	   /* Linux's smallest gap between the stack and mmap_base */
#define MAX_PHNUM 64
#define BINPRM_BUF_SIZE 256 /* how much of a "#!" line is read */
#define MAX_INTERP_DEPTH 4  /* a script's interpreter may be a script, this deep (Linux's) */

struct linux_binprm {
	char *strings; /* argv then envp, each with its NUL, packed */
	size_t len;
	int argc, envc;
	const char *filename; /* as execve() named it: AT_EXECFN, comm, the exec event */
	const char *load;     /* the file loaded: filename, or a script's interpreter */
	const struct ramfs_inode *file;
	const struct elf64_hdr *elf;
	const struct elf64_phdr *phdr;
	struct elf64_hdr ehdr;	  /* copies: a written file's bytes are in pages, not in one run */
	struct elf64_phdr *phdrs; /* MAX_PHNUM of them */
	char interp[BINPRM_BUF_SIZE]; /* a script's interpreter: the next file to load */
	struct mm_struct *mm;
	unsigned long sp, entry, phdr_addr;
};

/* Appends one string; -E2BIG once the strings outgrow ARG_MAX_BYTES. */
static int add_string(struct linux_binprm *b, const char *s, size_t n)
{
	if (n + 1 > ARG_MAX_BYTES - b->len)
		return -E2BIG;
	memcpy(b->strings + b->len, s, n);
	b->strings[b->len + n] = '\0';
	b->len += n + 1;
	return 0;
}

/* A user's NULL-terminated vector of strings (argv or envp). A NULL vector is empty. */
static int copy_strings_user(struct linux_binprm *b, const char __user *const __user *vec,
			     int *count)
{
	for (*count = 0; vec; ++*count) {
		const char __user *p;
		long n;
		if (get_user(p, vec + *count))
			return -EFAULT;
		if (!p)
			break;
		n = strncpy_from_user(b->strings + b->len, p, ARG_MAX_BYTES - b->len);
		if (n < 0)
			return n;
		if ((size_t)n == ARG_MAX_BYTES - b->len)
			return -E2BIG;
		b->len += n + 1;
	}
	return 0;
}

static int copy_strings_kernel(struct linux_binprm *b, const char *const *vec, int *count)
{
	int err;

	for (*count = 0; vec && vec[*count]; ++*count)
		if ((err = add_string(b, vec[*count], strlen(vec[*count]))))
			return err;
	return 0;
}

/* The header of a static x86-64 executable, and its program headers inside the file. */
static int check_elf(struct linux_binprm *b)
{
	const struct ramfs_inode *f = b->file;
	const struct elf64_hdr *e = &b->ehdr;

	static const u8 ident[7] = { 0x7f, 'E', 'L', 'F', 2 /* 64-bit */, 1 /* LE */, 1 };

	if (f->size < sizeof(*e) || ramfs_read_kernel(f, 0, &b->ehdr, sizeof(b->ehdr)) ||
	    memcmp(e->e_ident, ident, sizeof(ident)))
		return -ENOEXEC;
	if (e->e_type != ET_EXEC || e->e_machine != EM_X86_64 ||
	    e->e_phentsize != sizeof(struct elf64_phdr) || !e->e_phnum || e->e_phnum > MAX_PHNUM ||
	    e->e_phoff > f->size || e->e_phnum * sizeof(struct elf64_phdr) > f->size - e->e_phoff)
		return -ENOEXEC; /* ET_DYN (PIE, static-pie) is not loaded yet */
	b->elf = e;
	b->phdr = b->phdrs;
	if (ramfs_read_kernel(f, e->e_phoff, b->phdrs, e->e_phnum * sizeof(struct elf64_phdr)))
		return -ENOEXEC;
	for (int k = 0; k < e->e_phnum; k++) {
		const struct elf64_phdr *p = &b->phdr[k];
		if (p->p_type == PT_INTERP)
			return -ENOEXEC; /* dynamically linked: no ld.so here */
		if (p->p_type != PT_LOAD)
			continue;
		if (p->p_filesz > p->p_memsz || p->p_offset > f->size ||
		    p->p_filesz > f->size - p->p_offset || p->p_memsz > TASK_SIZE_MAX ||
		    p->p_vaddr > TASK_SIZE_MAX - p->p_memsz ||
		    (p->p_vaddr - p->p_offset) % PAGE_SIZE)
			return -EINVAL;
		if (p->p_offset <= e->e_phoff &&
		    e->e_phoff + e->e_phnum * sizeof(*p) <= p->p_offset + p->p_filesz)
			b->phdr_addr = p->p_vaddr + (e->e_phoff - p->p_offset);
	}
	b->entry = e->e_entry;
	return 0;
}

/* len bytes of the file at off into the new mm at addr; a hole needs nothing (pages are zero). */
static int copy_file_to_mm(struct mm_struct *mm, unsigned long addr, const struct ramfs_inode *f,
			   u64 off, size_t len)
{
	size_t n;
	int err;

	for (; len; len -= n, off += n, addr += n) {
		const void *p = ramfs_bytes_at(f, off, &n);
		n = MIN(n, len);
		if (p && (err = copy_to_mm(mm, addr, p, n)))
			return err;
	}
	return 0;
}

/* What /proc/<pid>/stat shows of the image, as Linux's load_elf_binary() computes it: code from
 * the lowest executable segment to the end of the file bytes of the highest; "data" from the last
 * segment's start to the end of all file bytes. */
static void segment_bounds(struct mm_struct *mm, const struct elf64_phdr *p)
{
	unsigned long end = p->p_vaddr + p->p_filesz;

	if ((p->p_flags & PF_X) && p->p_vaddr < mm->start_code)
		mm->start_code = p->p_vaddr;
	if ((p->p_flags & PF_X) && end > mm->end_code)
		mm->end_code = end;
	if (p->p_vaddr > mm->start_data)
		mm->start_data = p->p_vaddr;
	if (end > mm->end_data)
		mm->end_data = end;
}

/* Each PT_LOAD segment into its own areas, its file bytes copied, the rest zero (.bss). */
static int load_segments(struct linux_binprm *b)
{
	struct mm_struct *mm = b->mm;
	unsigned long brk = 0;
	int err;

	mm->start_code = ~0UL;
	for (int k = 0; k < b->elf->e_phnum; k++) {
		const struct elf64_phdr *p = &b->phdr[k];
		unsigned long start = ALIGN_DOWN(p->p_vaddr, PAGE_SIZE);
		unsigned long end = ALIGN(p->p_vaddr + p->p_memsz, PAGE_SIZE);
		unsigned long vm = (p->p_flags & PF_R ? VM_READ : 0) |
				   (p->p_flags & PF_W ? VM_WRITE : 0) |
				   (p->p_flags & PF_X ? VM_EXEC : 0);
		struct vm_area_struct *prev;

		if (p->p_type != PT_LOAD || !p->p_memsz)
			continue;
		/* A page shared with the segment before stays in that segment's area. */
		prev = find_vma(mm, start);
		if (prev && prev->vm_start <= start)
			start = MIN(prev->vm_end, end);
		if (start < end && (err = insert_vm_area(mm, start, end, vm, true)))
			return err;
		if (start < end) { /* which file bytes it maps: uprobes look them up */
			struct vm_area_struct *v = find_vma(mm, start);
			v->vm_inode = b->file;
			v->vm_file_off = p->p_offset - (p->p_vaddr - start);
		}
		if ((err = copy_file_to_mm(mm, p->p_vaddr, b->file, p->p_offset, p->p_filesz)))
			return err;
		segment_bounds(mm, p);
		/* .bss needs nothing: every page is zero when made, and only file bytes were copied. */
		if (p->p_vaddr + p->p_memsz > brk)
			brk = p->p_vaddr + p->p_memsz;
	}
	if (!brk)
		return -ENOEXEC;
	if (mm->start_code == ~0UL)
		mm->start_code = 0;
	mm->start_brk = mm->brk = ALIGN(brk, PAGE_SIZE);
	return 0;
}

/* Pushes bytes onto the new stack (downwards): their user address, or 0 on failure. */
static unsigned long push(struct linux_binprm *b, const void *src, size_t len)
{
	b->sp -= len;
	return copy_to_mm(b->mm, b->sp, src, len) ? 0 : b->sp;
}

static int create_elf_tables(struct linux_binprm *b)
{
	struct mm_struct *mm = b->mm;
	unsigned long zero = 0, execfn, platform, random, strings, *table, p;
	size_t n = 1 + b->argc + 1 + b->envc + 1 + 2 * 19, k = 0;
	u8 rnd[16];
	int err = -ENOMEM;

	b->sp = STACK_TOP;
	if (insert_vm_area(mm, STACK_TOP - STACK_SIZE, STACK_TOP, VM_READ | VM_WRITE, false))
		return -ENOMEM;
	get_random_bytes(rnd, sizeof(rnd));
	if (!push(b, &zero, sizeof(zero)) ||
	    !(execfn = push(b, b->filename, strlen(b->filename) + 1)) ||
	    !(strings = push(b, b->strings, b->len)) || !(platform = push(b, "x86_64", 7)) ||
	    !(random = push(b, rnd, sizeof(rnd))))
		return -ENOMEM;
	mm->arg_start = strings;
	if (!(table = kmalloc(n * sizeof(*table))))
		return -ENOMEM;
	table[k++] = b->argc;
	p = strings;
	for (int i = 0; i < b->argc + b->envc; i++) {
		if (i == b->argc)
			mm->arg_end = mm->env_start = p;
		if (i == b->argc)
			table[k++] = 0; /* argv's NULL */
		table[k++] = p;
		p += strlen(b->strings + (p - strings)) + 1;
	}
	if (!b->envc) {
		mm->arg_end = mm->env_start = p;
		table[k++] = 0;
	}
	mm->env_end = p;
	table[k++] = 0; /* envp's NULL */
#define AUX(key, val) (table[k++] = (key), table[k++] = (val))
	AUX(AT_HWCAP, cpu_hwcap());
	AUX(AT_PAGESZ, PAGE_SIZE);
	AUX(AT_CLKTCK, 100);
	AUX(AT_PHDR, b->phdr_addr);
	AUX(AT_PHENT, sizeof(struct elf64_phdr));
	AUX(AT_PHNUM, b->elf->e_phnum);
	AUX(AT_BASE, 0);
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, b->entry);
	AUX(AT_UID, 0);
	AUX(AT_EUID, 0);
	AUX(AT_GID, 0);
	AUX(AT_EGID, 0);
	AUX(AT_SECURE, 0);
	AUX(AT_RANDOM, random);
	AUX(AT_HWCAP2, 0);
	AUX(AT_EXECFN, execfn);
	AUX(AT_PLATFORM, platform);
	AUX(AT_NULL, 0);
#undef AUX
	b->sp = ALIGN_DOWN(b->sp - k * sizeof(*table),
			   16); /* rsp at argc: 16-aligned, as the ABI says */
	if (!copy_to_mm(mm, b->sp, table, k * sizeof(*table)))
		err = 0;
	mm->start_stack = b->sp; /* where argc is, as Linux's load_elf_binary() keeps it */
	kfree(table);
	return err;
}

/* Past the point of no return: the process becomes the new program. */
static void begin_new_exec(struct linux_binprm *b, struct pt_regs *regs)
{
	struct task *t = current;
	struct mm_struct *old = t->mm;
	const char *base = strrchr(b->filename, '/');
	/* The tasklist lock: a /proc reader holding it may look at the old mm (proc_stat.c). */
	unsigned long flags = tasklist_lock_irqsave();

	t->mm = b->mm;
	switch_mm(t->mm);
	t->fsbase = t->gsbase = 0;
	wrmsr(MSR_FS_BASE, 0);
	wrmsr(MSR_KERNEL_GS_BASE, 0);
	tasklist_unlock_irqrestore(flags);
	if (old)
		mmput(old);
	fpu_init_task(t); /* allocated before the exec began: cannot fail here */
	strscpy(t->mm->exe, base ? base + 1 : b->filename, sizeof(t->mm->exe));
	trace_task_rename(t, t->mm->exe);
	strscpy(t->comm, t->mm->exe, sizeof(t->comm));
	trace_update_cmdline(t->pid, t->comm); /* the trace names the program from now on */
	do_close_on_exec(t->files);
	/* Handlers point into the old program: back to the default, SIG_IGN stays (Linux's rule). */
	for (int sig = 0; t->sighand && sig < _NSIG; sig++)
		if (t->sighand[sig].handler > 1)
			t->sighand[sig].handler = 0;
	memset(regs, 0, sizeof(*regs));
	regs->ip = regs->cx = b->entry;
	regs->sp = b->sp;
	regs->cs = __USER_CS;
	regs->ss = __USER_DS;
	regs->flags = regs->r11 = X86_EFLAGS_IF | 0x2; /* bit 1 always reads 1 */
	regs->orig_ax = -1;
	t->force_iret = true; /* a new ip and flags: the way out checks them (entry_64.asm) */
}

/* The new mm, filled from the file: 0, or an error with nothing left behind. */
static int load_binary(struct linux_binprm *b)
{
	int err;

	if ((err = check_elf(b)))
		return err;
	if (!current->fpu && fpu_init_task(current))
		return -ENOMEM;
	if (!(b->mm = mm_alloc()))
		return -ENOMEM;
	b->mm->mmap_base = STACK_TOP - STACK_SIZE - MMAP_GAP;
	b->mm->exe_inode = (struct ramfs_inode *)b->file;
	ramfs_ihold(b->mm->exe_inode);
	if ((err = load_segments(b)) || (err = create_elf_tables(b))) {
		mmput(b->mm);
		return err;
	}
	return 0;
}

/* Puts the len bytes at s before the strings, in argv's front. */
static int prepend_string(struct linux_binprm *b, const char *s, size_t len)
{
	if (len + 1 > ARG_MAX_BYTES - b->len)
		return -E2BIG;
	memmove(b->strings + len + 1, b->strings, b->len);
	memcpy(b->strings, s, len);
	b->strings[len] = '\0';
	b->len += len + 1;
	b->argc++;
	return 0;
}

/*
 * "#!INTERP [ARG]" (Linux: fs/binfmt_script.c): argv[0] is replaced by INTERP, ARG if there is
 * one, and the script's path, so `./t a` runs `/bin/sh ./t a`; the interpreter is loaded next.
 * 1 if f is a script (b->load is now the interpreter), 0 if not, or -errno.
 */
static int load_script(struct linux_binprm *b, const struct ramfs_inode *f)
{
	char buf[BINPRM_BUF_SIZE + 1], *p, *interp, *arg = NULL, *end;
	size_t len = MIN(f->size, (size_t)BINPRM_BUF_SIZE), arg0;
	int err;

	if (len < 2 || ramfs_read_kernel(f, 0, buf, len) || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[len] = '\0';
	for (end = buf; end < buf + len && *end != '\n'; end++)
		; /* no newline: Linux too reads a line cut at 256 bytes */
	*end = '\0';
	for (p = buf + 2; *p == ' ' || *p == '\t'; p++)
		;
	interp = p;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	if (p == interp)
		return -ENOEXEC;
	if (*p) {
		*p++ = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		for (char *t = end; t > p && (t[-1] == ' ' || t[-1] == '\t');)
			*--t = '\0';
		arg = *p ? p : NULL;
	}
	/* argv[0] goes; then, from the front: the script's path, ARG, INTERP. */
	arg0 = strlen(b->strings) + 1;
	memmove(b->strings, b->strings + arg0, b->len - arg0);
	b->len -= arg0;
	b->argc--;
	if ((err = prepend_string(b, b->load, strlen(b->load))) ||
	    (arg && (err = prepend_string(b, arg, strlen(arg)))) ||
	    (err = prepend_string(b, interp, strlen(interp))))
		return err;
	strscpy(b->interp, interp, sizeof(b->interp));
	b->load = b->interp;
	return 1;
}

/* The file to load: path's, or (through "#!" lines) its interpreter's. */
static int find_binary(struct linux_binprm *b, struct fnode **out)
{
	b->load = b->filename;
	for (int depth = 0;; depth++) {
		struct fnode *n;
		int err = kern_path(current->cwd, b->load, false, &n);

		if (err)
			return err;
		if (n->is_dir || !ramfs_inode(n) || fnode_permission(n, MAY_EXEC))
			return -EACCES;
		ramfs_lock();
		err = load_script(b, ramfs_inode(n));
		ramfs_unlock();
		if (err <= 0) {
			*out = n;
			return err;
		}
		if (depth == MAX_INTERP_DEPTH)
			return -ELOOP;
	}
}

static int exec_binprm(struct linux_binprm *b, struct pt_regs *regs)
{
	struct fnode *n;
	int err = find_binary(b, &n), old_pid;

	if (err)
		return err;
	b->file = ramfs_inode(n);
	if (!(b->phdrs = kmalloc(MAX_PHNUM * sizeof(*b->phdrs))))
		return -ENOMEM;
	ramfs_lock(); /* the file's bytes hold still while they are read in */
	err = load_binary(b);
	if (!err) /* the file itself, symlinks followed: what Linux's d_path() of vm_file gives */
		fs_path(n, b->mm->exe_path, sizeof(b->mm->exe_path));
	ramfs_unlock();
	kfree(b->phdrs);
	/* The last point where the exec can fail: the other threads go first, and a thread that is
	 * not the leader takes its pid (sched_process_exec tells the old one). */
	old_pid = current->pid;
	if (!err && (err = de_thread()))
		mmput(b->mm);
	if (err)
		return err;
	mm_release(current, current->mm);
	begin_new_exec(b, regs);
	uprobe_mmap_exec(current->mm);
	trace_sched_process_exec(current, old_pid, b->filename);
	return 0;
}

/* argc 0 gets one empty argument, as Linux does since 5.18: argv[0] is never NULL. */
static int finish_strings(struct linux_binprm *b)
{
	if (b->argc)
		return 0;
	memmove(b->strings + 1, b->strings, b->len);
	b->strings[0] = '\0';
	b->len++;
	b->argc = 1;
	return 0;
}

int kernel_execve(const char *filename, const char *const *argv, const char *const *envp,
		  struct pt_regs *regs)
{
	struct linux_binprm b = { .filename = filename };
	int err;

	if (!(b.strings = kmalloc(ARG_MAX_BYTES + 1)))
		return -ENOMEM;
	if (!(err = copy_strings_kernel(&b, argv, &b.argc)) &&
	    !(err = copy_strings_kernel(&b, envp, &b.envc)) && !(err = finish_strings(&b)))
		err = exec_binprm(&b, regs);
	kfree(b.strings);
	return err;
}

/* Linux's name for execve's work, kept a function of its own (ftrace's tests filter on it). */
static noinline int do_execve(const char __user *filename, const char __user *const __user *argv,
			      const char __user *const __user *envp)
{
	struct linux_binprm b = { 0 };
	char *name = kmalloc(FS_PATH_MAX);
	long n;
	int err = -ENOMEM;

	if (!name || !(b.strings = kmalloc(ARG_MAX_BYTES + 1)))
		goto out;
	n = strncpy_from_user(name, filename, FS_PATH_MAX);
	err = n < 0 ? n : n == FS_PATH_MAX ? -ENAMETOOLONG : !n ? -ENOENT : 0;
	if (err)
		goto out;
	b.filename = name;
	if (!(err = copy_strings_user(&b, argv, &b.argc)) &&
	    !(err = copy_strings_user(&b, envp, &b.envc)) && !(err = finish_strings(&b)))
		err = exec_binprm(&b, task_pt_regs(current));
out:
	kfree(b.strings);
	kfree(name);
	return err;
}

SYSCALL_DEFINE3(execve, const char __user *, filename, const char __user *const __user *, argv,
		const char __user *const __user *, envp)
{
	return do_execve(filename, argv, envp);
}
