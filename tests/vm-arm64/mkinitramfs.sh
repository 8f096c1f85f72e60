#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mkinitramfs.sh (arm64) - build the initramfs (cpio.gz) of the arm64 KVM testbed.
#
# The image holds Debian's arm64 busybox-static, the given arm64 programs with
# their shared libraries and loader (found from their ELF NEEDED entries in the
# arm64 library directories, since ldd cannot run an arm64 program here), the
# kernel's virtio_mmio and virtio_console modules (the results go back on a
# virtio-serial port, /dev/vport0p1: KVM is built in, CONFIG_KVM=y), and tests/vm's /init
# (guest-init.sh), shared with the x86 SVM testbed.
#
# Usage: mkinitramfs.sh -o OUT.cpio.gz [options]     (see --help)
set -eu

tb_prog=mkinitramfs-arm64.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../vm/testbed-lib.sh
. "$here/../vm/testbed-lib.sh"
# shellcheck source=arm64-lib.sh
. "$here/arm64-lib.sh"

usage() {
	cat <<'USAGE'
Usage: mkinitramfs.sh -o OUT.cpio.gz [options]

  -o, --output FILE        initramfs to write (gzip-compressed newc cpio)
      --cache DIR          the unpacked arm64 kernel and busybox (default
                           $KB_ARM64_TESTBED or /var/cache/kvmbench/arm64-testbed,
                           filled by scripts/deps.sh)
  -p, --program FILE       copy the arm64 program FILE to /usr/local/bin/ with its
                           shared libraries and loader (repeatable)
      --lib-dir DIR        also look for shared libraries in DIR (repeatable;
                           /lib/aarch64-linux-gnu and /usr/lib/aarch64-linux-gnu
                           always)
      --file SRC:DEST      copy SRC to absolute path DEST in the guest (repeatable)
      --module NAME        load module NAME too (after virtio_mmio virtio_console)
      --command-file FILE  shell script run in the guest (busybox sh, cwd and
                           $TESTBED_OUT = /out; files left there come back)
      --guest-timeout SEC  kill the command after SEC seconds inside the guest
  -h, --help               this text
USAGE
}

output=""
cache=$(tb_arm64_cache)
programs=()
libdirs=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
extra_files=()
modules=(virtio_mmio virtio_console)
command_file=""
guest_timeout=0

while [ "$#" -gt 0 ]; do
	case $1 in
	-o | --output) tb_need_arg "$@"; output=$2; shift 2 ;;
	--cache) tb_need_arg "$@"; cache=$2; shift 2 ;;
	-p | --program) tb_need_arg "$@"; programs+=("$2"); shift 2 ;;
	--lib-dir) tb_need_arg "$@"; libdirs+=("$2"); shift 2 ;;
	--file) tb_need_arg "$@"; extra_files+=("$2"); shift 2 ;;
	--module) tb_need_arg "$@"; modules+=("$2"); shift 2 ;;
	--command-file) tb_need_arg "$@"; command_file=$2; shift 2 ;;
	--guest-timeout) tb_need_arg "$@"; guest_timeout=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) tb_die "unknown argument '$1' (see --help)" ;;
	esac
done

[ -n "$output" ] || tb_die "no output file given (-o OUT.cpio.gz)"
[ -d "$(dirname "$output")" ] || tb_die "directory of the output file '$output' does not exist"
case $guest_timeout in '' | *[!0-9]*) tb_die "--guest-timeout wants whole seconds, not '$guest_timeout'" ;; esac
[ -z "$command_file" ] || [ -r "$command_file" ] || tb_die "command file '$command_file' not found or not readable"
tb_need_cmd cpio cpio
tb_need_cmd gzip gzip
tb_need_cmd modinfo kmod
tb_need_cmd aarch64-linux-gnu-readelf binutils-aarch64-linux-gnu
tb_arm64_cache_ok "$cache" || tb_die "$tb_arm64_cache_why"
busybox=$cache/busybox/bin/busybox
moddir=$(tb_arm64_moddir "$cache")

work=$(mktemp -d "${TMPDIR:-/tmp}/mkinitramfs-arm64.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP
root=$work/root
mkdir -p "$root"/usr/{bin,sbin,lib,local/bin} "$root"/{dev,proc,sys,tmp,run,out,testbed,etc}
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
mkdir -p "$root/usr/lib/modules/testbed" "$root/usr/lib/aarch64-linux-gnu"

# find_lib NAME: the first DIR/NAME of the library directories.
find_lib() {
	local d
	for d in "${libdirs[@]}"; do
		[ -e "$d/$1" ] && { printf '%s' "$d/$1"; return 0; }
	done
	return 1
}
# copy_with_libs FILE DEST: FILE at DEST in the image, its loader at the path its PT_INTERP names and
# every library of its NEEDED entries (and theirs) in /usr/lib/aarch64-linux-gnu.
declare -A copied=()
copy_libs_of() {
	local f=$1 lib path
	for lib in $(LC_ALL=C aarch64-linux-gnu-readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -z "${copied[$lib]+x}" ] || continue
		copied[$lib]=1
		path=$(find_lib "$lib") || tb_die "arm64 shared library $lib of $f not found in ${libdirs[*]} (install its :arm64 package, scripts/deps.sh)"
		cp -L "$path" "$root/usr/lib/aarch64-linux-gnu/$lib"
		copy_libs_of "$path"
	done
}
copy_with_libs() {
	local src=$1 dest=$2 interp
	LC_ALL=C aarch64-linux-gnu-readelf -h "$src" 2>/dev/null | grep -q 'Machine:.*AArch64' ||
		tb_die "$src is not an arm64 program"
	install -D -m 0755 "$src" "$root$dest"
	interp=$(LC_ALL=C aarch64-linux-gnu-readelf -l "$src" | sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		[ -r "$interp" ] || tb_die "the loader $interp of $src is not on this host (libc6:arm64)"
		mkdir -p "$(dirname "$root$interp")"
		cp -L "$interp" "$root$interp"
	fi
	copy_libs_of "$src"
}

install -m 0755 "$busybox" "$root/usr/bin/busybox"
# The applet list of an arm64 busybox is asked of it under qemu's user-mode emulator when there is one;
# else the few this testbed's scripts use.
applets=$(qemu-aarch64-static "$busybox" --list 2>/dev/null) ||
	applets="sh mount mkdir cat cp cut sed grep awk tr wc sort find sha256sum base64 stty sleep kill timeout
		insmod poweroff dmesg uname nproc date head tail ls rm printf echo test od env"
for applet in $applets; do
	[ -e "$root/usr/bin/$applet" ] || ln -s busybox "$root/usr/bin/$applet"
done

for p in "${programs[@]+"${programs[@]}"}"; do
	[ -f "$p" ] && [ -x "$p" ] || tb_die "program '$p' not found or not executable"
	name=$(basename "$p")
	[ ! -e "$root/usr/local/bin/$name" ] || tb_die "two programs named '$name'"
	copy_with_libs "$p" "/usr/local/bin/$name"
done
for spec in "${extra_files[@]+"${extra_files[@]}"}"; do
	case $spec in *:/*) ;; *) tb_die "--file wants SRC:/ABSOLUTE/DEST, not '$spec'" ;; esac
	src=${spec%%:*}
	dest=${spec#*:}
	[ -e "$src" ] || tb_die "file '$src' (from --file) not found"
	mkdir -p "$(dirname "$root$dest")"
	cp -RL "$src" "$root$dest"
done

# Modules: each after the ones modinfo says it depends on (the package has no modules.dep).
: >"$root/testbed/modules.list"
declare -A loaded=()
add_module() {
	local m=${1//-/_} f d
	[ -z "${loaded[$m]+x}" ] || return 0
	loaded[$m]=1
	f=$(find "$moddir/kernel" -name "$m.ko" -o -name "${1}.ko" | head -n 1)
	[ -n "$f" ] || tb_die "kernel module '$1' is not in $moddir/kernel"
	for d in $(modinfo -F depends "$f" | tr ',' ' '); do add_module "$d"; done
	cp "$f" "$root/usr/lib/modules/testbed/$m.ko"
	printf '%s %s\n' "$m" "$m.ko" >>"$root/testbed/modules.list"
}
for m in "${modules[@]}"; do add_module "$m"; done

install -m 0755 "$here/../vm/guest-init.sh" "$root/init"
printf "HUGEPAGES=0\nGUEST_TIMEOUT=%s\nRESULT_PORT='/dev/vport*p1'\n" "$guest_timeout" >"$root/testbed/config"
[ -z "$command_file" ] || cp "$command_file" "$root/testbed/command.sh"
{
	echo "kernel_release=$(basename "$moddir")"
	echo "modules=$(cut -d' ' -f1 "$root/testbed/modules.list" | tr '\n' ' ')"
	for p in "${programs[@]+"${programs[@]}"}"; do
		echo "sha256_program_$(basename "$p")=$(sha256sum "$p" | cut -d' ' -f1)"
	done
} >"$root/testbed/build-info"

tb_pack_initramfs "$root" "$work/initramfs.cpio.gz"
cp "$work/initramfs.cpio.gz" "$output"
printf '%s: wrote %s (%s bytes; kernel %s; programs: %s)\n' "$tb_prog" "$output" "$(wc -c <"$output")" \
	"$(basename "$moddir")" "${programs[*]+"${programs[*]}"}" >&2
