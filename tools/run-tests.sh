#!/usr/bin/env bash
# Sets up, builds and runs every lfbloom test: the README's test command and what CI runs.
# Three builds, each with the whole ctest suite: Release, ThreadSanitizer, and
# AddressSanitizer + UndefinedBehaviorSanitizer. `--fast` runs the Release build only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh

suite() {
  local dir=$1; shift
  echo "=== $dir: $*"
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j2
  ctest --test-dir "$dir" -j2 --output-on-failure
  echo "=== $dir: done at ${SECONDS} s"
}

suite build -DCMAKE_BUILD_TYPE=Release
if [ "${1:-}" != "--fast" ]; then
  suite build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLFBLOOM_SANITIZE=thread
  suite build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLFBLOOM_SANITIZE=address,undefined
fi
