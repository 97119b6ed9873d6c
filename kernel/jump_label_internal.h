/* What jump_label.c shares with its files, self-tests and bench: per-site state and encodings. */
#ifndef KERNEL_JUMP_LABEL_INTERNAL_H
#define KERNEL_JUMP_LABEL_INTERNAL_H

#include "kernel/jump_label.h"

/* Beside the site's shape (JUMP_SITE_SHAPE, arch/x86/jump_label.h): */
#define JUMP_SITE_BAD 0x80 /* reported by jump_label_bug: never patched again */

extern u8 *jump_site_info; /* one byte per __jump_table entry, in sorted order: shape | bad */
extern unsigned long jump_label_nr_sites, jump_label_bug_count;
extern u64 jump_label_init_ticks; /* TSC ticks jump_label_init() took */

unsigned long jump_entry_index(const struct jump_entry *e);
/* Which form the key's state wants at e: true = the jmp. */
bool jump_label_type(const struct jump_entry *e);
/* What a site of this shape holds in the form taken or not: "jmp", "nop", "call", "cli", "sti". */
const char *jump_site_form_name(u8 shape, bool taken);
/* 0, or -EINVAL and why: some site (not reported bad) holds other bytes than its key wants. */
int jump_label_verify_all_sites(char *why, size_t size);
/* Test-only: a corrupted site was put right by the test; patch it again from now on. */
void jump_label_selftest_revive(const struct jump_entry *e);

/* The demo key and the function that uses it (/proc/sys/kernel/jump_label_demo flips it). */
DECLARE_STATIC_KEY_FALSE(jump_label_demo_key);
int jump_label_demo(int x);

#endif
