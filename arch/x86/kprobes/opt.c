/* Optimized kprobes on x86 (Linux's optprobes): an int3 site whose instructions can run elsewhere
 * becomes a 5-byte jmp to a detour buffer, so a hit costs a jump and a call instead of a trap.
 *
 *   text    addr: e9 <rel32 to buf+entry>  [rest of the replaced range: never run while optimized]
 *   buf:    optprobe_template        a moved-ip exit, then the entry: pt_regs pushed below sp;
 *                                    optimized_callback(site, regs) (core.c) runs the pre
 *                                    handlers as the int3 path would; registers popped back
 *           the replaced range       the instructions from addr, whole ones, >= 5 bytes,
 *                                    each copied as it is (rip-relative ones re-aimed)
 *           e9 <rel32 to addr+size>  back to the first instruction after the range
 *
 * Whether a site may be optimized is decided here (can_optimize(), copy_range()); when and how
 * its bytes change is decided in kernel/kprobes_opt.c.
 */
#include "kernel/kprobes_internal.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/jump_label.h"
#include "kernel/kallsyms.h"
#include "kernel/uaccess.h"
#include "lib/errno.h"
#include "lib/string.h"

extern const u8 optprobe_template_start[], optprobe_template_entry[], optprobe_template_ip[],
	optprobe_template_val[], optprobe_template_call[], optprobe_template_end[];

/* Offsets in the buffer, which holds the template from its start: the site's jmp lands at the
 * entry (the moved-ip exit sits in front of it), the copied range follows the end. */
#define TMPL_ENTRY_IDX (optprobe_template_entry - optprobe_template_start)
#define TMPL_IP_IDX (optprobe_template_ip - optprobe_template_start + 1)   /* after 68 */
#define TMPL_VAL_IDX (optprobe_template_val - optprobe_template_start + 2) /* after 48 bf */
#define TMPL_CALL_IDX (optprobe_template_call - optprobe_template_start)   /* e8 <rel32> */
#define TMPL_END_IDX ((unsigned long)(optprobe_template_end - optprobe_template_start))

/* --- what may be copied ------------------------------------------------------------------------ */

/* Why the instruction at addr may not run from the detour buffer (Linux's can_boost() answers the
 * same question), or NULL. */
static const char *cannot_copy(const struct insn *in, unsigned long addr)
{
	u8 op = in->opcode[0];

	if (search_exception_tables(addr))
		return "an instruction with an exception table entry in the range";
	if (jump_label_lookup(addr))
		return "a jump label site in the range";
	if (in->opcode_len == 2 && op == 0x0f && (in->opcode[1] & 0xf0) == 0x80)
		return "a conditional jump in the range";
	if (in->opcode_len != 1)
		return NULL;
	if ((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3))
		return "a conditional jump in the range";
	switch (op) {
	case 0xe8:
	case 0x9a:
		return "a call in the range (its return address would point into the buffer)";
	case 0xe9:
	case 0xeb:
		return "a relative jump in the range";
	case 0xcc:
	case 0xcd:
	case 0xce:
	case 0xf1:
		return "a software interrupt in the range";
	case 0xf4:
		return "hlt in the range";
	case 0xff:
		if (insn_reg(in) == 2 || insn_reg(in) == 3)
			return "a call in the range (its return address would point into the "
			       "buffer)";
		return NULL;
	}
	return NULL;
}

/* Linux's __insn_is_indirect_jump(): jmp *x or a far jump. One anywhere in the function may lead
 * into the range (a jump table), and we cannot tell where. */
static bool insn_is_indirect_jump(const struct insn *in)
{
	return (in->opcode_len == 1 && in->opcode[0] == 0xff && (insn_reg(in) & 6) == 4) ||
	       (in->opcode_len == 1 && in->opcode[0] == 0xea);
}

/* Linux's insn_jump_into_range(): does the relative jump at `at` land in [start, end)? */
static bool insn_jump_into_range(const struct insn *in, unsigned long at, unsigned long start,
				 unsigned long end)
{
	u8 op = in->opcode[0];
	unsigned long target;

	if (in->opcode_len == 2 && op == 0x0f && (in->opcode[1] & 0xf0) == 0x80)
		goto jump;
	if (in->opcode_len != 1)
		return false;
	if (!((op >= 0x70 && op <= 0x7f) || (op >= 0xe0 && op <= 0xe3) || op == 0xe9 || op == 0xeb))
		return false;
jump:
	target = at + in->length + in->imm;
	return target >= start && target < end;
}

/*
 * Copies the whole instructions from s->addr, at least JMP32_INSN_SIZE bytes, into buf as they
 * would run at dest (rip-relative displacements re-aimed); their total length in *size. 0, or
 * -EINVAL with *why.
 */
static int copy_range(struct kprobe_site *s, unsigned long end, u8 *buf, unsigned long dest,
		      u8 *size, const char **why)
{
	unsigned long addr = (unsigned long)s->addr, pos;
	struct insn in;

	for (pos = addr; pos < addr + JMP32_INSN_SIZE; pos += in.length) {
		u8 *copy = buf + (pos - addr);

		kprobe_read_orig(pos, copy, MIN((unsigned long)MAX_INSN_SIZE, end - pos));
		if (insn_decode(&in, copy, MIN((unsigned long)MAX_INSN_SIZE, end - pos))) {
			*why = pos + JMP32_INSN_SIZE > end
				       ? "the function ends inside the range"
				       : "an instruction this decoder does not know";
			return -EINVAL;
		}
		*why = cannot_copy(&in, pos);
		if (*why)
			return -EINVAL;
		if (in.rip_relative) {
			s64 disp = in.disp + (s64)(pos - (dest + (pos - addr)));
			s32 d32 = (s32)disp;

			if (d32 != disp) {
				*why = "a rip-relative target out of the buffer's reach";
				return -EINVAL;
			}
			memcpy(copy + in.disp_offset, &d32, 4);
		}
	}
	if (pos > end) {
		*why = "the function ends inside the range";
		return -EINVAL;
	}
	*size = pos - addr;
	return 0;
}

/* Linux's can_optimize(): no instruction of the function may jump into the range (addr + 1 to its
 * end: a jump to addr itself meets the jmp, which is right), none may be an indirect jump, and
 * every byte must decode. */
static int can_optimize(unsigned long func, unsigned long end, unsigned long addr, u8 size,
			const char **why)
{
	unsigned long pos;
	struct insn in;
	u8 buf[MAX_INSN_SIZE];

	for (pos = func + MCOUNT_INSN_SIZE; pos < end; pos += in.length) {
		kprobe_read_orig(pos, buf, MIN((unsigned long)MAX_INSN_SIZE, end - pos));
		if (insn_decode(&in, buf, MIN((unsigned long)MAX_INSN_SIZE, end - pos))) {
			*why = "an instruction of the function this decoder does not know";
			return -EINVAL;
		}
		if (buf[0] == INT3_INSN_OPCODE) {
			*why = "an int3 in the function that is not a kprobe's";
			return -EINVAL;
		}
		if (insn_is_indirect_jump(&in)) {
			*why = "an indirect jump in the function (a jump table may lead into the "
			       "range)";
			return -EINVAL;
		}
		if (insn_jump_into_range(&in, pos, addr + 1, addr + size)) {
			*why = "a jump in the function lands inside the range";
			return -EINVAL;
		}
	}
	return 0;
}

/* --- the detour buffer ------------------------------------------------------------------------- */

int arch_prepare_optimized_kprobe(struct kprobe_site *s, const char **why)
{
	unsigned long addr = (unsigned long)s->addr, size, off, func, end;
	u8 buf[OPTINSN_SLOT_SIZE], *slot;
	u64 imm;
	s32 rel, imm32;
	int err;

	if (!kallsyms_lookup(addr, &size, &off)) {
		*why = "not in a function";
		return -EINVAL;
	}
	func = addr - off;
	end = func + size;
	slot = __get_insn_slot(&kprobe_optinsn_slots);
	if (!slot) {
		*why = "no free detour buffer";
		return -ENOMEM;
	}
	memcpy(buf, optprobe_template_start, TMPL_END_IDX);
	/* push sign-extends its imm32: the text is in the top 2 GiB (kernel/mm/mm.h) */
	imm32 = (s32)(addr + INT3_INSN_SIZE);
	memcpy(buf + TMPL_IP_IDX, &imm32, 4);
	imm = (u64)s;
	memcpy(buf + TMPL_VAL_IDX, &imm, 8);
	text_gen_insn(buf + TMPL_CALL_IDX, CALL_INSN_OPCODE, (unsigned long)slot + TMPL_CALL_IDX,
		      (unsigned long)optimized_callback);
	err = copy_range(s, end, buf + TMPL_END_IDX, (unsigned long)slot + TMPL_END_IDX,
			 &s->optinsn.size, why);
	if (!err)
		err = can_optimize(func, end, addr, s->optinsn.size, why);
	if (err) {
		__free_insn_slot(&kprobe_optinsn_slots, slot);
		return err;
	}
	off = TMPL_END_IDX + s->optinsn.size;
	text_gen_insn(buf + off, JMP32_INSN_OPCODE, (unsigned long)slot + off,
		      addr + s->optinsn.size);
	/* Both jumps are rel32: execmem sits within 2 GiB of the text (kernel/mm/execmem.c). */
	rel = (s32)((unsigned long)slot + TMPL_ENTRY_IDX - (addr + JMP32_INSN_SIZE));
	if ((long)slot + TMPL_ENTRY_IDX - (long)(addr + JMP32_INSN_SIZE) != rel) {
		__free_insn_slot(&kprobe_optinsn_slots, slot);
		*why = "the detour buffer is out of a jmp's reach";
		return -EINVAL;
	}
	text_poke_copy(slot, buf, off + JMP32_INSN_SIZE);
	kprobe_read_orig(addr + INT3_INSN_SIZE, s->optinsn.copied_insn, DISP32_SIZE);
	s->optinsn.insn = slot;
	return 0;
}

void arch_remove_optimized_kprobe(struct kprobe_site *s)
{
	if (s->optinsn.insn)
		__free_insn_slot(&kprobe_optinsn_slots, s->optinsn.insn);
	s->optinsn.insn = NULL;
}

/* Linux's arch_check_optimized_kprobe(): another probe inside the range keeps this one an int3
 * (its int3 would sit under our jmp's rel32). */
bool arch_optimized_range_busy(const struct kprobe_site *s)
{
	for (int i = 1; i < s->optinsn.size; i++)
		if (kprobe_site_lookup((u8 *)s->addr + i))
			return true;
	return false;
}

unsigned long arch_optimized_copy(const struct kprobe_site *s)
{
	return (unsigned long)s->optinsn.insn + TMPL_END_IDX;
}

/* The site's two 5-byte forms: int3 over the original first byte and tail, and the jmp. */
void arch_optimized_forms(const struct kprobe_site *s, u8 *int3_form, u8 *jmp_form)
{
	int3_form[0] = INT3_INSN_OPCODE;
	memcpy(int3_form + 1, s->optinsn.copied_insn, DISP32_SIZE);
	text_gen_insn(jmp_form, JMP32_INSN_OPCODE, (unsigned long)s->addr,
		      (unsigned long)s->optinsn.insn + TMPL_ENTRY_IDX);
}
