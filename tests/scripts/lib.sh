# SPDX-License-Identifier: GPL-2.0-or-later
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

# ---- measurement verdicts recomputed from a result's raw samples, not read from its checks ----
# The rules, written again here on purpose (the product's are in src/run/): per sample, each
# vCPU's exits less one for the call channel's OUT and less its irq_exits, summed, over the
# iterations of the measured vCPUs (vCPU 0 alone in the two-vCPU IPI tests ipi, ipi_halt, ipi_spin, where vCPU 1 serves
# it); the least disturbed sample decides.  Emulations likewise (one per vCPU for the channel, when
# any).  Interrupts: all taken over all measured iterations.
RAW_VERDICTS_JQ='
def measured($t; $s): if ($t.suite == "self-ipi" and ($t.test == "ipi" or $t.test == "ipi_halt" or $t.test == "ipi_spin"))
	then [$s.vcpus[0]] else $s.vcpus end;
def per_iter($t; f): [ $t.raw[] as $s | ([$s.vcpus[] | f] | add) / ([measured($t; $s)[] | .iterations] | add) ] | min;
def check($t; $n): [$t.checks[] | select(.name == $n)][0];
.tests[] | select(.raw and (.raw | length) > 0 and (.raw[0].vcpus? // null) != null) | . as $t |
  [ ["exits_per_iteration", per_iter($t; (.kvm_stats.exits // 0) - (.kvm_stats.irq_exits // 0) - 1)],
    ["emulations_per_iteration", per_iter($t; (.kvm_stats.insn_emulation // 0) | if . > 0 then . - 1 else 0 end)],
    ["interrupts_per_iteration", ([.raw[].vcpus[].guest_interrupts] | add) /
                                 ([.raw[] as $s | measured($t; $s)[] | .iterations] | add)],
    ["ioeventfd_writes_per_iteration", ([.raw[].ioeventfd_writes // 0] | add) / ([.raw[].vcpus[].iterations] | add)] ][] |
  . as [$name, $v] | check($t; $name) as $c | select($c != null) |
  "\($t.id) \($t.status) \($name) \($v) \($c.measured) \($c.min) \($c.max)"'

# raw_verdicts FILE: one "not ok" point per test whose recomputed exits, emulations or interrupts
# per iteration differ from what its check reports, or disagree with its status (an ok test outside
# its declared range, an invalid one inside every range); one "ok" point for the whole file.
raw_verdicts() {
	jq -r "$RAW_VERDICTS_JQ" "$1" >"$TMP/raw-verdicts.txt" || { ok 1 "raw verdicts of $1: jq failed"; return; }
	awk '
	{ id = $1; st = $2; v = $4 + 0; m = $5 + 0; lo = $6 + 0; hi = $7 + 0
	  n++
	  if ((v - m) > 1e-9 || (m - v) > 1e-9) { print "# " id " " $3 ": recomputed " v ", reported " m; bad++ }
	  inside = (v >= lo && v <= hi)
	  if (st == "ok" && !inside) { print "# " id " " $3 ": " v " is outside " lo ".." hi " but the test is ok"; bad++ }
	  if (!inside) outside[id] = 1
	  seen[id] = st }
	END { for (id in seen) if (seen[id] == "invalid" && !(id in outside)) { print "# " id ": invalid, yet every recomputed check is inside its range" }
	      printf "%d %d\n", n, bad + 0 }' "$TMP/raw-verdicts.txt" >"$TMP/raw-verdicts.out"
	sed '$d' "$TMP/raw-verdicts.out"
	set -- "$1" $(tail -n 1 "$TMP/raw-verdicts.out")
	[ "$2" -gt 0 ] && [ "$3" -eq 0 ]
	ok $? "exits, emulations and interrupts per iteration recomputed from the raw samples of $(basename "$1") agree with the checks and statuses ($2 checks)"
}

# pinned_skips FILE BACKEND:LIST...: the tests of FILE that were skipped are exactly the LIST given
# for the result's backend (comma-separated test names; empty: none).  Any other skip fails.
pinned_skips() {
	f=$1
	shift
	backend=$(jq -r .host.kvm.backend "$f")
	want=
	known=no
	for spec in "$@"; do
		if [ "${spec%%:*}" = "$backend" ]; then
			want=${spec#*:}
			known=yes
		fi
	done
	got=$(jq -r '[.tests[] | select(.status == "skipped") | .test] | sort | join(",")' "$f")
	want=$(printf '%s\n' "$want" | tr ',' '\n' | grep . | sort | paste -sd, -)
	[ "$known" = yes ] && [ "$got" = "$want" ]
	ok $? "on $backend exactly these tests are skipped: ${want:-none} (skipped: ${got:-none})"
	[ "$got" = "$want" ] || jq -r '.tests[] | select(.status == "skipped") | "#   \(.id): \(.reason)"' "$f"
}
