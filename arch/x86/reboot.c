/* Switching the (virtual) machine off or resetting it, the ways QEMU's PC understands. */
#include "arch/x86/reboot.h"
#include "arch/x86/cpu.h"

void machine_power_off(void)
{
	local_irq_disable();
	outw(0x604, 0x2000);  /* QEMU's ACPI PM1a control: sleep type S5 + enable */
	outw(0xb004, 0x2000); /* older QEMU and Bochs */
	for (;;)
		halt();
}

void machine_restart(void)
{
	static const struct {
		u16 limit;
		u64 base;
	} __packed no_idt = { 0, 0 };

	local_irq_disable();
	outb(0x64, 0xfe); /* the keyboard controller pulses the reset line */
	/* If that did nothing: an interrupt with no IDT is a triple fault, which resets the CPU. */
	__asm__ volatile("lidt %0; int3" : : "m"(no_idt));
	for (;;)
		halt();
}
