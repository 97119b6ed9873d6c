; trampoline.asm: where a function watched by a kretprobe "returns" to.
;
; At entry the kretprobe put kretprobe_trampoline in place of the function's return address.
; The function's `ret` lands here with rsp just above that slot and the return value in rax
; (and rdx). We build a struct pt_regs as the function left the registers, let
; kretprobe_trampoline_handler run the handler and tell us the real return address, and go
; there with every register as the function left it (or as the handler set it).
;
;   [rsp + PT_FRAME + 8]  the real return address, written after the handler (our final ret)
;   [rsp + PT_SIZE]       padding up to PT_FRAME + 8: the call below must see a 16-byte aligned stack
;   [rsp]                 struct pt_regs

bits 64
section .text

%include "arch/x86/pt_regs.inc"

extern kretprobe_trampoline_handler
global kretprobe_trampoline

align 16
kretprobe_trampoline:
	sub rsp, PT_FRAME + 16
	SAVE_REGS_BUT_BP
	mov [rsp + PT_BP], rbp
	pushfq
	pop qword [rsp + PT_FLAGS]
	lea rax, [rel kretprobe_trampoline]
	mov [rsp + PT_IP], rax
	lea rax, [rsp + PT_FRAME + 16]   ; sp as the function's ret left it
	mov [rsp + PT_SP], rax
	mov qword [rsp + PT_CS], 0x08
	mov qword [rsp + PT_SS], 0x10
	mov qword [rsp + PT_ORIG_AX], -1
	mov rdi, rsp
	call kretprobe_trampoline_handler
	mov [rsp + PT_FRAME + 8], rax    ; where the final ret goes
	RESTORE_REGS_BUT_AX_BP
	mov rbp, [rsp + PT_BP]
	mov rax, [rsp + PT_AX]
	add rsp, PT_FRAME + 8
	ret
