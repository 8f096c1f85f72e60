# SPDX-License-Identifier: GPL-2.0-or-later
# timed-seq.awk: the instructions that matter in a guest function, from `objdump -d --no-show-raw-insn`,
# as one line such as "cli; mfence; wrmsr(0x830,0x440b0); sti; nop" (docs/conformance.md's notation).
# Usage: objdump -d --no-show-raw-insn guest.elf | awk -v sym=NAME -f timed-seq.awk
#
# The walk starts at the function's first instruction and follows one path: conditional jumps are
# not taken (so a loop is walked once, and of two copies of a body the fall-through one) except a
# backward one into code not walked yet (a wait loop entered at its test: its body once), a jump is
# followed inside the function (once per target), a jump to another function is a tail call and a
# call is walked into (both up to 4 deep); it stops at RET.  Kept: privileged, serialising and
# exit-causing instructions (CLI STI HLT NOP MFENCE LFENCE PAUSE CPUID RDTSC(P) RDMSR WRMSR IN OUT
# MOV to/from CRn and DRn, VMCALL VMMCALL WBINVD INVD) with the values known from immediates: MSR
# index (ECX) and low value (EAX) of WRMSR, the value moved to a CR or DR, the hypercall number (EAX)
# of VMCALL/VMMCALL, the port of IN/OUT.
function base(r) {
	sub(/^%/, "", r)
	if (r ~ /^r[0-9]+[dwb]?$/) { sub(/[dwb]$/, "", r); return r }
	if (r ~ /^(rax|eax|ax|al|ah)$/) return "a"
	if (r ~ /^(rbx|ebx|bx|bl|bh)$/) return "b"
	if (r ~ /^(rcx|ecx|cx|cl|ch)$/) return "c"
	if (r ~ /^(rdx|edx|dx|dl|dh)$/) return "d"
	if (r ~ /^(rsi|esi|si|sil)$/) return "si"
	if (r ~ /^(rdi|edi|di|dil)$/) return "di"
	return r
}
function emit(t) { out = out (out == "" ? "" : "; ") t }
function known(r) { return (r in imm) ? imm[r] : "" }
function step(a,   m, ops, n, parts, src, dst, v) {
	m = mnem[a]; ops = opnd[a]
	n = split(ops, parts, ",")
	src = parts[1]; dst = parts[n]
	if (m ~ /^mov[lqwb]?$/ && src ~ /^\$/ && dst ~ /^%/) { imm[base(dst)] = substr(src, 2); return }
	if (m ~ /^xor[lq]?$/ && n == 2 && src ~ /^%/ && base(src) == base(dst)) { imm[base(dst)] = "0x0"; return }
	if (m ~ /^mov[lq]?$/ && dst ~ /^%cr[0-8]$/) { v = known(base(src)); emit("mov-cr" substr(dst, 4) (v == "" ? "" : "(" v ")")); return }
	if (m ~ /^mov[lq]?$/ && src ~ /^%cr[0-8]$/) { delete imm[base(dst)]; emit("mov-from-cr" substr(src, 4)); return }
	if (m ~ /^mov[lq]?$/ && dst ~ /^%db[0-7]$/) { v = known(base(src)); emit("mov-dr" substr(dst, 4) (v == "" ? "" : "(" v ")")); return }
	if (m ~ /^mov[lq]?$/ && src ~ /^%/ && dst ~ /^%/ && n == 2) {
		if (base(src) in imm) imm[base(dst)] = imm[base(src)]; else delete imm[base(dst)]
		return
	}
	if (m == "wrmsr") {
		v = known("c"); emit("wrmsr" (v == "" ? "" : "(" v (known("a") == "" ? "" : "," known("a")) ")")); return
	}
	if (m == "rdmsr") { v = known("c"); emit("rdmsr" (v == "" ? "" : "(" v ")")); delete imm["a"]; delete imm["d"]; return }
	if (m == "cpuid") { emit("cpuid"); delete imm["a"]; delete imm["b"]; delete imm["c"]; delete imm["d"]; return }
	if (m == "rdtsc" || m == "rdtscp") { emit(m); delete imm["a"]; delete imm["d"]; if (m == "rdtscp") delete imm["c"]; return }
	if (m == "in" || m == "out") {
		v = (m == "in") ? dst : src
		w = (v ~ /^%al$/) ? "b" : (v ~ /^%ax$/) ? "w" : "l"
		p = (m == "in") ? src : dst
		if (p ~ /^\$/) p = substr(p, 2); else p = known("d")
		emit(m w (p == "" ? "" : "(" p ")"))
		if (m == "in") delete imm["a"]
		return
	}
	if (m ~ /^(vmcall|vmmcall)$/) { v = known("a"); emit(m (v == "" ? "" : "(" v ")")); delete imm["a"]; return }
	if (m ~ /^(cli|sti|hlt|mfence|lfence|pause|wbinvd|invd)$/) { emit(m); return }
	if (m == "nop" && ops == "") { emit("nop"); return }
	if (dst ~ /^%/) delete imm[base(dst)]
}
function hex(x,   i, v, c) {
	v = 0
	for (i = 1; i <= length(x); i++) { c = index("0123456789abcdef", substr(x, i, 1)); v = v * 16 + c - 1 }
	return v
}
function walk(s, depth,   a, steps, t, m, seen) {
	if (!(s in start) || depth > 4) { emit("call(" s ")"); return }
	a = start[s]
	while (steps++ < 1000 && a != "") {
		m = mnem[a]
		if (m ~ /^ret/) return
		if (m ~ /^j/) {
			t = opnd[a]; sub(/ .*/, "", t)
			# A busy-wait loop entered at its test (a jump over the body, then a backward
			# conditional jump into it): its body, never walked, is walked once.
			if (m != "jmp" && owner[t] == s && hex(t) < hex(a) && !(t in walked) && !(t in seen)) {
				seen[t] = 1; a = t; continue
			}
			if (m != "jmp") { a = nexta[a]; continue }
			if (owner[t] == s && !(t in seen)) { seen[t] = 1; a = t; continue }
			if (t in fstart) { walk(fstart[t], depth + 1); return }
			return
		}
		if (m ~ /^call/) {
			t = opnd[a]; sub(/ .*/, "", t)
			if (t in fstart) walk(fstart[t], depth + 1); else emit("call(?)")
			delete imm["a"]; delete imm["c"]; delete imm["d"]
			a = nexta[a]; continue
		}
		walked[a] = 1
		step(a)
		a = nexta[a]
	}
}
/^[0-9a-f]+ <[^>]+>:$/ {
	cur = $2; gsub(/[<>:]/, "", cur)
	addr = $1; sub(/^0+/, "", addr)
	start[cur] = addr; fstart[addr] = cur
	next
}
/^ +[0-9a-f]+:\t/ {
	line = $0
	addr = line; sub(/^ +/, "", addr); sub(/:.*/, "", addr)
	text = line; sub(/^[^\t]*\t/, "", text)
	m = text; sub(/[ \t].*/, "", m)
	o = text; if (index(o, " ")) { sub(/^[^ ]+ +/, "", o) } else o = ""
	sub(/ *#.*/, "", o)
	mnem[addr] = m; opnd[addr] = o; owner[addr] = cur
	if (prev != "") nexta[prev] = addr
	prev = addr
	next
}
END {
	if (!(sym in start)) { print "no such function: " sym > "/dev/stderr"; exit 2 }
	out = ""
	walk(sym, 0)
	print out
}
