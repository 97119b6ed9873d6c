; boot.asm: from GRUB's 32-bit protected mode to kmain() in 64-bit long mode, in the higher half.
;
; GRUB (multiboot2) jumps to _start with paging off, eax = magic, ebx = physical address of the boot
; information. We build just enough page tables to turn on long mode, then jump to the kernel's real
; address (0xffffffff80000000 + physical) and never come back to this low code.
;
;   boot page tables (2 MiB pages, replaced by arch/x86/paging.c as soon as C runs):
;     virtual 0x0000000000000000 .. +1 GiB  -> physical 0 .. 1 GiB   (identity: this file keeps running)
;     virtual 0xffffffff80000000 .. +1 GiB  -> physical 0 .. 1 GiB   (the kernel's link address)

MB2_MAGIC       equ 0xe85250d6
MB2_ARCH_I386   equ 0
KERNEL_VMA      equ 0xffffffff80000000

PTE_P           equ 1 << 0
PTE_W           equ 1 << 1
PTE_PS          equ 1 << 7

CR0_PG          equ 1 << 31
CR0_WP          equ 1 << 16
CR4_PAE         equ 1 << 5
MSR_EFER        equ 0xc0000080
EFER_LME        equ 1 << 8
EFER_NXE        equ 1 << 11

section .multiboot2
align 8
mb2_header:
	dd MB2_MAGIC
	dd MB2_ARCH_I386
	dd mb2_header_end - mb2_header
	dd -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	; end tag: type 0, flags 0, size 8
	dw 0, 0
	dd 8
mb2_header_end:

section .boot.text progbits alloc exec nowrite
bits 32
global _start
_start:
	cli
	mov esp, boot_stack_top
	mov edi, eax                    ; keep magic and info for kmain(magic, info)
	mov esi, ebx

	; PML4[0] and PML4[511] -> the two PDPTs; both PDPT entries -> one PD of 512 x 2 MiB.
	mov eax, boot_pdpt_low
	or eax, PTE_P | PTE_W
	mov [boot_pml4], eax
	mov eax, boot_pdpt_high
	or eax, PTE_P | PTE_W
	mov [boot_pml4 + 511 * 8], eax
	mov eax, boot_pd
	or eax, PTE_P | PTE_W
	mov [boot_pdpt_low], eax
	mov [boot_pdpt_high + 510 * 8], eax  ; 0xffffffff80000000 is PML4 511, PDPT 510

	xor ecx, ecx
.fill_pd:
	mov eax, ecx
	shl eax, 21
	or eax, PTE_P | PTE_W | PTE_PS
	mov [boot_pd + ecx * 8], eax
	inc ecx
	cmp ecx, 512
	jne .fill_pd

	mov eax, boot_pml4
	mov cr3, eax
	mov eax, cr4
	or eax, CR4_PAE
	mov cr4, eax

	; NXE must be on before any page table entry uses bit 63, or that entry faults as reserved.
	mov ecx, MSR_EFER
	rdmsr
	or eax, EFER_LME | EFER_NXE
	wrmsr

	; WP makes read-only pages read-only for the kernel too: W^X means nothing without it.
	mov eax, cr0
	or eax, CR0_PG | CR0_WP
	mov cr0, eax

	lgdt [boot_gdt_ptr]
	jmp 0x08:long_mode

bits 64
long_mode:
	mov edi, edi                    ; the upper halves of rdi and rsi are undefined after the
	mov esi, esi                    ; switch from 32-bit mode: zero-extend magic and info
	mov ax, 0x10
	mov ds, ax
	mov es, ax
	mov ss, ax
	xor ax, ax
	mov fs, ax
	mov gs, ax
	mov rax, higher_half
	jmp rax

section .boot.data progbits alloc noexec write
align 8
boot_gdt:
	dq 0
	dq 0x00af9a000000ffff           ; 0x08: 64-bit code
	dq 0x00cf92000000ffff           ; 0x10: data
boot_gdt_ptr:
	dw boot_gdt_ptr - boot_gdt - 1
	dd boot_gdt

section .boot.bss nobits alloc noexec write
alignb 4096
boot_pml4:      resb 4096
boot_pdpt_low:  resb 4096
boot_pdpt_high: resb 4096
boot_pd:        resb 4096
boot_stack:     resb 4096
boot_stack_top:

; From here on we run at the kernel's link address.
section .text
global boot_stack_bottom, boot_stack_top_hi
extern kmain
higher_half:
	mov rsp, boot_stack_top_hi
	xor ebp, ebp                    ; a zero frame pointer ends every backtrace
	call kmain                      ; kmain(edi = magic, esi = info physical address)
.hang:
	cli
	hlt
	jmp .hang

section .bss
alignb 16
boot_stack_bottom:
	resb 16384
boot_stack_top_hi:
