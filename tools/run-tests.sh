#!/usr/bin/env bash
# Sets up, builds and runs every lfbloom test: the README's test command and what CI runs.
# Three builds, each with the whole ctest suite: Release, ThreadSanitizer, and
# AddressSanitizer + UndefinedBehaviorSanitizer. `--fast` runs the Release build only.
# Each stage says what it does and how long it took; the last line is the whole run's time.
set -euo pipefail
cd "$(dirname "$0")/.."

stage() {  # stage NAME COMMAND...: runs one step, announced and timed
  local name=$1 start=$SECONDS; shift
  echo "=== ${name} (at ${SECONDS} s)"
  "$@"
  echo "=== ${name}: done in $((SECONDS - start)) s"
}

quiet() { "$@" >/dev/null; }

suite() {
  local dir=$1; shift
  stage "$dir: configure ($*)" quiet cmake -S . -B "$dir" "$@"
  stage "$dir: build everything" cmake --build "$dir" -j2
  stage "$dir: every ctest test" ctest --test-dir "$dir" -j2 --output-on-failure
}

stage "set-up: packages (tools/setup.sh)" bash tools/setup.sh
suite build -DCMAKE_BUILD_TYPE=Release
if [ "${1:-}" != "--fast" ]; then
  # A cuckoo filter's writer gate (a save) holds every stripe lock, up to 4,096 robust mutexes in
  # a shared file; ThreadSanitizer's deadlock detector tracks 64 per thread and aborts past that.
  # Races are still reported: only lock-order inversion checking is off (lfbloom's writers take
  # one stripe at a time, the gate takes them in index order: Relacy checks those).
  TSAN_OPTIONS="detect_deadlocks=0 ${TSAN_OPTIONS:-}" \
  suite build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLFBLOOM_SANITIZE=thread
  suite build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLFBLOOM_SANITIZE=address,undefined
fi
echo "=== all stages passed in ${SECONDS} s ($((SECONDS / 60)) min $((SECONDS % 60)) s)"
