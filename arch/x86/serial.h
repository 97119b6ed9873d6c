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
/* Moves what the UART holds into the ring now (for code that runs with interrupts off). */
void serial_poll(void);
/* A received byte waits to be read. */
bool serial_rx_pending(void);
/* If byte c was received, consume the input up to and including it and return true; else leave
 * the input alone. */
bool serial_take_through(int c);
/* Bytes that arrived while the receive ring was full, since boot. */
extern unsigned long serial_rx_dropped;
/* Asked first for each byte received, interrupts off: true if it consumed the byte. */
extern bool (*serial_rx_hook)(u8 c);
/* COM2 (/dev/ttyS1): found only if QEMU has a second -serial; then every byte is sent as is. */
void serial2_init(void);
bool serial2_present(void);
void serial2_write(const void *buf, size_t len);

#endif
