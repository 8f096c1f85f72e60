#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run-vm.sh - run a program on the real kvm_amd module inside QEMU software
# emulation (TCG emulating AMD SVM with nested paging), and bring its result
# files back to the host.
#
#   run-vm.sh -o OUTDIR [options] [-p PROGRAM]... [-c COMMAND]
#
# Builds an initramfs with mkinitramfs.sh (or uses a prebuilt one, --initrd),
# boots the Debian kernel under `timeout T qemu-system-x86_64 -accel tcg -cpu
# MODEL,+svm,+npt ...`, and decodes what the guest's /init sends on its second
# serial port into OUTDIR.  See --help for the options and exit statuses.
set -eu

tb_prog=run-vm.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testbed-lib.sh
. "$here/testbed-lib.sh"

usage() {
	cat <<'USAGE'
Usage: run-vm.sh -o OUTDIR [options] [initramfs options]

  -o, --out DIR          where the results go (created; must be empty)
      --cpu MODEL        QEMU CPU model, +svm,+npt are added
                         (default $TESTBED_CPU or EPYC-Milan; also EPYC-Rome, EPYC)
  -k, --kernel VMLINUZ   kernel image (default $TESTBED_KERNEL or the newest
                         /boot/vmlinuz-SERIES.*-amd64, SERIES being
                         $TESTBED_KERNEL_SERIES or 6.1; 6.12 is linux-image-6.12-amd64)
  -m, --mem MB           guest memory (default $TESTBED_MEM or 1024)
      --smp N            guest CPUs (default $TESTBED_SMP or 2)
      --tcg-thread MODE  single or multi: QEMU's TCG threading (default
                         $TESTBED_TCG_THREAD or single; see tests/vm/README.md)
  -t, --timeout SEC      wall-clock limit for the whole VM run (default
                         $TESTBED_TIMEOUT or 120); a guest still running then is
                         killed and the run fails
      --initrd FILE      boot this initramfs (made by mkinitramfs.sh) instead of
                         building one; initramfs options are then refused
      --append STRING    extra kernel command-line words
      --qemu-arg ARG     extra QEMU argument (repeatable)
  -v, --verbose          copy the guest console to stderr while it runs
  -h, --help             this text

Initramfs options (passed to mkinitramfs.sh, see its --help):
  -p, --program FILE     --file SRC:DEST     --module NAME
  --replace-module FILE  --param MOD.PARAM=VALUE   --hugepages N
  -c, --command STRING   --command-file FILE       --guest-timeout SEC

The command runs in the guest under busybox sh with cwd /out; every file it
leaves under $TESTBED_OUT (= /out) is copied to OUTDIR with the same relative
path.  OUTDIR/_testbed/ gets: testbed.env (guest facts and timings:
kvm_amd, dev_kvm, kvm_amd_npt, command_status, t_init, ...), host.env (wall
time, QEMU status, result), command.log, console.log, qemu.log, dmesg.txt,
modules.txt, modload.log, build-info.txt (sha256 of every module and
program), kvm-params.txt, kvm_amd-params.txt, cpuinfo.txt.

Exit status: 0 the command ran and exited 0; 1 it exited non-zero;
2 usage error or missing host tool; 3 the VM failed (timeout, panic, QEMU
error, results missing or corrupt); 4 a kernel module failed to load.
USAGE
}

outdir=""
cpu=${TESTBED_CPU:-EPYC-Milan}
kernel=${TESTBED_KERNEL:-}
mem=${TESTBED_MEM:-1024}
smp=${TESTBED_SMP:-2}
tcg_thread=${TESTBED_TCG_THREAD:-single}
limit=${TESTBED_TIMEOUT:-120}
initrd=""
append=""
verbose=0
qemu_extra=()
build_args=()


while [ "$#" -gt 0 ]; do
	case $1 in
	-o | --out) tb_need_arg "$@"; outdir=$2; shift 2 ;;
	--cpu) tb_need_arg "$@"; cpu=$2; shift 2 ;;
	-k | --kernel) tb_need_arg "$@"; kernel=$2; shift 2 ;;
	-m | --mem) tb_need_arg "$@"; mem=$2; shift 2 ;;
	--smp) tb_need_arg "$@"; smp=$2; shift 2 ;;
	--tcg-thread) tb_need_arg "$@"; tcg_thread=$2; shift 2 ;;
	-t | --timeout) tb_need_arg "$@"; limit=$2; shift 2 ;;
	--initrd) tb_need_arg "$@"; initrd=$2; shift 2 ;;
	--append) tb_need_arg "$@"; append=$2; shift 2 ;;
	--qemu-arg) tb_need_arg "$@"; qemu_extra+=("$2"); shift 2 ;;
	-v | --verbose) verbose=1; shift ;;
	-p | --program | --file | --module | --replace-module | --param | --hugepages | \
		-c | --command | --command-file | --guest-timeout)
		tb_need_arg "$@"; build_args+=("$1" "$2"); shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) tb_die "unknown argument '$1' (see --help)" ;;
	esac
done

[ -n "$outdir" ] || tb_die "no output directory given (-o OUTDIR)"
tb_kernel_series_ok "$(tb_kernel_series)" ||
	tb_die "TESTBED_KERNEL_SERIES='$(tb_kernel_series)' is not a kernel series such as 6.1 or 6.12"
for v in mem smp limit; do
	case ${!v} in '' | *[!0-9]* | 0) tb_die "--${v/limit/timeout} wants a positive whole number, not '${!v}'" ;; esac
done
case $cpu in '' | *[!A-Za-z0-9._,+=-]*) tb_die "bad CPU model '$cpu'" ;; esac
if [ -n "$initrd" ] && [ "${#build_args[@]}" -gt 0 ]; then
	tb_die "--initrd cannot be combined with initramfs options (${build_args[0]})"
fi

tb_need_cmd qemu-system-x86_64 qemu-system-x86
tb_need_cmd timeout coreutils
tb_need_cmd base64 coreutils
tb_need_cmd sha256sum coreutils
tb_need_cmd awk mawk

if [ -z "$kernel" ]; then
	kernel=$(tb_default_kernel)
	[ -n "$kernel" ] || tb_die "no Debian $(tb_kernel_series) kernel image /boot/vmlinuz-$(tb_kernel_series).*-amd64 (TESTBED_KERNEL_SERIES); install one with: apt-get install -y --no-install-recommends $(tb_kernel_package "$(tb_kernel_series)")"
fi
[ -r "$kernel" ] || tb_die "kernel image '$kernel' not found or not readable (package linux-image-amd64)"
if [ -n "$initrd" ]; then
	[ -r "$initrd" ] || tb_die "initramfs '$initrd' not found or not readable"
fi

tb_run_setup run-vm "$outdir" "$here/mkinitramfs.sh" --kernel "$kernel" "${build_args[@]+"${build_args[@]}"}"

case $tcg_thread in single | multi) ;; *) tb_die "--tcg-thread: single or multi, not '$tcg_thread'" ;; esac
qemu_cmd=(qemu-system-x86_64 -accel "tcg,thread=$tcg_thread" -cpu "$cpu,+svm,+npt" -m "$mem" -smp "$smp"
	-nographic -no-reboot -nic none
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 quiet kvmtb.token=$token${append:+ $append}"
	-monitor "unix:$work/monitor.sock,server=on,wait=off" -serial "file:$console" -serial "file:$results"
	"${qemu_extra[@]+"${qemu_extra[@]}"}")

printf '%s: booting %s (%s, %s MiB, %s CPUs, timeout %s s)\n' "$tb_prog" \
	"$(basename "$kernel")" "$cpu" "$mem" "$smp" "$limit" >&2
t0=$(tb_now)
timeout --kill-after=10 "$limit" "${qemu_cmd[@]}" \
	</dev/null >"$work/qemu.stdout" 2>"$work/qemu.stderr" &
qpid=$!
if [ "$verbose" = 1 ]; then
	tail -n +1 -f --pid="$qpid" "$console" >&2 &
	tpid=$!
fi
# Fifteen seconds before the limit, a guest still running has its vCPUs' state asked through the
# QEMU monitor (monitor.txt): where a hung guest's CPUs are, and whether the emulator still answers.
(
	sleep $((limit > 30 ? limit - 15 : limit))
	kill -0 "$qpid" 2>/dev/null || exit 0
	command -v python3 >/dev/null || { echo "no python3 to ask the QEMU monitor" >"$work/monitor.txt"; exit 0; }
	timeout 15 python3 - "$work/monitor.sock" >"$work/monitor.txt" 2>&1 <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.settimeout(0.5)
def ask(cmd):
    s.sendall(cmd.encode() + b"\n")
    out, end = b"", time.time() + 3
    while time.time() < end:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        out += chunk
    # The monitor echoes what it is sent with line-editing escapes: keep only its answers.
    text = out.decode(errors="replace").replace("\r", "")
    sys.stdout.write("".join(l + "\n" for l in text.split("\n") if "\x1b" not in l and l.strip()))
ask("")
for cmd in ("info status", "info cpus", "info registers -a", "info cpus"):
    print("## " + cmd)
    ask(cmd)
PY
) &
mpid=$!
qemu_status=0
wait "$qpid" || qemu_status=$?
pkill -P "$mpid" 2>/dev/null || true
kill "$mpid" 2>/dev/null || true
wait "$mpid" 2>/dev/null || true
[ -s "$work/monitor.txt" ] && cp "$work/monitor.txt" "$meta/monitor.txt"
qpid=""
t1=$(tb_now)
if [ -n "$tpid" ]; then
	wait "$tpid" 2>/dev/null || true
	tpid=""
fi
wall=$(tb_elapsed "$t0" "$t1")

# Without CRs and the firmware's terminal escape sequences.
tr -d '\r' <"$console" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' >"$meta/console.log"
cat "$work/qemu.stdout" "$work/qemu.stderr" >"$work/qemu.log"
if [ -s "$work/qemu.log" ]; then
	cp "$work/qemu.log" "$meta/qemu.log"
fi

# --- decode the results ----------------------------------------------------------
tb_decode_results "$work" "$token" "$results" "$console" "$outdir"

tb_run_verdict

{
	echo "cpu=$cpu"
	echo "kernel=$kernel"
	echo "qemu_version=$(qemu-system-x86_64 --version | head -n 1)"
	echo "mem_mib=$mem"
	echo "smp=$smp"
	echo "timeout_s=$limit"
	echo "token=$token"
	echo "wall_s=$wall"
	echo "qemu_status=$qemu_status"
	echo "timed_out=$timed_out"
	echo "channel=$channel"
	echo "files=$nfiles"
	echo "command_status=$command_status"
	echo "result=$result"
	echo "failure=$failure"
} >"$meta/host.env"

if [ "$result" = 3 ]; then
	printf '%s: FAILED on %s after %s s: %s\n' "$tb_prog" "$cpu" "$wall" "$failure" >&2
	if [ -s "$work/qemu.log" ]; then
		printf '%s: QEMU said (last lines):\n' "$tb_prog" >&2
		grep -v "TCG doesn't support requested feature" "$work/qemu.log" | tail -n 5 >&2 || true
	fi
	printf '%s: last console lines:\n' "$tb_prog" >&2
	tail -n 15 "$meta/console.log" >&2
	exit 3
fi
[ -z "$failure" ] || printf '%s: %s\n' "$tb_prog" "$failure" >&2
printf '%s: %s: wall %s s (init at %s s, modules loaded at %s s, command %s-%s s); kvm_amd=%s /dev/kvm=%s npt=%s; command status %s; %s files in %s\n' \
	"$tb_prog" "$cpu" "$wall" "$(tb_genv t_init)" "$(tb_genv t_modules)" \
	"$(tb_genv t_command_start)" "$(tb_genv t_command_end)" "$(tb_genv kvm_amd)" \
	"$(tb_genv dev_kvm)" "$(tb_genv kvm_amd_npt)" "$command_status" "$nfiles" "$outdir"
exit "$result"
