#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# mkinitramfs.sh - build the initramfs (cpio.gz) of the kvmbench KVM testbed.
#
# The image holds busybox-static, the given programs with their shared
# libraries and dynamic loader (found with ldd), the Debian kernel's kvm
# modules (irqbypass kvm ccp kvm-amd and whatever modules.dep says they need),
# optional replacement .ko files, and /init (guest-init.sh) which loads the
# modules, reserves huge pages, runs the command script and sends everything
# it leaves in $TESTBED_OUT back to the host on the serial port.
#
# Usage: mkinitramfs.sh -o OUT.cpio.gz [options]     (see --help)
set -eu

tb_prog=mkinitramfs.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed-lib.sh
. "$here/testbed-lib.sh"

usage() {
	cat <<'USAGE'
Usage: mkinitramfs.sh -o OUT.cpio.gz [options]

  -o, --output FILE          initramfs to write (gzip-compressed newc cpio)
  -k, --kernel VMLINUZ       kernel image whose modules to use (its release is
                             taken from the name vmlinuz-RELEASE); default: the
                             newest /boot/vmlinuz-6.1.0-*-amd64
      --kernel-release REL   use /lib/modules/REL instead of deriving it
      --modules-dir DIR      module tree (default /lib/modules/RELEASE)
  -p, --program FILE         copy FILE to /usr/local/bin/ with its shared
                             libraries and loader (repeatable)
      --file SRC:DEST        copy SRC (file or directory) to absolute path DEST
                             in the guest (repeatable)
      --module NAME          load module NAME (and its dependencies) after the
                             default set irqbypass kvm ccp kvm-amd (repeatable)
      --replace-module FILE  use FILE (e.g. a patched kvm.ko or kvm-amd.ko)
                             instead of the module of the same name (repeatable)
      --param MOD.PARAM=VAL  module parameter given to insmod, e.g.
                             kvm.nx_huge_pages=force (repeatable)
      --hugepages N          reserve N huge pages (vm.nr_hugepages) before
                             running the command
  -c, --command STRING       shell command run in the guest (by busybox sh,
                             cwd and $TESTBED_OUT = /out)
      --command-file FILE    same, but the script is read from FILE
      --guest-timeout SEC    kill the command after SEC seconds inside the guest
                             (the results are still sent back)
  -h, --help                 this text

Files the command writes under $TESTBED_OUT come back to the host
(run-vm.sh decodes them).  Programs that dlopen() libraries at run time need
those passed with --file.
USAGE
}

output=""
kernel=""
krel=""
moddir=""
programs=()
extra_files=()
extra_modules=()
replacements=()
params=()
hugepages=0
command_string=""
command_file=""
have_command=0
guest_timeout=0


while [ "$#" -gt 0 ]; do
	case $1 in
	-o | --output) tb_need_arg "$@"; output=$2; shift 2 ;;
	-k | --kernel) tb_need_arg "$@"; kernel=$2; shift 2 ;;
	--kernel-release) tb_need_arg "$@"; krel=$2; shift 2 ;;
	--modules-dir) tb_need_arg "$@"; moddir=$2; shift 2 ;;
	-p | --program) tb_need_arg "$@"; programs+=("$2"); shift 2 ;;
	--file) tb_need_arg "$@"; extra_files+=("$2"); shift 2 ;;
	--module) tb_need_arg "$@"; extra_modules+=("$2"); shift 2 ;;
	--replace-module) tb_need_arg "$@"; replacements+=("$2"); shift 2 ;;
	--param) tb_need_arg "$@"; params+=("$2"); shift 2 ;;
	--hugepages) tb_need_arg "$@"; hugepages=$2; shift 2 ;;
	-c | --command) tb_need_arg "$@"; command_string=$2; have_command=$((have_command + 1)); shift 2 ;;
	--command-file) tb_need_arg "$@"; command_file=$2; have_command=$((have_command + 1)); shift 2 ;;
	--guest-timeout) tb_need_arg "$@"; guest_timeout=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) tb_die "unknown argument '$1' (see --help)" ;;
	esac
done

[ -n "$output" ] || tb_die "no output file given (-o OUT.cpio.gz)"
[ -d "$(dirname "$output")" ] || tb_die "directory of the output file '$output' does not exist"
[ "$have_command" -le 1 ] || tb_die "give at most one of --command and --command-file"
case $hugepages in '' | *[!0-9]*) tb_die "--hugepages wants a number, not '$hugepages'" ;; esac
case $guest_timeout in '' | *[!0-9]*) tb_die "--guest-timeout wants whole seconds, not '$guest_timeout'" ;; esac
if [ -n "$command_file" ] && [ ! -r "$command_file" ]; then
	tb_die "command file '$command_file' not found or not readable"
fi

tb_need_cmd busybox busybox-static
tb_need_cmd cpio cpio
tb_need_cmd gzip gzip
tb_need_cmd ldd libc-bin
tb_need_cmd modinfo kmod
tb_need_cmd sha256sum coreutils

# --- kernel release and module tree ------------------------------------------
if [ -z "$krel" ]; then
	if [ -z "$kernel" ]; then
		kernel=$(tb_default_kernel)
		[ -n "$kernel" ] || tb_die "no Debian $(tb_kernel_series) kernel image /boot/vmlinuz-$(tb_kernel_series).*-amd64 (TESTBED_KERNEL_SERIES); install one with: apt-get install -y --no-install-recommends $(tb_kernel_package "$(tb_kernel_series)")"
	fi
	krel=$(tb_kernel_release "$kernel") ||
		tb_die "cannot tell the kernel release from the name '$kernel' (want vmlinuz-RELEASE); give --kernel-release"
fi
moddir=${moddir:-/lib/modules/$krel}
[ -r "$moddir/modules.dep" ] ||
	tb_die "no $moddir/modules.dep: the modules of kernel $krel are missing; install them with: apt-get install -y --no-install-recommends linux-image-$krel"

work=$(mktemp -d "${TMPDIR:-/tmp}/mkinitramfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM HUP
root=$work/root

# Merged-/usr layout like Debian 12, so library paths printed by ldd
# (/lib/..., /lib64/..., /usr/lib/...) all land in the same place.
mkdir -p "$root"/usr/{bin,sbin,lib,lib64,local/bin} "$root"/{dev,proc,sys,tmp,run,out,testbed,etc}
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
mkdir -p "$root/usr/lib/modules/testbed"

# copy_with_libs FILE DEST: copy FILE to DEST (path inside the image) and every
# shared library and the loader that ldd lists for it, at the paths ldd shows.
copy_with_libs() {
	local src=$1 dest=$2 out line lib
	install -D -m 0755 "$src" "$root$dest"
	if ! out=$(LC_ALL=C ldd "$src" 2>&1); then
		case $out in
		*"not a dynamic executable"* | *"statically linked"*) return 0 ;;
		*) tb_die "ldd failed on $src: $out" ;;
		esac
	fi
	while IFS= read -r line; do
		case $line in
		*"=> not found"*)
			tb_die "shared library ${line%% =>*} of $src not found on this host (install the package that provides it)" ;;
		*"statically linked"*) continue ;;
		*"=> /"*) lib=${line#*=> }; lib=${lib%% (*} ;;
		[[:space:]]/*) lib=${line#"${line%%/*}"}; lib=${lib%% (*} ;;
		*) continue ;; # linux-vdso.so.1 and the like
		esac
		[ -e "$root$lib" ] && continue
		[ -r "$lib" ] || tb_die "ldd lists $lib for $src but it is not readable"
		mkdir -p "$(dirname "$root$lib")"
		cp -L "$lib" "$root$lib"
	done <<<"$out"
}

# --- busybox -----------------------------------------------------------------
bb=$(command -v busybox)
copy_with_libs "$bb" /usr/bin/busybox
for applet in $(busybox --list); do
	[ -e "$root/usr/bin/$applet" ] || ln -s busybox "$root/usr/bin/$applet"
done

# --- programs and files ------------------------------------------------------
for p in "${programs[@]+"${programs[@]}"}"; do
	[ -f "$p" ] || tb_die "program '$p' not found"
	[ -x "$p" ] || tb_die "program '$p' is not executable"
	name=$(basename "$p")
	[ ! -e "$root/usr/local/bin/$name" ] || tb_die "two programs named '$name'"
	copy_with_libs "$p" "/usr/local/bin/$name"
done
for spec in "${extra_files[@]+"${extra_files[@]}"}"; do
	src=${spec%%:*}
	dest=${spec#*:}
	case $spec in *:/*) ;; *) tb_die "--file wants SRC:/ABSOLUTE/DEST, not '$spec'" ;; esac
	[ -e "$src" ] || tb_die "file '$src' (from --file) not found"
	mkdir -p "$(dirname "$root$dest")"
	cp -RL "$src" "$root$dest"
done

# --- kernel modules ----------------------------------------------------------
# Module names are compared with '-' folded to '_', as the kernel does.
# modname PATH: sets $mod to the module name of a .ko[.xz|.zst|.gz] path
# (no subshell: modules.dep has thousands of lines).
modname() {
	mod=${1##*/}
	mod=${mod%%.ko*}
	mod=${mod//-/_}
}
norm() { printf '%s' "${1//-/_}"; }

declare -A mod_path=() mod_deps=() repl=() mod_params=() visited=()
while IFS=: read -r path deplist; do
	modname "$path"
	name=$mod
	mod_path[$name]=$path
	deps=""
	for d in $deplist; do
		modname "$d"
		deps="$deps $mod"
	done
	mod_deps[$name]=$deps
done <"$moddir/modules.dep"

for f in "${replacements[@]+"${replacements[@]}"}"; do
	[ -r "$f" ] || tb_die "replacement module '$f' not found"
	name=$(modinfo -F name "$f" 2>/dev/null) || true
	if [ -z "$name" ]; then
		name=$(basename "$f")
		name=${name%%.ko*}
	fi
	name=$(norm "$name")
	vermagic=$(modinfo -F vermagic "$f" 2>/dev/null) || true
	vermagic=${vermagic%% *}
	[ "$vermagic" = "$krel" ] ||
		tb_die "replacement module $f was built for '${vermagic:-unknown}', not for kernel $krel (build it with KERNELRELEASE=$krel)"
	repl[$name]=$f
	# A replacement may need other modules than the stock one.
	deps=""
	IFS=, read -r -a dlist <<<"$(modinfo -F depends "$f" 2>/dev/null || true)"
	for d in "${dlist[@]+"${dlist[@]}"}"; do
		[ -n "$d" ] && deps="$deps $(norm "$d")"
	done
	mod_deps[$name]=$deps
done

# Load order: dependencies first (depth-first), each module once.
order=()
add_module() {
	local m d
	m=$(norm "$1")
	[ -z "${visited[$m]+x}" ] || return 0
	visited[$m]=1
	[ -n "${mod_path[$m]+x}" ] || [ -n "${repl[$m]+x}" ] ||
		tb_die "kernel module '$1' is not in $moddir/modules.dep"
	for d in ${mod_deps[$m]:-}; do
		add_module "$d"
	done
	order+=("$m")
}
for m in irqbypass kvm ccp kvm-amd "${extra_modules[@]+"${extra_modules[@]}"}"; do
	add_module "$m"
done
for r in "${!repl[@]}"; do
	[ -n "${visited[$r]+x}" ] || tb_die "replacement module '$r' (${repl[$r]}) is not one of the modules loaded: ${order[*]}"
done

for spec in "${params[@]+"${params[@]}"}"; do
	case $spec in
	*[!A-Za-z0-9_.,:=+-]* | *=*=* | .* | *.=* | =* | *=) bad=1 ;;
	*.*=*) bad=0 ;;
	*) bad=1 ;;
	esac
	[ "$bad" = 0 ] || tb_die "--param wants MODULE.PARAM=VALUE (no spaces or quotes), not '$spec'"
	m=$(norm "${spec%%.*}")
	[ -n "${visited[$m]+x}" ] || tb_die "--param $spec: module '$m' is not loaded (loaded: ${order[*]})"
	mod_params[$m]="${mod_params[$m]:-} ${spec#*.}"
done

: >"$root/testbed/modules.list"
for m in "${order[@]}"; do
	if [ -n "${repl[$m]+x}" ]; then
		src=${repl[$m]}
	else
		src=$moddir/${mod_path[$m]}
	fi
	dst=$root/usr/lib/modules/testbed/$m.ko
	case $src in
	*.ko) cp "$src" "$dst" ;;
	*.ko.xz) tb_need_cmd xz xz-utils; xz -dc "$src" >"$dst" ;;
	*.ko.zst) tb_need_cmd zstd zstd; zstd -qdc "$src" >"$dst" ;;
	*.ko.gz) gzip -dc "$src" >"$dst" ;;
	*) tb_die "do not know how to use module file '$src'" ;;
	esac
	printf '%s %s%s\n' "$m" "$m.ko" "${mod_params[$m]:-}" >>"$root/testbed/modules.list"
done

# --- init, configuration, command ----------------------------------------------
install -m 0755 "$here/guest-init.sh" "$root/init"
printf 'HUGEPAGES=%s\nGUEST_TIMEOUT=%s\n' "$hugepages" "$guest_timeout" >"$root/testbed/config"
if [ -n "$command_file" ]; then
	cp "$command_file" "$root/testbed/command.sh"
elif [ "$have_command" = 1 ]; then
	printf '%s\n' "$command_string" >"$root/testbed/command.sh"
fi
{
	echo "kernel_release=$krel"
	echo "modules=${order[*]}"
	echo "replaced=${!repl[*]}"
	for m in "${order[@]}"; do
		echo "sha256_$m=$(sha256sum "$root/usr/lib/modules/testbed/$m.ko" | cut -d' ' -f1)"
	done
	for p in "${programs[@]+"${programs[@]}"}"; do
		echo "sha256_program_$(basename "$p")=$(sha256sum "$p" | cut -d' ' -f1)"
	done
} >"$root/testbed/build-info"

# --- archive -------------------------------------------------------------------
tb_pack_initramfs "$root" "$work/initramfs.cpio.gz"
cp "$work/initramfs.cpio.gz" "$output"
printf '%s: wrote %s (%s bytes; kernel %s; modules: %s%s)\n' "$tb_prog" "$output" \
	"$(wc -c <"$output")" "$krel" "${order[*]}" \
	"${replacements[0]+; replaced: ${!repl[*]}}" >&2
