/* Kernel symbol table: address <-> function name, generated at link time by tools/kallsyms. */
#ifndef KERNEL_KALLSYMS_H
#define KERNEL_KALLSYMS_H

#include "lib/types.h"

#define KSYM_NAME_LEN 128

/* Name of the function containing addr, with its size and addr's offset in it; NULL if none. */
const char *kallsyms_lookup(unsigned long addr, unsigned long *size, unsigned long *offset);
/* Address of the named function, 0 if there is none. */
unsigned long kallsyms_lookup_name(const char *name);
/* How many symbols are called name: static functions of two files may share one. */
unsigned int kallsyms_count_name(const char *name);
/* "name+0xoff/0xsize" (or "0x<hex>" for an unknown address); returns the length. */
int sprint_symbol(char *buf, size_t size, unsigned long addr);
/* The same for a return address: names the function that made the call. */
int sprint_backtrace(char *buf, size_t size, unsigned long ret);
/* Number of symbols and the i-th one, in address order (for completion and self-tests). */
unsigned long kallsyms_count(void);
const char *kallsyms_name_at(unsigned long i, unsigned long *addr);
/* nm's letter for the i-th symbol: T/t text, D/d data, B/b bss, W/w weak (upper case: global). */
char kallsyms_type_at(unsigned long i);
void kallsyms_init(void);

#endif
