/* Self-tests of the page tables: W^X for each part of the image, and no identity map left. */
#include "arch/x86/paging.h"
#include "kernel/mm/mm.h"
#include "kernel/selftest.h"

static u64 flags_of(unsigned long va)
{
	int level;
	u64 *pte = lookup_pte(va, &level);
	return pte ? *pte : 0;
}

SELFTEST(wx_text_read_only_executable)
{
	u64 f = flags_of((unsigned long)_text);

	KT_EXPECT(t, f & PTE_P);
	KT_EXPECT(t, !(f & PTE_W));
	KT_EXPECT(t, !(f & PTE_NX));
}

SELFTEST(wx_rodata_read_only_nx)
{
	u64 f = flags_of((unsigned long)_rodata);

	KT_EXPECT(t, (f & PTE_P) && !(f & PTE_W) && (f & PTE_NX));
}

SELFTEST(wx_data_writable_nx)
{
	static int some_data;
	u64 f = flags_of((unsigned long)&some_data);

	KT_EXPECT(t, (f & PTE_P) && (f & PTE_W) && (f & PTE_NX));
}

SELFTEST(wx_direct_map_text_alias_read_only)
{
	/* The same frames through the direct map: readable, not writable, not executable. */
	unsigned long alias = (unsigned long)__va(__pa(_text));
	u64 f = flags_of(alias);

	KT_EXPECT(t, (f & PTE_P) && !(f & PTE_W) && (f & PTE_NX));
	KT_EXPECT_EQ(t, *(u8 *)alias, *(u8 *)_text);
}

SELFTEST(wx_no_identity_map)
{
	int level;

	KT_EXPECT(t, lookup_pte(0x200000, &level) == NULL);
	KT_EXPECT(t, lookup_pte(0, &level) == NULL);
}
