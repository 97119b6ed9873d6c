/* The eBPF JIT for x86-64 (Linux's arch/x86/net/bpf_jit_comp.c): not written yet, every program
 * runs in the interpreter (kernel/bpf/core.c). */
#include "kernel/bpf/core.h"

void bpf_int_jit_compile(struct bpf_prog *prog)
{
}

void bpf_jit_free(struct bpf_prog *prog)
{
}
