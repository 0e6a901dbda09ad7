#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SECONDS (default 60), then merges what
# they found into the committed corpora (tests/fuzz/corpus/<target>), which ctest replays in every
# build. Crash inputs are written into the corpus too (crash-*), so they stay regression tests.
#   tools/fuzz.sh [seconds] [target ...]     targets: native guava roundtrip redis
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}; shift || true
targets=${*:-native guava roundtrip redis}
bash tools/setup.sh
for p in clang-14 libclang-rt-14-dev libfuzzer-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="${missing:-} $p"
done
[ -z "${missing:-}" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLFBLOOM_FUZZ=ON >/dev/null
for t in $targets; do cmake --build build-fuzz -j2 --target lfbloom-fuzz-$t >/dev/null; done
for t in $targets; do
  corpus=tests/fuzz/corpus/$t scratch=$(mktemp -d)
  echo "=== fuzzing $t for ${seconds}s"
  build-fuzz/bin/lfbloom-fuzz-$t -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=8192 \
    -artifact_prefix="$corpus/crash-" "$scratch" "$corpus" 2>&1 | grep -E "^#[0-9]+.*DONE|ERROR|crash-" || true
  build-fuzz/bin/lfbloom-fuzz-$t -merge=1 "$corpus" "$scratch" 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
  rm -rf "$scratch"
done
