#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# arm64-readme.sh: the README's two commands, as written, on Debian 12 for arm64, from a clone of
# this repository: a fresh arm64 root (mmdebstrap --arch=arm64) whose programs run under
# qemu-aarch64-static, through binfmt_misc.  Slow (everything, apt and gcc included, is emulated);
# not part of make check or CI.  docs/packaging.md records its outcome and wall time.
#
# Usage (root): tools/arm64-readme.sh [WORKDIR]
#   WORKDIR (default: a new directory in /var/tmp) keeps the root, the logs (readme-1.log,
#   readme-2.log) and the exit status and wall time of each command (readme.status).
#
# binfmt_misc: when the system has a qemu-aarch64 entry, it is used.  Otherwise nothing of the
# system's is changed: everything runs in a user namespace (root mapped to root) that mounts a
# binfmt_misc of its own (Linux >= 6.7) and registers qemu-aarch64-static there, with the F flag,
# so that the interpreter is found from inside the root.
# The root has no /dev/kvm (qemu-user does not emulate KVM, and this machine's /dev/kvm is an x86
# one): 'kvmbench run' there measures nothing, and says why.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /var/tmp/kb-arm64-readme.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
fail() { echo "arm64-readme.sh: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root (mmdebstrap and chroot)"
for t in mmdebstrap qemu-aarch64-static git unshare; do
	command -v "$t" >/dev/null || fail "$t not found (apt-get install mmdebstrap qemu-user-static git util-linux)"
done

# The README's two commands, exactly as README.md shows them (checked here, so that the script
# runs what the README says, not a copy that drifted).
readme_cmd() {	# readme_cmd N: the command under the README's comment "# N. ..."
	awk -v n="$1" '/^```sh/ { on = 1; next } /^```/ { if (on) exit } on && $0 ~ "^# " n "\\. " { getline; print; exit }' \
		"$src/README.md"
}
cmd1=$(readme_cmd 1)
cmd2=$(readme_cmd 2)
if [ -z "$cmd1" ] || [ -z "$cmd2" ]; then fail "README.md: cannot find its two commands (# 1. and # 2.)"; fi
printf 'README command 1: %s\nREADME command 2: %s\n' "$cmd1" "$cmd2"

# The mirror this machine's apt uses for bookworm (one-line or deb822 sources).
mirror=$( (sed -n 's/^deb \(\[[^]]*\] \)*\([^ ]*\) bookworm .*/\2/p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
	awk '/^URIs:/ { print $2 }' /etc/apt/sources.list.d/*.sources 2>/dev/null
	echo http://deb.debian.org/debian) | sed -n 1p)

# The part that runs with arm64 programs: bootstrap, then each command in the root, chrooted.
inner() {
	set -euo pipefail
	local root=$work/root
	if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
		mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
		# The ELF header of an aarch64 program (e_machine 0xb7), as qemu-user-static's own entry.
		printf '%s' ':qemu-aarch64:M::\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:F' \
			>/proc/sys/fs/binfmt_misc/register
	fi
	if [ ! -x "$root/usr/bin/apt-get" ]; then
		rm -rf "$root"
		start=$(date +%s)
		mmdebstrap --mode=root --variant=apt --arch=arm64 --include=ca-certificates \
			bookworm "$root" "$mirror"
		echo "bootstrap $(($(date +%s) - start))s" >>"$work/readme.status"
	fi
	# 'from a clone of this repository': this branch's commit, cloned as a user would.
	rm -rf "$root/root/kvmbench"
	git clone -q "$src" "$root/root/kvmbench"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	# A /dev of its own: the usual character devices, no kvm.
	mount -t tmpfs -o mode=755 dev "$root/dev"
	for d in null zero full random urandom tty; do
		touch "$root/dev/$d"
		mount --bind "/dev/$d" "$root/dev/$d"
	done
	mkdir -p "$root/dev/pts" "$root/dev/shm"
	mount -t devpts -o newinstance,ptmxmode=666 devpts "$root/dev/pts"
	ln -s pts/ptmx "$root/dev/ptmx"
	ln -s /proc/self/fd "$root/dev/fd"
	mount -t tmpfs shm "$root/dev/shm"
	mount -t proc proc "$root/proc"
	mount --rbind /sys "$root/sys"
	for n in 1 2; do
		local cmd rc=0
		[ "$n" = 1 ] && cmd=$cmd1 || cmd=$cmd2
		start=$(date +%s)
		chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
			/bin/bash -c "cd /root/kvmbench && uname -m && dpkg --print-architecture && ls -l /dev/kvm 2>&1; set -x; $cmd" \
			>"$work/readme-$n.log" 2>&1 || rc=$?
		echo "command $n: exit $rc, $(($(date +%s) - start))s" >>"$work/readme.status"
		tail -n 5 "$work/readme-$n.log"
	done
}

: >"$work/readme.status"
echo "arm64-readme.sh: working in $work (mirror $mirror)"
start_all=$(date +%s)
if [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --pid --fork --propagation private bash -c "$(declare -f inner); $(declare -p src work mirror cmd1 cmd2); inner"
else
	# A user namespace of its own, root mapped to root over the whole id range (written from here:
	# util-linux's --map-users wants newuidmap), with its own mount and pid namespaces.
	unshare --user --mount --pid --fork --propagation private bash -c \
		"while [ -z \"\$(cat /proc/self/uid_map)\" ]; do sleep 0.1; done; $(declare -f inner); $(declare -p src work mirror cmd1 cmd2); inner" &
	pid=$!
	self=$(readlink /proc/self/ns/user)
	for _ in $(seq 100); do
		[ "$(readlink "/proc/$pid/ns/user" 2>/dev/null)" != "$self" ] && break
		sleep 0.1
	done
	echo "0 0 4294967295" >"/proc/$pid/uid_map"
	echo "0 0 4294967295" >"/proc/$pid/gid_map"
	wait "$pid"
fi
echo "total $(($(date +%s) - start_all))s" >>"$work/readme.status"
cat "$work/readme.status"
