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

# Print the newest Debian 6.1 kernel image, /boot/vmlinuz-6.1.0-*-amd64
# (version-sorted), or nothing if there is none.
tb_default_kernel() {
	local k
	k=$(find /boot -maxdepth 1 -name 'vmlinuz-6.1.0-*-amd64' -type f 2>/dev/null |
		sort -V | tail -n 1)
	printf '%s' "$k"
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
