#!/bin/sh
# The upstream KVM selftests' captures (tests/data/traces/k*st-*: 6.12 and
# 7.3, dirty_log_perf_test and x86/dirty_log_page_splitting_test, built
# unchanged in the nested rig, tests/nested/README.md):
#   - with the KVM ioctls traced, every dirty-log ioctl is inside a phase
#     that starts at an ioctl's enter and ends at an ioctl's exit (one
#     step's memslots, one after the other, are one phase), and no
#     dirty-log phase is outside an ioctl;
#   - `report --selftest` prints the test's own step lines, the same labels
#     in the same order (a step that left nothing in the trace, as a get
#     under manual protect without ioctls traced, says "not traced"), and the steps
#     the kernel bounds (enable, get, clear, disable) are within 1 ms of the
#     kernel's ioctl time and within the test's own time (which adds its
#     user-space work around the ioctl);
#   - faults: each NPF exit counted once (exits = slow + fast + spurious);
#   - the splitting test's DEBUG build prints KVM's counters after each
#     stage: after populating, enabling, dirtying, clearing, disabling and
#     repopulating they equal the census at the end of the matching group
#     of phases of the same VM (a VM per KVM_CREATE_VM, both slots);
#   - without ioctls and kprobes, under manual protect (the perf test's
#     default) the first KVM_CLEAR_DIRTY_LOG, where the splitting happens,
#     is a harvest, not an enable.
. "$(dirname "$0")/lib.sh"

q() { sqlite3 "$1" "$2"; }
n=0
for dir in "$TRACES"/k*st-*/; do
	[ -e "$dir/selftest.log" ] || continue
	name=$(basename "$dir")
	db=$T/$name.db
	n=$((n + 1))
	check "$name: import" "$MSC" import -q "$dir/trace.dat" -o "$db"
	ioctls=$(q "$db" "SELECT count(*) FROM ioctl")
	if [ "$ioctls" -gt 0 ]; then
		check_eq "$name: every dirty-log ioctl is inside a phase of ioctls" \
			"$(q "$db" "SELECT count(*) FROM ioctl_call c WHERE (c.name LIKE 'KVM_SET_USER_MEMORY_REGION%'
				OR c.name IN ('KVM_GET_DIRTY_LOG', 'KVM_CLEAR_DIRTY_LOG')) AND c.end_ts IS NOT NULL
				AND NOT EXISTS (SELECT 1 FROM phase p WHERE p.source = 'ioctl'
					AND p.start_ts <= c.start_ts AND c.end_ts <= p.end_ts)")" 0
		check_eq "$name: each ioctl phase starts at an enter and ends at an exit, exactly" \
			"$(q "$db" "SELECT count(*) FROM phase p WHERE p.source = 'ioctl' AND (
				NOT EXISTS (SELECT 1 FROM ioctl_call c WHERE c.start_ts = p.start_ts) OR
				NOT EXISTS (SELECT 1 FROM ioctl_call c WHERE c.end_ts = p.end_ts))")" 0
		check_eq "$name: no dirty-log phase outside its ioctl" \
			"$(q "$db" "SELECT count(*) FROM phase p WHERE p.kind IN ('enable', 'harvest', 'disable')
				AND p.source != 'ioctl'")" 0
	fi
	check_eq "$name: NPF exits counted once: slow + resolved by the fast path = exits" \
		"$(q "$db" "SELECT total(faults_slow + faults_fast) FROM activity")" \
		"$(q "$db" "SELECT count(*) || '.0' FROM fault WHERE kind = 'npf'")"
	case $name in
	*perf_thp_32m_noioctl)
		"$MSC" analyze -q --rebuild --infer-only "$db"
		check_eq "$name: inferred, the first clear is a harvest: harvest harvest disable" \
			"$(q "$db" "SELECT group_concat(kind, ' ') FROM (SELECT kind FROM phase
				WHERE kind IN ('enable', 'harvest', 'disable') ORDER BY start_ts)")" \
			"harvest harvest disable"
		;;
	esac
	if grep -q '^Page stats after' "$dir/selftest.log" && [ "$ioctls" -gt 0 ]; then
		# KVM's counters after every stage, per VM (each "Testing guest mode" is a new VM)
		awk '/^Testing guest mode/ { vm++ }
			/^Page stats after/ { st = $0; sub(/^Page stats after /, "", st); sub(/:.*/, "", st)
			  print vm "|" st "|" $(NF - 6) " " $(NF - 4) " " $(NF - 2) }' "$dir/selftest.log" > "$T/$name.kvm"
		# the census at the end of each group of same-kind phases of the VM; a
		# group of harvests is the test's "clearing" stage if it cleared
		q "$db" "SELECT vm, kind, name, after_4k || ' ' || after_2m || ' ' || after_1g FROM phase
			WHERE kind IN ('populate', 'enable', 'dirty-pass', 'harvest', 'disable', 're-populate')
			ORDER BY vm, start_ts" | awk -F'|' '
			BEGIN { st["populate"] = "populating memory"; st["enable"] = "enabling dirty logging"
				st["dirty-pass"] = "dirtying memory"; st["disable"] = "disabling dirty logging"
				st["re-populate"] = "repopulating memory" }
			function flush() { if (k == "harvest" && c) print v "|clearing dirty log|" last
					   else if (k != "" && k != "harvest") print v "|" st[k] "|" last }
			{ if ($1 != v || $2 != k) { flush(); c = 0 }
			  v = $1; k = $2; last = $4; if ($3 == "clear_dirty_log") c = 1 }
			END { flush() }' > "$T/$name.census"
		check_eq "$name: a VM per KVM_CREATE_VM, as many as the test ran" \
			"$(q "$db" "SELECT count(*) || ' ' || sum(source = 'ioctl') FROM vm")" \
			"$(grep -c '^Testing guest mode' "$dir/selftest.log") $(grep -c '^Testing guest mode' "$dir/selftest.log")"
		check_eq "$name: one enable and one disable per step, both memslots in it" \
			"$(q "$db" "SELECT count(*) FROM phase WHERE kind = 'enable'") $(q "$db" "SELECT count(*) FROM phase WHERE kind = 'disable'")" \
			"$(grep -c 'after enabling dirty logging' "$dir/selftest.log") $(grep -c 'after disabling dirty logging' "$dir/selftest.log")"
		check_eq "$name: KVM's counters after every stage of every VM = the census after its phases" \
			"$(cat "$T/$name.census")" "$(cat "$T/$name.kvm")"
	fi
	"$MSC" report --selftest "$db" > "$T/$name.ours" 2>&1
	grep ' time: [0-9.]*s$' "$dir/selftest.log" > "$T/$name.test"
	# each of the test's lines that names a step the kernel bounds, next to ours
	for step in "Enabling dirty logging" "get dirty log" "clear dirty log" "Disabling dirty logging"; do
		grep "$step time" "$T/$name.test" > "$T/a" || continue
		grep "$step time" "$T/$name.ours" > "$T/b"
		# without the ioctls a manual-protect enable leaves no trace at all
		[ "$ioctls" -gt 0 ] || [ "$(grep -c . "$T/a")" = "$(grep -c . "$T/b")" ] || continue
		grep -q ' time: [0-9]' "$T/b" || continue	# not traced at all
		# a step that left nothing in the trace says so: nothing to compare
		bad=$(paste -d' ' "$T/a" "$T/b" | grep -v ' not traced$' | awk -v ioctl="$ioctls" '
			{ t = $(NF / 2); o = $NF; sub(/s$/, "", t); sub(/s$/, "", o)
			  # ours is the kernel part of the test time; never more than it
			  if (o > t + 0.001 || (ioctl > 0 && t - o > 0.05 + 0.5 * t)) print }
			END { if (NR == 0) print "none" }' | head -n 3)
		check_eq "$name: '$step' as the test measured it, from the trace" "$bad" ""
	done
	[ "$ioctls" -gt 0 ] && [ -s "$T/$name.test" ] && check_eq "$name: one line per step the test printed" \
		"$(grep -c . "$T/$name.ours")" "$(grep -c . "$T/$name.test")"
	# the test's step lines and ours pair one for one: the same labels in the same
	# order, ioctls traced or not (a step that left nothing in the trace says so)
	[ -s "$T/$name.test" ] && check_eq "$name: --selftest's steps are the test's, in its order" \
		"$(grep ' time: ' "$T/$name.ours" | sed 's/ time: .*//')" "$(sed 's/ time: .*//' "$T/$name.test")"
	check_eq "$name: a step without a time says it was not traced, nothing else" \
		"$(grep ' time: ' "$T/$name.ours" | grep -cvE ' time: ([0-9]+\.[0-9]{9}s|not traced)$')" 0
done
check "selftest captures found" test "$n" -gt 0
done_testing
