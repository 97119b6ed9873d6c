/*
 * BPF_BTF_LOAD's checks against random blobs (kernel/bpf/btf_parse.c, btf_log.c): the blob sits in
 * a heap block of exactly its size, so a read past it lands in ASan's red zone; whatever passes,
 * every type's size is then computed (btf_type_id_size()) and every type id it names must exist.
 * The log (level 1, 4 KiB) is always NUL-terminated; nothing is left allocated after each input.
 */
#include "tests/fuzz/fuzz.h"
#include "kernel/bpf/btf_format.h"
#include "kernel/mm/mm.h"
#include "lib/string.h"

void *malloc(size_t size);
void free(void *p);

static char log_buf[4096];

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct bpf_verifier_log log = { .buf = log_buf, .size = sizeof(log_buf), .level = 1 };
	struct btf btf = { .data_size = size };
	int err;

	log_buf[0] = 0;
	btf.data = malloc(size ? size : 1);
	memcpy(btf.data, data, size);
	err = btf_parse(&btf, &log);
	FUZZ_CHECK(log.len < sizeof(log_buf) && !log_buf[log.len], "log not NUL-terminated");
	if (!err) {
		FUZZ_CHECK(btf.nr_types > 0 && btf.strings && !btf.strings[btf.str_len - 1],
			   "accepted without types or terminated strings");
		for (u32 id = 0; id <= btf.nr_types + 1; id++)
			btf_type_id_size(&btf, id);
	}
	kfree(btf.types);
	free(btf.data);
	FUZZ_CHECK(!fuzz_live_allocs, "%ld allocations left", fuzz_live_allocs);
	return 0;
}
