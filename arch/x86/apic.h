/* Local APIC (per-CPU interrupts, timer, EOI) and IOAPIC (routing device IRQs to vectors). */
#ifndef ARCH_X86_APIC_H
#define ARCH_X86_APIC_H

#include "lib/types.h"

void lapic_init(void);
void lapic_eoi(void);
u32 lapic_id(void);
/* Starts the periodic timer at hz interrupts a second, calibrated against the PIT. */
void lapic_timer_init(unsigned int hz);
extern u32 lapic_timer_ticks_per_sec;
/* Nanoseconds since this CPU's periodic timer last fired (less than a tick). */
u64 lapic_timer_elapsed_ns(void);

void ioapic_init(void);
/* Sends ISA interrupt `irq` (edge, active high) to `vector` on the boot CPU. */
void ioapic_route(int irq, int vector);

/* The legacy 8259 PICs are remapped away from the exception vectors and masked. */
void pic_disable(void);

/* Interrupt command register values (low word). */
#define ICR_FIXED 0x00000
#define ICR_NMI 0x00400
#define ICR_INIT 0x00500
#define ICR_STARTUP 0x00600
#define ICR_LEVEL_ASSERT 0x04000
/* Sends an IPI: low = delivery mode | vector (| level bits for INIT). */
void lapic_send_ipi(u32 apic_id, u32 low);
/* A fixed IPI to this CPU alone, by the ICR's "self" shorthand: one write, safe from NMI. */
void lapic_send_ipi_self(u32 vector);

/* For calibration only. */
void lapic_timer_start_oneshot_max(void);
u32 lapic_timer_current(void);

#endif
