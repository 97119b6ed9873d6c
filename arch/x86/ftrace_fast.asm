; ftrace_fast.asm: the tracers' common case written into their trampolines, and function_graph's
; return hook.
;
; A site that only the function tracer wants calls that ops's own trampoline (docs/10), a copy of
; ftrace_function_tramp; one that only function_graph wants, a copy of ftrace_graph_tramp. Each
; starts with the tracer's everyday case done in place: tracing on, no pid list, room on this
; CPU's buffer. That case calls nothing but, once a page, rb_next_page(), so it needs neither the
; fake frames nor F's argument registers saved, only the few registers it uses. Anything else (a
; gate closed, an NMI inside a write, a time extend, a recursion bit held) leaves without having
; written anything and goes on to the template the ops would have had anyway, ftrace_caller's or
; ftrace_regs_caller's body, which calls the C callback: the fast path is a shortcut to the same
; bytes, never a different result. Like the templates, each is position-independent (data by
; absolute address or through the copy's own ops slot, jumps within), so a copy works.
;
; Nothing here knows how the ring buffer or the shadow stack work: the protocol is the macros of
; kernel/trace/ (ring_buffer.inc, trace.inc, fgraph.inc), the C code's twins. The trace array is
; the ops's (ops->private), so a trampoline serves whichever trace instance its ops names.
;
; The interrupt flag: pushfq, cli, and popfq at the end (the traced code's flags as they were; an
; event's irqs-off bit reads IF from the saved copy).

bits 64
section .text

%include "arch/x86/ftrace_callers.inc"
%include "asm-offsets.inc"              ; generated from arch/x86/asm-offsets.c
%include "kernel/trace/trace.inc"
%include "kernel/trace/fgraph.inc"

extern function_trace_op, graph_ftrace_ops, ftrace_stub, ftrace_return_to_handler

global ftrace_function_tramp, ftrace_function_tramp_op_ptr
global ftrace_function_tramp_call, ftrace_function_tramp_end
global ftrace_graph_tramp, ftrace_graph_tramp_op_ptr
global ftrace_graph_tramp_call, ftrace_graph_tramp_end
global return_to_handler

; The function tracer's trampoline: function_trace_call()'s fast path, then ftrace_caller.
; The stack while it writes: rdx, flags, F + 5, P's return address.
align 16
ftrace_function_tramp:
	mov r10, [rel function_trace_op] ; first: a copy reads its own ops (build_trampoline())
	TRACE_ARRAY_OF_OPS r10
	cmp word [r10 + TA_GATE], 1     ; fn_gate: tracing_on set, fn_slow clear
	jne .call
	pushfq
	cli
	push rdx                        ; rdtsc writes it: F's third argument
	RB_CPU_BUFFER r10
	RB_WRITER_LOCK r10, .refused
.reserve:
	RB_RESERVE r10, r11, rax, FE_SIZE, .refused, .full
	TRACE_CTX rdx, TRACE_FN, rsp + 8
	mov [RB_PAYLOAD(r11, rax)], rdx
	mov rdx, [rsp + 16]             ; F + 5
	sub rdx, MCOUNT_INSN_SIZE
	mov [RB_PAYLOAD(r11, rax) + FE_IP], rdx
	mov rdx, [rsp + 24]             ; P's return address: parent_ip
	mov [RB_PAYLOAD(r11, rax) + FE_PARENT_IP], rdx
	RB_COMMIT r10, r11, FE_SIZE
	pop rdx
	popfq
	ret
.full:
	RB_NEXT_PAGE r10, .reserve, .refused
.refused:
	RB_WRITER_UNLOCK r10
	pop rdx
	popfq
.call:
	CALLER_ENTER
ftrace_function_tramp_op_ptr:
	mov rdx, [rel function_trace_op]
	xor ecx, ecx
ftrace_function_tramp_call:
	call ftrace_stub
	CALLER_LEAVE
ftrace_function_tramp_end:

; function_graph's trampoline: the entry event and the hook (ftrace_graph_func() with
; graph_entry()), then ftrace_regs_caller. The C path's checks become: the gate (tracing on, no
; pid list, function_graph the fgraph user with its defaults: see trace_graph_update_slow()), no
; recursion bit held in any context (the C guard would decide), a shadow stack with room. The
; slot's word is parent_ip by construction: we read parent_ip from it. On the way to
; ftrace_regs_caller's body the flags are those the gate's compare left: no function reads them
; at its first instruction, and fgraph's callback reads nothing of regs but sp. IF is as it was.
; The stack while it writes: rcx, rdx, flags, F + 5, the slot (P's return address).
align 16
ftrace_graph_tramp:
	mov r10, [graph_ftrace_ops + OPS_PRIVATE] ; its only ops, fgraph's: the user's trace array
	cmp dword [r10 + TA_GATE], 1    ; graph_gate: fn_slow and graph_slow clear too
	jne .call
	pushfq
	cli
	cmp qword [gs:PC_TRACE_REC], 0
	jne .irq_back
	FGRAPH_STACK r11
	cmp dword [r11 + FG_CURR], FTRACE_RETFUNC_DEPTH
	jae .irq_back                   ; full, or no stack: the C path decides (counts the overrun)
	push rdx
	push rcx
	RB_CPU_BUFFER r10
	RB_WRITER_LOCK r10, .refused
.reserve:
	RB_RESERVE r10, rcx, rax, GE_SIZE, .refused, .full
	TRACE_CTX rdx, TRACE_GRAPH_ENT, rsp + 16
	mov [RB_PAYLOAD(rcx, rax)], rdx
	mov rdx, [rsp + 24]             ; F + 5
	sub rdx, MCOUNT_INSN_SIZE
	mov [RB_PAYLOAD(rcx, rax) + GE_FUNC], rdx
	mov edx, [r11 + FG_CURR]
	mov [RB_PAYLOAD(rcx, rax) + GE_DEPTH], edx
	RB_COMMIT r10, rcx, GE_SIZE
	mov rcx, [RB_PAYLOAD(rcx, rax) + GE_FUNC]
	mov rax, [r10 + RB_LAST_TS]     ; calltime: the entry event's own time
	FGRAPH_PUSH r11, rdx, rcx, rax, rsp + 32, r10
	pop rcx
	pop rdx
	popfq
	ret
.full:
	RB_NEXT_PAGE r10, .reserve, .refused
.refused:
	RB_WRITER_UNLOCK r10
	pop rcx
	pop rdx
.irq_back:
	popfq
.call:
	REGS_CALLER ftrace_graph_tramp_op_ptr, ftrace_graph_tramp_call
ftrace_graph_tramp_end:

; return_to_handler: where a function traced by function_graph "returns" to. On entry the traced
; function F has just executed `ret`, popping the address fgraph put in place of its real return
; address. F's return value is in rax (and rdx): kept in r8 and r9, since every register but
; those two is free here (F's caller expects nothing of them). The fast path is graph_return()'s
; common case: pop the shadow stack, record the return, and go where F really had to go back to.
; Its trace array is fgraph's ops's (graph_ftrace_ops.private, the ops that hooked the call),
; under the same gate as the entry's, tested before anything else: with it closed (tracing_thresh,
; a filter, the profiler) the flags are never saved, and TCG runs no cli/popfq per hooked return.
; Anything else calls ftrace_return_to_handler(), which does it all in C. No recursion test: a hooked return never runs inside a callback of its own
; context (the entry refused any call made while a bit was held).
align 16                                ; its own address: not shared with a template's end
return_to_handler:
	mov r10, [graph_ftrace_ops + OPS_PRIVATE]
	cmp dword [r10 + TA_GATE], 1    ; first: with the gate closed, no flags saved, no cli
	jne .call
	mov r8, rax
	mov r9, rdx
	pushfq
	cli
	FGRAPH_STACK r11
	FGRAPH_TOP r11, ecx, .irq_back
	RB_CPU_BUFFER r10
	RB_WRITER_LOCK r10, .refused
.reserve:
	RB_RESERVE r10, rsi, rdi, GR_SIZE, .refused, .full
	mov rax, [r10 + RB_LAST_TS]     ; rettime: the event's own time
	TSC_TO_KTIME_AFTER_BOOT
	mov [RB_PAYLOAD(rsi, rdi) + GR_RETTIME], rax
	mov [RB_PAYLOAD(rsi, rdi) + GR_DEPTH], ecx
	shl ecx, RS_SHIFT
	mov rax, [FGRAPH_RS(r11, rcx, RS_FUNC)]
	mov [RB_PAYLOAD(rsi, rdi) + GR_FUNC], rax
	mov rax, [r11 + FG_OVERRUN]
	mov [RB_PAYLOAD(rsi, rdi) + GR_OVERRUN], rax
	mov rax, [FGRAPH_RS(r11, rcx, RS_CALLTIME)]
	TSC_TO_KTIME_AFTER_BOOT
	mov [RB_PAYLOAD(rsi, rdi) + GR_CALLTIME], rax
	mov rcx, [FGRAPH_RS(r11, rcx, RS_RET)] ; where F really returns to
	FGRAPH_POP r11
	mov [RB_PAYLOAD(rsi, rdi) + GR_RETVAL], r8
	TRACE_CTX rax, TRACE_GRAPH_RET, rsp
	mov [RB_PAYLOAD(rsi, rdi)], rax
	RB_COMMIT r10, rsi, GR_SIZE
	popfq
	mov rax, r8
	mov rdx, r9
	jmp rcx
.full:
	RB_NEXT_PAGE r10, .reserve, .refused
.refused:
	RB_WRITER_UNLOCK r10
.irq_back:
	popfq
	mov rax, r8
	mov rdx, r9
.call:
	push rax
	push rdx                        ; rsp is back to 16-byte alignment for the call
	mov rdi, rax                    ; the return value, for funcgraph-retval
	call ftrace_return_to_handler   ; -> the real return address
	mov r11, rax                    ; r11: scratch at a function return, nobody expects it kept
	pop rdx
	pop rax
	jmp r11
