/* SHA-1 (FIPS 180-4): what a BPF program's tag is made from, as Linux's bpf_prog_calc_tag(). */
#ifndef LIB_SHA1_H
#define LIB_SHA1_H

#include "lib/types.h"

#define SHA1_DIGEST_SIZE 20

/* The digest of len bytes at p, big-endian as it is printed. */
void sha1(const void *p, size_t len, u8 out[SHA1_DIGEST_SIZE]);

#endif
