; entry.asm: the first instructions of every interrupt and exception.
;
; Each vector has a tiny stub that makes the stack look the same for all of them: the CPU's error
; code, or a 0 if it pushed none, in what becomes the orig_ax slot; rdi pushed, so that rdi can
; carry the vector number; then a jump to one common path, which saves the other registers as
; Linux's struct pt_regs, sets orig_ax to -1 (no system call) and calls do_irq(regs, vector,
; error_code) in traps.c, as Linux's idtentry hands the handler its error code. From ring 3 the CPU
; has already switched to the task's kernel stack (the TSS's rsp0) and the common path swaps GS.
;
;   high  ss, rsp, rflags, cs, rip   <- pushed by the CPU
;         error code (or 0)          <- the CPU or the stub: orig_ax's slot, -1 once read
;         rdi                        <- the stub
;   low   rsi ... r15                <- pushed here: struct pt_regs starts at rsp

%include "arch/x86/pt_regs.inc"

bits 64
section .text

extern do_irq

%macro ISR_NOERR 1
isr_%1:
	push 0
	push rdi
	mov edi, %1
	jmp isr_common
%endmacro

%macro ISR_ERR 1
isr_%1:
	push rdi
	mov edi, %1
	jmp isr_common
%endmacro

isr_common:
	PUSH_REGS_AFTER_DI rax
	cld
	mov r12d, edi                   ; the vector
	mov r13, [rsp + PT_ORIG_AX]     ; the error code
	mov qword [rsp + PT_ORIG_AX], -1
	; GS must be the kernel's (this CPU's percpu area) before any C runs. From ring 3 it is the
	; user's: swap. NMI, #DF and #MC can also land in the kernel between entry_SYSCALL_64 and
	; its swapgs, or between the swapgs and sysretq on the way out, so they ask the MSR (Linux's
	; paranoid entry): a kernel GS base is a negative address. rbx remembers whether we swapped.
	xor ebx, ebx
	test byte [rsp + PT_CS], 3
	jnz .swap
	cmp r12d, 2
	je .paranoid
	cmp r12d, 8
	je .paranoid
	cmp r12d, 18
	jne .call
.paranoid:
	mov ecx, 0xc0000101             ; MSR_GS_BASE
	rdmsr
	test edx, edx
	js .call
.swap:
	swapgs
	mov ebx, 1
.call:
	mov rdi, rsp
	mov esi, r12d
	mov rdx, r13
	sub rsp, 8                      ; 21 words below a 16-byte aligned CPU frame: align the call
	call do_irq
global irq_return
irq_return:                             ; do_irq's return address: traces name it
	add rsp, 8
	test ebx, ebx
	jz .pop
	swapgs
.pop:
	POP_REGS
	add rsp, 8                      ; orig_ax
	iretq

; int3 gets a 16-byte gap between the stack it interrupted and the frame the CPU pushed: the
; text_poke_bp handler emulates a `call` by pushing a return address onto the interrupted stack,
; which without the gap would land on top of this very frame. We move the 5-word frame down.
; From ring 3 (a uprobe) the CPU switched to the task's empty kernel stack: no call is emulated
; there, and the frame must stay where task_pt_regs() finds it, at the top.
isr_3:
	test byte [rsp + 8], 3          ; the interrupted cs: its RPL
	jz .kernel
	push 0
	push rdi
	mov edi, 3
	jmp isr_common
.kernel:
	sub rsp, 16
	push rax
%assign w 0
%rep 5
	mov rax, [rsp + 8 + 16 + w * 8]
	mov [rsp + 8 + w * 8], rax
%assign w w + 1
%endrep
	pop rax
	push 0
	push rdi
	mov edi, 3
	jmp isr_common

; The CPU pushes an error code for these vectors only.
%assign v 0
%rep 256
%if v == 3
	; defined above
%elif v == 8 || v == 10 || v == 11 || v == 12 || v == 13 || v == 14 || v == 17 || v == 21 || v == 29 || v == 30
	ISR_ERR v
%else
	ISR_NOERR v
%endif
%assign v v + 1
%endrep

section .rodata
global isr_stub_table
align 8
isr_stub_table:
%assign v 0
%rep 256
	dq isr_ %+ v
%assign v v + 1
%endrep
