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
; else depends on where the code sits, so a per-ops trampoline can be a copy of it.

bits 64
section .text

MCOUNT_INSN_SIZE equ 5

%include "arch/x86/pt_regs.inc"

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

; Two fake frames (see above); afterwards rbp = frame F.
%macro PUSH_FRAMES 0
	push qword [rsp + 8]            ; P's return address
	push rbp
	mov rbp, rsp
	push qword [rsp + 16]           ; F + 5
	push rbp
	mov rbp, rsp
%endmacro

; Frame offsets from rbp once PUSH_FRAMES has run.
FRAME_F_RET    equ 8                ; copy of F + 5
FRAME_P_RET    equ 24               ; copy of P's return address
RETURN_SLOT    equ 32               ; the real `F + 5` slot the final ret pops
ENTRY_SP       equ 40               ; rsp as F saw it on entry (pointing at P's return address)

; ftrace_caller's first half: frames, F's argument registers saved, rdi = ip, rsi = parent_ip.
%macro CALLER_ENTER 0
	PUSH_FRAMES
	; F's argument registers must survive the callback; nothing else F can read at its first
	; instruction may be clobbered. rax is free: it carries a varargs call's count of vector
	; registers, and with -mgeneral-regs-only no function here reads it (there are none to
	; save); r10, r11 are scratch at any call.
	sub rsp, 48                     ; 6 registers; the call stays 16-byte aligned
	mov [rsp + 0], rdi
	mov [rsp + 8], rsi
	mov [rsp + 16], rdx
	mov [rsp + 24], rcx
	mov [rsp + 32], r8
	mov [rsp + 40], r9
	mov rdi, [rbp + FRAME_F_RET]
	sub rdi, MCOUNT_INSN_SIZE       ; ip: the call site, i.e. F's first byte
	mov rsi, [rbp + FRAME_P_RET]    ; parent_ip
%endmacro

; Its second half, after the callback: registers back, frames gone, ret into F.
%macro CALLER_LEAVE 0
	CALLER_RESTORE
	ret
%endmacro

; The same without the ret: rsp is back to where __fentry__ found it.
%macro CALLER_RESTORE 0
	mov rdi, [rsp + 0]
	mov rsi, [rsp + 8]
	mov rdx, [rsp + 16]
	mov rcx, [rsp + 24]
	mov r8, [rsp + 32]
	mov r9, [rsp + 40]
	mov rbp, [rbp + 16]             ; F's rbp, as it was
	add rsp, 48 + 32                ; saved registers and both fake frames
%endmacro

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

; The same, with a full struct pt_regs the callback may change: registers, flags, and ip (the
; address the final `ret` goes to: a livepatch sets it to the replacement function). A callback may
; also ask for a direct call (regs->orig_ax = a custom trampoline, see ftrace_direct.c): we then
; leave as if the site had called that trampoline itself.
;
; On entry we push a spare slot (D) and the flags, before any instruction here changes the flags;
; then the two fake frames:
;     [rbp] frame P, [rbp+8] F + 5, [rbp+16] F's rbp, [rbp+24] P's return, [rbp+32] flags,
;     [rbp+40] D, [rbp+48] the real F + 5 slot, [rbp+56] the real P slot (F's entry rsp)
; Leaving, the last two pops are `popfq; ret`:
;     no direct call    flags into D, regs->ip into the F + 5 slot; rsp = D:     ret -> regs->ip
;     direct call       flags stay, D = the direct trampoline, F + 5 slot = regs->ip; rsp = flags:
;                       ret -> direct trampoline, which finds [rsp] = F + 5 as if called from F
REGS_FLAGS       equ 32
REGS_SPARE       equ 40
REGS_RETURN_SLOT equ 48
REGS_ENTRY_SP    equ 56
REGS_FRAMES      equ 32                  ; the two fake frames


align 16                                ; its own address: not shared with ftrace_caller_end
ftrace_regs_caller:
	push rax                        ; D: any value, it is only a slot
	pushfq
	push qword [rsp + 24]           ; P's return address
	push rbp
	mov rbp, rsp
	push qword [rsp + 32]           ; F + 5
	push rbp
	mov rbp, rsp
	sub rsp, PT_SIZE                ; struct pt_regs (with D pushed, the call is 16-byte aligned)
	SAVE_REGS_BUT_BP
	mov rax, [rbp + 16]             ; F's rbp
	mov [rsp + PT_BP], rax
	mov rax, [rbp + REGS_FLAGS]
	mov [rsp + PT_FLAGS], rax
	mov qword [rsp + PT_VEC], 0
	mov qword [rsp + PT_ORIG_AX], 0 ; no direct call unless a callback asks
	mov rax, [rbp + FRAME_F_RET]
	mov [rsp + PT_IP], rax          ; where F resumes: F + 5
	mov qword [rsp + PT_CS], 0x08
	lea rax, [rbp + REGS_ENTRY_SP]
	mov [rsp + PT_SP], rax
	mov qword [rsp + PT_SS], 0x10
	mov rdi, [rbp + FRAME_F_RET]
	sub rdi, MCOUNT_INSN_SIZE
	mov rsi, [rbp + FRAME_P_RET]
ftrace_regs_caller_op_ptr:
	mov rdx, [rel function_trace_op]
	mov rcx, rsp                    ; regs
ftrace_regs_call:
	call ftrace_stub
	; The callback may have moved ip: the final ret goes wherever regs->ip says.
	mov rax, [rsp + PT_IP]
	mov [rbp + REGS_RETURN_SLOT], rax
	mov rax, [rsp + PT_FLAGS]
	cmp qword [rsp + PT_ORIG_AX], 0
	jne .direct
	mov [rbp + REGS_SPARE], rax     ; popfq will pop D
	RESTORE_REGS_BUT_AX_BP
	mov rax, [rsp + PT_AX]
	mov rbp, [rsp + PT_BP]
	lea rsp, [rsp + PT_SIZE + REGS_FRAMES + 8] ; pt_regs, frames, the unused flags slot
	popfq
	ret
.direct:
	mov [rbp + REGS_FLAGS], rax
	mov rax, [rsp + PT_ORIG_AX]
	mov [rbp + REGS_SPARE], rax     ; ret will pop the direct trampoline's address
	RESTORE_REGS_BUT_AX_BP
	mov rax, [rsp + PT_AX]
	mov rbp, [rsp + PT_BP]
	lea rsp, [rsp + PT_SIZE + REGS_FRAMES]
	popfq
	ret
ftrace_regs_caller_end:

; return_to_handler: where a function traced by function_graph "returns" to. On entry the traced
; function F has just executed `ret`, popping the address fgraph put in place of its real return
; address. F's return value is in rax (and rdx): keep both, ask the shadow stack where F really had
; to go back to (recording the return on the way), and go there.
global return_to_handler
extern ftrace_return_to_handler
align 16                                ; its own address: not shared with ftrace_regs_caller_end
return_to_handler:
	push rax
	push rdx                        ; rsp is back to 16-byte alignment for the call
	mov rdi, rax                    ; the return value, for funcgraph-retval
	call ftrace_return_to_handler   ; -> the real return address
	mov r11, rax                    ; r11: scratch at a function return, nobody expects it kept
	pop rdx
	pop rax
	jmp r11
