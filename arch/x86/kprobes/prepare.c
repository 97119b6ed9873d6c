/* Getting a probed instruction ready: what it is, whether it may be probed at all, and how it
 * will be replayed after the handlers: emulated on the saved registers, or copied to a slot of
 * executable memory and single-stepped there.
 *
 *   text    addr: 48 8b 05 d1 2e 00 00   mov rax, [rip + 0x2ed1]      (int3 over the 48)
 *   slot    s:    48 8b 05 xx xx xx xx   the same load; disp moved by addr - s, so it still
 *                                        reads addr + 7 + 0x2ed1, whatever s is
 */
#include "kernel/kprobes_internal.h"
#include "arch/x86/text_poke.h"
#include "lib/errno.h"
#include "lib/string.h"

/* --- what may not be probed, and what must be emulated --------------------------------------- */

/* Instructions that leave the kernel's flow in ways a step out of line cannot follow (or that
 * would stop the CPU while it steps with interrupts off). NULL: it may be probed. */
static const char *refusal(const struct insn *in)
{
	u8 op = in->opcode[0], op2 = in->opcode[1];

	if (in->opcode_len == 1) {
		switch (op) {
		case 0xcc:
			return "int3: another debugger's breakpoint";
		case 0xcd:
		case 0xce:
		case 0xf1:
			return "a software interrupt";
		case 0xcf:
			return "iret";
		case 0xf4:
			return "hlt would stop the CPU while it steps with interrupts off";
		case 0xca:
		case 0xcb:
			return "a far return";
		case 0x8e:
			return insn_reg(in) == 2 ? "mov to ss delays the trap flag" : NULL;
		case 0xff:
			if (insn_reg(in) == 3 || insn_reg(in) == 5)
				return "a far call or jump";
			return NULL;
		}
		return NULL;
	}
	if (in->opcode_len == 2 && op == 0x0f) {
		switch (op2) {
		case 0x05:
		case 0x07:
		case 0x34:
		case 0x35:
			return "a system call or return";
		case 0x00:
		case 0x01:
			return "a descriptor-table or system instruction";
		case 0x22:
		case 0x23:
			return "a write to a control or debug register";
		}
	}
	return NULL;
}

/* The emulated kinds; KP_STEP if the instruction is simply run out of line. */
static enum kprobe_replay classify(const struct insn *in, struct arch_specific_insn *a)
{
	u8 op = in->opcode[0];

	a->opcode = op;
	if (in->opcode_len == 2 && op == 0x0f && (in->opcode[1] & 0xf0) == 0x80) {
		a->reg = in->opcode[1] & 0xf;
		a->rel = in->imm;
		return KP_EMU_JCC;
	}
	if (in->opcode_len != 1 || in->nr_prefixes)
		return KP_STEP; /* a 66- or 67-prefixed jump or push is rare: step it */
	if (op >= 0x70 && op <= 0x7f) {
		a->reg = op & 0xf;
		a->rel = in->imm;
		return KP_EMU_JCC;
	}
	switch (op) {
	case 0xe8:
		a->rel = in->imm;
		return KP_EMU_CALL;
	case 0xe9:
	case 0xeb:
		a->rel = in->imm;
		return KP_EMU_JMP;
	case 0xe0:
	case 0xe1:
	case 0xe2:
	case 0xe3:
		a->rel = in->imm;
		return KP_EMU_LOOP;
	case 0xc3:
		a->rel = 0;
		return KP_EMU_RET;
	case 0xc2:
		a->rel = (u16)in->imm;
		return KP_EMU_RET;
	case 0xfa:
	case 0xfb:
	case 0x9c:
	case 0x9d:
		return KP_EMU_IF;
	case 0xff:
		if (insn_reg(in) == 2)
			return KP_STEP_CALL_INDIRECT;
		if (insn_reg(in) == 4)
			return KP_STEP_ABS;
		return KP_STEP;
	}
	if (op >= 0x50 && op <= 0x57) {
		a->reg = (op & 7) | ((in->rex & 1) << 3);
		return KP_EMU_PUSH;
	}
	return KP_STEP;
}

/* The copy the CPU steps: the original bytes, a rip-relative displacement moved to reach the
 * same target from the slot. */
static int fill_slot(struct arch_specific_insn *a, const struct insn *in, unsigned long addr,
		     const char **why)
{
	u8 buf[MAX_INSN_SIZE];

	a->slot = __get_insn_slot(&kprobe_insn_slots);
	if (!a->slot) {
		*why = "no free instruction slot";
		return -ENOMEM;
	}
	memcpy(buf, a->insn, a->len);
	if (in->rip_relative) {
		s64 disp = in->disp + (s64)(addr - (unsigned long)a->slot);
		s32 d32 = (s32)disp;
		if (d32 != disp) {
			__free_insn_slot(&kprobe_insn_slots, a->slot);
			a->slot = NULL;
			*why = "rip-relative target out of the slot's reach";
			return -EINVAL;
		}
		memcpy(buf + in->disp_offset, &d32, 4);
	}
	text_poke_copy(a->slot, buf, a->len);
	return 0;
}

int arch_prepare_kprobe(struct kprobe_site *s, const char **why)
{
	struct arch_specific_insn *a = &s->ainsn;
	struct insn in;

	if (insn_decode(&in, a->insn, MAX_INSN_SIZE)) {
		*why = "not an instruction this decoder knows";
		return -EINVAL;
	}
	*why = refusal(&in);
	if (*why)
		return -EINVAL;
	a->len = in.length;
	a->replay = classify(&in, a);
	a->slot = NULL;
	if (a->replay <= KP_STEP_ABS)
		return fill_slot(a, &in, (unsigned long)s->addr, why);
	return 0;
}

void arch_remove_kprobe(struct kprobe_site *s)
{
	if (s->ainsn.slot)
		__free_insn_slot(&kprobe_insn_slots, s->ainsn.slot);
	s->ainsn.slot = NULL;
}
