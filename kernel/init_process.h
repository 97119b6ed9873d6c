/* The first user process named by init= (kernel/init_process.c). */
#ifndef KERNEL_INIT_PROCESS_H
#define KERNEL_INIT_PROCESS_H

/* The path after init= on the command line, or NULL. */
const char *init_from_cmdline(void);
/* Runs it in its own session on the console and waits; its end panics, as Linux's does. */
void __attribute__((noreturn)) run_init_process(const char *path);

#endif
