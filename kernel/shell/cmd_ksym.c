/* ksym and dis: look up kernel symbols, and show the bytes at the start of a function, decoded. */
#include "kernel/shell/shell.h"
#include "kernel/jump_label.h"
#include "kernel/kprobes.h"
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/printk/printk.h"
#include "lib/ctype.h"
#include "lib/string.h"

static int cmd_ksym(int argc, char **argv)
{
	char sym[KSYM_NAME_LEN + 32];
	unsigned long addr, size;

	if (argc != 2) {
		cprintf("usage: ksym ADDRESS|NAME\n");
		return 2;
	}
	if (isdigit((unsigned char)argv[1][0])) {
		if (kstrtoul(argv[1], 0, &addr)) {
			cprintf("ksym: %s: invalid address\n", argv[1]);
			return 1;
		}
		if (!kallsyms_lookup(addr, NULL, NULL)) {
			cprintf("ksym: %s: no symbol at this address\n", argv[1]);
			return 1;
		}
		sprint_symbol(sym, sizeof(sym), addr);
		cprintf("%s\n", sym);
		return 0;
	}
	addr = kallsyms_lookup_name(argv[1]);
	if (!addr) {
		cprintf("ksym: %s: no such symbol\n", argv[1]);
		return 1;
	}
	kallsyms_lookup(addr, &size, NULL);
	cprintf("0x%016lx %s+0x0/0x%lx\n", addr, argv[1], size);
	return 0;
}
SHELL_CMD(ksym, cmd_ksym, "ksym ADDRESS|NAME: address to symbol+offset/size, or name to address");

/* objdump's spelling of a branch target: "ffffffff80201000 <kmain>" or "<kmain+0x10>". */
static void print_target(unsigned long target)
{
	unsigned long off;
	const char *name = kallsyms_lookup(target, NULL, &off);

	cprintf("%lx", target);
	if (name && off)
		cprintf(" <%s+0x%lx>", name, off);
	else if (name)
		cprintf(" <%s>", name);
}

/* A jump-label or kprobe site says so, as objdump's comments would. Ends the line. */
static void print_site_note(unsigned long addr)
{
	const struct jump_entry *e = jump_label_lookup(addr);
	const struct kprobe *p = get_kprobe((void *)addr);
	u8 orig;

	if (e)
		cprintf("   # jump label %ps", (void *)jump_entry_key(e));
	if (p && kprobe_text_poked(addr, &orig))
		cprintf("   # kprobe: int3 over %02x", orig);
	else if (p && kprobe_ftrace(p))
		cprintf("   # kprobe on ftrace%s", kprobe_disabled(p) ? " (disarmed)" : "");
	else if (p)
		cprintf("   # kprobe (disarmed)");
	cprintf("\n");
}

/* A place dis decodes instead of dumping: a jump-label site, or a probed instruction. */
static bool is_site(unsigned long addr)
{
	return jump_label_lookup(addr) || get_kprobe((void *)addr);
}

/*
 * Decodes the few instructions ftrace and jump labels put in the text (call/jmp rel32, jmp rel8,
 * the 5- and 2-byte NOPs, int3) and a function's usual first bytes; returns the length consumed.
 */
static size_t decode_one(unsigned long addr, const u8 *p, size_t avail)
{
	static const u8 nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t len = 0;
	const char *text = NULL;

	if (avail >= 5 && !memcmp(p, nop5, 5)) {
		len = 5, text = "nopl   0x0(%rax,%rax,1)";
	} else if (avail >= 5 && (p[0] == 0xe8 || p[0] == 0xe9)) {
		len = 5;
	} else if (avail >= 2 && p[0] == 0xeb) {
		len = 2;
	} else if (avail >= 2 && p[0] == 0x66 && p[1] == 0x90) {
		len = 2, text = "xchg   %ax,%ax";
	} else if (avail >= 4 && !memcmp(p, endbr64, 4)) {
		len = 4, text = "endbr64";
	} else if (p[0] == 0xcc) {
		len = 1, text = "int3";
	} else if (p[0] == 0x55) {
		len = 1, text = "push   %rbp";
	} else if (p[0] == 0xc3) {
		len = 1, text = "ret";
	}
	if (!len)
		return 0;
	cprintf("%lx:  ", addr);
	for (size_t i = 0; i < 8; i++)
		cprintf(i < len ? "%02x " : "   ", p[i]);
	if (text) {
		cprintf(" %s", text);
	} else if (p[0] == 0xeb) {
		cprintf(" jmp    ");
		print_target(addr + 2 + (s8)p[1]);
	} else {
		s32 rel;
		memcpy(&rel, p + 1, 4);
		cprintf(" %s   ", p[0] == 0xe8 ? "call" : "jmp ");
		print_target(addr + 5 + rel);
	}
	print_site_note(addr);
	return len;
}

/* Where the next site lies in [addr, end), or end. */
static unsigned long next_site(unsigned long addr, unsigned long end)
{
	for (; addr < end; addr++)
		if (is_site(addr))
			return addr;
	return end;
}

static int cmd_dis(int argc, char **argv)
{
	unsigned long addr, n = 16;
	const u8 *p;
	size_t done;

	if (argc < 2 || argc > 3) {
		cprintf("usage: dis FUNCTION [BYTES]\n");
		return 2;
	}
	addr = kallsyms_lookup_name(argv[1]);
	if (!addr || !is_kernel_text(addr)) {
		cprintf("dis: %s: no such function\n", argv[1]);
		return 1;
	}
	if (argc == 3 && (kstrtoul(argv[2], 0, &n) || n == 0 || n > 256)) {
		cprintf("dis: bad length '%s' (1 to 256 bytes)\n", argv[2]);
		return 1;
	}
	n = MIN(n, (unsigned long)_etext - addr);
	p = (const u8 *)addr;
	cprintf("%s at 0x%lx:\n", argv[1], addr);
	/* The first instruction is where ftrace works, jump-label sites are where static keys
	 * work, and a kprobe's int3 is where it works: decode those; the rest is raw bytes. */
	done = decode_one(addr, p, n);
	while (done < n) {
		size_t chunk = MIN(16UL, n - done), site;
		if (is_site(addr + done)) {
			size_t len = decode_one(addr + done, p + done, n - done);
			if (len) {
				done += len;
				continue;
			}
		}
		site = next_site(addr + done + 1, addr + done + chunk) - addr - done;
		chunk = MIN(chunk, site);
		cprintf("%lx:  ", addr + done);
		for (size_t i = 0; i < chunk; i++)
			cprintf("%02x%s", p[done + i], i + 1 < chunk ? " " : "");
		cprintf("\n");
		done += chunk;
	}
	return 0;
}
SHELL_CMD(dis, cmd_dis,
	  "dis FUNCTION [BYTES]: a function's bytes; its first insn, jump-label and kprobe sites "
	  "decoded");
