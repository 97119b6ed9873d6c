/*
 * insn-dump: runs arch/x86/insn.c over instructions given as hex, one per line, for
 * test_insn_objdump.py to hold against objdump. Built WITHOUT host_prefix.h: it reads and
 * writes with the host C library; only the decoder it links is ours.
 *
 *   in:  488b0500100000          the bytes available at an address (at most 15)
 *   out: 7 1 3 4 4096 0 0 0      length rip_relative disp_offset disp_size disp
 *                                imm_offset imm_size imm, or "-22" when insn_decode refuses
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/insn.h"

/* Parses the hex of one line into a buffer of exactly its length, so ASan catches a read past it. */
static unsigned char *parse_hex(const char *line, int *len)
{
	int n = strspn(line, "0123456789abcdefABCDEF") / 2, i;
	unsigned char *buf = malloc(n ? n : 1);
	unsigned int b;

	for (i = 0; i < n; i++) {
		sscanf(line + 2 * i, "%2x", &b);
		buf[i] = b;
	}
	*len = n;
	return buf;
}

int main(void)
{
	char line[256];
	struct insn insn;
	unsigned char *buf;
	int len, ret;

	while (fgets(line, sizeof(line), stdin)) {
		buf = parse_hex(line, &len);
		ret = insn_decode(&insn, buf, len);
		if (ret)
			printf("%d\n", ret);
		else
			printf("%d %d %d %d %lld %d %d %lld\n", insn.length, insn.rip_relative,
			       insn.disp_offset, insn.disp_size, insn.disp, insn.imm_offset,
			       insn.imm_size, insn.imm);
		free(buf);
	}
	return ferror(stdin) ? 1 : 0;
}
