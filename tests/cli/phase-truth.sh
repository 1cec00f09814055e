#!/bin/sh
# The gate of the phase detector, on every bundled capture that carries its
# own truth (the workload's step markers or the traced KVM ioctls): each
# dirty-log step is right as captured and by inference alone (ioctls and
# kprobes left out) at the capture's speed, 10x slower and 100x faster, and
# the inferred phases are the same at all three speeds (bench/phase-truth.py
# prints the TAP lines).
. "$(dirname "$0")/lib.sh"

python3 "$(dirname "$0")/../../bench/phase-truth.py" --tap --msc "$MSC" --work "$T" "$TRACES"/*/
