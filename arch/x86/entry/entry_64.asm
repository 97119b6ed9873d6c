; entry_64.asm: the system call's way in and out of ring 3 (Linux: arch/x86/entry/entry_64.S).
;
; `syscall` loads rip from MSR_LSTAR and CS/SS from MSR_STAR, saves the user's rip in rcx and rflags
; in r11, clears the rflags bits MSR_SYSCALL_MASK names (IF among them), and changes nothing else:
; rsp is still the user's, GS still the user's. So the first instructions swap GS to reach this
; CPU's percpu area, park the user rsp there and load the task's kernel stack, then build the same
; struct pt_regs an interrupt from ring 3 leaves (arch/x86/traps.h), so every later step (fork,
; exec, a fatal signal, the tracers) reads one layout:
;
;   top of the task's kernel stack
;     ss = __USER_DS, sp = user rsp, flags = r11, cs = __USER_CS, ip = rcx   <- as the CPU would
;     orig_ax = the syscall number
;     di si dx cx ax=-ENOSYS r8 r9 r10 r11 bx bp r12 r13 r14 r15           <- rsp, the pt_regs
;
; The way out is sysretq when the frame allows it (do_syscall_64() decides, see its comment on
; Intel's non-canonical rip pitfall), iretq otherwise.

%include "arch/x86/pt_regs.inc"

bits 64
section .text

global entry_SYSCALL_64, ret_from_fork, ret_to_user_mode
extern do_syscall_64, syscall_exit_check, schedule_tail

%define __USER_DS 0x33
%define __USER_CS 0x3b
%define ENOSYS 38
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
	cld
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
