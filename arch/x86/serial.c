/* 16550 UART driver: COM1 (0x3f8), the console the shell talks through; COM2 (0x2f8), output only,
 * the binary channel to the host (/dev/ttyS1). */
#include "arch/x86/serial.h"
#include "kernel/panic.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/traps.h"
#include "kernel/irq/irq.h"
#include "kernel/printk/printk.h"

#define COM1 0x3f8
#define COM1_IRQ 4
#define COM2 0x2f8
#define RBR 0 /* receive buffer (read) / transmit holding (write) */
#define IER 1
#define FCR 2
#define LCR 3
#define MCR 4
#define LSR 5
#define SCR 7 /* scratch: holds what is written, if a UART is there at all */
#define LSR_DATA_READY 0x01
#define LSR_BREAK 0x10 /* the line was held low for a whole character: a BREAK */
#define LSR_THR_EMPTY 0x20

/*
 * Typed bytes wait here between the interrupt and the shell. One producer at a time (serial_rx())
 * and a single consumer (the shell), so head and tail need no lock, only ordered accesses.
 */
#define RX_RING 4096 /* Linux's tty keeps as much typed-ahead input (N_TTY_BUF_SIZE) */
static u8 rx_ring[RX_RING];
static volatile u32 rx_head, rx_tail;
unsigned long serial_rx_dropped;
bool (*serial_rx_hook)(u8 c);

void serial_init(void)
{
	outb(COM1 + IER, 0x00);
	outb(COM1 + LCR, 0x80); /* DLAB: next two writes set the divisor */
	outb(COM1 + 0, 1);	/* 115200 baud */
	outb(COM1 + 1, 0);
	outb(COM1 + LCR, 0x03); /* 8 bits, no parity, one stop bit */
	outb(COM1 + FCR, 0xc7); /* FIFO on, cleared, interrupt at 14 bytes */
	outb(COM1 + MCR, 0x0b); /* DTR, RTS, OUT2: OUT2 gates the IRQ line on PC hardware */
}

/* A BREAK seen by an LSR read that did not take the byte (reading LSR clears BI). */
static u8 lsr_break_seen;

/*
 * The ring has one producer at a time: the IRQ may come on one CPU while another polls (with its
 * own interrupts off, which holds off only its own CPU's IRQ), and two drainers would interleave
 * bytes. A CPU that finds the flag taken leaves the FIFO to the one draining it, which looks at
 * the FIFO again after letting go, so a byte that came in between is never left behind.
 */
static u8 rx_busy;
static void serial_rx_drain(void);

static void serial_rx(void)
{
	do {
		if (__atomic_exchange_n(&rx_busy, 1, __ATOMIC_ACQUIRE))
			return;
		serial_rx_drain();
		__atomic_store_n(&rx_busy, 0, __ATOMIC_RELEASE);
	} while (inb(COM1 + LSR) & LSR_DATA_READY);
}

static void serial_rx_drain(void)
{
	static bool sysrq_armed;
	u8 lsr;

	while ((lsr = inb(COM1 + LSR) | lsr_break_seen) & LSR_DATA_READY) {
		u8 c = inb(COM1 + RBR);
		lsr_break_seen = 0;
		u32 next = (rx_head + 1) % RX_RING;
		/* A BREAK arrives as a NUL with BI set; the key after it is a SysRq (Linux's
		 * uart_handle_break() and uart_handle_sysrq_char()): not input. */
		if (lsr & LSR_BREAK) {
			sysrq_armed = true;
			continue;
		}
		if (sysrq_armed) {
			sysrq_armed = false;
			handle_sysrq(c);
			continue;
		}
		if (serial_rx_hook && serial_rx_hook(c))
			continue; /* the line discipline took it (Ctrl-C for a program's group) */
		if (next != rx_tail) {
			rx_ring[rx_head] = c;
			__atomic_store_n(&rx_head, next, __ATOMIC_RELEASE);
		} else { /* full: drop the new byte rather than overwrite unread input, and count it */
			__atomic_add_fetch(&serial_rx_dropped, 1, __ATOMIC_RELAXED);
		}
	}
}

/* IRQ 4: the UART has received bytes. Unhandled if there were none (the FIFO was already read). */
static irqreturn_t serial_irq(int irq, void *dev_id)
{
	u8 lsr = inb(COM1 + LSR);
	bool had_data = lsr & LSR_DATA_READY;

	lsr_break_seen |= lsr & LSR_BREAK;

	serial_rx();
	console_rx_notify();
	return had_data ? IRQ_HANDLED : IRQ_NONE;
}

void serial_enable_irq(void)
{
	request_irq(COM1_IRQ, SERIAL_VECTOR, serial_irq, "ttyS0", NULL); /* Linux's name for COM1 */
	ioapic_route(COM1_IRQ, SERIAL_VECTOR);
	outb(COM1 + IER, 0x01); /* interrupt when data is received */
	serial_rx();		/* anything typed during boot */
}

void serial_putc(char c)
{
	while (!(inb(COM1 + LSR) & LSR_THR_EMPTY))
		cpu_relax();
	outb(COM1 + RBR, c);
}

int serial_getc(void)
{
	int c;

	if (rx_tail == __atomic_load_n(&rx_head, __ATOMIC_ACQUIRE)) {
		/* Before the IRQ is routed, poll; interrupts off keeps us the only producer meanwhile. */
		unsigned long flags = local_irq_save();
		serial_rx();
		local_irq_restore(flags);
		if (rx_tail == __atomic_load_n(&rx_head, __ATOMIC_ACQUIRE))
			return -1;
	}
	c = rx_ring[rx_tail];
	__atomic_store_n(&rx_tail, (rx_tail + 1) % RX_RING, __ATOMIC_RELEASE);
	return c;
}

bool serial_rx_pending(void)
{
	serial_poll();
	return rx_tail != __atomic_load_n(&rx_head, __ATOMIC_ACQUIRE);
}

void serial_poll(void)
{
	/* Interrupts off: this CPU's IRQ handler cannot come in while we hold rx_busy. */
	unsigned long flags = local_irq_save();

	serial_rx();
	local_irq_restore(flags);
}

/*
 * Is byte c waiting in the ring? If so, drop everything up to and including it (the consumer's
 * side: only it moves rx_tail) and say so; other bytes stay for the next reader. What a long
 * command polls for Ctrl-C, so that type-ahead survives its output.
 */
bool serial_take_through(int c)
{
	u32 head = __atomic_load_n(&rx_head, __ATOMIC_ACQUIRE);

	for (u32 i = rx_tail; i != head; i = (i + 1) % RX_RING)
		if (rx_ring[i] == c) {
			__atomic_store_n(&rx_tail, (i + 1) % RX_RING, __ATOMIC_RELEASE);
			return true;
		}
	return false;
}

/* The transmit FIFO's depth: once THR reads empty, this many bytes may go without asking again. */
#define TX_FIFO 16
static bool com2_present;

/*
 * COM2 is only there if QEMU was given a second -serial. An ISA port with nothing behind it
 * reads 0xff, so a scratch register that keeps two different values proves a UART. No IRQ:
 * output is polled, and nothing is ever read.
 */
void serial2_init(void)
{
	outb(COM2 + SCR, 0x5a);
	if (inb(COM2 + SCR) != 0x5a)
		return;
	outb(COM2 + SCR, 0xa5);
	if (inb(COM2 + SCR) != 0xa5)
		return;
	outb(COM2 + IER, 0x00);
	outb(COM2 + LCR, 0x80);
	outb(COM2 + 0, 1);
	outb(COM2 + 1, 0);
	outb(COM2 + LCR, 0x03);
	outb(COM2 + FCR, 0x07); /* FIFO on and cleared */
	outb(COM2 + MCR, 0x03); /* DTR, RTS; OUT2 off: no interrupt */
	com2_present = true;
}

bool serial2_present(void)
{
	return com2_present;
}

/* Every byte as it is: an empty THR means an empty FIFO, so fill it whole before looking again. */
void serial2_write(const void *buf, size_t len)
{
	const u8 *p = buf;

	while (len) {
		size_t n = MIN(len, (size_t)TX_FIFO);
		while (!(inb(COM2 + LSR) & LSR_THR_EMPTY))
			cpu_relax();
		for (size_t i = 0; i < n; i++)
			outb(COM2 + RBR, p[i]);
		p += n;
		len -= n;
	}
}
