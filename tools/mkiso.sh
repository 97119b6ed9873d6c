#!/bin/sh
# Makes a bootable GRUB (multiboot2) ISO: mkiso.sh KERNEL.elf "COMMAND LINE" OUT.iso INITRAMFS.cpio
set -e
kernel=$1 cmdline=$2 out=$3 initramfs=$4
dir=$(mktemp -d "${out%.iso}.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/boot/grub"
cp "$kernel" "$dir/boot/kernel.elf"
cp "$initramfs" "$dir/boot/initramfs.cpio"
sed "s|@CMDLINE@|$cmdline|" "$(dirname "$0")/../iso/grub/grub.cfg" > "$dir/boot/grub/grub.cfg"
grub-mkrescue -o "$out" "$dir" > "$dir.log" 2>&1 || { cat "$dir.log"; rm -f "$dir.log"; exit 1; }
rm -f "$dir.log"
