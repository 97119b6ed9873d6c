/* bpfprog: the loaded eBPF programs, and one program's instructions as the verifier left them
 * and its JITed bytes (ours; Linux has `bpftool prog show` and `bpftool prog dump`). */
#include "kernel/bpf/verifier.h"
#include "kernel/printk/printk.h"
#include "kernel/shell/shell.h"
#include "lib/string.h"

static const char *const prog_type_names[] = {
	[BPF_PROG_TYPE_KPROBE] = "kprobe",
	[BPF_PROG_TYPE_TRACEPOINT] = "tracepoint",
	[BPF_PROG_TYPE_PERF_EVENT] = "perf_event",
	[BPF_PROG_TYPE_RAW_TRACEPOINT] = "raw_tracepoint",
	[BPF_PROG_TYPE_TRACING] = "tracing",
};

static void show_prog(const struct bpf_prog *p)
{
	cprintf("%u: %s  name %s  insns %u  verified %u  jited %uB\n", p->id,
		p->type < ARRAY_SIZE(prog_type_names) && prog_type_names[p->type]
			? prog_type_names[p->type]
			: "?",
		p->name[0] ? p->name : "-", p->len, p->verified_insns, p->jited ? p->jited_len : 0);
}

/* The rewritten program: calls name the helper by address (the verifier put its offset in imm),
 * the rest as the verifier's log shows it. */
static void dump_xlated(const struct bpf_prog *p)
{
	char buf[160];
	struct bpf_verifier_log log = { .buf = buf, .size = sizeof(buf), .level = 1 };
	struct bpf_verifier_env env = { .log = &log, .allow_ptr_leaks = true };

	for (u32 i = 0; i < p->len; i++) {
		const struct bpf_insn *insn = &p->insnsi[i];
		cprintf("%4u: (%02x) ", i, insn->code);
		if (insn->code == (BPF_JMP | BPF_CALL) && insn->src_reg != BPF_PSEUDO_CALL) {
			cprintf("call %ps\n", (void *)((unsigned long)__bpf_call_base + insn->imm));
			continue;
		}
		log.len = 0;
		print_bpf_insn(&env, insn);
		cprintf("%s", buf);
		if (insn->code == (BPF_LD | BPF_IMM | BPF_DW))
			i++;
	}
}

static void dump_jited(const struct bpf_prog *p)
{
	const u8 *code = p->jit_image;

	if (!p->jited) {
		cprintf("not JITed: it runs in the interpreter (bpf_jit_enable was 0)\n");
		return;
	}
	cprintf("JITed at 0x%lx, %u bytes:\n", (unsigned long)code, p->jited_len);
	for (u32 off = 0; off < p->jited_len; off += 16) {
		cprintf("%4x:  ", off);
		for (u32 i = off; i < off + 16 && i < p->jited_len; i++)
			cprintf("%02x%s", code[i],
				i + 1 < off + 16 && i + 1 < p->jited_len ? " " : "");
		cprintf("\n");
	}
}

static int cmd_bpfprog(int argc, char **argv)
{
	struct bpf_prog *p;
	unsigned long id;

	if (argc == 1) {
		for (u32 next = bpf_prog_next_id(0); next; next = bpf_prog_next_id(next)) {
			p = bpf_prog_by_id(next);
			if (p) {
				show_prog(p);
				bpf_prog_put(p);
			}
		}
		return 0;
	}
	if (argc != 2 || kstrtoul(argv[1], 10, &id)) {
		cprintf("usage: bpfprog [ID]\n");
		return 2;
	}
	p = bpf_prog_by_id(id);
	if (!p) {
		cprintf("bpfprog: %s: no such program\n", argv[1]);
		return 1;
	}
	show_prog(p);
	dump_xlated(p);
	dump_jited(p);
	bpf_prog_put(p);
	return 0;
}
SHELL_CMD(bpfprog, cmd_bpfprog,
	  "bpfprog [ID]: loaded eBPF programs; one program's instructions and JITed bytes");
