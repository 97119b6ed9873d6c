/* The kernel services the fuzzed files call, from the host: kmalloc on malloc, counted. */
#include "tests/fuzz/fuzz.h"
#include "kernel/mm/mm.h"
#include "lib/string.h"

void *malloc(size_t size);
void free(void *p);

long fuzz_live_allocs;

void *kmalloc(size_t size)
{
	void *p = malloc(size);

	if (p)
		fuzz_live_allocs++;
	return p;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(const void *p)
{
	if (p) {
		fuzz_live_allocs--;
		free((void *)p);
	}
}

char *fuzz_cstr(const u8 *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		fuzz_fail("out of memory");
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

void fuzz_free(void *p)
{
	free(p);
}
