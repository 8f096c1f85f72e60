# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# Helpers shared by mkinitramfs.sh, run-vm.sh, testbed.test and tests/kernel/testbed-ab.sh (sourced, not run).

# Name of the calling script, for messages.
tb_prog=${tb_prog:-$(basename "$0")}

tb_die() {
	printf '%s: error: %s\n' "$tb_prog" "$*" >&2
	exit 2
}

tb_warn() {
	printf '%s: warning: %s\n' "$tb_prog" "$*" >&2
}

# tb_need_cmd COMMAND PACKAGE: fail with a message naming the Debian package.
tb_need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		tb_die "'$1' not found; install it with: apt-get install -y --no-install-recommends $2"
}

# The kernel series the testbed boots: $TESTBED_KERNEL_SERIES (make check-vm KERNEL=X.Y), default 6.1.
tb_kernel_series() {
	printf '%s' "${TESTBED_KERNEL_SERIES:-6.1}"
}

# tb_kernel_series_ok SERIES: SERIES is X.Y (digits), e.g. 6.1 or 6.12.
tb_kernel_series_ok() {
	case $1 in
	[0-9]*.[0-9]*) case $1 in *[!0-9.]* | *.*.* | *.) return 1 ;; esac ;;
	*) return 1 ;;
	esac
}

# The Debian package that installs a kernel image of SERIES (6.1: the default linux-image-amd64).
tb_kernel_package() {
	if [ "$1" = 6.1 ]; then printf 'linux-image-amd64'; else printf 'linux-image-%s-amd64' "$1"; fi
}

# Print the newest Debian kernel image of the series (default tb_kernel_series), version-sorted:
# /boot/vmlinuz-X.Y.N...-amd64 (6.1: vmlinuz-6.1.0-57-amd64, 6.12: vmlinuz-6.12.117+deb12-amd64);
# nothing if there is none.
tb_default_kernel() {
	local k series=${1:-$(tb_kernel_series)}
	tb_kernel_series_ok "$series" || return 0
	k=$(find /boot -maxdepth 1 -name "vmlinuz-$series.[0-9]*-amd64" -type f 2>/dev/null |
		sort -V | tail -n 1)
	printf '%s' "$k"
}

# tb_release_in_series RELEASE SERIES: RELEASE (uname -r) belongs to SERIES (6.1.0-57-amd64 to 6.1).
tb_release_in_series() {
	case $1 in "$2".[0-9]*) return 0 ;; *) return 1 ;; esac
}

# tb_kernel_release VMLINUZ: the release encoded in the file name vmlinuz-KREL.
tb_kernel_release() {
	local base
	base=$(basename "$1")
	case $base in
	vmlinuz-?*) printf '%s' "${base#vmlinuz-}" ;;
	*) return 1 ;;
	esac
}

# tb_console_stalled CONSOLE: the guest kernel reported soft lockups or RCU stalls on its console,
# the signs of an emulated kernel that wedged (tests/vm/README.md).
tb_console_stalled() {
	grep -aqE 'soft lockup|rcu_[a-z]+ detected stalls' "$1" 2>/dev/null
}

# Seconds since the epoch with nanoseconds, for wall-clock measurements.
tb_now() {
	date +%s.%N
}

# tb_elapsed START END: END-START in seconds with one decimal.
tb_elapsed() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'
}

# tb_pack_initramfs ROOT OUT: ROOT as a gzip'd newc cpio at OUT, with fixed timestamps and ownership
# (the same inputs give the same image).
tb_pack_initramfs() {
	find "$1" -exec touch -h -d @0 {} +
	(
		cd "$1" || exit 2
		find . -mindepth 1 -print0 | LC_ALL=C sort -z |
			cpio --null --create --format=newc --owner=0:0 --reproducible --quiet
	) | gzip -n -6 >"$2"
}

# tb_decode_stream WORK TOKEN SOURCE: split what guest-init.sh sent (KVMTB TOKEN FILE/EOF/STATUS/DONE
# lines around base64) into WORK/d/N.b64 files plus a manifest "N SHA256 SIZE NAME" of the files
# whose EOF marker arrived; true when the DONE line came.
tb_decode_stream() {
	rm -rf "$1/d"
	mkdir "$1/d"
	tr -d '\r' <"$3" | awk -v tok="$2" -v dir="$1/d" '
		$1 == "KVMTB" && $2 == tok {
			if ($3 == "FILE" && NF == 6) {
				if (cur != "") close(cur)
				n++; cur = dir "/" n ".b64"; sha = $4; size = $5; name = $6
				printf "" > cur
				next
			}
			if ($3 == "EOF" && cur != "" && $4 == name) {
				close(cur); cur = ""
				print n, sha, size, name > (dir "/manifest")
				next
			}
			if ($3 == "STATUS") print $4 > (dir "/status")
			if ($3 == "DONE") print $4 > (dir "/done")
			if (cur != "") { close(cur); cur = "" }
			next
		}
		cur != "" { print > cur }
	'
	[ -s "$1/d/done" ]
}

# tb_decode_results WORK TOKEN RESULTS CONSOLE OUTDIR: decode the results channel (RESULTS, else the
# console CONSOLE the guest fell back to) and copy every file that arrived intact to OUTDIR.  Sets
# channel (results, console or none), nfiles, declared (-1: no DONE line), command_status, and
# failure (empty, or why the results cannot be trusted).
tb_decode_results() {
	local work=$1 n sha size name dec
	channel=results
	if ! tb_decode_stream "$work" "$2" "$3"; then
		if tb_decode_stream "$work" "$2" "$4"; then channel=console; else channel=none; fi
	fi
	failure=""
	nfiles=0
	declared=-1
	command_status=""
	[ ! -s "$work/d/done" ] || declared=$(cat "$work/d/done")
	[ ! -s "$work/d/status" ] || command_status=$(cat "$work/d/status")
	[ -s "$work/d/manifest" ] || return 0
	while read -r n sha size name; do
		case /$name/ in
		*/./* | */../* | *//*) failure="unsafe file name '$name' from the guest"; continue ;;
		esac
		case $name in
		*[!A-Za-z0-9._/+-]*) failure="unsafe file name '$name' from the guest"; continue ;;
		esac
		dec=$work/d/$n.bin
		if ! base64 -d "$work/d/$n.b64" >"$dec" 2>/dev/null ||
			[ "$(wc -c <"$dec")" != "$size" ] ||
			[ "$(sha256sum "$dec" | cut -d' ' -f1)" != "$sha" ]; then
			failure="file '$name' arrived corrupted (size or sha256 mismatch)"
			continue
		fi
		mkdir -p "$(dirname "$5/$name")"
		cp "$dec" "$5/$name"
		nfiles=$((nfiles + 1))
	done <"$work/d/manifest"
}

# tb_run_setup NAME OUTDIR MKINITRAMFS [ARG...]: what run-vm.sh (x86) and tests/vm-arm64/run-vm.sh do
# before they boot.  OUTDIR must be absent or empty.  Sets $work, a scratch directory removed on exit
# together with the QEMU ($qpid) and console-tail ($tpid) processes the script started, by their ids;
# $initrd, built by MKINITRAMFS -o FILE ARG... unless the caller gave one; $meta (OUTDIR/_testbed,
# made); a fresh $token; and $results and $console, empty files in $work.
tb_run_setup() {
	local name=$1 out=$2 mk=$3
	shift 3
	if [ -e "$out" ]; then
		[ -d "$out" ] || tb_die "output '$out' exists and is not a directory"
		[ -z "$(ls -A "$out")" ] || tb_die "output directory '$out' is not empty (results of an earlier run?)"
	fi
	work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
	qpid=""
	tpid=""
	trap tb_run_cleanup EXIT
	trap 'exit 130' INT TERM HUP
	if [ -z "$initrd" ]; then
		initrd=$work/initramfs.cpio.gz
		"$mk" -o "$initrd" "$@" 2>"$work/mkinitramfs.log" || {
			cat "$work/mkinitramfs.log" >&2
			tb_die "building the initramfs failed"
		}
	fi
	mkdir -p "$out/_testbed"
	meta=$out/_testbed
	token=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	results=$work/results.raw
	console=$work/console.raw
	: >"$results"
	: >"$console"
}

# shellcheck disable=SC2317 # invoked by tb_run_setup's trap
tb_run_cleanup() {
	[ -z "$qpid" ] || kill -TERM "$qpid" 2>/dev/null || true
	[ -z "$tpid" ] || kill -TERM "$tpid" 2>/dev/null || true
	rm -rf "$work"
}

# tb_genv KEY: the value of KEY in the guest's $meta/testbed.env (empty if absent).
tb_genv() {
	[ -r "$meta/testbed.env" ] || return 0
	sed -n "s/^$1=//p" "$meta/testbed.env" | head -n 1
}

# tb_run_verdict: what both run-vm.sh make of a finished boot.  From $qemu_status, $failure (a reason
# found earlier, or empty), $channel, $declared, $nfiles, $command_status and the guest's
# modules_failed: $result (0 ok, 1 the command failed, 3 the VM failed, 4 kernel modules failed),
# $failure (why), and $timed_out (yes when QEMU was killed at the $limit s).
tb_run_verdict() {
	timed_out=no
	case $qemu_status in
	124 | 137)
		timed_out=yes
		failure="the VM did not finish within $limit s and was killed (hung guest?)"
		;;
	0) ;;
	*) [ -n "$failure" ] || failure="QEMU exited with status $qemu_status" ;;
	esac
	if [ -z "$failure" ]; then
		if [ "$channel" = none ]; then
			failure="the guest ended without sending its results (kernel panic or crash? see $meta/console.log)"
		elif [ "$declared" != "$nfiles" ]; then
			failure="the guest sent $declared files but $nfiles arrived intact"
		fi
	fi
	if [ -n "$failure" ]; then
		result=3
	elif [ -n "$(tb_genv modules_failed)" ]; then
		result=4
		failure="kernel modules failed to load: $(tb_genv modules_failed) (see $meta/modload.log)"
	elif [ "$command_status" != 0 ]; then
		result=1
	else
		result=0
	fi
}

# tb_need_arg OPTION "$@": OPTION, the first word, must have a value after it.
tb_need_arg() {
	[ "$#" -ge 2 ] || tb_die "option $1 needs an argument (see --help)"
}
