/* ksym and dis: look up kernel symbols, and show the bytes at the start of a function, decoded. */
#include "kernel/shell/shell.h"
#include "arch/x86/insn.h"
#include "arch/x86/text_insn.h"
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
	if (p && kprobe_optimized(p)) {
		cprintf("   # optimized kprobe: jmp over");
		for (int i = 0; i < JMP32_INSN_SIZE && kprobe_text_poked(addr + i, &orig); i++)
			cprintf(" %02x", orig);
	} else if (p && kprobe_text_poked(addr, &orig)) {
		cprintf("   # kprobe: int3 over %02x", orig);
	} else if (p && kprobe_ftrace(p))
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

/* The names dis gives, by the exact bytes: a function's usual first instruction (objdump's
 * spelling), or a NOP or irqflags site's cli or sti patching writes. Anything else it leaves to
 * the raw dump. */
static const char *insn_name(const struct insn *in, const u8 *p)
{
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

	if (in->length == MCOUNT_INSN_SIZE && !memcmp(p, x86_nops[5], 5))
		return "nopl   0x0(%rax,%rax,1)";
	if (in->length == 2 && !memcmp(p, x86_nops[2], 2))
		return "xchg   %ax,%ax";
	if (in->length == 4 && !memcmp(p, endbr64, 4))
		return "endbr64";
	if (in->length == IRQ_SITE_INSN_SIZE && text_insn_irq_site(p))
		return p[4] == CLI_INSN_OPCODE ? "ds data16 addr32 rex cli"
					       : "ds data16 addr32 rex sti";
	if (in->length == 1 && p[0] == INT3_INSN_OPCODE)
		return "int3";
	if (in->length == 1 && p[0] == 0x55)
		return "push   %rbp";
	if (in->length == 1 && p[0] == 0xc3)
		return "ret";
	return NULL;
}

/*
 * One instruction where ftrace, jump labels or kprobes work: its length from the shared decoder
 * (arch/x86/insn.c, the one kprobes use), its text from the encodings patching writes
 * (arch/x86/text_insn.h: call/jmp rel32, jmp rel8, the NOPs, int3) or insn_name(). Returns the
 * length consumed, or 0 for an instruction it cannot name (the caller dumps raw bytes).
 */
static size_t decode_one(unsigned long addr, const u8 *p, size_t avail)
{
	const char *text;
	unsigned long target = 0;
	struct insn in;

	if (insn_decode(&in, p, MIN(avail, (size_t)MAX_INSN_SIZE)))
		return 0;
	text = insn_name(&in, p);
	if (!text && !in.nr_prefixes && !in.rex && in.opcode_len == 1 &&
	    (p[0] == CALL_INSN_OPCODE || p[0] == JMP32_INSN_OPCODE || p[0] == JMP8_INSN_OPCODE))
		target = text_insn_target(addr, p);
	if (!text && !target)
		return 0;
	cprintf("%lx:  ", addr);
	for (size_t i = 0; i < 8; i++)
		cprintf(i < in.length ? "%02x " : "   ", p[i]);
	if (text) {
		cprintf(" %s", text);
	} else {
		cprintf(" %s", p[0] == CALL_INSN_OPCODE ? "call   " : "jmp    ");
		print_target(target);
	}
	print_site_note(addr);
	return in.length;
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
