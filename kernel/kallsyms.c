/* Looks up the symbol table tools/kallsyms generated: binary search by address, scan by name. */
#include "kernel/kallsyms.h"
#include "arch/x86/ftrace.h"
#include "lib/printf.h"
#include "lib/string.h"

extern const unsigned long kallsyms_num;
extern const unsigned long kallsyms_addresses[];
extern const unsigned int kallsyms_sizes[];
extern const unsigned int kallsyms_name_offsets[];
extern const char kallsyms_names[];
extern const char kallsyms_types[];

/* Index of the last symbol starting at or before addr, or -1. */
static long find_index(unsigned long addr)
{
	long lo = 0, hi = (long)kallsyms_num - 1, found = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;
		if (kallsyms_addresses[mid] <= addr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

const char *kallsyms_lookup(unsigned long addr, unsigned long *size, unsigned long *offset)
{
	long i = find_index(addr);

	/* Code made at run time has no entry in the table: ftrace names its trampolines itself. */
	if (i < 0 || addr - kallsyms_addresses[i] >= kallsyms_sizes[i])
		return ftrace_trampoline_lookup(addr, size, offset);
	if (size)
		*size = kallsyms_sizes[i];
	if (offset)
		*offset = addr - kallsyms_addresses[i];
	return kallsyms_names + kallsyms_name_offsets[i];
}

unsigned long kallsyms_lookup_name(const char *name)
{
	for (unsigned long i = 0; i < kallsyms_num; i++)
		if (!strcmp(kallsyms_names + kallsyms_name_offsets[i], name))
			return kallsyms_addresses[i];
	return 0;
}

unsigned int kallsyms_count_name(const char *name)
{
	unsigned int n = 0;

	for (unsigned long i = 0; i < kallsyms_num; i++)
		n += !strcmp(kallsyms_names + kallsyms_name_offsets[i], name);
	return n;
}

int sprint_symbol(char *buf, size_t size, unsigned long addr)
{
	unsigned long sz, off;
	const char *name = kallsyms_lookup(addr, &sz, &off);

	if (!name)
		return scnprintf(buf, size, "0x%016lx", addr);
	return scnprintf(buf, size, "%s+0x%lx/0x%lx", name, off, sz);
}

int sprint_backtrace(char *buf, size_t size, unsigned long ret)
{
	unsigned long sz, off;
	/* After a call to a noreturn function, ret may already be past the caller's end. */
	const char *name = kallsyms_lookup(ret - 1, &sz, &off);

	if (!name)
		return scnprintf(buf, size, "0x%016lx", ret);
	return scnprintf(buf, size, "%s+0x%lx/0x%lx", name, off + 1, sz);
}

unsigned long kallsyms_count(void)
{
	return kallsyms_num;
}

const char *kallsyms_name_at(unsigned long i, unsigned long *addr)
{
	if (i >= kallsyms_num)
		return NULL;
	if (addr)
		*addr = kallsyms_addresses[i];
	return kallsyms_names + kallsyms_name_offsets[i];
}

char kallsyms_type_at(unsigned long i)
{
	return i < kallsyms_num ? kallsyms_types[i] : '?';
}

/* vsnprintf's %pS and %ps come here. */
static int symbol_hook(char *buf, size_t size, unsigned long addr, bool with_offset)
{
	if (with_offset)
		return sprint_symbol(buf, size, addr);
	const char *name = kallsyms_lookup(addr, NULL, NULL);
	return name ? scnprintf(buf, size, "%s", name) : 0;
}

void kallsyms_init(void)
{
	vsprintf_symbol_hook = symbol_hook;
}
