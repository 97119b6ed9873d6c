/* The x86-64 instruction decoder (64-bit mode), written from the Intel SDM's opcode maps.
 *
 * Decoding walks the instruction left to right, each step deciding what the next one reads:
 *
 *   prefixes  66 67 f0 f2 f3 2e 36 3e 26 64 65, then at most one REX (40-4f) that counts
 *   opcode    one byte, or 0f xx, or 0f 38 xx / 0f 3a xx: its attributes come from a table
 *   ModRM     if the opcode has one; mod and rm say whether a SIB byte and a displacement follow
 *   disp      0, 1 or 4 bytes (8 or 4 for the moffs of a0-a3, which have no ModRM)
 *   imm       sized by the opcode's immediate kind and the operand size (66, REX.W)
 *
 * Refused: opcodes invalid in 64-bit mode or undefined, VEX, EVEX, XOP and 3DNow! (gcc emits
 * none with -mgeneral-regs-only), 66 on branches, more than four different prefixes. Not
 * checked: which of 66 f2 f3 an SSE opcode accepts as its mandatory prefix, and the reserved
 * register forms of x87 opcodes and of groups 7, 9, 12-16; those decode to the length the map
 * gives, and the CPU raises #UD on them, in a copy as in place.
 *
 * Nothing here touches kernel state: the same file is built for the host and tested there.
 */
#include "arch/x86/insn.h"
#include "lib/compiler.h"
#include "lib/errno.h"

/* The attributes and tables are laid out as the SDM prints its opcode maps: left as written. */
/* clang-format off */
/*
 * Opcode attributes. The low four bits name the immediate (or moffs) that ends the
 * instruction; the rest are flags.
 */
#define IMM_MASK 0x000f
#define Ib	0x0001	/* 8-bit immediate */
#define Iw	0x0002	/* 16-bit immediate (ret, lret) */
#define Iz	0x0003	/* 16-bit under 66, else 32 (sign-extended when REX.W makes it 64) */
#define Iv	0x0004	/* 16, 32 or 64 bits as the operand size: only mov r, imm (b8+r) */
#define Iwb	0x0005	/* enter: a 16-bit size then an 8-bit nesting level */
#define Mo	0x0006	/* a0-a3: an absolute address of 8 bytes, 4 under 67; kept as disp */
#define Jb	0x0007	/* rel8 */
#define Jz	0x0008	/* rel32 (rel16 under 66 on AMD only, so we refuse 66 there) */
#define M	0x0010	/* a ModRM byte follows the opcode */
#define G	0x0020	/* a group: the ModRM reg field refines the opcode (group_attr) */
#define MEM	0x0040	/* the ModRM must name memory (mod != 3): lea, lss, movnti ... */
#define R	0x0080	/* mov cr/dr: mod is ignored, rm is a 64-bit register, no SIB or disp */
#define D64	0x0100	/* operand size 64 by default in long mode, 16 under 66 */
#define F64	0x0200	/* operand size 64 always: near branches and returns */
#define X	0x0400	/* invalid in 64-bit mode, undefined, or VEX/EVEX (refused) */
#define P	X	/* a prefix or escape: consumed before any table is read */

/* The one-byte map (SDM Vol. 2, Table A-2). */
static const u16 one_byte[256] = {
/*	   x0/x8   x1/x9   x2/xa   x3/xb   x4/xc   x5/xd   x6/xe   x7/xf */
	/* add; push/pop es */
/* 00 */ M,      M,      M,      M,      Ib,     Iz,     X,      X,
	/* or; push cs; 0f escape */
/* 08 */ M,      M,      M,      M,      Ib,     Iz,     X,      P,
	/* adc; push/pop ss */
/* 10 */ M,      M,      M,      M,      Ib,     Iz,     X,      X,
	/* sbb; push/pop ds */
/* 18 */ M,      M,      M,      M,      Ib,     Iz,     X,      X,
	/* and; es:; daa */
/* 20 */ M,      M,      M,      M,      Ib,     Iz,     P,      X,
	/* sub; cs:; das */
/* 28 */ M,      M,      M,      M,      Ib,     Iz,     P,      X,
	/* xor; ss:; aaa */
/* 30 */ M,      M,      M,      M,      Ib,     Iz,     P,      X,
	/* cmp; ds:; aas */
/* 38 */ M,      M,      M,      M,      Ib,     Iz,     P,      X,
	/* REX */
/* 40 */ P,      P,      P,      P,      P,      P,      P,      P,
	/* REX.W */
/* 48 */ P,      P,      P,      P,      P,      P,      P,      P,
	/* push r */
/* 50 */ D64,    D64,    D64,    D64,    D64,    D64,    D64,    D64,
	/* pop r */
/* 58 */ D64,    D64,    D64,    D64,    D64,    D64,    D64,    D64,
	/* pusha popa; EVEX; movsxd; fs: gs: 66 67 */
/* 60 */ X,      X,      X,      M,      P,      P,      P,      P,
	/* push imm; imul imm; ins outs */
/* 68 */ Iz|D64, M|Iz,   Ib|D64, M|Ib,   0,      0,      0,      0,
	/* jcc rel8 */
/* 70 */ Jb|F64, Jb|F64, Jb|F64, Jb|F64, Jb|F64, Jb|F64, Jb|F64, Jb|F64,
/* 78 */ Jb|F64, Jb|F64, Jb|F64, Jb|F64, Jb|F64, Jb|F64, Jb|F64, Jb|F64,
	/* group 1; test; xchg */
/* 80 */ M|Ib,   M|Iz,   X,      M|Ib,   M,      M,      M,      M,
	/* mov; mov sreg; lea; pop r/m */
/* 88 */ M,      M,      M,      M,      M,      M|MEM,  M,      M|G|D64,
	/* nop, pause, xchg */
/* 90 */ 0,      0,      0,      0,      0,      0,      0,      0,
	/* cwde cdq; callf; fwait; pushf popf; sahf lahf */
/* 98 */ 0,      0,      X,      0,      D64,    D64,    0,      0,
	/* mov moffs; movs cmps */
/* a0 */ Mo,     Mo,     Mo,     Mo,     0,      0,      0,      0,
	/* test imm; stos lods scas */
/* a8 */ Ib,     Iz,     0,      0,      0,      0,      0,      0,
	/* mov r8, imm8 */
/* b0 */ Ib,     Ib,     Ib,     Ib,     Ib,     Ib,     Ib,     Ib,
	/* mov r, imm (imm64 under REX.W) */
/* b8 */ Iv,     Iv,     Iv,     Iv,     Iv,     Iv,     Iv,     Iv,
	/* shift imm; ret; VEX; group 11 */
/* c0 */ M|Ib,   M|Ib,   Iw|F64, F64,    X,      X,      M|G|Ib, M|G|Iz,
	/* enter leave; lret; int3 int; into; iret */
/* c8 */ Iwb|D64,D64,    Iw,     0,      0,      Ib,     X,      0,
	/* shift 1/cl; aam aad salc; xlat */
/* d0 */ M,      M,      M,      M,      X,      X,      X,      0,
	/* x87 */
/* d8 */ M,      M,      M,      M,      M,      M,      M,      M,
	/* loop jrcxz; in out imm8 */
/* e0 */ Jb|F64, Jb|F64, Jb|F64, Jb|F64, Ib,     Ib,     Ib,     Ib,
	/* call jmp; jmpf; jmp rel8; in out dx */
/* e8 */ Jz|F64, Jz|F64, X,      Jb|F64, 0,      0,      0,      0,
	/* lock; int1; rep; hlt cmc; group 3 */
/* f0 */ P,      0,      P,      P,      0,      0,      M|G|Ib, M|G|Iz,
	/* clc stc cli sti cld std; group 4, 5 */
/* f8 */ 0,      0,      0,      0,      0,      0,      M|G,    M|G,
};

/* The two-byte map, after 0f (SDM Vol. 2, Table A-3). */
static const u16 two_byte[256] = {
/*	   x0/x8   x1/x9   x2/xa   x3/xb   x4/xc   x5/xd   x6/xe   x7/xf */
	/* group 6, 7; lar lsl; syscall clts sysret */
/* 00 */ M|G,    M,      M,      M,      X,      0,      0,      0,
	/* invd wbinvd; ud2; prefetchw; 3DNow! */
/* 08 */ 0,      0,      X,      0,      X,      M,      X,      X,
	/* movups .. movhps; movlps and movhps stores take memory only */
/* 10 */ M,      M,      M,      M|MEM,  M,      M,      M,      M|MEM,
	/* prefetch, hint nops (nopl), endbr */
/* 18 */ M,      M,      M,      M,      M,      M,      M,      M,
	/* mov cr/dr */
/* 20 */ M|R,    M|R,    M|R,    M|R,    X,      X,      X,      X,
	/* movaps .. comiss; movntps */
/* 28 */ M,      M,      M,      M|MEM,  M,      M,      M,      M,
	/* wrmsr rdtsc rdmsr rdpmc sysenter sysexit; getsec */
/* 30 */ 0,      0,      0,      0,      0,      0,      X,      0,
	/* 0f 38 and 0f 3a escapes */
/* 38 */ P,      X,      P,      X,      X,      X,      X,      X,
	/* cmovcc */
/* 40 */ M,      M,      M,      M,      M,      M,      M,      M,
/* 48 */ M,      M,      M,      M,      M,      M,      M,      M,
	/* movmskps .. maxps (SSE) */
/* 50 */ M,      M,      M,      M,      M,      M,      M,      M,
/* 58 */ M,      M,      M,      M,      M,      M,      M,      M,
	/* punpck, pcmpgt, pack (MMX, SSE2) */
/* 60 */ M,      M,      M,      M,      M,      M,      M,      M,
/* 68 */ M,      M,      M,      M,      M,      M,      M,      M,
	/* pshuf; groups 12-14; pcmpeq; emms */
/* 70 */ M|Ib,   M|Ib,   M|Ib,   M|Ib,   M,      M,      M,      0,
	/* vmread vmwrite; haddpd hsubpd; movd movq */
/* 78 */ M,      M,      X,      X,      M,      M,      M,      M,
	/* jcc rel32 */
/* 80 */ Jz|F64, Jz|F64, Jz|F64, Jz|F64, Jz|F64, Jz|F64, Jz|F64, Jz|F64,
/* 88 */ Jz|F64, Jz|F64, Jz|F64, Jz|F64, Jz|F64, Jz|F64, Jz|F64, Jz|F64,
	/* setcc */
/* 90 */ M,      M,      M,      M,      M,      M,      M,      M,
/* 98 */ M,      M,      M,      M,      M,      M,      M,      M,
	/* push/pop fs; cpuid; bt; shld */
/* a0 */ D64,    D64,    0,      M,      M|Ib,   M,      X,      X,
	/* push/pop gs; rsm; bts; shrd; group 15; imul */
/* a8 */ D64,    D64,    0,      M,      M|Ib,   M,      M,      M,
	/* cmpxchg; lss; btr; lfs lgs; movzx */
/* b0 */ M,      M,      M|MEM,  M,      M|MEM,  M|MEM,  M,      M,
	/* popcnt; ud1; group 8; btc; bsf bsr; movsx */
/* b8 */ M,      M,      M|G|Ib, M,      M,      M,      M,      M,
	/* xadd; cmpps; movnti; pinsrw pextrw shufps; group 9 */
/* c0 */ M,      M,      M|Ib,   M|MEM,  M|Ib,   M|Ib,   M|Ib,   M,
	/* bswap */
/* c8 */ 0,      0,      0,      0,      0,      0,      0,      0,
	/* MMX, SSE2 arithmetic */
/* d0 */ M,      M,      M,      M,      M,      M,      M,      M,
/* d8 */ M,      M,      M,      M,      M,      M,      M,      M,
	/* ...; movntq */
/* e0 */ M,      M,      M,      M,      M,      M,      M,      M|MEM,
/* e8 */ M,      M,      M,      M,      M,      M,      M,      M,
/* f0 */ M,      M,      M,      M,      M,      M,      M,      M,
	/* ... ud0 */
/* f8 */ M,      M,      M,      M,      M,      M,      M,      M,
};

/*
 * The three-byte maps list their defined (non-VEX) opcodes instead: every 0f 38 opcode takes
 * a ModRM byte and no immediate, every 0f 3a opcode a ModRM byte and an imm8.
 */
struct opcode_range {
	u8 first, last;
};

/* SDM Vol. 2, Table A-4. */
static const struct opcode_range map_0f38[] = {
	{ 0x00, 0x0b },	/* pshufb .. pmulhrsw (SSSE3) */
	{ 0x10, 0x10 },	/* pblendvb */
	{ 0x14, 0x15 },	/* blendvps blendvpd */
	{ 0x17, 0x17 },	/* ptest */
	{ 0x1c, 0x1e },	/* pabsb pabsw pabsd */
	{ 0x20, 0x25 },	/* pmovsx */
	{ 0x28, 0x2b },	/* pmuldq pcmpeqq movntdqa packusdw */
	{ 0x30, 0x35 },	/* pmovzx */
	{ 0x37, 0x41 },	/* pcmpgtq, pmin, pmax, pmulld, phminposuw */
	{ 0x80, 0x82 },	/* invept invvpid invpcid */
	{ 0xc8, 0xcd },	/* sha1 and sha256 */
	{ 0xcf, 0xcf },	/* gf2p8mulb */
	{ 0xdb, 0xdf },	/* aesimc aesenc aesenclast aesdec aesdeclast */
	{ 0xf0, 0xf1 },	/* movbe, crc32 */
	{ 0xf5, 0xf6 },	/* wruss, adcx adox wrss */
	{ 0xf8, 0xf9 },	/* movdir64b enqcmd, movdiri */
	{ 0xfc, 0xfc },	/* aadd aand aor axor */
};

/* SDM Vol. 2, Table A-5. */
static const struct opcode_range map_0f3a[] = {
	{ 0x08, 0x0f },	/* round, blend, palignr */
	{ 0x14, 0x17 },	/* pextrb pextrw pextrd extractps */
	{ 0x20, 0x22 },	/* pinsrb insertps pinsrd */
	{ 0x40, 0x42 },	/* dpps dppd mpsadbw */
	{ 0x44, 0x44 },	/* pclmulqdq */
	{ 0x60, 0x63 },	/* pcmpestrm pcmpestri pcmpistrm pcmpistri */
	{ 0xcc, 0xcc },	/* sha1rnds4 */
	{ 0xce, 0xcf },	/* gf2p8affineqb gf2p8affineinvqb */
	{ 0xdf, 0xdf },	/* aeskeygenassist */
	{ 0xf0, 0xf0 },	/* hreset */
};
/* clang-format on */

/* The bytes being decoded: never read at or past end. */
struct cursor {
	const u8 *buf;
	int pos;
	int end;
};

/* Takes the next byte into *b, or returns -EINVAL when the buffer (or 15 bytes) ends first. */
static int next_byte(struct cursor *c, u8 *b)
{
	if (c->pos >= c->end)
		return -EINVAL;
	*b = c->buf[c->pos++];
	return 0;
}

/* Takes size little-endian bytes as a sign-extended value, recording where they sat. */
static int read_field(struct cursor *c, int size, u8 *offset, u8 *sizep, s64 *value)
{
	u64 v = 0;
	int i;

	if (c->end - c->pos < size)
		return -EINVAL;
	for (i = 0; i < size; i++)
		v |= (u64)c->buf[c->pos + i] << (8 * i);
	*offset = c->pos;
	*sizep = size;
	*value = size == 1 ? (s8)v : size == 2 ? (s16)v : size == 4 ? (s32)v : (s64)v;
	c->pos += size;
	return 0;
}

/* True for the eleven legacy prefixes. */
static bool is_legacy_prefix(u8 b)
{
	switch (b) {
	case 0x66:
	case 0x67:
	case 0xf0:
	case 0xf2:
	case 0xf3:
	case 0x26:
	case 0x2e:
	case 0x36:
	case 0x3e:
	case 0x64:
	case 0x65:
		return true;
	}
	return false;
}

/* True if the decoded instruction carries the legacy prefix p. */
bool insn_has_prefix(const struct insn *insn, u8 p)
{
	int i;

	for (i = 0; i < insn->nr_prefixes; i++)
		if (insn->prefixes[i] == p)
			return true;
	return false;
}

/*
 * Reads legacy prefixes and REX up to the opcode. A REX counts only right before the opcode:
 * one followed by a legacy prefix is ignored by the CPU, so it is forgotten here too. A
 * repeated prefix (gas pads with 66 66 2e 0f 1f ...) is recorded once; more than four
 * different ones are refused.
 */
static int read_prefixes(struct insn *insn, struct cursor *c)
{
	u8 b;

	for (;;) {
		if (c->pos >= c->end)
			return -EINVAL;
		b = c->buf[c->pos];
		if ((b & 0xf0) == 0x40) {
			insn->rex = b;
		} else if (is_legacy_prefix(b)) {
			insn->rex = 0;
			if (!insn_has_prefix(insn, b)) {
				if (insn->nr_prefixes == sizeof(insn->prefixes))
					return -EINVAL;
				insn->prefixes[insn->nr_prefixes++] = b;
			}
		} else {
			insn->opcode_offset = c->pos;
			return 0;
		}
		c->pos++;
	}
}

/* Whether op is in one of the n ranges. */
static bool in_ranges(const struct opcode_range *r, int n, u8 op)
{
	int i;

	for (i = 0; i < n; i++)
		if (op >= r[i].first && op <= r[i].last)
			return true;
	return false;
}

/* Reads one opcode byte into insn->opcode[]. */
static int read_opcode_byte(struct insn *insn, struct cursor *c, u8 *op)
{
	if (next_byte(c, op))
		return -EINVAL;
	insn->opcode[insn->opcode_len++] = *op;
	return 0;
}

/* Reads the 1-3 opcode bytes and returns their attributes (X if undefined), or -EINVAL. */
static int read_opcode(struct insn *insn, struct cursor *c)
{
	u8 op;

	if (read_opcode_byte(insn, c, &op))
		return -EINVAL;
	if (op != 0x0f)
		return one_byte[op];
	if (read_opcode_byte(insn, c, &op))
		return -EINVAL;
	if (op != 0x38 && op != 0x3a)
		return two_byte[op];
	if (read_opcode_byte(insn, c, &op))
		return -EINVAL;
	if (insn->opcode[1] == 0x38)
		return in_ranges(map_0f38, ARRAY_SIZE(map_0f38), op) ? M : X;
	return in_ranges(map_0f3a, ARRAY_SIZE(map_0f3a), op) ? M | Ib : X;
}

/*
 * Refuses what the prefixes make undefined or ambiguous. On near branches and returns (F64)
 * Intel ignores 66 while AMD shrinks the operand, a rel32 to a rel16 and rip to 16 bits: such
 * an instruction has no one meaning (nor even one length), and gcc never emits one.
 */
static int check_prefixes(const struct insn *insn, u16 attr)
{
	u8 op = insn->opcode[1];

	if ((attr & F64) && insn_has_prefix(insn, 0x66))
		return -EINVAL;
	if (insn->opcode_len != 2)
		return 0;
	if (op == 0xb8 && !insn_has_prefix(insn, 0xf3))
		return -EINVAL; /* jmpe; only popcnt (f3 0f b8) exists */
	if ((op == 0x78 || op == 0x79) &&
	    (insn_has_prefix(insn, 0x66) || insn_has_prefix(insn, 0xf2)))
		return -EINVAL; /* AMD's extrq/insertq, not vmread/vmwrite */
	return 0;
}

/* Reads the ModRM and SIB bytes and sizes the displacement they call for. */
static int read_modrm(struct insn *insn, struct cursor *c, u16 attr, int *disp_size)
{
	*disp_size = 0;
	if (!(attr & M))
		return 0;
	if (next_byte(c, &insn->modrm))
		return -EINVAL;
	insn->has_modrm = true;
	if (attr & R)
		return 0;
	if (insn_mod(insn) == 3)
		return attr & MEM ? -EINVAL : 0;
	if (insn_rm(insn) == 4) {
		if (next_byte(c, &insn->sib))
			return -EINVAL;
		insn->has_sib = true;
	}
	/* REX.B plays no part: r13 and r12 as base need the same disp and SIB as rbp and rsp. */
	if (insn_mod(insn) == 1) {
		*disp_size = 1;
	} else if (insn_mod(insn) == 2) {
		*disp_size = 4;
	} else if (insn_rm(insn) == 5) {
		*disp_size = 4;
		insn->rip_relative = true;
	} else if (insn->has_sib && (insn->sib & 7) == 5) {
		*disp_size = 4; /* no base register: [index*scale + disp32] */
	}
	return 0;
}

/* Refines a group opcode by its ModRM reg field: its immediate and operand size, or X. */
static u16 group_attr(const struct insn *insn, u16 attr)
{
	int reg = insn_reg(insn);
	int op = insn->opcode_len == 1 ? insn->opcode[0] : 0x0f00 | insn->opcode[1];

	switch (op) {
	case 0x8f: /* pop r/m; the other encodings are AMD's XOP escape */
		return reg == 0 ? attr : X;
	case 0xfe: /* inc dec r/m8 */
		return reg <= 1 ? attr : X;
	case 0xc6: /* mov r/m, imm; xabort imm8 */
	case 0xc7: /* mov r/m, imm; xbegin rel32 */
		if (reg == 0)
			return attr;
		if (insn->modrm != 0xf8)
			return X;
		return op == 0xc6 ? attr : (attr & ~IMM_MASK) | Jz | F64;
	case 0xf6: /* test r/m, imm has one; not neg mul imul div idiv do not */
	case 0xf7:
		return reg <= 1 ? attr : attr & ~IMM_MASK;
	case 0xff: /* inc dec call callf jmp jmpf push */
		if (reg == 7 || ((reg == 3 || reg == 5) && insn_mod(insn) == 3))
			return X;
		return attr | (reg == 2 || reg == 4 ? F64 : reg == 6 ? D64 : 0);
	case 0x0f00: /* sldt str lldt ltr verr verw */
		return reg <= 5 ? attr : X;
	case 0x0fba: /* bt bts btr btc r/m, imm8 */
		return reg >= 4 ? attr : X;
	}
	return attr;
}

/* The operand-size attribute: REX.W wins over 66; some opcodes default to, or force, 64. */
static u8 operand_size(const struct insn *insn, u16 attr)
{
	if ((attr & (F64 | R)) || (insn->rex & 8))
		return 8;
	if (insn_has_prefix(insn, 0x66))
		return 2;
	return attr & D64 ? 8 : 4;
}

/* Reads the immediate (or the moffs, into disp) that the attributes call for. */
static int read_imm(struct insn *insn, struct cursor *c, u16 attr)
{
	int kind = attr & IMM_MASK, size;

	switch (kind) {
	case 0:
		return 0;
	case Mo:
		size = insn_has_prefix(insn, 0x67) ? 4 : 8;
		return read_field(c, size, &insn->disp_offset, &insn->disp_size, &insn->disp);
	case Iwb:
		if (read_field(c, 3, &insn->imm_offset, &insn->imm_size, &insn->imm))
			return -EINVAL;
		insn->imm &= 0xffffff; /* two fields, not one number: keep them apart */
		return 0;
	case Ib:
	case Jb:
		size = 1;
		break;
	case Iw:
		size = 2;
		break;
	case Iv:
		size = insn->operand_size;
		break;
	default: /* Iz, Jz */
		size = insn->operand_size == 2 ? 2 : 4;
	}
	return read_field(c, size, &insn->imm_offset, &insn->imm_size, &insn->imm);
}

/*
 * Decodes the one instruction at buf, reading no more than len (and 15) bytes. Returns 0 with
 * *insn filled in, or -EINVAL (and *insn meaningless) for bytes we refuse or that end too soon.
 */
int insn_decode(struct insn *insn, const void *buf, int len)
{
	struct cursor c = { buf, 0, MIN(len, MAX_INSN_SIZE) };
	int attr, disp_size;

	*insn = (struct insn){ 0 };
	if (read_prefixes(insn, &c))
		return -EINVAL;
	attr = read_opcode(insn, &c);
	if (attr < 0 || (attr & X))
		return -EINVAL;
	if (read_modrm(insn, &c, attr, &disp_size))
		return -EINVAL;
	if (attr & G)
		attr = group_attr(insn, attr);
	if ((attr & X) || check_prefixes(insn, attr))
		return -EINVAL;
	if (disp_size &&
	    read_field(&c, disp_size, &insn->disp_offset, &insn->disp_size, &insn->disp))
		return -EINVAL;
	insn->operand_size = operand_size(insn, attr);
	if (read_imm(insn, &c, attr))
		return -EINVAL;
	insn->length = c.pos;
	return 0;
}
