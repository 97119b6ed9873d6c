/* trace_printk(): a printf from anywhere in the kernel into the trace buffer, as Linux's.
 *
 *   trace_printk("x=%d\n", x)     a bprint record: the format's address and x as binary words
 *   trace_printk("here\n")        a bputs record: the string's address only
 *   trace_printk(fmt_variable, x) a print record: the text formatted now (the format may not last)
 *
 * A constant format's address is kept in the __trace_printk_fmt section, which printk_formats
 * lists, so a reader of the raw buffer (trace-cmd) can print the record later.
 */
#ifndef KERNEL_TRACE_TRACE_PRINTK_H
#define KERNEL_TRACE_TRACE_PRINTK_H

#include "lib/compiler.h"

int __trace_bprintk(unsigned long ip, const char *fmt, ...) __printf(2, 3);
int __trace_bputs(unsigned long ip, const char *str);
int __trace_printk(unsigned long ip, const char *fmt, ...) __printf(2, 3);

/* How many arguments follow the format (up to 8): 0 picks bputs, as Linux's trace_printk does. */
#define __trace_printk_nargs(...) __trace_printk_nargs_(0, ##__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define __trace_printk_nargs_(_0, _1, _2, _3, _4, _5, _6, _7, _8, n, ...) n
/* Never called: lets the compiler check the arguments against a constant format. */
static inline __printf(1, 2) void __trace_printk_check_format(const char *fmt, ...)
{
}

#define trace_printk(fmt, ...)                                                                     \
	do {                                                                                       \
		static const char *__tp_fmt __used __section("__trace_printk_fmt") =               \
			__builtin_constant_p(fmt) ? fmt : NULL;                                    \
		if (0)                                                                             \
			__trace_printk_check_format(fmt, ##__VA_ARGS__);                           \
		if (!__builtin_constant_p(fmt))                                                    \
			__trace_printk(_THIS_IP_, fmt, ##__VA_ARGS__);                             \
		else if (__trace_printk_nargs(__VA_ARGS__) == 0)                                   \
			__trace_bputs(_THIS_IP_, __tp_fmt);                                        \
		else                                                                               \
			__trace_bprintk(_THIS_IP_, __tp_fmt, ##__VA_ARGS__);                       \
	} while (0)

#endif
