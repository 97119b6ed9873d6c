/* kmain(): the order in which the kernel brings itself up, from the boot stub to the shell prompt. */
#include "kernel/init_process.h"
#include "kernel/fs/mount.h"
#include "arch/x86/apic.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/serial.h"
#include "arch/x86/traps.h"
#include "kernel/fs/fs.h"
#include "kernel/jump_label.h"
#include "kernel/kprobes.h"
#include "kernel/irq_work.h"
#include "kernel/kallsyms.h"
#include "kernel/ptr_key.h"
#include "kernel/livepatch/livepatch.h"
#include "kernel/mm/mm.h"
#include "kernel/multiboot.h"
#include "kernel/selftest.h"
#include "kernel/panic.h"
#include "kernel/printk/printk.h"
#include "kernel/fs/procfs.h"
#include "kernel/fs/devfs.h"
#include "kernel/fs/ramfs.h"
#include "kernel/shell/shell.h"
#include "kernel/time.h"
#include "kernel/sched/sched.h"
#include "kernel/fault_inject.h"
#include "kernel/work/workloads.h"
#include "kernel/smp.h"
#include "arch/x86/acpi.h"
#include "kernel/trace/ftrace.h"
#include "kernel/trace/trace.h"
#include "kernel/trace/trace_events.h"
#include "kernel/trace/trace_dynevent.h"
#include "kernel/trace/trace_kprobe.h"
#include "arch/x86/text_poke.h"
#include "kernel/events/perf_event.h"
#include "kernel/bpf/bpf.h"

static void mm_init(void)
{
	page_alloc_init(boot_info.ram, boot_info.nr_ram, 0, __pa(_end));
	page_alloc_reserve(boot_info.info_pa, boot_info.info_len);
	if (boot_info.initrd_len) /* the initramfs: its files' bytes stay where GRUB put them */
		page_alloc_reserve(boot_info.initrd_start, boot_info.initrd_len);
	paging_init();
	page_refs_init(); /* through the direct map, which paging_init() completed */
	pr_info("Memory: %zuK/%zuK available (%zuK kernel image)\n", pages_free() * 4,
		pages_total() * 4, ((unsigned long)_end - (unsigned long)_text) / 1024);
}

static void interrupts_init(void)
{
	pic_disable();
	lapic_init();
	ioapic_init();
	tsc_calibrate();
	timer_init();
	serial_enable_irq();
	local_irq_enable();
}

/* init= on the command line: that program in place of the kernel shell (kernel/init_process.c). */
static void init_thread(void *arg)
{
	run_init_process(init_from_cmdline());
}

static void shell_thread(void *arg)
{
#ifdef CONFIG_SELFTEST
	selftest_from_cmdline();
#endif
	shell_run();
}

void kmain(u32 magic, unsigned long info_pa)
{
	percpu_setup(0); /* GS first: smp_processor_id() and this_cpu() read through it */
	serial_init();
	multiboot_parse(magic, info_pa);
	test_mode = cmdline_has("test");
	kallsyms_init();
	printk(KERN_NOTICE "%s", linux_banner);
	pr_info("Command line: %s\n", boot_info.cmdline);

	/* Our own GDT before paging_init(): the boot GDT lives in memory that is about to vanish. */
	gdt_init();
	idt_init();
	syscall_init();
	mm_init();
	ptr_key_init(); /* before anything is traced: trace_printk's %p is hashed when recorded */
	populate_rootfs();
	sched_init_cpu(0);
	acpi_init();
	interrupts_init();
	smp_ipi_init();
	irq_work_init();
	text_poke_init();
	/* Before the other CPUs start: boot conversion pokes text with nobody else running it. */
	ftrace_init();
	jump_label_init(); /* the same for static branches: every site in the form its key wants */
	trace_events_init();
	smp_init();

	procfs_init();
	perf_event_init();
	fault_inject_files_init();
	devfs_init();
	devices_init();
	ftrace_files_init();
	jump_label_files_init();
	kprobes_init();
	func_hits_init();
	trace_init();
	trace_events_files_init();
	init_dynamic_event();
	init_synth_events();
	trace_events_eprobe_init();
	init_fprobe_trace();
	init_ftrace_syscalls();
	init_kprobe_trace();
	init_uprobe_trace();
	bpf_init();	   /* bpf(2)'s sysctls */
	trace_boot_init(); /* ftrace=, trace_event=...: from here on the boot can be traced */
	workloads_init();
	klp_init();
	mounts_init();
	shell_cwd = fs_mkdir_p("/sys/kernel/tracing");
	if (!shell_cwd)
		panic("no memory for the shell's directory");
	fs_pin(shell_cwd);
	pr_info("shell: type 'help' for commands\n");
	/* The shell is a task like any other; this boot context becomes CPU 0's idle task. */
	if (!kthread_create(init_from_cmdline() ? init_thread : shell_thread, NULL, 0, "sh"))
		panic("cannot start the shell");
	cpu_idle();
}
