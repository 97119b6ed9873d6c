; ftrace_fast.asm: the tracers' common case written into their trampolines, and function_graph's
; return hook.
;
; A site that only the function tracer wants calls that ops's own trampoline (docs/10), a copy of
; ftrace_function_tramp; one that only function_graph wants, a copy of ftrace_graph_tramp. Each
; starts with the tracer's everyday case done in place: tracing on, no pid list, the event fits
; on this CPU's tail page. That case calls nothing, so it needs neither the fake frames nor F's
; argument registers saved, only the few registers it uses. Anything else (a gate closed, a new
; page, an NMI inside a write, a recursion bit held) leaves without having written anything and
; goes on to the template the ops would have had anyway, ftrace_caller's or ftrace_regs_caller's
; body, which calls the C callback: the fast path is a shortcut to the same bytes, never a
; different result. Like the templates, each is position-independent (data by absolute address,
; jumps within), so a copy works.
;
; Register conventions in the fast paths: r11 holds the flags saved before `cli` (the traced
; code's interrupt state, for the event's irqs-off bit and for `sti` at the end).

bits 64
section .text

%include "arch/x86/ftrace_callers.inc"
%include "asm-offsets.inc"              ; generated from arch/x86/asm-offsets.c

X86_EFLAGS_IF equ 0x200
RS_SHIFT      equ 5                     ; a shadow stack entry is 1 << RS_SHIFT bytes
%if RS_SIZE != 1 << RS_SHIFT
%error "struct ftrace_ret_stack is no longer 32 bytes: change RS_SHIFT"
%endif

extern function_trace_op, global_trace, ftrace_stub, ftrace_return_to_handler, tsc_base, ns_mult

global ftrace_function_tramp, ftrace_function_tramp_op_ptr, ftrace_function_tramp_call
global ftrace_function_tramp_end
global ftrace_graph_tramp, ftrace_graph_tramp_op_ptr, ftrace_graph_tramp_call
global ftrace_graph_tramp_end
global return_to_handler

%macro IRQ_SAVE 0
	pushfq
	pop r11
	cli
%endmacro

%macro IRQ_RESTORE 0
	test r11d, X86_EFLAGS_IF
	jz %%off
	sti
%%off:
%endmacro

; rb_writer_trylock(): this CPU's writer word from 0 to 1, or on to %3 (a write in progress, that
; is, we are an NMI inside one; or recording off). %1: the ring_buffer_per_cpu; %2: a 32-bit
; scratch register. rax is clobbered. The locked cmpxchg is the barrier record_off() pairs with.
%macro RB_WRITER_LOCK 3
	xor eax, eax
	mov %2, 1
	lock cmpxchg [%1 + RB_WRITER], %2
	jne %3
%endmacro

; rb_reserve_fast_irqoff() after the lock: room for a %4-byte event on the tail page, a time
; delta that fits in 27 bits, or on to %5 (the writer word still held). %1: the per-CPU buffer;
; out: %2 the tail page, %3 its commit, rax the event's time stamp; last_ts and the header are
; written (at %2 + BDP_DATA + %3, the payload 4 bytes on). rdx is clobbered.
%macro RB_RESERVE 5
	mov %2, [%1 + RB_TAIL_PAGE]
	mov %3, [%2 + BDP_COMMIT]
	lea rax, [%3 - 1]               ; an empty page wraps: its first event stamps it (slow path)
	cmp rax, BUF_PAGE_SIZE - 5 - %4
	ja %5
	rdtsc
	shl rdx, 32
	or rax, rdx
	mov rdx, rax
	sub rdx, [%1 + RB_LAST_TS]
	cmp rdx, TS_DELTA_MAX
	ja %5
	mov [%1 + RB_LAST_TS], rax      ; nothing else writes here before our commit
	shl edx, 5
	or edx, %4 / 4                  ; type_len in the low 5 bits, the delta above: one store
	mov [%2 + %3 + BDP_DATA], edx
%endmacro

; ring_buffer_unlock_commit(): %3, the new commit, into tail page %2 (a plain store is a release
; on x86: a reader that sees it sees the event), one more event counted, the writer word back.
%macro RB_COMMIT 3
	mov [%2 + BDP_COMMIT], %3
	add qword [%1 + RB_ENTRIES], 1
	lock sub dword [%1 + RB_WRITER], 1 ; atomic: record_off() on another CPU may add to it
%endmacro

; tracing_generic_entry_update(): into %1 the event's first 8 bytes, this CPU's trace_ctx with
; type %2 and irqs-off, which is cleared again if the saved flags (r11) had IF.
%macro TRACE_CTX 2
	mov %1, [gs:PC_TRACE_CTX]
	or %1, %2 | CTX_IRQS_OFF
	test r11d, X86_EFLAGS_IF
	jz %%off
	btr %1, 16
%%off:
%endmacro

; The function tracer's trampoline: function_trace_call()'s fast path, then ftrace_caller.
align 16
ftrace_function_tramp:
	cmp word [global_trace + TA_GATE], 1 ; tracing_on set, fn_slow clear
	jne .call
	IRQ_SAVE
	push rdx                        ; F's argument registers this path uses (rdtsc writes rdx)
	push rcx
	push rsi
	mov r10, [gs:PC_TRACE_CB]
	RB_WRITER_LOCK r10, ecx, .locked_out
	RB_RESERVE r10, rcx, rsi, FE_SIZE, .refused
	lea rax, [rcx + rsi + BDP_DATA + 4] ; the payload: struct ftrace_entry
	TRACE_CTX rdx, TRACE_FN
	mov [rax], rdx
	mov rdx, [rsp + 24]             ; F + 5
	sub rdx, MCOUNT_INSN_SIZE
	mov [rax + FE_IP], rdx
	mov rdx, [rsp + 32]             ; P's return address: parent_ip
	mov [rax + FE_PARENT_IP], rdx
	add rsi, 4 + FE_SIZE
	RB_COMMIT r10, rcx, rsi
	pop rsi
	pop rcx
	pop rdx
	IRQ_RESTORE
	ret
.refused:
	lock sub dword [r10 + RB_WRITER], 1
.locked_out:
	pop rsi
	pop rcx
	pop rdx
	IRQ_RESTORE
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
; ftrace_regs_caller's body the gate's compare has changed the arithmetic flags, so the flags that
; body saves and restores are those: no function reads them at its first instruction, and
; fgraph's callback reads nothing of regs but sp. IF is as it was.
align 16
ftrace_graph_tramp:
	cmp dword [global_trace + TA_GATE], 1 ; tracing_on set, fn_slow and graph_slow clear
	jne .call
	IRQ_SAVE
	cmp qword [gs:PC_TRACE_REC], 0
	jne .irq_back
	mov r10, [gs:PC_CURR]
	test r10, r10
	jz .irq_back
	mov r10, [r10 + TASK_FGRAPH]
	test r10, r10
	jz .irq_back
	cmp dword [r10 + FG_CURR], FTRACE_RETFUNC_DEPTH
	jge .irq_back                   ; full: the C path counts the overrun
	push rdx
	push rcx
	push rsi
	push rdi
	mov rdi, [gs:PC_TRACE_CB]
	RB_WRITER_LOCK rdi, ecx, .locked_out
	RB_RESERVE rdi, rcx, rsi, GE_SIZE, .refused
	lea rax, [rcx + rsi + BDP_DATA + 4] ; the payload: struct ftrace_graph_ent_entry
	TRACE_CTX rdx, TRACE_GRAPH_ENT
	mov [rax], rdx
	mov rdx, [rsp + 32]             ; F + 5
	sub rdx, MCOUNT_INSN_SIZE
	mov [rax + GE_FUNC], rdx
	mov edx, [r10 + FG_CURR]
	mov [rax + GE_DEPTH], edx
	add rsi, 4 + GE_SIZE
	RB_COMMIT rdi, rcx, rsi
	; The push: claim the slot first (an NMI from now on pushes above it), fill it, and only
	; then hook the return. calltime is read after the event, as the C path reads it.
	mov ecx, [r10 + FG_CURR]
	add dword [r10 + FG_CURR], 1
	shl ecx, RS_SHIFT
	lea rcx, [r10 + rcx + FG_RET_STACK]
	mov rdx, [rsp + 40]             ; parent_ip
	mov [rcx + RS_RET], rdx
	mov rdx, [rsp + 32]
	sub rdx, MCOUNT_INSN_SIZE
	mov [rcx + RS_FUNC], rdx
	lea rdx, [rsp + 40]             ; the slot: F's return address
	mov [rcx + RS_RETP], rdx
	rdtsc
	shl rdx, 32
	or rax, rdx
	mov [rcx + RS_CALLTIME], rax
	mov qword [rsp + 40], return_to_handler
	pop rdi
	pop rsi
	pop rcx
	pop rdx
	IRQ_RESTORE
	ret
.refused:
	lock sub dword [rdi + RB_WRITER], 1
.locked_out:
	pop rdi
	pop rsi
	pop rcx
	pop rdx
.irq_back:
	IRQ_RESTORE
.call:
	REGS_CALLER ftrace_graph_tramp_op_ptr, ftrace_graph_tramp_call
ftrace_graph_tramp_end:

; return_to_handler: where a function traced by function_graph "returns" to. On entry the traced
; function F has just executed `ret`, popping the address fgraph put in place of its real return
; address. F's return value is in rax (and rdx): keep both, pop the shadow stack, record the
; return, and go where F really had to go back to. Every other register is free: F's caller
; expects nothing of them. The fast path is graph_return()'s common case under the same gate as
; the entry's; anything else calls ftrace_return_to_handler(), which does it all in C.
align 16                                ; its own address: not shared with a template's end
return_to_handler:
	cmp dword [global_trace + TA_GATE], 1
	jne .call
	push rax
	push rdx
	IRQ_SAVE
	cmp qword [gs:PC_TRACE_REC], 0
	jne .irq_back
	mov r10, [gs:PC_CURR]
	mov r10, [r10 + TASK_FGRAPH]
	test r10, r10
	jz .irq_back                    ; no shadow stack: the C path's BUG_ON says so
	mov ecx, [r10 + FG_CURR]
	sub ecx, 1                      ; depth: the entry on top
	js .irq_back                    ; nothing on it: the same
	mov rdi, [gs:PC_TRACE_CB]
	RB_WRITER_LOCK rdi, esi, .irq_back
	RB_RESERVE rdi, rsi, r9, GR_SIZE, .refused
	lea r8, [rsi + r9 + BDP_DATA + 4] ; the payload: struct ftrace_graph_ret_entry
	add r9, 4 + GR_SIZE
	; rettime is the event's own stamp; both times go in as tsc_to_ktime() makes them
	sub rax, [tsc_base]
	jae .rettime
	xor eax, eax                    ; before tsc_base: 0
.rettime:
	mul qword [ns_mult]
	shrd rax, rdx, 32
	mov [r8 + GR_RETTIME], rax
	mov [r8 + GR_DEPTH], ecx
	shl ecx, RS_SHIFT
	lea rcx, [r10 + rcx + FG_RET_STACK]
	mov rax, [rcx + RS_FUNC]
	mov [r8 + GR_FUNC], rax
	mov rax, [r10 + FG_OVERRUN]
	mov [r8 + GR_OVERRUN], rax
	mov rax, [rcx + RS_CALLTIME]
	sub rax, [tsc_base]
	jae .calltime
	xor eax, eax
.calltime:
	mul qword [ns_mult]
	shrd rax, rdx, 32
	mov [r8 + GR_CALLTIME], rax
	mov rcx, [rcx + RS_RET]         ; where F really returns to
	sub dword [r10 + FG_CURR], 1    ; the pop, every field read: the slot may be reused now
	mov rax, [rsp + 8]              ; F's return value
	mov [r8 + GR_RETVAL], rax
	TRACE_CTX rax, TRACE_GRAPH_RET
	mov [r8], rax
	RB_COMMIT rdi, rsi, r9
	IRQ_RESTORE
	pop rdx
	pop rax
	jmp rcx
.refused:
	lock sub dword [rdi + RB_WRITER], 1
.irq_back:
	IRQ_RESTORE
	pop rdx
	pop rax
.call:
	push rax
	push rdx                        ; rsp is back to 16-byte alignment for the call
	mov rdi, rax                    ; the return value, for funcgraph-retval
	call ftrace_return_to_handler   ; -> the real return address
	mov r11, rax                    ; r11: scratch at a function return, nobody expects it kept
	pop rdx
	pop rax
	jmp r11
