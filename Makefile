# Makefile: builds the kernel and its GRUB ISO images; `make run` boots it, `make test` proves it.
#
#   make            build/kernel.elf, build/kernel.asm, build/kernel.sym, build/ftrace-os.iso
#   make run        boot in QEMU (TCG), serial console on this terminal; SMP=N MEM=256M;
#                   INIT=/bin/sh: busybox's shell as the first process instead of the kernel shell
#                   CMDLINE="ftrace=function ...": more of the kernel command line (boot-time tracing)
#   make debug      same, stopped at the first instruction, waiting for gdb
#   make test       host unit tests, in-kernel self-tests, QEMU integration tests
#   make grade      score the graded exercises: CH=09 one chapter, EX=07.8 one exercise (docs/GRADING.md);
#                   SOLUTIONS=1: check the graders on every reference solution instead
#   make bench      guest instructions per traced call (QEMU -icount) -> docs/BENCHMARKS.md
#   make ftracetest Linux 6.1's own ftracetest under busybox sh in QEMU -> docs/FTRACETEST.md
#                   (FTRACETEST="test.d/00basic ..." for some cases only: no doc written)
#   make trace      record a trace in QEMU -> build/trace.dat (trace-cmd), trace.json, trace.txt; CMDS="a; b"
#   make format     clang-format the C sources
#   make fuzz       host fuzzing (libFuzzer) of the shell-facing parsers; FUZZ_TIME=60 seconds each;
#                   then the system-call fuzzer in QEMU, SYSCALL_FUZZ="SEED CHILDREN CALLS"
#   make STATIC_FTRACE=1 [all|run|test|...]   the same kernel without dynamic ftrace, in build-static/:
#                   sites stay `call __fentry__` (Linux's CONFIG_DYNAMIC_FTRACE=n; docs/02)
#   make SCALE=N [all|run|...]   the same kernel plus N generated traceable functions, in
#                   build-scaleN/ (the `scale` workload calls them all; docs/02, "Scale")
#   make bench-scale  boot conversion, enabling every site, filters at N = default, 10000, 40000
#   make check      the edit-build-test loop (about 2 minutes): host unit tests, the fuzz seeds, one boot
#                   running every in-kernel self-test
#   make test-flake the suite ROUNDS times (default 5) with a second copy running beside it; every failure listed
#   make stress     the stress tests (flips and toggles under load) in their long forms (200 flips or toggles a method; make test makes 8)
#   make LEAN=1 [all|run]   the product kernel without test code, in build-lean/: no in-kernel self-tests
#                   (tests/kernel/, kernel/selftest.c: Linux's CONFIG_KUNIT) and no benches (kernel/bench/);
#                   and no lock validator (kernel/locking/lockdep*.c: Linux's CONFIG_LOCKDEP); SELFTEST=0,
#                   BENCH=0 or LOCKDEP=0 leaves out one of them. The default kernel keeps all three: the labs
#                   type `selftest`, docs/02's exercises `bench`, and make test runs under the validator

# --- What a user may override -------------------------------------------------------------
CROSS   ?=
CFLAGS  ?= -O2 -g
SMP     ?= 1
MEM     ?= 256M
QEMU    ?= qemu-system-x86_64
PYTHON  ?= /usr/bin/python3
STATIC_FTRACE ?= 0
SCALE   ?= 0
LEAN    ?= 0
ifeq ($(LEAN),1)
SELFTEST ?= 0
BENCH   ?= 0
LOCKDEP ?= 0
endif
SELFTEST ?= 1
BENCH   ?= 1
LOCKDEP ?= 1
SYSCALL_FUZZ ?= 1 400 500
INIT    ?=

CC      := $(CROSS)gcc
LD      := $(CROSS)ld
NM      := $(CROSS)nm
OBJDUMP := $(CROSS)objdump
OBJCOPY := $(CROSS)objcopy
PAHOLE  := pahole
NASM    := nasm
HOSTCC  := gcc

# --- What the kernel needs, whatever the user says ----------------------------------------
KCFLAGS := -std=gnu11 -I.
KCFLAGS += -ffreestanding -nostdinc -isystem $(shell $(CC) -print-file-name=include)  # no libc
KCFLAGS += -fno-pic -fno-pie -mcmodel=kernel  # linked at 0xffffffff80000000; direct `call rel32`
KCFLAGS += -mno-red-zone                      # interrupts push onto the stack below rsp
KCFLAGS += -mno-sse -mno-mmx -mgeneral-regs-only  # no FPU/SIMD state to save on interrupts
KCFLAGS += -fno-stack-protector -fcf-protection=none  # no canary setup, no endbr64 before fentry
KCFLAGS += -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer  # backtraces follow rbp
KCFLAGS += -fno-asynchronous-unwind-tables
KCFLAGS += -Wall -Wextra -Wno-unused-parameter
KCFLAGS += -MMD -MP                           # header dependencies
# Every function starts with `call __fentry__`, and gcc lists those sites in __mcount_loc.
FTRACE_CFLAGS := -pg -mfentry -mrecord-mcount
# ...except the code that must never be traced: the tracer itself, the patching path, the
# exception entry path (an int3 handler hitting a site being patched would never end), lib/,
# and the instruction decoder kprobes will call (kprobes' own code is never traced).
NOTRACE_SRCS := $(wildcard lib/*.c kernel/trace/*.c) arch/x86/traps.c arch/x86/idt.c \
	arch/x86/gdt.c arch/x86/paging.c arch/x86/text_poke.c arch/x86/text_poke_bp.c \
	arch/x86/text_patch.c arch/x86/ftrace.c arch/x86/ftrace_trampoline.c arch/x86/smpboot.c \
	kernel/smp.c kernel/stop_machine.c kernel/percpu.c kernel/livepatch/core.c \
	kernel/tracepoint.c arch/x86/insn.c $(wildcard arch/x86/kprobes/*.c) $(wildcard kernel/kprobes*.c) \
	kernel/kretprobes.c kernel/mm/maccess.c arch/x86/text_insn.c \
	kernel/locking/lockdep.c kernel/locking/lockdep_report.c \
	arch/x86/mm/fault.c arch/x86/mm/extable.c
# The benches of the ftrace core and the lab tools that drive it are part of the tracer too.
NOTRACE_SRCS += kernel/bench/bench_events.c kernel/bench/bench_ftrace.c \
	kernel/bench/bench_patch.c kernel/bench/bench_scale.c kernel/bench/bench_trace.c \
	kernel/lab/func_hits.c kernel/lab/site_cycle.c kernel/lab/patch_step.c kernel/lab/verify_sites.c
# Never traced, and never running the latency tracers' hooks either (kernel/irqflags.h).
NOTRACE_CFLAGS := -DTRACE_IRQFLAGS_RAW
LDFLAGS := -n -nostdlib -T linker.ld -z max-page-size=0x1000 -z noexecstack

# The one switch between the two builds: CONFIG_STATIC_FTRACE, seen by C and by nasm.
ifeq ($(STATIC_FTRACE),1)
B := build-static
KCFLAGS += -DCONFIG_STATIC_FTRACE
NASMFLAGS := -DCONFIG_STATIC_FTRACE
else ifneq ($(SCALE),0)
B := build-scale$(SCALE)
KCFLAGS += -DCONFIG_SCALE=$(SCALE)
NASMFLAGS :=
else
B := build
NASMFLAGS :=
endif
# Test code, like Linux's CONFIG_KUNIT and benchmark modules: in the kernel unless switched off, and
# then in a build directory of its own (the objects differ).
ifeq ($(SELFTEST)$(BENCH)$(LOCKDEP),000)
B := $(B)-lean
else
B := $(B)$(if $(filter 0,$(SELFTEST)),-noselftest)$(if $(filter 0,$(BENCH)),-nobench)$(if $(filter 0,$(LOCKDEP)),-nolockdep)
endif
LEFT_OUT :=
ifeq ($(SELFTEST),1)
KCFLAGS += -DCONFIG_SELFTEST
else
LEFT_OUT += kernel/selftest.c tests/kernel/%.c tests/kernel/%.asm
endif
ifeq ($(BENCH),1)
KCFLAGS += -DCONFIG_BENCH
else
LEFT_OUT += kernel/bench/%.c
endif
ifeq ($(LOCKDEP),1)
KCFLAGS += -DCONFIG_LOCKDEP
else
LEFT_OUT += kernel/locking/lockdep%.c
endif
SRCS_C   := $(filter-out arch/x86/asm-offsets.c $(LEFT_OUT),\
	$(wildcard kernel/*.c kernel/*/*.c arch/x86/*.c arch/x86/*/*.c lib/*.c tests/kernel/*.c))
SRCS_ASM := $(filter-out $(LEFT_OUT),\
	$(wildcard boot/*.asm arch/x86/*.asm arch/x86/*/*.asm tests/kernel/*.asm))
OBJS     := $(SRCS_ASM:%.asm=$(B)/%.o) $(SRCS_C:%.c=$(B)/%.o)

# SCALE=N: tools/gen-scale.py writes the functions, 1000 a file, and the table that lists them.
ifneq ($(SCALE),0)
SCALE_SRCS := $(shell seq -f '$(B)/gen/scale_%03g.c' 0 $$(( ($(SCALE) + 999) / 1000 - 1 ))) \
	$(B)/gen/scale_table.c
OBJS += $(SCALE_SRCS:.c=.o)

$(B)/gen/.stamp: tools/gen-scale.py Makefile
	$(PYTHON) tools/gen-scale.py $(SCALE) $(B)/gen
	@touch $@

$(SCALE_SRCS): $(B)/gen/.stamp ;

$(B)/gen/%.o: $(B)/gen/%.c
	$(CC) $(KCFLAGS) $(FTRACE_CFLAGS) $(CFLAGS) -c $< -o $@
endif

.PHONY: all run debug test test-kernels test-kernel-main test-kernel-static test-kernel-lean check test-flake stress grade unit fuzz bench bench-scale trace perf ftracetest soak deps docs format clean \
	iso iso-test
all: $(B)/kernel.elf $(B)/kernel.asm $(B)/kernel.sym $(B)/ftrace-os.iso $(B)/ftrace-os-test.iso \
	$(B)/ftrace-os-sh-test.iso

$(B)/%.o: %.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) $(if $(filter $<,$(NOTRACE_SRCS)),$(NOTRACE_CFLAGS),$(FTRACE_CFLAGS)) $(CFLAGS) -c $< -o $@

$(B)/kallsyms%.o: $(B)/kallsyms%.c
	$(CC) $(KCFLAGS) $(CFLAGS) -c $< -o $@

$(B)/%.o: %.asm Makefile $(B)/gen/asm-offsets.inc
	@mkdir -p $(dir $@)
	$(NASM) -f elf64 -g -F dwarf -I./ -I$(B)/gen/ $(NASMFLAGS) -MD $(@:.o=.d) -MP $< -o $@

# Structure offsets for the assembly (arch/x86/asm-offsets.c): compiled, never linked.
$(B)/gen/asm-offsets.s: arch/x86/asm-offsets.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(KCFLAGS) $(CFLAGS) -S $< -o $@

$(B)/gen/asm-offsets.inc: $(B)/gen/asm-offsets.s
	sed -n 's/.*"->\([A-Z_0-9]*\) \(.*\)".*/\1 equ \2/p' $< > $@

# --- kallsyms: link without names, generate the table, link with it, generate again, link ----
# The table sits in .rodata, before .data: the first table moves the data objects it names, the
# second (the same size) is made from a link where they already sit where they will stay.
$(B)/tools/kallsyms: tools/kallsyms.c
	@mkdir -p $(dir $@)
	$(HOSTCC) -O2 -Wall -o $@ $<

$(B)/kallsyms0.c: $(B)/tools/kallsyms
	$(B)/tools/kallsyms < /dev/null > $@

$(B)/kernel.tmp.elf: $(OBJS) $(B)/kallsyms0.o linker.ld
	$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/kallsyms0.o

# BTF as Linux's link-vmlinux.sh makes it: pahole encodes the first link's DWARF (the types do not
# depend on where the links put things), and the raw blob becomes a .BTF section in the later links,
# after .rodata (linker.ld): no function moves, and the last two links hold the same blob.
# rm first: pahole 1.24 writes over an existing file without truncating it, so a blob shorter than
# the last one kept the old tail, and the kernel's parser refused the whole (trailing bytes).
$(B)/vmlinux.btf: $(B)/kernel.tmp.elf
	rm -f $@
	$(PAHOLE) --btf_encode_detached=$@ $<

$(B)/btf.o: $(B)/vmlinux.btf
	cd $(B) && $(OBJCOPY) -I binary -O elf64-x86-64 --rename-section \
		.data=.BTF,alloc,load,readonly,data,contents vmlinux.btf btf.o

$(B)/kallsyms1.c: $(B)/kernel.tmp.elf $(B)/tools/kallsyms
	$(NM) -n -S --defined-only $< | $(B)/tools/kallsyms > $@

$(B)/kernel.tmp2.elf: $(OBJS) $(B)/kallsyms1.o $(B)/btf.o linker.ld
	$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/kallsyms1.o $(B)/btf.o

$(B)/kallsyms.c: $(B)/kernel.tmp2.elf $(B)/tools/kallsyms
	$(NM) -n -S --defined-only $< | $(B)/tools/kallsyms > $@

# The table sits in .rodata, after .text, so adding it must not move a single function; and the
# last table is the size of the one before, so no data object moves either.
$(B)/kernel.elf: $(OBJS) $(B)/kallsyms.o $(B)/btf.o linker.ld
	$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/kallsyms.o $(B)/btf.o
	@$(NM) -n $(B)/kernel.tmp.elf | grep -i ' t ' > $(B)/text.tmp.sym
	@$(NM) -n $@ | grep -i ' t ' > $(B)/text.sym
	@cmp -s $(B)/text.tmp.sym $(B)/text.sym || { echo "kallsyms: text moved between links"; rm -f $@; exit 1; }
	@$(NM) -n $(B)/kernel.tmp2.elf | grep -i ' [dbt] ' > $(B)/all.tmp.sym
	@$(NM) -n $@ | grep -i ' [dbt] ' > $(B)/all.sym
	@cmp -s $(B)/all.tmp.sym $(B)/all.sym || { echo "kallsyms: data moved between links"; rm -f $@; exit 1; }

$(B)/kernel.asm: $(B)/kernel.elf
	$(OBJDUMP) -d $< > $@

$(B)/kernel.sym: $(B)/kernel.elf
	$(NM) -n $< > $@

# --- User space: our test programs and the initramfs ----------------------------------------
# Static, no libc: each program is its .c plus tests/user/ulib.c (system calls, _start, printers).
USER_CFLAGS := -static -nostdlib -ffreestanding -fno-pie -no-pie -O2 -Wall -Wextra \
	-fno-stack-protector -fcf-protection=none -fno-builtin -Wno-unused-parameter
USER_PROGS := $(patsubst tests/user/%.c,$(B)/user/%,$(filter-out tests/user/ulib.c,$(wildcard tests/user/*.c)))
BUSYBOX ?= /bin/busybox

$(B)/user/%: tests/user/%.c tests/user/ulib.c $(wildcard tests/user/*.h) Makefile
	@mkdir -p $(dir $@)
	$(HOSTCC) $(USER_CFLAGS) -o $@ $< tests/user/ulib.c

# BPF programs built for Linux (clang -target bpf, Debian's <linux/bpf.h> and libbpf headers) and
# their loader, Debian's libbpf linked statically with glibc, libelf and zlib (docs/24-perf-events.md).
BPF_OBJS := $(patsubst tests/bpf/%.bpf.c,$(B)/bpf/%.bpf.o,$(wildcard tests/bpf/*.bpf.c))
$(B)/bpf/%.bpf.o: tests/bpf/%.bpf.c $(wildcard tests/bpf/*.h) Makefile
	@mkdir -p $(dir $@)
	clang -O2 -g -target bpf -I/usr/include/x86_64-linux-gnu -c $< -o $@
$(B)/bpf/bpfload: tests/bpf/bpfload.c Makefile
	@mkdir -p $(dir $@)
	$(HOSTCC) -O2 -Wall -static -o $@ $< -lbpf -lelf -lz

# The newc archive GRUB hands over as a module (kernel/fs/initramfs.c unpacks it at boot).
$(B)/initramfs.cpio: tools/mkinitramfs.py $(USER_PROGS) $(BPF_OBJS) $(B)/bpf/bpfload $(BUSYBOX)
	$(PYTHON) tools/mkinitramfs.py $@ --busybox $(BUSYBOX) --tests $(USER_PROGS) $(BPF_OBJS) $(B)/bpf/bpfload

# --- ISO images: the same kernel and initramfs, two command lines --------------------------
$(B)/ftrace-os.iso: $(B)/kernel.elf $(B)/initramfs.cpio iso/grub/grub.cfg tools/mkiso.sh
	tools/mkiso.sh $< "" $@ $(B)/initramfs.cpio

# TEST_INITRAMFS: another build's archive (the user programs do not depend on the kernel's options).
TEST_INITRAMFS ?= $(B)/initramfs.cpio
$(B)/ftrace-os-test.iso: $(B)/kernel.elf $(TEST_INITRAMFS) iso/grub/grub.cfg tools/mkiso.sh
	tools/mkiso.sh $< "test" $@ $(TEST_INITRAMFS)

# The test kernel with busybox's sh as init (tests/integration/test_busybox_sh.py).
$(B)/ftrace-os-sh-test.iso: $(B)/kernel.elf $(B)/initramfs.cpio iso/grub/grub.cfg tools/mkiso.sh
	tools/mkiso.sh $< "test init=/bin/sh" $@ $(B)/initramfs.cpio

iso: $(B)/ftrace-os.iso
iso-test: $(B)/ftrace-os-test.iso

# --- Running -------------------------------------------------------------------------------
# stdio is shared by the serial port and the QEMU monitor: Ctrl-A X quits, Ctrl-A C switches.
# signal=off lets Ctrl-C reach the kernel's shell instead of killing QEMU.
QEMU_ARGS := -m $(MEM) -smp $(SMP) -display none -no-reboot \
	-chardev stdio,id=con,mux=on,signal=off -serial chardev:con -mon chardev=con,mode=readline \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 -serial file:$(B)/ttyS1.bin

deps:
	@tools/deps.sh

run: deps
	@$(MAKE) --no-print-directory all
	@echo "ftrace-os: booting in QEMU (TCG). Quit: type 'poweroff', or Ctrl-A then X."
ifneq ($(INIT)$(CMDLINE),)
	tools/mkiso.sh $(B)/kernel.elf "$(if $(INIT),init=$(INIT) )$(CMDLINE)" $(B)/ftrace-os-init.iso $(B)/initramfs.cpio
	$(QEMU) $(QEMU_ARGS) -cdrom $(B)/ftrace-os-init.iso -boot d
else
	$(QEMU) $(QEMU_ARGS) -cdrom $(B)/ftrace-os.iso -boot d
endif

debug: deps
	@$(MAKE) --no-print-directory all
	@echo "QEMU waits for gdb. In another terminal:"
	@echo "  gdb $(B)/kernel.elf -ex 'target remote :1234' -ex 'break kmain' -ex continue"
	$(QEMU) $(QEMU_ARGS) -cdrom $(B)/ftrace-os.iso -boot d -s -S

# Three builds: the static one's tests (tests/integration/test_static.py) boot build-static/, the
# lean one's (tests/integration/test_lean.py) build-lean/. tools/run-tests runs independent parts
# side by side (TEST_JOBS=N at a time; default the number of CPUs, at least 2).
# make test and make check compile with as many jobs as the machine has CPUs, unless make was given -j.
BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$$(nproc))
test: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) test-kernels
	@tools/run-tests $(if $(TEST_JOBS),-j $(TEST_JOBS))

# The three kernels make test boots, built side by side under one jobserver (one link waits while the other
# builds compile), each with only what its tests use. The lean build keeps its kernel.sym (test_lean.py reads it).
# The static and lean ISOs take the main build's initramfs, once it is there: the same programs, built once
# (each build's own programs, BPF objects and archive cost about 8 CPU seconds).
test-kernels: test-kernel-main test-kernel-static test-kernel-lean
	+@$(MAKE) --no-print-directory STATIC_FTRACE=1 TEST_INITRAMFS=build/initramfs.cpio build-static/ftrace-os-test.iso
	+@$(MAKE) --no-print-directory LEAN=1 TEST_INITRAMFS=build/initramfs.cpio build-lean/ftrace-os-test.iso
test-kernel-main:
	+@$(MAKE) --no-print-directory all $(B)/ftrace-os-test.iso
test-kernel-static:
	+@$(MAKE) --no-print-directory STATIC_FTRACE=1 build-static/kernel.elf
test-kernel-lean:
	+@$(MAKE) --no-print-directory LEAN=1 build-lean/kernel.elf build-lean/kernel.sym

# What to run after each edit: no integration or docs tests, one boot.
check: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all $(B)/ftrace-os-test.iso
	@tools/run-tests $(if $(TEST_JOBS),-j $(TEST_JOBS)) tests/unit tests/fuzz/test_fuzz.py::test_fuzz_replay \
		tests/kernel/test_selftest.py

# The stress tests in their long forms (tests/serial_spec.py: stress_rounds). Never part of `make test`.
stress: deps
	@$(MAKE) --no-print-directory all $(B)/ftrace-os-test.iso
	@FTRACE_OS_STRESS=10 tools/run-tests tests/integration/test_smp.py tests/integration/test_jump_label.py \
		tests/integration/test_events.py tests/integration/test_trampolines.py -k "stress or flip or while_other"

# ROUNDS=N rounds (default 5); FLAKE_TESTS="tests/..." a subset.
test-flake: deps
	@$(PYTHON) tools/test-flake $(if $(ROUNDS),-n $(ROUNDS)) $(FLAKE_TESTS)

# The graded exercises of the chapters (tests/grade/), one score each and a total. tools/grade
# builds the kernel itself, so a tree that does not build still gets its host graders' scores.
# SOLUTIONS=1: instead, check the graders on every reference solution (make test checks those without a header).
grade: deps
ifeq ($(SOLUTIONS),1)
	@$(MAKE) --no-print-directory all
	@FTRACE_OS_ALL_SOLUTIONS=1 tools/run-tests tests/integration/test_grader.py
else
	@$(PYTHON) tools/grade $(if $(CH),--ch $(CH)) $(if $(EX),--ex $(EX))
endif

# Exact guest instruction counts (-icount), written into docs/BENCHMARKS.md. Never part of `make test`.
# It measures the kernel a user would run in production, so without the lock validator (LOCKDEP=0:
# build-nolockdep/), whose bookkeeping on every lock would be counted in every row that takes one.
bench: deps
	@$(MAKE) --no-print-directory LOCKDEP=0 all
	@$(MAKE) --no-print-directory LOCKDEP=0 STATIC_FTRACE=1 all
	@$(PYTHON) tools/bench.py

# The same, at N = default, 10000 and 40000 call sites on 1, 2, 4, 8 CPUs -> docs/BENCHMARKS-scale.md.
bench-scale: deps
	@$(PYTHON) tools/bench-scale.py

# Linux's tools/testing/selftests/ftrace from Debian's linux-source-6.1, extracted into
# build/ftracetest/ at run time, run inside the test kernel (tools/ftracetest.py). Never part of
# `make test` (tests/integration/test_ftracetest.py runs a few cases of it).
ftracetest: deps
	@$(MAKE) --no-print-directory all
	@$(PYTHON) tools/ftracetest.py $(FTRACETEST)

# Boots the test ISO, types CMDS (';'-separated; default: function_graph over `run compute all`),
# and writes build/trace.dat, build/trace.json and build/trace.txt. SMP defaults to 2 here.
# SNAPSHOT=1: from the snapshot (max) buffer instead of the live one (docs/21-latency-tracing.md).
trace: deps
	@$(MAKE) --no-print-directory all $(B)/ftrace-os-test.iso
	@$(PYTHON) tools/trace-record --smp $(if $(filter command line environment,$(origin SMP)),$(SMP),2) $(if $(SNAPSHOT),--snapshot) $(if $(CMDS),"$(CMDS)")

# Boots the test ISO, samples PERF_CMD (default: perfrecord's own workload) with call chains, and
# writes build/perf.txt, build/perf.folded and build/perf.speedscope.json (docs/24-perf-events.md).
perf: deps
	@$(MAKE) --no-print-directory all $(B)/ftrace-os-test.iso
	@$(PYTHON) tools/perf-record --smp $(or $(SMP),1) $(if $(PERF_CMD),--cmd "$(PERF_CMD)")

# Random tracing changes on a busy machine, every site checked after each step, then every site
# switched 1000 times with each patch method; writes docs/SOAK.md. Never part of `make test`.
# SOAK_MINUTES: length of the random phase; SOAK_SEED: its seed; SMP defaults to 4 here.
SOAK_MINUTES ?= 10
SOAK_SEED ?= 1
soak: deps
	@$(MAKE) --no-print-directory all $(B)/ftrace-os-test.iso
	@$(PYTHON) tools/soak.py --minutes $(SOAK_MINUTES) --seed $(SOAK_SEED) \
		--smp $(if $(filter command line environment,$(origin SMP)),$(SMP),4)

unit:
	@$(MAKE) --no-print-directory -f tests/unit/Makefile run

# Replays every console transcript in docs/*.md and writes back the outputs that no longer fit
# (tools/docs-replay; DOCS="docs/07-*.md" for some chapters, DOCS_ARGS=--all to rewrite every output).
docs: deps
	@$(MAKE) --no-print-directory all $(B)/ftrace-os-test.iso
	@$(PYTHON) tools/docs-replay $(DOCS_ARGS) $(DOCS)

# Each tests/fuzz target for FUZZ_TIME seconds (default 60); findings land in build/fuzz/crashes/.
fuzz: deps
	@$(MAKE) --no-print-directory -f tests/fuzz/Makefile run $(if $(FUZZ_TIME),FUZZ_TIME=$(FUZZ_TIME))
	@$(MAKE) --no-print-directory all
	SYSCALL_FUZZ="$(SYSCALL_FUZZ)" $(PYTHON) tools/run-tests tests/integration/test_syscall_fuzz.py

# The tree is exactly what this writes (tests/unit/test_format.py checks it, with Debian 12's clang-format 14).
format:
	clang-format -i $(SRCS_C) $(wildcard kernel/*.h kernel/*/*.h arch/x86/*.h lib/*.h) arch/x86/asm-offsets.c tools/kallsyms.c

clean:
	rm -rf $(B)

-include $(OBJS:.o=.d) $(B)/gen/asm-offsets.d $(B)/kallsyms0.d $(B)/kallsyms1.d $(B)/kallsyms.d
