#!/usr/bin/env bash
# Every dynamic symbol liblfbloom exports is an lfb_* function versioned LFBLOOM_1.0 (or later).
set -euo pipefail
lib=$1
exported=$(nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }')
[ -n "$exported" ] || { echo "no exported symbols in $lib"; exit 1; }
stray=$(grep -v '^lfb_[a-z0-9_]*@@LFBLOOM_1\.[0-9]*$' <<<"$exported" || true)
if [ -n "$stray" ]; then
  echo "symbols exported outside lfb_* / LFBLOOM_1.x:"; echo "$stray"; exit 1
fi
echo "$(wc -l <<<"$exported") symbols, all lfb_* in LFBLOOM_1.x"
