; trampoline.asm: where a function watched by a kretprobe "returns" to.
;
; At entry the kretprobe put kretprobe_trampoline in place of the function's return address.
; The function's `ret` lands here with rsp just above that slot and the return value in rax
; (and rdx). We build a struct pt_regs as the function left the registers, let
; kretprobe_trampoline_handler run the handler and tell us the real return address, and go
; there with every register as the function left it (or as the handler set it).
;
;   [rsp + PT_SIZE + 8]   the real return address, written after the handler (our final ret)
;   [rsp + PT_SIZE]       padding: the call below must see a 16-byte aligned stack
;   [rsp]                 struct pt_regs

bits 64
section .text

%include "arch/x86/pt_regs.inc"

extern kretprobe_trampoline_handler
global kretprobe_trampoline

align 16
kretprobe_trampoline:
	sub rsp, PT_SIZE + 16
	mov [rsp + PT_R15], r15
	mov [rsp + PT_R14], r14
	mov [rsp + PT_R13], r13
	mov [rsp + PT_R12], r12
	mov [rsp + PT_BP], rbp
	mov [rsp + PT_BX], rbx
	mov [rsp + PT_R11], r11
	mov [rsp + PT_R10], r10
	mov [rsp + PT_R9], r9
	mov [rsp + PT_R8], r8
	mov [rsp + PT_AX], rax
	mov [rsp + PT_CX], rcx
	mov [rsp + PT_DX], rdx
	mov [rsp + PT_SI], rsi
	mov [rsp + PT_DI], rdi
	pushfq
	pop qword [rsp + PT_FLAGS]
	lea rax, [rel kretprobe_trampoline]
	mov [rsp + PT_IP], rax
	lea rax, [rsp + PT_SIZE + 16]   ; sp as the function's ret left it
	mov [rsp + PT_SP], rax
	mov qword [rsp + PT_CS], 0x08
	mov qword [rsp + PT_SS], 0x10
	mov qword [rsp + PT_VEC], 0
	mov qword [rsp + PT_ORIG_AX], 0
	mov rdi, rsp
	call kretprobe_trampoline_handler
	mov [rsp + PT_SIZE + 8], rax    ; where the final ret goes
	mov r15, [rsp + PT_R15]
	mov r14, [rsp + PT_R14]
	mov r13, [rsp + PT_R13]
	mov r12, [rsp + PT_R12]
	mov rbp, [rsp + PT_BP]
	mov rbx, [rsp + PT_BX]
	mov r11, [rsp + PT_R11]
	mov r10, [rsp + PT_R10]
	mov r9, [rsp + PT_R9]
	mov r8, [rsp + PT_R8]
	mov rax, [rsp + PT_AX]
	mov rcx, [rsp + PT_CX]
	mov rdx, [rsp + PT_DX]
	mov rsi, [rsp + PT_SI]
	mov rdi, [rsp + PT_DI]
	add rsp, PT_SIZE + 8
	ret
