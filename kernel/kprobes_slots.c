/* Slots of executable memory for kprobes' copies of instructions (Linux's kprobe_insn_cache): the
 * 32-byte slots single steps run in, and the larger detour buffers of optimized kprobes.
 *
 *   cache: slot_size, pages[] -> execmem page: | slot 0 | slot 1 | ... |   used: one bit a slot
 *
 * Pages are allocated as they are first needed and kept; a slot is handed out next fit, so one
 * just freed is the last to be used again.
 */
#include "kernel/kprobes_internal.h"
#include "kernel/mm/mm.h"
#include "arch/x86/text_poke.h"

struct kprobe_insn_cache kprobe_insn_slots = { .slot_size = 32 };
struct kprobe_insn_cache kprobe_optinsn_slots = { .slot_size = OPTINSN_SLOT_SIZE };

static unsigned int slots_per_page(const struct kprobe_insn_cache *c)
{
	return PAGE_SIZE / c->slot_size;
}

u8 *__get_insn_slot(struct kprobe_insn_cache *c)
{
	unsigned int per_page = slots_per_page(c), nr = KPROBE_CACHE_PAGES * per_page;
	u8 *ret = NULL;

	spin_lock(&c->lock);
	for (unsigned int n = 0; n < nr && !ret; n++) {
		unsigned int i = (c->next + n) % nr;
		struct kprobe_insn_page *kip = &c->pages[i / per_page];
		unsigned int j = i % per_page;

		if (!kip->page && !(kip->page = execmem_alloc(PAGE_SIZE)))
			continue;
		if (kip->used[j / 64] & (1UL << (j % 64)))
			continue;
		kip->used[j / 64] |= 1UL << (j % 64);
		ret = kip->page + j * c->slot_size;
		c->next = i + 1;
	}
	spin_unlock(&c->lock);
	return ret;
}

void __free_insn_slot(struct kprobe_insn_cache *c, u8 *slot)
{
	text_poke_set(slot, INT3_INSN_OPCODE, c->slot_size);
	spin_lock(&c->lock);
	for (int p = 0; p < KPROBE_CACHE_PAGES; p++) {
		struct kprobe_insn_page *kip = &c->pages[p];

		if (kip->page && slot >= kip->page && slot < kip->page + PAGE_SIZE) {
			unsigned int i = (slot - kip->page) / c->slot_size;

			kip->used[i / 64] &= ~(1UL << (i % 64));
		}
	}
	spin_unlock(&c->lock);
}
