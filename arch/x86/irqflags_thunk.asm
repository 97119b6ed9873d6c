; irqflags_thunk.asm: the latency hooks' calls from local_irq_*() and preempt_*() (kernel/irqflags.h).
;
; A hook site's out-of-line branch calls one of these instead of the C hook, from inline asm that
; clobbers no register: the thunk saves every register a C call may change, so the function around
; the site needs no spill for it and pays, with the hook off, the NOP alone (Linux's x86 entry code
; calls its trace_hardirqs_on_thunk the same way). It passes the C hook where the site is (the
; return address: ip) and the frame of the function holding it (rbp), whose return address is
; the parent: what Linux's CALLER_ADDR0 and CALLER_ADDR1 read.

bits 64
section .text

%macro THUNK 2
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
	ret
%endmacro

THUNK trace_hardirqs_off_thunk, __trace_hardirqs_off
THUNK trace_hardirqs_on_thunk, __trace_hardirqs_on
THUNK trace_preempt_off_thunk, trace_preempt_off
THUNK trace_preempt_on_thunk, trace_preempt_on
