; copy_user.asm: the only instructions that touch user memory, each listed in __ex_table so that a
; bad user pointer ends in -EFAULT instead of an Oops (Linux: arch/x86/lib/copy_user_64.S).
;
; Under SMAP the kernel may read or write a user page only between stac and clac (EFLAGS.AC set).
; The fault handler first tries to fault the page in (a user buffer not yet touched); only an
; address no mapping covers reaches the fixup, which resumes after the copy with what was left.

bits 64
section .text

global copy_user_generic, __strncpy_from_user, futex_atomic_cmpxchg_inatomic
extern smap_enabled

%macro STAC 0
	cmp byte [smap_enabled], 0
	je %%no
	stac
%%no:
%endmacro

%macro CLAC 0
	cmp byte [smap_enabled], 0
	je %%no
	clac
%%no:
%endmacro

; unsigned long copy_user_generic(void *to, const void *from, unsigned long n): bytes NOT copied.
copy_user_generic:
	mov rcx, rdx
	STAC
.copy:
	rep movsb                       ; a fault leaves rcx = bytes still to copy
.done:
	CLAC
	mov rax, rcx
	ret

; long __strncpy_from_user(char *dst, const char *src, long count): the length before the NUL,
; count if there is none in the first count bytes, -EFAULT if a byte could not be read.
__strncpy_from_user:
	xor eax, eax
	STAC
.next:
	cmp rax, rdx
	jae .out
.load:
	movzx ecx, byte [rsi + rax]
	mov [rdi + rax], cl
	test cl, cl
	jz .out
	inc rax
	jmp .next
.out:
	CLAC
	ret
.fault:
	CLAC
	mov rax, -14                    ; -EFAULT
	ret

; int futex_atomic_cmpxchg_inatomic(u32 *uval, u32 *uaddr, u32 oldval, u32 newval): newval
; stored if the user word held oldval, in one locked step (another CPU's thread or process may
; be changing it); *uval = what it held. 0, or -EFAULT. The caller checked access_ok().
futex_atomic_cmpxchg_inatomic:
	mov eax, edx
	STAC
.xchg:
	lock cmpxchg [rsi], ecx         ; eax = the word's value either way
.done:
	CLAC
	mov [rdi], eax
	xor eax, eax
	ret
.fault:
	CLAC
	mov eax, -14                    ; -EFAULT
	ret

section __ex_table align=8
	dq copy_user_generic.copy, copy_user_generic.done
	dq __strncpy_from_user.load, __strncpy_from_user.fault
	dq futex_atomic_cmpxchg_inatomic.xchg, futex_atomic_cmpxchg_inatomic.fault
