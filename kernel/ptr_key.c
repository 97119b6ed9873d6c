/* The key %p hashes addresses with, new each boot, so a printed id tells nothing about the layout
 * and cannot be matched with another boot's (Linux's ptr_key and ptr_to_id(), lib/vsprintf.c). */
#include "kernel/ptr_key.h"
#include "kernel/sys.h"
#include "lib/printf.h"
#include "lib/siphash.h"

static siphash_key_t ptr_key;

/* Linux keeps the low 32 bits: plenty for an id, and plainly not an address. */
static unsigned long ptr_to_id(unsigned long addr)
{
	return (unsigned long)(u32)siphash_1u64(addr, &ptr_key);
}

void ptr_key_init(void)
{
	get_random_bytes(&ptr_key, sizeof(ptr_key));
	vsprintf_ptr_id_hook = ptr_to_id;
}
