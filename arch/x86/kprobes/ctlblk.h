/* Each CPU's kprobe state (Linux's struct kprobe_ctlblk and current_kprobe), kept inside struct
 * percpu (kernel/percpu.h) so that an optimized probe's detour reaches it through gs, no load. */
#ifndef ARCH_X86_KPROBES_CTLBLK_H
#define ARCH_X86_KPROBES_CTLBLK_H

struct kprobe_site;

struct prev_kprobe {
	struct kprobe_site *site;
	unsigned long status, old_flags;
};

/*
 * While site is NULL, status is KPROBE_HIT_ACTIVE or KPROBE_HIT_SSDONE (a step in place aside):
 * an optimized hit writes only site (arch/x86/kprobes/opt_template.asm), and a probe hit inside
 * its handlers must find a status reenter_kprobe() accepts.
 */
struct kprobe_ctlblk {
	struct kprobe_site *site; /* Linux's current_kprobe: whose handlers or step is running */
	unsigned long status;	  /* enum kprobe_status (kernel/kprobes_internal.h) */
	unsigned long old_flags;  /* TF and IF as the probed code had them */
	struct prev_kprobe prev;  /* the outer hit, while a re-entered one steps */
	struct prev_kprobe stale; /* the state a step in place (step_in_place) set aside */
};

#endif
