; opt_template.asm: the code at the head of every optimized kprobe's detour buffer. Never run here:
; arch/x86/kprobes/opt.c copies it into the buffer, writes the probed ip, the site and the
; callback into its immediates, and puts the relocated instructions and a jmp back after it.
;
; The site's jmp lands at optprobe_template_entry with every register as the probed code had it,
; and rsp at S. Pushes build a struct pt_regs below S, as the int3 path's entry would:
;
;   S - 8 .. S - 48           ss, sp, flags, cs, ip (one past the probed byte), orig_ax
;   S - 168                   the general registers, r15 lowest: the struct's start
;
; Every word is pushed (one instruction each, as Linux's optprobe template does). The hit itself
; is done here, not in a C callback (Linux's optimized_callback(), which ours keeps for the rare
; case): with this CPU's kprobe_ctlblk inside struct percpu, the nesting check and the mark are
; instructions on gs, and the site's `only` (kernel/kprobes.c: the one probe, or a walk of the
; list) is called with regs as a handler is. Its status word is not written: while no site is
; marked it already holds one a nested hit accepts (arch/x86/kprobes/ctlblk.h). Nested (a hit
; from inside a handler), the buffer calls optimized_callback(), which counts the miss. Then the
; struct back, after which it falls into the copied instructions with rsp at S again. Only when
; a handler moved ip (it returned nonzero) does it leave by the block in front of the entry,
; which turns the ss word into the resume address and ends in a ret. The 32-bit immediate is
; sign-extended by push: the text and execmem both live in the top 2 GiB (kernel/mm/mm.h).
;
; The handlers run on an 8-byte aligned stack (S is only 8-aligned at an arbitrary instruction),
; as every Linux kernel function does (Linux builds with -mpreferred-stack-boundary=3): nothing
; this kernel runs needs more, since it is built without SSE (-mgeneral-regs-only) and keeps its
; one 16-aligned structure, the FPU save area, off the stack. Aligning would cost three
; instructions a hit.
; No instruction before the pushfq may change the flags: push does not.

bits 64
section .rodata

%include "arch/x86/pt_regs.inc"
%include "asm-offsets.inc"              ; generated from arch/x86/asm-offsets.c

global optprobe_template_start, optprobe_template_entry, optprobe_template_ip
global optprobe_template_val, optprobe_template_call, optprobe_template_end

optprobe_template_start:
optprobe_template_moved:                 ; a handler moved ip: resume where regs->ip points
	mov rax, [rsp + PT_IP]
	mov [rsp + PT_SS], rax          ; the ss word becomes the resume address
	POP_REGS                        ; rsp at orig_ax
	lea rsp, [rsp + PT_FLAGS - PT_ORIG_AX]  ; past orig_ax, ip, cs: at flags
	popfq                           ; IF as it was
	lea rsp, [rsp + 8]              ; past sp: at the resume address
	ret                             ; rsp is S again
optprobe_template_nested:                ; rdi the site, rsi regs
optprobe_template_call:
	db 0xe8                         ; call rel32 optimized_callback, aimed by opt.c
	dd 0
	jmp optprobe_template_check
optprobe_template_entry:
	push strict byte 0x10           ; ss
	push rsp                        ; sp, S - 8 as pushed: corrected below
	pushfq
	cli                             ; handlers run with interrupts off, as under the int3 gate
	push strict byte 0x08           ; cs
optprobe_template_ip:
	push strict dword 0             ; ip: one past the probed byte, as the int3 path shows it
	push strict byte -1             ; orig_ax (Linux's ~0UL: no system call)
	PUSH_REGS rax
	add qword [rsp + PT_SP], 8      ; sp as the probed code had it (flags are saved already)
	mov rsi, rsp                    ; regs; the call's return leaves rsp at them again
optprobe_template_val:
	mov rdi, strict qword 0         ; the kprobe_site
	cmp qword [gs:PC_KPROBE_SITE], 0
	jne optprobe_template_nested    ; inside a kprobe already: a miss
	mov [gs:PC_KPROBE_SITE], rdi    ; Linux's current_kprobe
	mov rdi, [rdi + KPROBE_SITE_ONLY]
	call [rdi + KPROBE_PRE_HANDLER] ; p->pre_handler(p, regs)
	mov qword [gs:PC_KPROBE_SITE], 0
optprobe_template_check:
	test eax, eax
	jnz optprobe_template_moved
	POP_REGS                        ; rsp at orig_ax
	lea rsp, [rsp + PT_FLAGS - PT_ORIG_AX]  ; past orig_ax, ip, cs: at flags
	popfq                           ; IF as it was
	lea rsp, [rsp + 16]             ; past sp and ss: rsp is S, the copied range follows
optprobe_template_end:
