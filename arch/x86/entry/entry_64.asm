; entry_64.asm: the system call's way in and out of ring 3 (Linux: arch/x86/entry/entry_64.S).
;
; `syscall` loads rip from MSR_LSTAR and CS/SS from MSR_STAR, saves the user's rip in rcx and rflags
; in r11, clears the rflags bits MSR_SYSCALL_MASK names (IF and DF among them), and changes nothing
; else: rsp is still the user's, GS still the user's. So the first instructions swap GS to reach
; this CPU's percpu area, park the user rsp there and load the task's kernel stack, then build the
; same struct pt_regs an interrupt from ring 3 leaves (arch/x86/traps.h), so every later step (fork,
; exec, a fatal signal, the tracers) reads one layout:
;
;   top of the task's kernel stack
;     ss = __USER_DS, sp = user rsp, flags = r11, cs = __USER_CS, ip = rcx   <- as the CPU would
;     orig_ax = the syscall number
;     di si dx cx ax=-ENOSYS r8 r9 r10 r11 bx bp r12 r13 r14 r15           <- rsp, the pt_regs
;
; Then one of two ways through:
;
;   fast: nothing traces system calls or interrupt switches (three static-branch NOPs), the number
;         has a handler: call it from here, and if no work waits (no signal, no saved mask, no
;         rewritten registers, no switch due, no restart code, no TF) pop and sysretq. Its pt_regs
;         still hold cx == ip and r11 == flags as pushed, and ip came from a `syscall` below
;         TASK_SIZE_MAX, so sysretq is safe without the C checks.
;   slow: everything else, in C: do_syscall_64() (the trace events, -ENOSYS's log line) and
;         syscall_exit_check() (signals, the switch, whether sysretq may return), iretq when not.
;
; Linux had the same split until 4.16 (entry_SYSCALL_64_fastpath); it went when Linux's entry
; moved to C for the Spectre mitigations. A handler that rewrites the user's registers says so
; with force_iret, as Linux's execve and sigreturn once did.

%include "arch/x86/pt_regs.inc"
%include "arch/x86/jump_label.inc"

bits 64
section .text

global entry_SYSCALL_64, ret_from_fork, ret_to_user_mode
extern do_syscall_64, syscall_exit_check, schedule_tail
extern sys_call_table, trace_irqflags_key, __tracepoint_sys_enter, __tracepoint_sys_exit

%define __USER_DS 0x33
%define __USER_CS 0x3b
%define ENOSYS 38
%define ERESTARTSYS 512           ; kernel/signal.h: the restart codes exit_work_pending() acts on
%define ERESTARTNOHAND 514
%define X86_EFLAGS_TF_BYTE1 1     ; TF is bit 8: bit 0 of the flags' second byte
%include "asm-offsets.inc"

entry_SYSCALL_64:
	swapgs
	mov [gs:PC_USER_RSP], rsp
	mov rsp, [gs:PC_TOP_OF_STACK]
	push __USER_DS                  ; ss
	push qword [gs:PC_USER_RSP]     ; sp
	push r11                        ; flags
	push __USER_CS                  ; cs
	push rcx                        ; ip
	push rax                        ; orig_ax
	PUSH_REGS -ENOSYS               ; ax: the answer unless a handler gives another
	STATIC_BRANCH_UNLIKELY trace_irqflags_key, .slow
	STATIC_BRANCH_UNLIKELY __tracepoint_sys_enter + TP_KEY, .slow
	STATIC_BRANCH_UNLIKELY __tracepoint_sys_exit + TP_KEY, .slow
	mov eax, eax                    ; as Linux, only the low 32 bits choose the call
	cmp eax, NR_SYSCALLS
	jae .slow
	mov rax, [sys_call_table + rax * 8]
	test rax, rax
	jz .slow                        ; -ENOSYS and its log line are the C path's
	sti
	mov rdi, rsp
	sub rsp, 8                      ; Linux's 21 words leave rsp 8 off 16: align the call
	call rax
	add rsp, 8
	cli                             ; from the checks to sysretq nothing may change them
	mov [rsp + PT_AX], rax
	mov rdx, [gs:PC_CURR]
	cmp qword [rdx + TASK_THREAD_FLAGS], 0
	jne .work                       ; TIF_SIGPENDING: a signal this thread does not block
	cmp word [rdx + TASK_RESTORE_SIGMASK], 0
	jne .work                       ; restore_sigmask or force_iret
	test byte [gs:PC_CTX_FLAGS], CTX_NEED_RESCHED
	jnz .work
	lea rcx, [rax + ERESTARTNOHAND]
	cmp rcx, ERESTARTNOHAND - ERESTARTSYS
	jbe .work                       ; -ERESTARTNOHAND..-ERESTARTSYS: the restart is the C path's
	test byte [rsp + PT_FLAGS + 1], X86_EFLAGS_TF_BYTE1
	jnz .work                       ; a single-stepping user leaves by iretq
	POP_REGS                        ; rcx = ip and r11 = flags, as pushed
	mov rsp, [rsp + PT_SP - PT_ORIG_AX]
	swapgs
	o64 sysret
.work:
	mov rdi, rsp
	sub rsp, 8
	call syscall_exit_check         ; true: sysretq may return
	add rsp, 8
	jmp exit_to_user
.slow:
	mov rdi, rsp
	sub rsp, 8                      ; Linux's 21 words leave rsp 8 off 16: align the call
	call do_syscall_64              ; true: sysretq may return
	add rsp, 8
	jmp exit_to_user

; A forked child's first instructions, reached from switch_to() (kernel/fork.c built the stack):
; rax is the task switched from, rsp the child's copy of its parent's pt_regs.
ret_from_fork:
	mov rdi, rax
	sub rsp, 8                      ; the pt_regs is 8 off a 16-byte boundary, as above
	call schedule_tail
	add rsp, 8
	mov rdi, rsp
; The first entry into ring 3 of a task that began in the kernel (kernel_execve()): rdi = its pt_regs.
ret_to_user_mode:
	lea rsp, [rdi - 8]
	call syscall_exit_check
	add rsp, 8
exit_to_user:
	cli                             ; from here to the user, nothing may interrupt on this stack
	test al, al
	jz .iret
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbp
	pop rbx
	add rsp, 8                      ; r11: sysretq loads it from flags below
	pop r10
	pop r9
	pop r8
	pop rax
	add rsp, 8                      ; rcx: sysretq loads it from ip below
	pop rdx
	pop rsi
	pop rdi
	mov rcx, [rsp + 8]              ; ip
	mov r11, [rsp + 24]             ; flags
	mov rsp, [rsp + 32]             ; the user's stack; GS still the kernel's
	swapgs
	o64 sysret
.iret:
	POP_REGS
	add rsp, 8                      ; orig_ax
	swapgs
	iretq
