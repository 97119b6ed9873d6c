/* Static keys (jump labels): a branch that costs one NOP while off, switched by patching code.
 *
 *   DEFINE_STATIC_KEY_FALSE(k);            if (static_branch_unlikely(&k)) { rare(); }
 *
 *   site, key off:   nopl 0x0(%rax,%rax,1)   (or the 2-byte `xchg %ax,%ax`)   -> falls through
 *   site, key on:    jmp  rare_block                                          -> takes the branch
 *
 * Each site is recorded by the compiler-emitted `asm goto` in the __jump_table section as a
 * struct jump_entry; at boot jump_label_init() sorts the table, checks every site's bytes and
 * writes the NOP (or jmp) the key's initial state wants, as ftrace_init() does for __fentry__.
 */
#ifndef KERNEL_JUMP_LABEL_H
#define KERNEL_JUMP_LABEL_H

#include "lib/types.h"
#include "lib/compiler.h"

/*
 * One use site (Linux's layout): code and target are offsets from the entry's own fields, so the
 * table needs no relocations; key holds the struct static_key's address, also relative, with two
 * flags in its low bits.
 */
struct jump_entry {
	s32 code;   /* the 2- or 5-byte instruction */
	s32 target; /* where the jmp goes when the branch is taken */
	long key;   /* &static_key - &this->key, | JUMP_TYPE_* bits */
};

#define JUMP_TYPE_FALSE 0UL  /* static_branch_unlikely: the branch is the unusual case */
#define JUMP_TYPE_TRUE 1UL   /* static_branch_likely: the jmp skips the usual case */
#define JUMP_TYPE_LINKED 2UL /* (Linux: key->entries points to a module list; unused here) */
#define JUMP_TYPE_MASK 3UL

struct static_key {
	int enabled;		    /* reference count; > 0 means on */
	struct jump_entry *entries; /* this key's sites: a run of the sorted table (boot sets it) */
};

struct static_key_true {
	struct static_key key;
};
struct static_key_false {
	struct static_key key;
};

/* /proc/jump_labels names a key by its symbol (kallsyms), so a key needs no name of its own. */
#define STATIC_KEY_TRUE_INIT                                                                       \
	{                                                                                          \
		.key = {.enabled = 1 }                                                             \
	}
#define STATIC_KEY_FALSE_INIT                                                                      \
	{                                                                                          \
		.key = {.enabled = 0 }                                                             \
	}
#define DEFINE_STATIC_KEY_TRUE(name) struct static_key_true name = STATIC_KEY_TRUE_INIT
#define DEFINE_STATIC_KEY_FALSE(name) struct static_key_false name = STATIC_KEY_FALSE_INIT
#define DECLARE_STATIC_KEY_TRUE(name) extern struct static_key_true name
#define DECLARE_STATIC_KEY_FALSE(name) extern struct static_key_false name

/* The asm goto that plants a site (arch/x86/jump_label.h). */
#include "arch/x86/jump_label.h"

/*
 * Which form a site holds follows from two facts: is the key on, and does the entry's branch bit
 * say the jmp is the "taken" form of this use (jump_label_type(): on ^ branch, 1 = jmp). A
 * static_key_true starts on, so its `likely` uses start as NOPs; __static_key_type() tells the two
 * kinds of key apart at compile time, as Linux's static_branch_likely/unlikely do.
 */
#define __static_key_type(x) __builtin_types_compatible_p(__typeof__(*(x)), struct static_key_true)

#define static_branch_likely(x)                                                                    \
	({                                                                                         \
		bool __b;                                                                          \
		if (__static_key_type(x))                                                          \
			__b = !arch_static_branch(&(x)->key, true);                                \
		else                                                                               \
			__b = !arch_static_branch_jump(&(x)->key, true);                           \
		likely(__b);                                                                       \
	})
#define static_branch_unlikely(x)                                                                  \
	({                                                                                         \
		bool __b;                                                                          \
		if (__static_key_type(x))                                                          \
			__b = arch_static_branch_jump(&(x)->key, false);                           \
		else                                                                               \
			__b = arch_static_branch(&(x)->key, false);                                \
		unlikely(__b);                                                                     \
	})

static inline bool static_key_enabled(const struct static_key *key)
{
	return READ_ONCE(key->enabled) > 0;
}

/* Reference-counted switching: the first inc patches every site to the branch-taken form, the
 * last dec patches them back. May sleep (patching syncs every CPU); never from interrupts. */
int static_key_slow_inc(struct static_key *key);
int static_key_slow_dec(struct static_key *key);
/* Absolute switching (count 0 or 1). */
int static_key_enable(struct static_key *key);
int static_key_disable(struct static_key *key);
#define static_branch_inc(x) static_key_slow_inc(&(x)->key)
#define static_branch_dec(x) static_key_slow_dec(&(x)->key)
#define static_branch_enable(x) static_key_enable(&(x)->key)
#define static_branch_disable(x) static_key_disable(&(x)->key)

/* Sorts __jump_table, checks every site and writes its initial form (boot, one CPU). */
void jump_label_init(void);
/* /proc/jump_labels. */
void jump_label_files_init(void);

/* Sites and keys, for self-tests and `dis`. */
extern struct jump_entry __start___jump_table[], __stop___jump_table[];
static inline unsigned long jump_entry_code(const struct jump_entry *e)
{
	return (unsigned long)&e->code + e->code;
}
static inline unsigned long jump_entry_target(const struct jump_entry *e)
{
	return (unsigned long)&e->target + e->target;
}
static inline struct static_key *jump_entry_key(const struct jump_entry *e)
{
	return (struct static_key *)((unsigned long)&e->key + (e->key & ~JUMP_TYPE_MASK));
}
static inline bool jump_entry_is_branch(const struct jump_entry *e)
{
	return e->key & JUMP_TYPE_TRUE;
}
/* The jump_entry whose code is at addr, or NULL (binary search of the sorted table). */
const struct jump_entry *jump_label_lookup(unsigned long addr);

#endif
