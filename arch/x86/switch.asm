; switch.asm: switching kernel stacks between tasks.
;
; switch_to(prev, next) saves the registers the C ABI says a call preserves on prev's stack, stores
; prev's stack pointer in prev->rsp, loads next->rsp, pops next's registers and returns on next's
; stack: into whatever call of switch_to next made when it was switched out. It returns prev, the
; task that ran on this CPU just before, as rax (rdi is not restored, so it still holds prev).
;
; A new task's stack is built by kthread_create() to look as if it had called switch_to from the
; start of task_entry, with its struct task in rbx.

bits 64
section .text
global switch_to, task_entry
extern task_main

switch_to:
	push rbp
	push rbx
	push r12
	push r13
	push r14
	push r15
	mov [rdi], rsp                  ; prev->rsp (rsp is the first field of struct task)
	mov rsp, [rsi]                  ; next->rsp
	pop r15
	pop r14
	pop r13
	pop r12
	pop rbx
	pop rbp
	mov rax, rdi
	ret

task_entry:
	mov rdi, rax                    ; the previous task, for finish_task_switch
	mov rsi, rbx                    ; this task
	xor ebp, ebp                    ; a backtrace of a task ends here
	call task_main                  ; never returns
	ud2
