/* What every fuzz target shares: libFuzzer's entry point and the host's heap behind kmalloc. */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include "lib/types.h"
#include "tests/fuzz/libc_oracle.h"

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

/* A NUL-terminated copy of data[0..size) from the host heap (ASan sees any overrun); free it. */
char *fuzz_cstr(const u8 *data, size_t size);
void fuzz_free(void *p);

/* kmalloc()s not yet kfree()d: a target checks it is back to 0 after every input. */
extern long fuzz_live_allocs;

#define FUZZ_CHECK(cond, ...)                \
	do {                                 \
		if (!(cond))                 \
			fuzz_fail(__VA_ARGS__); \
	} while (0)

#endif
