# lib.sh: TAP helpers for kvmbench's shell tests (sourced; output read by automake's TAP driver).
: "${KVMBENCH:?KVMBENCH must name the kvmbench binary (make check sets it)}"
tap_n=0
tap_failed=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kvmbench-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

ok() {	# ok CONDITION-EXIT-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

check() {	# check DESCRIPTION COMMAND...: ok when the command succeeds
	desc=$1
	shift
	if "$@" >"$TMP/check.out" 2>&1; then ok 0 "$desc"; else ok 1 "$desc"; sed 's/^/# /' "$TMP/check.out"; fi
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ]
}

need_jq() {
	command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (apt-get install jq)"
}

need_kvm() {
	[ -e /dev/kvm ] || skip_all "/dev/kvm is absent on this host"
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || skip_all "/dev/kvm is not accessible to this user (join group kvm)"
}
