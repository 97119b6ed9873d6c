/* Self-tests of the symbol table: sorted, and name <-> address round trips. */
#include "kernel/kallsyms.h"
#include "kernel/mm/mm.h"
#include "kernel/selftest.h"
#include "lib/printf.h"
#include "lib/string.h"

void kmain(u32 magic, unsigned long info_pa);

SELFTEST(kallsyms_sorted)
{
	unsigned long prev = 0, addr;

	KT_ASSERT(t, kallsyms_count() > 100);
	for (unsigned long i = 0; i < kallsyms_count(); i++) {
		kallsyms_name_at(i, &addr);
		if (addr <= prev && i) {
			ktest_fail(t, __FILE__, __LINE__, "symbol %lu out of order", i);
			return;
		}
		prev = addr;
	}
}

SELFTEST(kallsyms_round_trip)
{
	unsigned long checked = 0, addr, size, off;

	/* Every 7th function: its name finds its address, and an address inside finds it back. */
	for (unsigned long i = 0; i < kallsyms_count(); i += 7) {
		const char *name = kallsyms_name_at(i, &addr);
		if (!is_kernel_text(addr))
			continue;
		/* Two static functions may share a name: the lookup finds one of that name. */
		KT_EXPECT_STREQ(t, kallsyms_lookup(kallsyms_lookup_name(name), NULL, NULL), name);
		const char *back = kallsyms_lookup(addr, &size, &off);
		KT_ASSERT(t, back != NULL);
		KT_EXPECT_STREQ(t, back, name);
		KT_EXPECT_EQ(t, off, 0);
		checked++;
	}
	KT_EXPECT(t, checked > 10);
}

SELFTEST(kallsyms_known_function)
{
	char buf[64];
	unsigned long size;

	KT_EXPECT_EQ(t, kallsyms_lookup_name("kmain"), (unsigned long)kmain);
	KT_ASSERT(t, kallsyms_lookup((unsigned long)kmain + 4, &size, NULL) != NULL);
	snprintf(buf, sizeof(buf), "%pS", (void *)((unsigned long)kmain + 4));
	KT_EXPECT(t, !strncmp(buf, "kmain+0x4/0x", 12));
	snprintf(buf, sizeof(buf), "%ps", (void *)kmain);
	KT_EXPECT_STREQ(t, buf, "kmain");
}

SELFTEST(kallsyms_unknown)
{
	KT_EXPECT_EQ(t, kallsyms_lookup_name("no_such_function_anywhere"), 0);
	KT_EXPECT(t, kallsyms_lookup(0x1000, NULL, NULL) == NULL);
}
