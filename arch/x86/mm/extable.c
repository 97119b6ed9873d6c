/* The exception table: which kernel instructions may fault on a user address, and where they resume. */
#include "kernel/uaccess.h"

extern const struct exception_table_entry __start___ex_table[], __stop___ex_table[];

static const struct exception_table_entry *search(unsigned long ip)
{
	/* A handful of entries (arch/x86/lib/copy_user.asm): a scan is as fast as a search. */
	for (const struct exception_table_entry *e = __start___ex_table; e < __stop___ex_table; e++)
		if (e->insn == ip)
			return e;
	return NULL;
}

bool search_exception_tables(unsigned long ip)
{
	return search(ip) != NULL;
}

bool fixup_exception(struct pt_regs *regs)
{
	const struct exception_table_entry *e = search(regs->ip);

	if (!e)
		return false;
	regs->ip = e->fixup;
	return true;
}
