/* Formatted output into buffers: C99 vsnprintf() plus Linux's %pS/%ps symbol pointers. */
#ifndef LIB_PRINTF_H
#define LIB_PRINTF_H

#include "lib/types.h"
#include "lib/compiler.h"

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) __printf(3, 0);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int vscnprintf(char *buf, size_t size, const char *fmt, va_list ap) __printf(3, 0);
int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
/* trace_printk()'s two halves (lib/bprintf.c, Linux's names and layout): the arguments of fmt
 * into bin_buf (size bytes; the u32 words needed returned, even if they did not fit), and later
 * the text they make into buf (vsnprintf's return). */
int vbin_printf(u32 *bin_buf, size_t size, const char *fmt, va_list args);
int bstr_printf(char *buf, size_t size, const char *fmt, const u32 *bin_buf);

/*
 * How %pS ("name+0x1a/0x60") and %ps ("name") find names: the kernel points
 * this at its kallsyms lookup once the symbol table is ready. The hook writes
 * NUL-terminated text into buf and returns its length, or <= 0 if addr is
 * not in any symbol; then, as while the hook is NULL, the raw address prints.
 */
extern int (*vsprintf_symbol_hook)(char *buf, size_t size, unsigned long addr, bool with_offset);

/*
 * How a plain %p hides the address, as Linux's does: once the kernel sets this (kernel/ptr_key.c)
 * %p prints the hook's id of the address, 16 hex digits without 0x (NULL and error values as they
 * are); %px prints the address. Unset (the host's tests, the first steps of the boot), %p is %px.
 */
extern unsigned long (*vsprintf_ptr_id_hook)(unsigned long addr);

#endif
