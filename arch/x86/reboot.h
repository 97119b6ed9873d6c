/* Power off and reset. */
#ifndef ARCH_X86_REBOOT_H
#define ARCH_X86_REBOOT_H

#include "lib/compiler.h"

void machine_power_off(void) __noreturn;
void machine_restart(void) __noreturn;

#endif
