#!/usr/bin/env bash
# The ABI gate: compares the built library with the committed baseline and fails on any change to
# what exists; additions pass. abidiff's exit status is a bit mask (1 error, 2 usage, 4 change,
# 8 incompatible change), but it counts some breaks, such as an added parameter, only as a change
# (4); so the summary is read too: any removed or changed function or variable fails the gate.
# One change passes as well: fields appended to a struct that starts with its size
# (capi/abi/appended-fields.supp says why that breaks no caller).
# After an intended addition, refresh the baseline with tools/update-abi-baseline.sh.
# The library is read as the baseline was written, from its exported interfaces. No --headers-dir2:
# the baseline records no source locations, and abidiff then takes each of its types for a
# private one and filters out every change to it (a field's type changed included). The private
# type behind the opaque lfb_handle is a declaration in the baseline, which abidiff compares by name.
set -uo pipefail
baseline=$1 lib=$2
report=$(abidiff --suppressions "$(dirname "$baseline")/appended-fields.supp" --exported-interfaces-only "$baseline" "$lib")
status=$?
echo "$report"
if (( status & 3 )); then echo "ABI gate: abidiff failed (status $status)"; exit 1; fi
if (( status & 8 )); then echo "ABI gate: incompatible change against $baseline"; exit 1; fi
if grep -Eq '(Functions|Variables) changes summary: ([1-9][0-9]* Removed|[0-9]+ Removed, [1-9][0-9]* Changed)' <<<"$report"; then
  echo "ABI gate: an existing function or variable was removed or changed"; exit 1
fi
echo "ABI gate: compatible (status $status)"
