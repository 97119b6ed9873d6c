#!/bin/sh
# Makes a bootable GRUB (multiboot2) ISO: mkiso.sh KERNEL.elf "COMMAND LINE" OUT.iso INITRAMFS.cpio
set -e
kernel=$1 cmdline=$2 out=$3 initramfs=$4
dir=$(mktemp -d "${out%.iso}.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/boot/grub"
# Without its DWARF: GRUB reads every section of the file into memory (multiboot2's ELF-sections tag), and the
# kernel never uses them (build/*/kernel.elf keeps them, for gdb and the docs): 4 of its 6 MB, and a boot to the
# prompt cost QEMU 0.9 to 1.3 CPU seconds instead of 1.2 to 1.9 without them.
objcopy --strip-debug "$kernel" "$dir/boot/kernel.elf"
cp "$initramfs" "$dir/boot/initramfs.cpio"
sed "s|@CMDLINE@|$cmdline|" "$(dirname "$0")/../iso/grub/grub.cfg" > "$dir/boot/grub/grub.cfg"
grub-mkrescue -o "$out" "$dir" > "$dir.log" 2>&1 || { cat "$dir.log"; rm -f "$dir.log"; exit 1; }
rm -f "$dir.log"
