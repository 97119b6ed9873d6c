; ring_buffer_asm.asm: the ring buffer's assembly macros (kernel/trace/ring_buffer.inc) as a
; function the self-tests (ring_buffer_asm_test.c) call and hold against the C write path.

bits 64
section .text

%include "asm-offsets.inc"
%include "kernel/trace/ring_buffer.inc"

global rb_asm_write

; bool rb_asm_write(struct ring_buffer_per_cpu *cb, u64 a, u64 b): a 16-byte event holding a and
; b, written through the macros as a trampoline writes one (a full page through RB_NEXT_PAGE).
; Interrupts must be off. 0 if refused, with nothing written and the writer word as it was.
rb_asm_write:
	mov r10, rdi
	mov r8, rdx                     ; rdtsc writes rdx
	RB_WRITER_LOCK r10, .refused
.reserve:
	RB_RESERVE r10, r11, rax, 16, .refused, .full
	mov [RB_PAYLOAD(r11, rax)], rsi
	mov [RB_PAYLOAD(r11, rax) + 8], r8
	RB_COMMIT r10, r11, 16
	mov eax, 1
	ret
.full:
	RB_NEXT_PAGE r10, .reserve, .refused
.refused:
	RB_WRITER_UNLOCK r10
	xor eax, eax
	ret
