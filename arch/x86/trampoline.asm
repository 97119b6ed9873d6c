; trampoline.asm: how an application processor gets from real mode to the kernel.
;
; An AP wakes from INIT-SIPI-SIPI in 16-bit real mode at physical 0x8000 (SIPI vector 0x08).
; smpboot.c copies this code there and fills in the data at its end (CR3, stack, entry point,
; and the CPU's number, which becomes ap_entry's argument). The code is assembled inside the kernel image, so every address it uses is
; written as TRAMPOLINE_PA + (label - trampoline_start): correct once the copy sits at 0x8000.
;
;   real mode --lgdt, CR0.PE--> 32-bit protected --PAE, CR3, EFER.LME/NXE, CR0.PG--> long mode
;   --> jmp to ap_entry(percpu) at its kernel address (0xffffffff8...)

TRAMPOLINE_PA equ 0x8000
%define TADDR(label) (TRAMPOLINE_PA + (label - trampoline_start))

section .rodata
global trampoline_start, trampoline_end
global tr_cr3, tr_stack, tr_entry, tr_percpu

bits 16
trampoline_start:
	cli
	cld
	xor ax, ax
	mov ds, ax
	lgdt [TADDR(tr_gdt_ptr)]
	mov eax, cr0
	or eax, 1
	mov cr0, eax
	jmp dword 0x08:TADDR(tr_pm32)

bits 32
tr_pm32:
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	mov eax, cr4
	or eax, 1 << 5                  ; PAE
	mov cr4, eax
	mov eax, [TADDR(tr_cr3)]        ; the kernel's own page tables (below 4 GiB)
	mov cr3, eax
	mov ecx, 0xc0000080
	rdmsr
	or eax, (1 << 8) | (1 << 11)    ; LME, NXE
	wrmsr
	mov eax, cr0
	or eax, (1 << 31) | (1 << 16)   ; PG, WP
	mov cr0, eax                    ; this page is identity-mapped while APs start
	jmp 0x18:TADDR(tr_lm64)

bits 64
tr_lm64:
	mov rsp, [TADDR(tr_stack)]
	mov rdi, [TADDR(tr_percpu)]
	xor ebp, ebp
	mov rax, [TADDR(tr_entry)]
	jmp rax

; The descriptors are marked accessed already (type 0x9b, 0x93): loading a selector whose accessed
; bit is clear makes the CPU write the bit into the GDT, and the 64-bit code selector is loaded after
; paging is on, where this page is mapped read-only. Bochs takes that write as the #PF a real CPU
; would (a triple fault: the IDT is still the real-mode one); QEMU sets the bit without a fault.
align 8
tr_gdt:
	dq 0
	dq 0x00cf9b000000ffff           ; 0x08: 32-bit code
	dq 0x00cf93000000ffff           ; 0x10: data
	dq 0x00af9b000000ffff           ; 0x18: 64-bit code
tr_gdt_ptr:
	dw tr_gdt_ptr - tr_gdt - 1
	dd TADDR(tr_gdt)
align 8
tr_cr3:    dq 0
tr_stack:  dq 0
tr_entry:  dq 0
tr_percpu: dq 0
trampoline_end:
