/* Tracked numbers: a value whose bits are known (value) or unknown (mask) (Linux's tnum.h). */
#ifndef KERNEL_BPF_TNUM_H
#define KERNEL_BPF_TNUM_H

#include "lib/types.h"

/* Bit i is unknown when mask bit i is 1; known and equal to value's bit i otherwise. value &
 * mask is always 0. */
struct tnum {
	u64 value, mask;
};

static inline struct tnum tnum_const(u64 v)
{
	return (struct tnum){ v, 0 };
}
static inline bool tnum_is_const(struct tnum a)
{
	return !a.mask;
}
static inline bool tnum_is_unknown(struct tnum a)
{
	return !~a.mask;
}
#define tnum_unknown ((struct tnum){ 0, ~0ULL })

struct tnum tnum_range(u64 min, u64 max);
struct tnum tnum_add(struct tnum a, struct tnum b);
struct tnum tnum_sub(struct tnum a, struct tnum b);
struct tnum tnum_and(struct tnum a, struct tnum b);
struct tnum tnum_or(struct tnum a, struct tnum b);
struct tnum tnum_xor(struct tnum a, struct tnum b);
struct tnum tnum_mul(struct tnum a, struct tnum b);
struct tnum tnum_lshift(struct tnum a, u8 shift);
struct tnum tnum_rshift(struct tnum a, u8 shift);
struct tnum tnum_arshift(struct tnum a, u8 shift, u8 insn_bitness);
struct tnum tnum_intersect(struct tnum a, struct tnum b);
struct tnum tnum_cast(struct tnum a, u8 size); /* the low size bytes */
/* Every value b can hold, a can hold too. */
bool tnum_in(struct tnum a, struct tnum b);
/* "(0x0; 0xff)" as the verifier's log writes a var_off. */
int tnum_strn(char *str, size_t size, struct tnum a);

#endif
