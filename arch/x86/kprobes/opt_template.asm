; opt_template.asm: the code at the head of every optimized kprobe's detour buffer. Never run here:
; arch/x86/kprobes/opt.c copies it into the buffer, writes the resume address, the probed ip, the
; site and the callback into its immediates, and puts the relocated instructions and a jmp back
; after it.
;
; The site's jmp lands at the buffer's first byte with every register as the probed code had it,
; and rsp at S. Pushes build a struct pt_regs below S, as the int3 path's entry would, with one
; word above it where we go next:
;
;   S - 8                     the resume address: the buffer's copy of the range, or where a pre
;                             handler sent ip (written when optimized_callback returns nonzero,
;                             which it does only then); the final ret pops
;                             it, so rsp is S again when the copied instructions run
;   S - 16 .. S - 56          ss, sp, flags, cs, ip (one past the probed byte), orig_ax
;   S - 176                   the general registers, r15 lowest: the struct's start
;
; Every word is pushed (one instruction each, as Linux's optprobe template does): the hot path is
; nothing but the struct, one call and the struct back. The two 32-bit immediates are sign-extended
; by push: the text and execmem both live in the top 2 GiB (kernel/mm/mm.h).
; No instruction before the pushfq may change the flags: push and lea do not.

bits 64
section .rodata

%include "arch/x86/pt_regs.inc"

global optprobe_template_entry, optprobe_template_resume, optprobe_template_ip
global optprobe_template_val, optprobe_template_call, optprobe_template_end

optprobe_template_entry:
optprobe_template_resume:
	push strict dword 0             ; the resume address
	push strict byte 0x10           ; ss
	push rsp                        ; sp, S - 16 as pushed: corrected below
	pushfq
	cli                             ; handlers run with interrupts off, as under the int3 gate
	push strict byte 0x08           ; cs
optprobe_template_ip:
	push strict dword 0             ; ip: one past the probed byte, as the int3 path shows it
	push strict byte -1             ; orig_ax (Linux's ~0UL: no system call)
	PUSH_REGS rax
	add qword [rsp + PT_SP], 16     ; sp as the probed code had it (flags are saved already)
	mov rbx, rsp                    ; regs: rbx survives the call
	and rsp, -16                    ; S is only 8-aligned at an arbitrary instruction
optprobe_template_val:
	mov rdi, strict qword 0         ; the kprobe_site
	mov rsi, rbx
optprobe_template_call:
	db 0xe8                         ; call rel32 optimized_callback, aimed by opt.c
	dd 0
	mov rsp, rbx
	test eax, eax                   ; a handler moved ip: resume where it points
	jz .restore
	mov rax, [rsp + PT_IP]
	mov [rsp + PT_SIZE], rax
.restore:
	POP_REGS                        ; rsp at orig_ax
	lea rsp, [rsp + PT_FLAGS - PT_ORIG_AX]  ; past orig_ax, ip, cs: at flags
	popfq                           ; IF as it was
	lea rsp, [rsp + 16]             ; past sp and ss: at the resume address
	ret
optprobe_template_end:
