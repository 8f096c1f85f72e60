#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# arm64-readme.sh: the README's two commands, as written, on Debian 12 for arm64, from a clone of
# this repository: a fresh arm64 root (mmdebstrap --arch=arm64) whose programs run under
# qemu-aarch64-static, through binfmt_misc.  Slow (everything, apt and gcc included, is emulated);
# not part of make check or CI.  docs/packaging.md records its outcome and wall time.
#
# Usage (root): tools/arm64-readme.sh [--vm] [WORKDIR]
#   WORKDIR (default: a new directory in /var/tmp) keeps the root, the logs (readme-1.log,
#   readme-2.log) and the exit status and wall time of each command (readme.status).
#   --vm: run the two commands again, from a fresh clone, in the emulated arm64 KVM host of
#   tests/vm-arm64 (Debian's arm64 kernel under qemu-system-aarch64, KVM in VHE mode, so with a
#   /dev/kvm), booted with the root that a run without --vm left in WORKDIR as its disk and with
#   QEMU's user-mode network for apt.  The logs go to WORKDIR/vm/.
#
# binfmt_misc: when the system has a qemu-aarch64 entry, it is used.  Otherwise nothing of the
# system's is changed: everything runs in a user namespace (root mapped to root) that mounts a
# binfmt_misc of its own (Linux >= 6.7) and registers qemu-aarch64-static there, with the F flag,
# so that the interpreter is found from inside the root.
# The root has no /dev/kvm (qemu-user does not emulate KVM, and this machine's /dev/kvm is an x86
# one): 'kvmbench run' there measures nothing, and says why.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
vm=0
if [ "${1:-}" = --vm ]; then vm=1; shift; fi
if [ "$vm" = 1 ] && [ -z "${1:-}" ]; then
	echo "arm64-readme.sh: --vm wants the WORKDIR of an earlier run without --vm (its arm64 root)" >&2
	exit 2
fi
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

# In the emulated arm64 KVM host: WORKDIR's root on a disk image, a fresh clone in it, and each
# command run chrooted there by the testbed's command script, with /dev/kvm.
in_vm() {
	local root=$work/root out=$work/vm image=$work/vm-root.img n t
	[ -x "$root/usr/bin/apt-get" ] || fail "$root is not an arm64 root: run tools/arm64-readme.sh $work first"
	for t in mkfs.ext4 qemu-system-aarch64; do command -v "$t" >/dev/null || fail "$t not found"; done
	rm -rf "$root/root/kvmbench" "$out"
	git clone -q "$src" "$root/root/kvmbench"
	printf '%s\n' "$cmd1" >"$root/root/readme-command-1"
	printf '%s\n' "$cmd2" >"$root/root/readme-command-2"
	echo "nameserver 10.0.2.3" >"$root/etc/resolv.conf"	# QEMU's user-mode network
	rm -f "$image"
	truncate -s 8G "$image"
	mkfs.ext4 -q -F -L kb-arm64 -d "$root" "$image"
	cat >"$work/vm-command.sh" <<'GUEST'
# Run by the testbed's /init (busybox sh, cwd /out): WORKDIR's root is /dev/vda.  The logs are
# written on that disk as they grow (root/vm-readme-N.log, root/vm-readme.status), so that a run
# stopped early leaves them in the image; /out gets copies at the end.
mkdir -p /mnt
mount -t ext4 /dev/vda /mnt || { echo "cannot mount /dev/vda"; exit 10; }
ip link set lo up
ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up && ip route add default via 10.0.2.2 ||
	echo "no network: apt-get cannot fetch"
mount -t proc proc /mnt/proc
mount -t sysfs sysfs /mnt/sys
mount -t devtmpfs devtmpfs /mnt/dev
mkdir -p /mnt/dev/pts /mnt/dev/shm
mount -t devpts devpts /mnt/dev/pts
mount -t tmpfs tmpfs /mnt/dev/shm
: >/mnt/root/vm-readme.status
for n in 1 2; do
	start=$(date +%s)
	chroot /mnt /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
		/bin/bash -c "cd /root/kvmbench && uname -m && dpkg --print-architecture && ls -l /dev/kvm; set -x; . /root/readme-command-$n" \
		>"/mnt/root/vm-readme-$n.log" 2>&1
	echo "command $n: exit $?, $(($(date +%s) - start))s" >>/mnt/root/vm-readme.status
	sync
	cp "/mnt/root/vm-readme-$n.log" "readme-$n.log"
	[ "$n" != 1 ] || cp /mnt/root/kvmbench/result.json . 2>/dev/null
done
cp /mnt/root/vm-readme.status readme.status
[ ! -f /mnt/root/kvmbench/test-suite.log ] || cp /mnt/root/kvmbench/test-suite.log .
sync
umount /mnt/dev/shm /mnt/dev/pts /mnt/dev /mnt/sys /mnt/proc /mnt
GUEST
	# 5 h: under TCG the compiler and the tests are emulated in full.
	"$src/tests/vm-arm64/run-vm.sh" -o "$out" -m 2048 --smp 2 -t 18000 --guest-timeout 17400 \
		--disk "$image" --net-user --module virtio_blk --module virtio_net --module ext4 \
		--module crc32c_generic --command-file "$work/vm-command.sh" || echo "arm64-readme.sh: run-vm.sh exited $?" >&2
	for n in 1 2; do [ ! -f "$out/readme-$n.log" ] || tail -n 5 "$out/readme-$n.log"; done
	cat "$out/readme.status" 2>/dev/null ||
		fail "the emulated host sent no readme.status (see $out/_testbed/; the disk $image has root/vm-readme-*)"
}
if [ "$vm" = 1 ]; then
	in_vm
	exit 0
fi

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
