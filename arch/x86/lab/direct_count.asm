; direct_count.asm: a custom trampoline for ftrace's direct calls (register_ftrace_direct), the way
; a BPF trampoline is one: the call site of an attached function calls it straight, no ftrace_caller,
; no ops, no list. It counts the calls and keeps the last first argument, then returns into the
; function.
;
; On entry, exactly as at any ftrace trampoline: [rsp] = F + 5 (back into the traced function F),
; [rsp+8] = F's own return address; every argument register is live and must survive. Only the
; arithmetic flags change (nothing expects them kept across a function's first instruction).
; When the site is shared with other ops, ftrace_regs_caller jumps here with the same stack.

bits 64
section .text

extern direct_count_calls, direct_count_last_arg
global direct_count_tramp, direct_count_tramp_end

align 16
direct_count_tramp:
	lock inc qword [rel direct_count_calls]  ; exact with every CPU calling at once
	mov [rel direct_count_last_arg], rdi
	ret
direct_count_tramp_end:
	; Never run: keeps the end label off the next object's first byte, so a return address
	; there (the interrupt entry that follows in .text) is named by its own symbol.
	int3
