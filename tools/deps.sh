#!/bin/sh
# Installs the Debian packages the build, `make run` and `make test` need, only those missing.
# As root it runs apt-get itself; otherwise it prints the exact command and fails.
set -e

need=""
want() { # want PACKAGE CHECK-COMMAND...
	pkg=$1; shift
	"$@" >/dev/null 2>&1 || need="$need $pkg"
}

want nasm            command -v nasm
want grub-pc-bin     test -d /usr/lib/grub/i386-pc
want grub-common     command -v grub-mkrescue
want xorriso         command -v xorriso
want mtools          command -v mformat
want qemu-system-x86 command -v qemu-system-x86_64
want python3-pytest  /usr/bin/python3 -c 'import pytest'
want gcc             command -v gcc
want make            command -v make
want binutils        command -v objdump
want clang           command -v clang       # tests/fuzz: libFuzzer targets (-fsanitize=fuzzer)
want libclang-rt-14-dev sh -c 'ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a'  # libFuzzer itself
want clang-format    sh -c 'clang-format --version | grep -q "version 14\."'  # the tree is as Debian 12's clang-format 14 writes it
want busybox-static  sh -c 'dpkg-query -W -f="\${Status}" busybox-static | grep -q "ok installed"'  # the initramfs's /bin/busybox
want trace-cmd       command -v trace-cmd   # tools/trace-record's files are checked with `trace-cmd report`
want linux-source-6.1 test -f /usr/src/linux-source-6.1.tar.xz  # make ftracetest: Linux's tools/testing/selftests/ftrace
want grub-efi-amd64-bin test -d /usr/lib/grub/x86_64-efi  # grub-mkrescue makes the ISOs hybrid: UEFI too
want ovmf            test -f /usr/share/OVMF/OVMF_CODE.fd  # UEFI firmware for QEMU (tests/integration/test_uefi.py)
want bochs           command -v bochs       # a second emulator (tests/integration/test_bochs.py)
want bochsbios       test -f /usr/share/bochs/BIOS-bochs-latest
want vgabios         test -f /usr/share/vgabios/vgabios.bin
want libbpf-dev      test -e /usr/lib/x86_64-linux-gnu/libbpf.a   # tests/bpf/bpfload: libbpf, linked statically
want libelf-dev      test -e /usr/lib/x86_64-linux-gnu/libelf.a   # ... with libelf
want zlib1g-dev      test -e /usr/lib/x86_64-linux-gnu/libz.a     # ... and zlib
want dwarves         command -v pahole      # the kernel's BTF from its DWARF (/sys/kernel/btf/vmlinux)

[ -z "$need" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "missing packages:$need" >&2
	echo "run as root: apt-get update && apt-get install -y$need" >&2
	exit 1
fi
echo "deps: installing$need"
export DEBIAN_FRONTEND=noninteractive
# apt's lists may be empty on a fresh machine: update once, then install.
apt-get update -qq
apt-get install -y -qq --no-install-recommends $need >/dev/null
