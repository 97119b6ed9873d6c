/* The 16550 UARTs: COM1 polled output, interrupt-driven input into a ring; COM2 polled output. */
#ifndef ARCH_X86_SERIAL_H
#define ARCH_X86_SERIAL_H

#include "lib/types.h"

void serial_init(void);
/* Routes the UART's receive interrupt through the IOAPIC; needs interrupts set up. */
void serial_enable_irq(void);
void serial_putc(char c);
/* Next received byte, or -1 if the ring is empty. */
int serial_getc(void);
/* COM2 (/dev/ttyS1): found only if QEMU has a second -serial; then every byte is sent as is. */
void serial2_init(void);
bool serial2_present(void);
void serial2_write(const void *buf, size_t len);

#endif
