# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
# testbed-modules.sh: the patched kvm.ko and kvm-amd.ko for the testbed, from the cache or built into it (sourced by testbed-ab.sh and stress-patches.sh).
#
# The caller sets: top work KREL H tarball, n=0 failed=0 and ok() (testbed-boot.sh); tbk_patched_modules
# then sets mods to the directory that holds them, with one TAP point for the build or the cache.
# tbk_prerequisites: what building the modules and booting the testbed need, or skip_all; sets kernel
# (always 6.1: the patches and the modules built from them are for it; TESTBED_KERNEL_SERIES is not
# read), KREL and H.  The caller sets tarball and kvmbench.
tbk_prerequisites() {
	kernel=$(tb_default_kernel 6.1)
	[ -n "$kernel" ] || skip_all "no /boot/vmlinuz-6.1.*-amd64 (apt-get install linux-image-amd64)"
	KREL=${kernel#/boot/vmlinuz-}
	H=/usr/src/linux-headers-$KREL
	[ -f "$H/.config" ] && [ -f "$H/Module.symvers" ] || skip_all "$H is missing (apt-get install linux-headers-$KREL)"
	[ -n "${KB_LINUX_SRC:-}" ] || [ -r "$tarball" ] || skip_all "$tarball is absent (apt-get install linux-source-6.1)"
	need qemu-system-x86_64 qemu-system-x86
	need busybox busybox-static
	need cpio cpio
	need modinfo kmod
	need gcc-12 gcc-12
	need make make
	need flex flex
	need bison bison
	need bc bc
	need pahole dwarves
	need patch patch
	need xz xz-utils
	need jq jq
	need flock util-linux
	[ -f /usr/include/libelf.h ] || skip_all "libelf.h is missing (apt-get install libelf-dev)"
	[ -f /usr/include/openssl/opensslv.h ] || skip_all "the OpenSSL headers are missing (apt-get install libssl-dev)"
	[ -x "$kvmbench" ] || skip_all "no kvmbench binary at $kvmbench (build it, or set KVMBENCH)"
	# The guest is a minimal busybox system: a sanitizer build would need its runtime there.
	if ldd "$kvmbench" 2>/dev/null | grep -q 'libasan\|libubsan'; then skip_all "$kvmbench is a sanitizer build"; fi
}

# Bump when the build below changes what goes into the cache.
recipe=2

# Everything the built modules depend on goes into the key.
cache_key() {
	echo "recipe $recipe"
	echo "kernel $KREL"
	dpkg-query -W -f='headers ${Version}\n' "linux-headers-$KREL" 2>/dev/null
	sha256sum "$H/.config" "$H/Module.symvers" | cut -d' ' -f1
	gcc-12 --version | head -n 1
	if [ -n "${KB_LINUX_SRC:-}" ]; then
		(cd "$KB_LINUX_SRC" && find Makefile arch/x86/kvm virt/kvm include/linux/kvm_host.h -type f |
			LC_ALL=C sort | xargs sha256sum)
	else
		sha256sum "$tarball" | cut -d' ' -f1
	fi
	for p in "$top"/kernel/patches/*.patch; do
		echo "${p##*/} $(sha256sum <"$p" | cut -d' ' -f1)"
	done
}

build() {	# build DIR: the patched, stripped kvm.ko and kvm-amd.ko into DIR
	set -e
	cd "$work"
	rm -rf linux-source-6.1
	if [ -n "${KB_LINUX_SRC:-}" ]; then cp -a "$KB_LINUX_SRC" linux-source-6.1
	else tar -xf "$tarball"; fi
	cd linux-source-6.1
	for p in "$top"/kernel/patches/*.patch; do patch -p1 -N -F0 -s --no-backup-if-mismatch -r - <"$p"; done
	cp "$H/.config" .config
	make -s CC=gcc-12 KERNELRELEASE="$KREL" olddefconfig
	cmp .config "$H/.config"
	make -s -j"$(nproc)" CC=gcc-12 KERNELRELEASE="$KREL" modules_prepare
	cp "$H/Module.symvers" .
	make -s -j"$(nproc)" CC=gcc-12 KERNELRELEASE="$KREL" M=arch/x86/kvm modules
	mkdir -p "$1"
	strip --strip-debug -o "$1/kvm.ko" arch/x86/kvm/kvm.ko
	strip --strip-debug -o "$1/kvm-amd.ko" arch/x86/kvm/kvm-amd.ko
	cp "$work/cache-key.txt" "$1/key.txt"
	(cd "$1" && sha256sum kvm.ko kvm-amd.ko >SHA256SUMS)
	[ "${KB_KEEP:-0}" = 1 ] || rm -rf "$work/linux-source-6.1"
}
valid_entry() { [ -f "$1/SHA256SUMS" ] && (cd "$1" && sha256sum --quiet -c SHA256SUMS) >/dev/null 2>&1; }

tbk_patched_modules() {	# the modules into $mods; one TAP point
	local s rc entry cache_root key
	if [ "${KB_AB_CACHE:-}" = none ]; then
		cache_root=""
	elif [ -n "${KB_AB_CACHE:-}" ]; then
		cache_root=$KB_AB_CACHE
	elif mkdir -p /var/cache/kvmbench/testbed-ab 2>/dev/null && [ -w /var/cache/kvmbench/testbed-ab ]; then
		cache_root=/var/cache/kvmbench/testbed-ab
	else
		cache_root=${XDG_CACHE_HOME:-$HOME/.cache}/kvmbench/testbed-ab
	fi
	cache_key >"$work/cache-key.txt"
	key=$KREL-$(sha256sum <"$work/cache-key.txt" | cut -c1-16)
	mods=$work/modules
	s=$(date +%s)
	if [ -z "$cache_root" ]; then
		(build "$mods") >"$work/build.log" 2>&1
		ok $? "patched kvm.ko and kvm-amd.ko build for $KREL ($(($(date +%s) - s)) s; no cache)" "$work/build.log"
	else
		mkdir -p "$cache_root" || exit 1
		entry=$cache_root/$key
		# One build per cache at a time: a concurrent run waits, then finds the entry.
		exec 9>"$cache_root/.lock"
		flock 9
		if valid_entry "$entry"; then
			mods=$entry
			ok 0 "patched kvm.ko and kvm-amd.ko for $KREL from the cache ($entry, built $(date -r "$entry/SHA256SUMS" '+%F %T'))"
		else
			rm -rf "$entry" "$cache_root/.new-$key"
			(build "$cache_root/.new-$key") >"$work/build.log" 2>&1 &&
				cp "$work/build.log" "$cache_root/.new-$key/build.log" &&
				mv -T "$cache_root/.new-$key" "$entry"
			rc=$?
			mods=$entry
			ok $rc "patched kvm.ko and kvm-amd.ko build for $KREL ($(($(date +%s) - s)) s; cached in $entry)" "$work/build.log"
			# Keep the four newest builds (other patch sets, other kernels).
			ls -1dt "$cache_root"/*-*/ 2>/dev/null | tail -n +5 | while read -r old; do rm -rf "$old"; done
		fi
		exec 9>&-
	fi
}
