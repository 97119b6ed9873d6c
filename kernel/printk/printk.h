/* Kernel log (printk, levels, timestamps, the dmesg buffer) and plain console output (cprintf). */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include "lib/types.h"
#include "lib/compiler.h"

/* A level is the first two bytes of the format, as in Linux: printk(KERN_ERR "...") */
#define KERN_SOH "\001"
#define KERN_EMERG KERN_SOH "0"
#define KERN_ALERT KERN_SOH "1"
#define KERN_CRIT KERN_SOH "2"
#define KERN_ERR KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE KERN_SOH "5"
#define KERN_INFO KERN_SOH "6"
#define KERN_DEBUG KERN_SOH "7"
#define KERN_CONT KERN_SOH "c"

#define pr_emerg(fmt, ...) printk(KERN_EMERG fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...) printk(KERN_ERR fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...) printk(KERN_WARNING fmt, ##__VA_ARGS__)
#define pr_notice(fmt, ...) printk(KERN_NOTICE fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) printk(KERN_INFO fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) printk(KERN_DEBUG fmt, ##__VA_ARGS__)
#define pr_cont(fmt, ...) printk(KERN_CONT fmt, ##__VA_ARGS__)

/* The four numbers of /proc/sys/kernel/printk, Linux's defaults. */
extern int console_loglevel;
extern int default_message_loglevel;
extern int minimum_console_loglevel;
extern int default_console_loglevel;

/* Formats a log record, stores it in the log buffer, prints it if its level is below console_loglevel. */
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);

/* Walks the log buffer's records oldest first; used by dmesg. */
void log_buf_for_each(void (*fn)(const char *line, size_t len, void *arg), void *arg);

/* Console output with no timestamp and no log record: what shell commands print. */
int cprintf(const char *fmt, ...) __printf(1, 2);
void console_write(const char *s, size_t len);
void console_puts(const char *s);

/* Console input: next byte typed, waiting (interrupts on) until one arrives; -1 if the calling
 * program has a fatal signal pending instead. */
int console_getc(void);
/* Called by the serial driver when bytes arrived: wakes the reader. */
void console_rx_notify(void);
/* Next byte typed or -1 at once; the shell uses it to notice Ctrl-C during long output. */
int console_trygetc(void);

/* After a panic, printing must not wait for a lock a dead CPU holds. */
void console_force_unlock(void);

#endif
