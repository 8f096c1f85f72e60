#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-vm.sh (arm64) - run arm64 programs on KVM inside an emulated arm64 host (QEMU's virt machine
# with EL2, GICv3, CPU "max", under TCG), and bring their result files back to this host.
#
#   run-vm.sh -o OUTDIR [options] [initramfs options]
#
# Builds the initramfs with this folder's mkinitramfs.sh (or boots a prebuilt one, --initrd), boots
# Debian's arm64 kernel (KVM built in: it comes up in VHE mode with a vGICv3) under `timeout`, and
# decodes what tests/vm/guest-init.sh sends on a virtio-serial port (tests/vm/testbed-lib.sh).
set -eu

tb_prog=run-vm-arm64.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../vm/testbed-lib.sh
. "$here/../vm/testbed-lib.sh"
# shellcheck source=arm64-lib.sh
. "$here/arm64-lib.sh"

usage() {
	cat <<'USAGE'
Usage: run-vm.sh -o OUTDIR [options] [initramfs options]

  -o, --out DIR          where the results go (created; must be empty)
      --cache DIR        the unpacked arm64 kernel and busybox (default
                         $KB_ARM64_TESTBED or /var/cache/kvmbench/arm64-testbed)
      --cpu MODEL        QEMU CPU model (default $TESTBED_ARM64_CPU or max,pauth-impdef=on:
                         every feature, with QEMU's fast pointer authentication; it needs EL2 and,
                         for VHE, Armv8.1)
  -m, --mem MB           guest memory (default $TESTBED_MEM or 1024)
      --smp N            guest CPUs (default $TESTBED_SMP or 2)
      --gic 2|3          the emulated host's GIC version (default $TESTBED_GIC or 3;
                         with 2, KVM can give guests only a vGICv2, and kvmbench's
                         arm64 machine cannot run: for info's GIC detection)
      --tcg-thread MODE  single or multi: QEMU's TCG threading (default
                         $TESTBED_TCG_THREAD or multi)
  -t, --timeout SEC      wall-clock limit for the whole VM run (default
                         $TESTBED_TIMEOUT or 240); a guest still running then is
                         killed and the run fails
      --initrd FILE      boot this initramfs instead of building one
      --append STRING    extra kernel command-line words
      --disk FILE        attach the raw image FILE as a virtio block device (/dev/vda in
                         the guest; load virtio_blk with --module); the guest writes to it
      --net-user         a virtio network device on QEMU's user-mode network (guest
                         10.0.2.15/24, gateway 10.0.2.2, DNS 10.0.2.3; load virtio_net);
                         by default the guest has no network
  -v, --verbose          copy the guest console to stderr while it runs
  -h, --help             this text

Initramfs options (passed to mkinitramfs.sh, see its --help):
  -p, --program FILE   --lib-dir DIR   --file SRC:DEST   --module NAME
  --command-file FILE  --guest-timeout SEC

OUTDIR/_testbed/ gets testbed.env (guest facts and timings), host.env (wall
time, QEMU status, result), command.log, console.log, qemu.log, dmesg.txt,
modules.txt, build-info.txt, cpuinfo.txt.

Exit status: 0 the command ran and exited 0; 1 it exited non-zero;
2 usage error or missing host tool; 3 the VM failed (timeout, panic, QEMU
error, results missing or corrupt); 4 a kernel module failed to load.
USAGE
}

outdir=""
cache=$(tb_arm64_cache)
cpu=${TESTBED_ARM64_CPU:-max,pauth-impdef=on}
mem=${TESTBED_MEM:-1024}
smp=${TESTBED_SMP:-2}
gic=${TESTBED_GIC:-3}
tcg_thread=${TESTBED_TCG_THREAD:-multi}
limit=${TESTBED_TIMEOUT:-240}
initrd=""
append=""
disk=""
net=(-nic none)
verbose=0
build_args=()

while [ "$#" -gt 0 ]; do
	case $1 in
	-o | --out) tb_need_arg "$@"; outdir=$2; shift 2 ;;
	--cache) tb_need_arg "$@"; cache=$2; shift 2 ;;
	--cpu) tb_need_arg "$@"; cpu=$2; shift 2 ;;
	-m | --mem) tb_need_arg "$@"; mem=$2; shift 2 ;;
	--smp) tb_need_arg "$@"; smp=$2; shift 2 ;;
	--gic) tb_need_arg "$@"; gic=$2; shift 2 ;;
	--tcg-thread) tb_need_arg "$@"; tcg_thread=$2; shift 2 ;;
	-t | --timeout) tb_need_arg "$@"; limit=$2; shift 2 ;;
	--initrd) tb_need_arg "$@"; initrd=$2; shift 2 ;;
	--append) tb_need_arg "$@"; append=$2; shift 2 ;;
	--disk) tb_need_arg "$@"; disk=$2; shift 2 ;;
	--net-user) net=(-netdev "user,id=kbnet" -device "virtio-net-device,netdev=kbnet"); shift ;;
	-v | --verbose) verbose=1; shift ;;
	-p | --program | --lib-dir | --file | --module | --command-file | --guest-timeout)
		tb_need_arg "$@"; build_args+=("$1" "$2"); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) tb_die "unknown argument '$1' (see --help)" ;;
	esac
done

[ -n "$outdir" ] || tb_die "no output directory given (-o OUTDIR)"
for v in mem smp limit; do
	case ${!v} in '' | *[!0-9]* | 0) tb_die "--${v/limit/timeout} wants a positive whole number, not '${!v}'" ;; esac
done
case $tcg_thread in single | multi) ;; *) tb_die "--tcg-thread: single or multi, not '$tcg_thread'" ;; esac
case $gic in 2 | 3) ;; *) tb_die "--gic: 2 or 3, not '$gic'" ;; esac
case $cpu in '' | *[!A-Za-z0-9._,+=-]*) tb_die "bad CPU model '$cpu'" ;; esac
if [ -n "$initrd" ] && [ "${#build_args[@]}" -gt 0 ]; then
	tb_die "--initrd cannot be combined with initramfs options (${build_args[0]})"
fi
tb_need_cmd qemu-system-aarch64 qemu-system-arm
tb_need_cmd timeout coreutils
tb_need_cmd base64 coreutils
tb_need_cmd sha256sum coreutils
tb_arm64_cache_ok "$cache" || tb_die "$tb_arm64_cache_why"
kernel=$(tb_arm64_vmlinuz "$cache")
[ -z "$initrd" ] || [ -r "$initrd" ] || tb_die "initramfs '$initrd' not found or not readable"
disk_args=()
if [ -n "$disk" ]; then
	if [ ! -f "$disk" ] || [ ! -w "$disk" ]; then tb_die "disk image '$disk' not found or not writable"; fi
	case $disk in *,*) tb_die "disk image '$disk': QEMU cannot take a ',' in a file name here" ;; esac
	disk_args=(-drive "file=$disk,format=raw,if=none,id=kbdisk" -device "virtio-blk-device,drive=kbdisk")
fi
tb_run_setup run-vm-arm64 "$outdir" "$here/mkinitramfs.sh" --cache "$cache" "${build_args[@]+"${build_args[@]}"}"
# A virtio-serial port (/dev/vport0p1 in the guest) carries the results, the PL011 (ttyAMA0) the kernel's
# console: both a console and the PL011 move 16 bytes or fewer an exit, far too slow under TCG.
machine=virt,virtualization=on,gic-version=$gic
qemu_cmd=(qemu-system-aarch64 -M "$machine" -accel "tcg,thread=$tcg_thread"
	-cpu "$cpu" -m "$mem" -smp "$smp" -display none -no-reboot "${net[@]}" -monitor none
	"${disk_args[@]+"${disk_args[@]}"}"
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyAMA0 panic=-1 quiet kvmtb.token=$token${append:+ $append}"
	-serial "file:$console"
	-device virtio-serial-device -chardev "file,id=kbres,path=$results" -device "virtserialport,chardev=kbres,name=kvmtb")

printf '%s: booting %s (%s MiB, %s CPUs, TCG %s, timeout %s s)\n' "$tb_prog" "$(basename "$kernel")" \
	"$mem" "$smp" "$tcg_thread" "$limit" >&2
t0=$(tb_now)
timeout --kill-after=10 "$limit" "${qemu_cmd[@]}" </dev/null >"$work/qemu.stdout" 2>"$work/qemu.stderr" &
qpid=$!
if [ "$verbose" = 1 ]; then
	tail -n +1 -f --pid="$qpid" "$console" >&2 &
	tpid=$!
fi
qemu_status=0
wait "$qpid" || qemu_status=$?
qpid=""
t1=$(tb_now)
if [ -n "$tpid" ]; then
	wait "$tpid" 2>/dev/null || true
	tpid=""
fi
wall=$(tb_elapsed "$t0" "$t1")

tr -d '\r' <"$console" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' >"$meta/console.log"
cat "$work/qemu.stdout" "$work/qemu.stderr" >"$work/qemu.log"
[ ! -s "$work/qemu.log" ] || cp "$work/qemu.log" "$meta/qemu.log"

tb_decode_results "$work" "$token" "$results" "$console" "$outdir"

tb_run_verdict
{
	echo "machine=$machine cpu=$cpu"
	echo "kernel=$kernel"
	echo "qemu_version=$(qemu-system-aarch64 --version | head -n 1)"
	echo "mem_mib=$mem"
	echo "smp=$smp"
	echo "tcg_thread=$tcg_thread"
	echo "timeout_s=$limit"
	echo "token=$token"
	echo "wall_s=$wall"
	echo "qemu_status=$qemu_status"
	echo "channel=$channel"
	echo "files=$nfiles"
	echo "command_status=$command_status"
	echo "result=$result"
	echo "failure=$failure"
} >"$meta/host.env"

if [ "$result" = 3 ]; then
	printf '%s: FAILED after %s s: %s\n' "$tb_prog" "$wall" "$failure" >&2
	[ ! -s "$work/qemu.log" ] || { printf '%s: QEMU said:\n' "$tb_prog" >&2; tail -n 5 "$work/qemu.log" >&2; }
	printf '%s: last console lines:\n' "$tb_prog" >&2
	tail -n 15 "$meta/console.log" >&2
	exit 3
fi
[ -z "$failure" ] || printf '%s: %s\n' "$tb_prog" "$failure" >&2
printf '%s: wall %s s (init at %s s, command %s-%s s); /dev/kvm=%s; command status %s; %s files in %s\n' \
	"$tb_prog" "$wall" "$(tb_genv t_init)" "$(tb_genv t_command_start)" "$(tb_genv t_command_end)" \
	"$(tb_genv dev_kvm)" "$command_status" "$nfiles" "$outdir"
exit "$result"
