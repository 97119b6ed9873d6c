	.file	"asm-offsets.c"
	.text
.Ltext0:
	.cfi_sections	.debug_frame
	.file 0 "/work/wt/lockdep" "arch/x86/asm-offsets.c"
	.p2align 4
	.globl	asm_offsets
	.type	asm_offsets, @function
asm_offsets:
.LFB63:
	.file 1 "arch/x86/asm-offsets.c"
	.loc 1 16 1 view -0
	.cfi_startproc
	.loc 1 18 2 view .LVU1
#APP
# 18 "arch/x86/asm-offsets.c" 1
	
.ascii "->PC_TRACE_CTX 40"
# 0 "" 2
	.loc 1 19 2 view .LVU2
# 19 "arch/x86/asm-offsets.c" 1
	
.ascii "->PC_TRACE_BUF_OFF 56"
# 0 "" 2
	.loc 1 20 2 view .LVU3
# 20 "arch/x86/asm-offsets.c" 1
	
.ascii "->PC_TRACE_REC 72"
# 0 "" 2
	.loc 1 21 2 view .LVU4
# 21 "arch/x86/asm-offsets.c" 1
	
.ascii "->PC_FGRAPH 64"
# 0 "" 2
	.loc 1 24 2 view .LVU5
# 24 "arch/x86/asm-offsets.c" 1
	
.ascii "->OPS_PRIVATE 24"
# 0 "" 2
	.loc 1 25 2 view .LVU6
# 25 "arch/x86/asm-offsets.c" 1
	
.ascii "->PC_TOP_OF_STACK 128"
# 0 "" 2
	.loc 1 26 2 view .LVU7
# 26 "arch/x86/asm-offsets.c" 1
	
.ascii "->PC_USER_RSP 136"
# 0 "" 2
	.loc 1 29 2 view .LVU8
# 29 "arch/x86/asm-offsets.c" 1
	
.ascii "->RB_LAST_TS 32"
# 0 "" 2
	.loc 1 30 2 view .LVU9
# 30 "arch/x86/asm-offsets.c" 1
	
.ascii "->RB_TAIL_PAGE 40"
# 0 "" 2
	.loc 1 31 2 view .LVU10
# 31 "arch/x86/asm-offsets.c" 1
	
.ascii "->RB_WRITER 48"
# 0 "" 2
	.loc 1 32 2 view .LVU11
# 32 "arch/x86/asm-offsets.c" 1
	
.ascii "->RB_ENTRIES 56"
# 0 "" 2
	.loc 1 33 2 view .LVU12
# 33 "arch/x86/asm-offsets.c" 1
	
.ascii "->BDP_COMMIT 8"
# 0 "" 2
	.loc 1 34 2 view .LVU13
# 34 "arch/x86/asm-offsets.c" 1
	
.ascii "->BDP_DATA 16"
# 0 "" 2
	.loc 1 35 2 view .LVU14
# 35 "arch/x86/asm-offsets.c" 1
	
.ascii "->BUF_PAGE_SIZE 4080"
# 0 "" 2
	.loc 1 36 2 view .LVU15
# 36 "arch/x86/asm-offsets.c" 1
	
.ascii "->TS_DELTA_MAX 134217727"
# 0 "" 2
	.loc 1 39 2 view .LVU16
# 39 "arch/x86/asm-offsets.c" 1
	
.ascii "->TA_GATE 1160"
# 0 "" 2
	.loc 1 42 2 view .LVU17
# 42 "arch/x86/asm-offsets.c" 1
	
.ascii "->TRACE_FN 1"
# 0 "" 2
	.loc 1 43 2 view .LVU18
# 43 "arch/x86/asm-offsets.c" 1
	
.ascii "->TRACE_GRAPH_ENT 12"
# 0 "" 2
	.loc 1 44 2 view .LVU19
# 44 "arch/x86/asm-offsets.c" 1
	
.ascii "->TRACE_GRAPH_RET 11"
# 0 "" 2
	.loc 1 45 2 view .LVU20
# 45 "arch/x86/asm-offsets.c" 1
	
.ascii "->CTX_IRQS_OFF 65536"
# 0 "" 2
	.loc 1 46 2 view .LVU21
# 46 "arch/x86/asm-offsets.c" 1
	
.ascii "->FE_SIZE 24"
# 0 "" 2
	.loc 1 47 2 view .LVU22
# 47 "arch/x86/asm-offsets.c" 1
	
.ascii "->FE_IP 8"
# 0 "" 2
	.loc 1 48 2 view .LVU23
# 48 "arch/x86/asm-offsets.c" 1
	
.ascii "->FE_PARENT_IP 16"
# 0 "" 2
	.loc 1 49 2 view .LVU24
# 49 "arch/x86/asm-offsets.c" 1
	
.ascii "->GE_SIZE 24"
# 0 "" 2
	.loc 1 50 2 view .LVU25
# 50 "arch/x86/asm-offsets.c" 1
	
.ascii "->GE_FUNC 8"
# 0 "" 2
	.loc 1 51 2 view .LVU26
# 51 "arch/x86/asm-offsets.c" 1
	
.ascii "->GE_DEPTH 16"
# 0 "" 2
	.loc 1 52 2 view .LVU27
# 52 "arch/x86/asm-offsets.c" 1
	
.ascii "->GR_SIZE 56"
# 0 "" 2
	.loc 1 53 2 view .LVU28
# 53 "arch/x86/asm-offsets.c" 1
	
.ascii "->GR_FUNC 8"
# 0 "" 2
	.loc 1 54 2 view .LVU29
# 54 "arch/x86/asm-offsets.c" 1
	
.ascii "->GR_DEPTH 16"
# 0 "" 2
	.loc 1 55 2 view .LVU30
# 55 "arch/x86/asm-offsets.c" 1
	
.ascii "->GR_OVERRUN 24"
# 0 "" 2
	.loc 1 56 2 view .LVU31
# 56 "arch/x86/asm-offsets.c" 1
	
.ascii "->GR_CALLTIME 32"
# 0 "" 2
	.loc 1 57 2 view .LVU32
# 57 "arch/x86/asm-offsets.c" 1
	
.ascii "->GR_RETTIME 40"
# 0 "" 2
	.loc 1 58 2 view .LVU33
# 58 "arch/x86/asm-offsets.c" 1
	
.ascii "->GR_RETVAL 48"
# 0 "" 2
	.loc 1 61 2 view .LVU34
# 61 "arch/x86/asm-offsets.c" 1
	
.ascii "->FG_CURR 0"
# 0 "" 2
	.loc 1 62 2 view .LVU35
# 62 "arch/x86/asm-offsets.c" 1
	
.ascii "->FG_OVERRUN 8"
# 0 "" 2
	.loc 1 63 2 view .LVU36
# 63 "arch/x86/asm-offsets.c" 1
	
.ascii "->FG_RET_STACK 24"
# 0 "" 2
	.loc 1 64 2 view .LVU37
# 64 "arch/x86/asm-offsets.c" 1
	
.ascii "->RS_SIZE 32"
# 0 "" 2
	.loc 1 65 2 view .LVU38
# 65 "arch/x86/asm-offsets.c" 1
	
.ascii "->RS_RET 0"
# 0 "" 2
	.loc 1 66 2 view .LVU39
# 66 "arch/x86/asm-offsets.c" 1
	
.ascii "->RS_FUNC 8"
# 0 "" 2
	.loc 1 67 2 view .LVU40
# 67 "arch/x86/asm-offsets.c" 1
	
.ascii "->RS_CALLTIME 16"
# 0 "" 2
	.loc 1 68 2 view .LVU41
# 68 "arch/x86/asm-offsets.c" 1
	
.ascii "->RS_RETP 24"
# 0 "" 2
	.loc 1 69 2 view .LVU42
# 69 "arch/x86/asm-offsets.c" 1
	
.ascii "->FTRACE_RETFUNC_DEPTH 50"
# 0 "" 2
	.loc 1 70 1 is_stmt 0 view .LVU43
#NO_APP
	ret
	.cfi_endproc
.LFE63:
	.size	asm_offsets, .-asm_offsets
.Letext0:
	.file 2 "./kernel/trace/trace.h"
	.section	.debug_info,"",@progbits
.Ldebug_info0:
	.long	0xd7
	.value	0x5
	.byte	0x1
	.byte	0x8
	.long	.Ldebug_abbrev0
	.uleb128 0x3
	.long	.LASF20
	.byte	0x1d
	.long	.LASF0
	.long	.LASF1
	.quad	.Ltext0
	.quad	.Letext0-.Ltext0
	.long	.Ldebug_line0
	.uleb128 0x1
	.byte	0x8
	.byte	0x7
	.long	.LASF2
	.uleb128 0x1
	.byte	0x4
	.byte	0x7
	.long	.LASF3
	.uleb128 0x1
	.byte	0x8
	.byte	0x5
	.long	.LASF4
	.uleb128 0x4
	.byte	0x4
	.byte	0x5
	.string	"int"
	.uleb128 0x1
	.byte	0x8
	.byte	0x5
	.long	.LASF5
	.uleb128 0x1
	.byte	0x10
	.byte	0x4
	.long	.LASF6
	.uleb128 0x1
	.byte	0x1
	.byte	0x6
	.long	.LASF7
	.uleb128 0x1
	.byte	0x2
	.byte	0x5
	.long	.LASF8
	.uleb128 0x1
	.byte	0x1
	.byte	0x8
	.long	.LASF9
	.uleb128 0x1
	.byte	0x2
	.byte	0x7
	.long	.LASF10
	.uleb128 0x1
	.byte	0x8
	.byte	0x7
	.long	.LASF11
	.uleb128 0x1
	.byte	0x1
	.byte	0x6
	.long	.LASF12
	.uleb128 0x1
	.byte	0x1
	.byte	0x2
	.long	.LASF13
	.uleb128 0x5
	.long	.LASF21
	.byte	0x7
	.byte	0x4
	.long	0x35
	.byte	0x2
	.byte	0xd
	.byte	0x6
	.long	0xc0
	.uleb128 0x2
	.long	.LASF14
	.byte	0x1
	.uleb128 0x2
	.long	.LASF15
	.byte	0x4
	.uleb128 0x2
	.long	.LASF16
	.byte	0x5
	.uleb128 0x2
	.long	.LASF17
	.byte	0xb
	.uleb128 0x2
	.long	.LASF18
	.byte	0xc
	.uleb128 0x2
	.long	.LASF19
	.byte	0xd
	.byte	0
	.uleb128 0x6
	.long	.LASF22
	.byte	0x1
	.byte	0xf
	.byte	0x6
	.quad	.LFB63
	.quad	.LFE63-.LFB63
	.uleb128 0x1
	.byte	0x9c
	.byte	0
	.section	.debug_abbrev,"",@progbits
.Ldebug_abbrev0:
	.uleb128 0x1
	.uleb128 0x24
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x3e
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0xe
	.byte	0
	.byte	0
	.uleb128 0x2
	.uleb128 0x28
	.byte	0
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x1c
	.uleb128 0xb
	.byte	0
	.byte	0
	.uleb128 0x3
	.uleb128 0x11
	.byte	0x1
	.uleb128 0x25
	.uleb128 0xe
	.uleb128 0x13
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0x1f
	.uleb128 0x1b
	.uleb128 0x1f
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x10
	.uleb128 0x17
	.byte	0
	.byte	0
	.uleb128 0x4
	.uleb128 0x24
	.byte	0
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x3e
	.uleb128 0xb
	.uleb128 0x3
	.uleb128 0x8
	.byte	0
	.byte	0
	.uleb128 0x5
	.uleb128 0x4
	.byte	0x1
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3e
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0xb
	.uleb128 0x49
	.uleb128 0x13
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x1
	.uleb128 0x13
	.byte	0
	.byte	0
	.uleb128 0x6
	.uleb128 0x2e
	.byte	0
	.uleb128 0x3f
	.uleb128 0x19
	.uleb128 0x3
	.uleb128 0xe
	.uleb128 0x3a
	.uleb128 0xb
	.uleb128 0x3b
	.uleb128 0xb
	.uleb128 0x39
	.uleb128 0xb
	.uleb128 0x27
	.uleb128 0x19
	.uleb128 0x11
	.uleb128 0x1
	.uleb128 0x12
	.uleb128 0x7
	.uleb128 0x40
	.uleb128 0x18
	.uleb128 0x7a
	.uleb128 0x19
	.byte	0
	.byte	0
	.byte	0
	.section	.debug_aranges,"",@progbits
	.long	0x2c
	.value	0x2
	.long	.Ldebug_info0
	.byte	0x8
	.byte	0
	.value	0
	.value	0
	.quad	.Ltext0
	.quad	.Letext0-.Ltext0
	.quad	0
	.quad	0
	.section	.debug_line,"",@progbits
.Ldebug_line0:
	.section	.debug_str,"MS",@progbits,1
.LASF5:
	.string	"long long int"
.LASF3:
	.string	"unsigned int"
.LASF22:
	.string	"asm_offsets"
.LASF17:
	.string	"TRACE_GRAPH_RET"
.LASF2:
	.string	"long unsigned int"
.LASF11:
	.string	"long long unsigned int"
.LASF18:
	.string	"TRACE_GRAPH_ENT"
.LASF9:
	.string	"unsigned char"
.LASF12:
	.string	"char"
.LASF15:
	.string	"TRACE_STACK"
.LASF4:
	.string	"long int"
.LASF8:
	.string	"short int"
.LASF14:
	.string	"TRACE_FN"
.LASF13:
	.string	"_Bool"
.LASF16:
	.string	"TRACE_PRINT"
.LASF19:
	.string	"TRACE_USER_STACK"
.LASF10:
	.string	"short unsigned int"
.LASF7:
	.string	"signed char"
.LASF20:
	.ascii	"GNU C11 12.2.0 -mcmodel="
	.string	"kernel -mno-red-zone -mno-sse -mno-mmx -mgeneral-regs-only -mno-omit-leaf-frame-pointer -mtune=generic -march=x86-64 -g -O2 -std=gnu11 -ffreestanding -fno-pie -fno-stack-protector -fcf-protection=none -fno-omit-frame-pointer -fno-asynchronous-unwind-tables"
.LASF6:
	.string	"long double"
.LASF21:
	.string	"trace_type"
	.section	.debug_line_str,"MS",@progbits,1
.LASF1:
	.string	"/work/wt/lockdep"
.LASF0:
	.string	"arch/x86/asm-offsets.c"
	.ident	"GCC: (Debian 12.2.0-14+deb12u1) 12.2.0"
	.section	.note.GNU-stack,"",@progbits
