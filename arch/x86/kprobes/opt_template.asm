; opt_template.asm: the code at the head of every optimized kprobe's detour buffer. Never run here:
; arch/x86/kprobes/opt.c copies it into the buffer, writes the site and the callback into its two
; immediates, and puts the relocated instructions and a jmp back after it.
;
; The site's jmp lands at the buffer's first byte with every register as the probed code had it,
; and rsp at S. We build a struct pt_regs below S, as the int3 path's entry would, with one word
; above it where we go next:
;
;   S - 8                     the resume address: written by optimized_callback (the copy below,
;                             or where a pre handler sent ip); our final ret pops it, so rsp is S
;                             again when the copied instructions run
;   S - 8 - PT_SIZE           struct pt_regs (ip set by the callback: one past the probed byte)
;
; No instruction before the pushfq may change the flags: lea and mov do not.

bits 64
section .rodata

%include "arch/x86/pt_regs.inc"

global optprobe_template_entry, optprobe_template_val, optprobe_template_call
global optprobe_template_end

optprobe_template_entry:
	lea rsp, [rsp - PT_SIZE - 8]
	SAVE_REGS_BUT_BP
	mov [rsp + PT_BP], rbp
	pushfq
	pop qword [rsp + PT_FLAGS]
	lea rax, [rsp + PT_SIZE + 8]    ; sp as the probed code had it
	mov [rsp + PT_SP], rax
	mov qword [rsp + PT_CS], 0x08
	mov qword [rsp + PT_SS], 0x10
	mov qword [rsp + PT_ORIG_AX], -1
	mov rbx, rsp                    ; regs: rbx survives the call
	and rsp, -16                    ; S is only 8-aligned at an arbitrary instruction
optprobe_template_val:
	mov rdi, strict qword 0         ; the kprobe_site
	mov rsi, rbx
optprobe_template_call:
	mov rax, strict qword 0         ; optimized_callback
	call rax
	mov rsp, rbx
	RESTORE_REGS_BUT_AX_BP
	mov rbp, [rsp + PT_BP]
	mov rax, [rsp + PT_AX]
	push qword [rsp + PT_FLAGS]
	popfq
	lea rsp, [rsp + PT_SIZE]        ; at the resume address
	ret
optprobe_template_end:
