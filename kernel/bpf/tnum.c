/* Arithmetic on tracked numbers: what is known of a result from what is known of its operands. */
#include "kernel/bpf/tnum.h"
#include "lib/printf.h"

struct tnum tnum_range(u64 min, u64 max)
{
	u64 chi = min ^ max, delta;
	int bits = chi ? 64 - __builtin_clzll(chi) : 0;

	/* the bits above the highest one that differs are shared by the whole range */
	if (bits > 63)
		return tnum_unknown;
	delta = (1ULL << bits) - 1;
	return (struct tnum){ min & ~delta, delta };
}

struct tnum tnum_add(struct tnum a, struct tnum b)
{
	u64 sm = a.mask + b.mask, sv = a.value + b.value;
	u64 sigma = sm + sv, chi = sigma ^ sv;
	u64 mu = chi | a.mask | b.mask; /* any bit a carry may have reached */

	return (struct tnum){ sv & ~mu, mu };
}

struct tnum tnum_sub(struct tnum a, struct tnum b)
{
	u64 dv = a.value - b.value;
	u64 alpha = dv + a.mask, beta = dv - b.mask;
	u64 mu = (alpha ^ beta) | a.mask | b.mask;

	return (struct tnum){ dv & ~mu, mu };
}

struct tnum tnum_and(struct tnum a, struct tnum b)
{
	u64 alpha = a.value | a.mask, beta = b.value | b.mask;
	u64 v = a.value & b.value;

	return (struct tnum){ v, alpha & beta & ~v };
}

struct tnum tnum_or(struct tnum a, struct tnum b)
{
	u64 v = a.value | b.value, mu = a.mask | b.mask;

	return (struct tnum){ v, mu & ~v };
}

struct tnum tnum_xor(struct tnum a, struct tnum b)
{
	u64 v = a.value ^ b.value, mu = a.mask | b.mask;

	return (struct tnum){ v & ~mu, mu };
}

/* Long multiplication, one bit of a at a time: a known 1 adds b, an unknown bit adds b's
 * possible bits as unknown. */
struct tnum tnum_mul(struct tnum a, struct tnum b)
{
	u64 acc_v = a.value * b.value;
	struct tnum acc_m = { 0, 0 };

	while (a.value || a.mask) {
		if (a.value & 1)
			acc_m = tnum_add(acc_m, (struct tnum){ 0, b.mask });
		else if (a.mask & 1)
			acc_m = tnum_add(acc_m, (struct tnum){ 0, b.value | b.mask });
		a = tnum_rshift(a, 1);
		b = tnum_lshift(b, 1);
	}
	return tnum_add((struct tnum){ acc_v, 0 }, acc_m);
}

struct tnum tnum_lshift(struct tnum a, u8 shift)
{
	return (struct tnum){ a.value << shift, a.mask << shift };
}

struct tnum tnum_rshift(struct tnum a, u8 shift)
{
	return (struct tnum){ a.value >> shift, a.mask >> shift };
}

struct tnum tnum_arshift(struct tnum a, u8 shift, u8 insn_bitness)
{
	if (insn_bitness == 32)
		return (struct tnum){ (u32)((s32)a.value >> shift), (u32)((s32)a.mask >> shift) };
	return (struct tnum){ (u64)((s64)a.value >> shift), (u64)((s64)a.mask >> shift) };
}

struct tnum tnum_intersect(struct tnum a, struct tnum b)
{
	u64 v = a.value | b.value, mu = a.mask & b.mask;

	return (struct tnum){ v & ~mu, mu };
}

struct tnum tnum_cast(struct tnum a, u8 size)
{
	u64 keep = size >= 8 ? ~0ULL : (1ULL << (size * 8)) - 1;

	return (struct tnum){ a.value & keep, a.mask & keep };
}

bool tnum_in(struct tnum a, struct tnum b)
{
	if (b.mask & ~a.mask)
		return false;
	b.value &= ~a.mask;
	return a.value == b.value;
}

int tnum_strn(char *str, size_t size, struct tnum a)
{
	return snprintf(str, size, "(0x%llx; 0x%llx)", a.value, a.mask);
}
