; ftrace_64.asm: what a call site calls once ftrace turns it on.
;
; Every traced function starts with a 5-byte `call __fentry__`. Before boot-time conversion that
; call lands on __fentry__, a plain `ret`. After it, the site is a NOP; when an ftrace_ops wants the
; function, the site becomes `call ftrace_caller` (or ftrace_regs_caller), which saves what the
; traced function still needs, calls the callback through the patchable `call` at ftrace_call, and
; returns into the function as if nothing happened.
;
; The stack when a site calls us (F = traced function, P = its caller):
;     [rsp]     F + 5   return into F, just past the call site
;     [rsp+8]   P ...   return into P: F's own return address
; We push two fake frames so a backtrace taken inside a callback reads "callback, F, P":
;     frame F: [rbp] = frame P, [rbp+8] = F + 5
;     frame P: [rbp] = P's rbp, [rbp+8] = P's return address
;
; The templates are self-contained between ftrace_caller and ftrace_caller_end: the ops-pointer
; load (ftrace_caller_op_ptr) and the callback call (ftrace_call) are at fixed offsets and nothing
; else depends on where the code sits, so a per-ops trampoline can be a copy of it. Their pieces
; (the frames, the saves, ftrace_regs_caller's body) are macros in ftrace_callers.inc, shared with
; the tracers' own templates and function_graph's return_to_handler in ftrace_fast.asm.

bits 64
section .text

%include "arch/x86/ftrace_callers.inc"

extern function_trace_op

global __fentry__
global ftrace_stub
global ftrace_caller, ftrace_caller_op_ptr, ftrace_call, ftrace_caller_end
global ftrace_regs_caller, ftrace_regs_caller_op_ptr, ftrace_regs_call, ftrace_regs_caller_end

%ifdef CONFIG_STATIC_FTRACE
; The static build (make STATIC_FTRACE=1): no site is ever patched, so every call of every traced
; function lands here. While nothing traces, ftrace_trace_function is ftrace_stub and the graph
; hook is its stub: we return at once, five instructions (cmp, jne, cmp, jne, ret) on top of the
; call, on every call. Otherwise we go on to the same frames ftrace_caller builds, with the
; callback read from ftrace_trace_function, and then to the graph hook's check; or straight to
; ftrace_graph_caller. rsp is untouched until then, so [rsp] is still F + 5, exactly as
; ftrace_caller finds it.
extern ftrace_trace_function, ftrace_graph_entry, ftrace_graph_entry_stub, prepare_ftrace_return
__fentry__:
	cmp qword [rel ftrace_trace_function], ftrace_stub ; a 32-bit sign-extended kernel address
	jne ftrace_static_caller
fgraph_trace:
	cmp qword [rel ftrace_graph_entry], ftrace_graph_entry_stub
	jne ftrace_graph_caller
	ret
%else
; What every site calls until ftrace_init() turns it into a NOP.
__fentry__:
	ret
%endif

; The callback that does nothing: what ftrace_call calls while no ops is registered.
ftrace_stub:
	ret

ftrace_caller:
	CALLER_ENTER
ftrace_caller_op_ptr:
	mov rdx, [rel function_trace_op] ; op: a trampoline's copy loads its own ops here
	xor ecx, ecx                    ; regs: none
ftrace_call:
	call ftrace_stub                ; patched to ops->func, or ftrace_ops_list_func
	CALLER_LEAVE
ftrace_caller_end:

%ifdef CONFIG_STATIC_FTRACE
; The static build's caller: ftrace_caller with the callback loaded from memory instead of patched
; into a `call` (Linux's static ftrace_caller calls *ftrace_trace_function the same way).
; Like Linux's, it then goes on to the graph hook's check: both tracers may be on at once.
global ftrace_static_caller
ftrace_static_caller:
	CALLER_ENTER
	mov rdx, [rel function_trace_op]
	xor ecx, ecx                    ; regs: none (SAVE_REGS ops are refused in this build)
	call [rel ftrace_trace_function]
	CALLER_RESTORE
	jmp fgraph_trace

; function_graph's way in, without an ftrace_ops: prepare_ftrace_return(ip, parent_ip, slot), where
; slot is F's return address as F will pop it, the word fgraph replaces with return_to_handler.
global ftrace_graph_caller
ftrace_graph_caller:
	CALLER_ENTER
	lea rdx, [rbp + ENTRY_SP]
	call prepare_ftrace_return
	CALLER_LEAVE
%endif

align 16                                ; its own address: not shared with ftrace_caller_end
ftrace_regs_caller:
	REGS_CALLER ftrace_regs_caller_op_ptr, ftrace_regs_call
ftrace_regs_caller_end:
