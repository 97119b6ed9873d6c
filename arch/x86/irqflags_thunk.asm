; irqflags_thunk.asm: the latency hooks' calls from local_irq_*() and preempt_*() (kernel/irqflags.h).
;
; A hook site calls one of these instead of the C hook, from inline asm that clobbers no register:
; the thunk saves every register a C call may change, so the function around the site needs no
; spill for it and pays, with the hook off, a preempt site's NOP or nothing at all for an irqflags
; site, whose cli or sti is the site (Linux's x86 entry code
; calls its trace_hardirqs_on_thunk the same way). It passes the C hook where the site is (the
; return address: ip) and the frame of the function holding it (rbp), whose return address is
; the parent: what Linux's CALLER_ADDR0 and CALLER_ADDR1 read.

bits 64
section .text

; THUNK name, hook[, last]: last, if given, is the instruction between restoring the registers and
; the ret (irq_enable_thunk's sti, whose one-instruction shadow then covers only the ret).
%macro THUNK 2-3
global %1
extern %2
%1:
	push rbp
	mov rbp, rsp                    ; a frame: backtraces from inside the hook walk through it
	push rdi
	push rsi
	push rdx
	push rcx
	push rax
	push r8
	push r9
	push r10
	push r11
	sub rsp, 8                      ; 16-byte aligned at the call, as the C ABI wants
	mov rdi, [rbp + 8]              ; ip: the return address, in the function with the site
	mov rsi, [rbp]                  ; that function's frame pointer
	call %2
	add rsp, 8
	pop r11
	pop r10
	pop r9
	pop r8
	pop rax
	pop rcx
	pop rdx
	pop rsi
	pop rdi
	pop rbp
	%3
	ret
%endmacro

THUNK trace_hardirqs_off_thunk, __trace_hardirqs_off
THUNK trace_hardirqs_on_thunk, __trace_hardirqs_on
THUNK trace_preempt_off_thunk, trace_preempt_off
THUNK trace_preempt_on_thunk, trace_preempt_on

; What an irqflags site calls once the key is on (kernel/irqflags.h): the site was the cli or sti
; itself, so the thunk does it. Each is reached by the site's call alone, so the return address on
; the stack is the site's, as trace_hardirqs_*_thunk expect (ip: the site, rbp: its function's).

; local_irq_disable(): cli, then the hook.
global irq_disable_thunk
irq_disable_thunk:
	cli
	jmp trace_hardirqs_off_thunk

; local_irq_save(): cli, then the hook only if interrupts were on before it (the flag changed).
global irq_save_thunk
irq_save_thunk:
	pushfq
	cli
	test dword [rsp], 1 << 9        ; IF, as it was before the cli
	lea rsp, [rsp + 8]              ; drop the saved flags; lea leaves the test's ZF alone
	jnz trace_hardirqs_off_thunk
	ret

; local_irq_enable(), local_irq_restore(): the hook, then sti, then ret under the sti's shadow.
THUNK irq_enable_thunk, __trace_hardirqs_on, sti
