/* Shell commands about the machine: help, dmesg, uptime, meminfo, cpus, poweroff, reboot, clear. */
#include "kernel/shell/shell.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/reboot.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/fs/procfs.h"
#include "kernel/smp.h"
#include "kernel/time.h"
#include "lib/sort.h"
#include "lib/string.h"

static int cmd_name_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct shell_cmd *const *)a)->name,
		      (*(const struct shell_cmd *const *)b)->name);
}

static int cmd_help(int argc, char **argv)
{
	const struct shell_cmd *c, *list[64];
	size_t n = 0;

	/* The linker section holds commands in link order; a reader wants them alphabetical. */
	for_each_shell_cmd(c)
		if ((!c->test_only || test_mode) && n < ARRAY_SIZE(list))
			list[n++] = c;
	sort(list, n, sizeof(list[0]), cmd_name_cmp, NULL);
	for (size_t i = 0; i < n; i++)
		cprintf("  %-10s %s\n", list[i]->name, list[i]->help);
	return 0;
}
SHELL_CMD(help, cmd_help, "list the commands");

static void print_line(const char *line, size_t len, void *arg)
{
	(void)arg;
	console_write(line, len);
}

static int cmd_dmesg(int argc, char **argv)
{
	log_buf_for_each(print_line, NULL);
	return 0;
}
SHELL_CMD(dmesg, cmd_dmesg, "print the kernel log");

static int cmd_uptime(int argc, char **argv)
{
	u64 ns = ktime_get_ns();
	cprintf(" up %llu.%06llu seconds, %d CPU%s, %llu timer ticks\n", ns / NSEC_PER_SEC,
		(ns / 1000) % 1000000, num_online_cpus(), num_online_cpus() > 1 ? "s" : "",
		(unsigned long long)jiffies);
	return 0;
}
SHELL_CMD(uptime, cmd_uptime, "time since boot");

static int cmd_meminfo(int argc, char **argv)
{
	char buf[256];
	struct seq_file m = { .buf = buf, .size = sizeof(buf), .flush = seq_console_flush };
	meminfo_show(&m, NULL);
	seq_flush(&m);
	return 0;
}
SHELL_CMD(meminfo, cmd_meminfo, "memory use (as /proc/meminfo)");

static int cmd_cpus(int argc, char **argv)
{
	int cpu;

	cprintf("CPU  APIC  STATE    TICKS\n");
	for_each_online_cpu(cpu)
		cprintf("%3d  %4d  %-7s  %llu\n", cpu, percpu_area[cpu].apic_id, "online",
			percpu_area[cpu].ticks);
	return 0;
}
SHELL_CMD(cpus, cmd_cpus, "list CPUs: APIC id, state, timer ticks");

static int cmd_clear(int argc, char **argv)
{
	console_puts("\033[H\033[2J");
	return 0;
}
SHELL_CMD(clear, cmd_clear, "clear the terminal");

static int cmd_poweroff(int argc, char **argv)
{
	cprintf("Power down.\n");
	machine_power_off();
}
SHELL_CMD(poweroff, cmd_poweroff, "switch the machine off");

static int cmd_reboot(int argc, char **argv)
{
	cprintf("Restarting system.\n");
	machine_restart();
}
SHELL_CMD(reboot, cmd_reboot, "restart the machine");
