#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=sh
#
# /init of the kvmbench testbed initramfs (run by busybox sh as PID 1 inside
# the QEMU/TCG guest).  Installed by mkinitramfs.sh; configured by the files
# it writes under /testbed:
#   /testbed/config        HUGEPAGES=N, GUEST_TIMEOUT=S, RESULT_PORT=PATTERN (shell
#                          assignments; RESULT_PORT: device files to send the
#                          results on, the first that exists wins, before
#                          /dev/ttyS1; the arm64 testbed's: its virtio-serial
#                          port, /dev/vport*, whole pages a write where a
#                          console takes 16 bytes)
#   /testbed/modules.list  one "NAME FILE [PARAM=VALUE...]" line per module,
#                          in load order; FILE is under /lib/modules/testbed
#   /testbed/command.sh    the command script (run by sh, cwd /out)
#
# Everything left under /out when the command ends is sent to the host on the
# results port ($RESULT_PORT, else the second serial port /dev/ttyS1, else /dev/console), each file as
#   KVMTB <token> FILE <sha256> <size> <relative-name>
#   <base64 lines>
#   KVMTB <token> EOF <relative-name>
# followed by "KVMTB <token> STATUS <exit status>" and
# "KVMTB <token> DONE <number of files>".  <token> comes from kvmtb.token= on
# the kernel command line, so stale or foreign output can never be mistaken
# for this run's.  Testbed metadata goes to /out/_testbed/.
#
# Deliberately no "set -e": PID 1 exiting panics the kernel and would lose the
# results; every step records its failure instead and the script always ends
# in "poweroff -f".
set -u

PATH=/usr/local/bin:/usr/bin:/usr/sbin:/bin:/sbin
export PATH

HUGEPAGES=0
GUEST_TIMEOUT=0
RESULT_PORT=
# shellcheck disable=SC1091
[ -r /testbed/config ] && . /testbed/config

mkdir -p /proc /sys /dev /tmp /run /out/_testbed
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/hugepages
mount -t devpts devpts /dev/pts 2>/dev/null
mount -t hugetlbfs hugetlbfs /dev/hugepages 2>/dev/null

META=/out/_testbed
ENVF=$META/testbed.env

say() {
	echo "testbed: $*"
}

uptime_s() {
	cut -d' ' -f1 /proc/uptime
}

meta() {
	printf '%s=%s\n' "$1" "$2" >>"$ENVF"
}

TOKEN=none
read -r cmdline </proc/cmdline
for word in $cmdline; do
	case $word in
	kvmtb.token=*) TOKEN=${word#kvmtb.token=} ;;
	esac
done

: >"$ENVF"
meta token "$TOKEN"
meta t_init "$(uptime_s)"
meta kernel_release "$(uname -r)"
meta cpu_vendor "$(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
meta cpu_family "$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
meta cpu_model "$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
meta cpu_model_name "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
meta cpu_svm "$(grep -qw svm /proc/cpuinfo && echo yes || echo no)"
meta cpu_npt "$(grep -qw npt /proc/cpuinfo && echo yes || echo no)"
meta nproc "$(nproc)"
say "init at $(uptime_s) s, kernel $(uname -r), token $TOKEN"

# --- kernel modules ---------------------------------------------------------
loaded=""
failed=""
: >"$META/modload.log"
if [ -r /testbed/modules.list ]; then
	while read -r name file params; do
		[ -n "$name" ] || continue
		# $params is intentionally split into separate PARAM=VALUE words.
		# shellcheck disable=SC2086
		if insmod "/lib/modules/testbed/$file" $params >>"$META/modload.log" 2>&1; then
			echo "insmod $file${params:+ $params}: ok" >>"$META/modload.log"
			loaded="$loaded $name"
		else
			echo "insmod $file${params:+ $params}: FAILED" >>"$META/modload.log"
			failed="$failed $name"
		fi
	done </testbed/modules.list
fi
meta modules_loaded "${loaded# }"
meta modules_failed "${failed# }"
meta t_modules "$(uptime_s)"
say "modules loaded:${loaded:- none}${failed:+; FAILED:$failed}"

if [ -e /sys/module/kvm_amd ]; then meta kvm_amd yes; else meta kvm_amd no; fi
if [ -c /dev/kvm ]; then meta dev_kvm yes; else meta dev_kvm no; fi
for mod in kvm kvm_amd kvm_intel; do
	[ -d "/sys/module/$mod/parameters" ] || continue
	for p in "/sys/module/$mod/parameters"/*; do
		[ -r "$p" ] || continue
		printf '%s=%s\n' "${p##*/}" "$(cat "$p" 2>/dev/null)"
	done >"$META/$mod-params.txt"
done
if [ -r /sys/module/kvm_amd/parameters/npt ]; then
	meta kvm_amd_npt "$(cat /sys/module/kvm_amd/parameters/npt)"
	meta kvm_amd_nested "$(cat /sys/module/kvm_amd/parameters/nested)"
fi

# --- huge pages ---------------------------------------------------------------
meta hugepages_requested "$HUGEPAGES"
if [ "$HUGEPAGES" != 0 ]; then
	echo "$HUGEPAGES" >/proc/sys/vm/nr_hugepages 2>>"$META/modload.log"
fi
meta hugepages_reserved "$(cat /proc/sys/vm/nr_hugepages)"

# --- the command --------------------------------------------------------------
TESTBED_OUT=/out
export TESTBED_OUT
meta t_command_start "$(uptime_s)"
rc=0
if [ -r /testbed/command.sh ]; then
	say "running command"
	# A heartbeat on the console: the host tells an emulated kernel that stopped running (no more
	# beats) from a command that hangs in a live one (beats to the end, then GUEST_TIMEOUT).
	(while sleep 10; do say "alive at $(uptime_s) s"; done) &
	beat=$!
	cd /out || true
	if [ "$GUEST_TIMEOUT" != 0 ]; then
		timeout -s KILL "$GUEST_TIMEOUT" sh /testbed/command.sh \
			>"$META/command.log" 2>&1 </dev/null
		rc=$?
	else
		sh /testbed/command.sh >"$META/command.log" 2>&1 </dev/null
		rc=$?
	fi
	cd / || true
	kill "$beat" 2>/dev/null
	wait "$beat" 2>/dev/null
	cat "$META/command.log"
fi
meta t_command_end "$(uptime_s)"
meta command_status "$rc"
say "command exit status $rc"

cat /proc/modules >"$META/modules.txt"
cp /testbed/build-info "$META/build-info.txt" 2>/dev/null
cat /proc/cpuinfo >"$META/cpuinfo.txt"
dmesg >"$META/dmesg.txt"
meta t_send "$(uptime_s)"

# --- send the results ---------------------------------------------------------
CHAN=/dev/console
if [ -c /dev/ttyS1 ] && stty -F /dev/ttyS1 raw -echo 2>/dev/null; then
	CHAN=/dev/ttyS1
fi
# The pattern is meant to be expanded.
# shellcheck disable=SC2086
for port in $RESULT_PORT; do
	if [ -c "$port" ]; then
		CHAN=$port
		break
	fi
done

send_file() {
	# $1 = name relative to /out
	sum=$(sha256sum "/out/$1" | cut -d' ' -f1)
	size=$(wc -c <"/out/$1")
	printf 'KVMTB %s FILE %s %s %s\n' "$TOKEN" "$sum" "$size" "$1"
	base64 "/out/$1"
	printf 'KVMTB %s EOF %s\n' "$TOKEN" "$1"
}

say "sending results on $CHAN"
(
	cd /out || exit
	find . -type f ! -path './_testbed/*' | sed 's|^\./||' | sort
	find ./_testbed -type f | sed 's|^\./||' | sort
) >/tmp/send.list
nfiles=0
{
	printf '\nKVMTB %s BEGIN\n' "$TOKEN"
	# Metadata last, so that testbed.env is complete when it is read.
	while IFS= read -r f; do
		case $f in
		*[!A-Za-z0-9._/+-]*)
			say "not sending '$f': unsupported characters in name" >&2
			continue
			;;
		esac
		send_file "$f"
		nfiles=$((nfiles + 1))
	done </tmp/send.list
	printf 'KVMTB %s STATUS %s\n' "$TOKEN" "$rc"
	printf 'KVMTB %s DONE %s\n' "$TOKEN" "$nfiles"
} | cat >"$CHAN"
# Through cat, the port gets whole pipe buffers a write instead of one base64 line: a virtio port moves
# each write in one exit, and under TCG an exit is dear.  Closing the tty above waits until its output
# has drained.
say "done at $(uptime_s) s, powering off"
poweroff -f
# Not reached; keep PID 1 alive if poweroff failed.
while :; do sleep 3600; done
