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
