#!/usr/bin/env bash
# Writes capi/abi/liblfbloom.so.1.abi from the current build: run after an intended, compatible
# ABI addition (never to paper over a break: that needs a new SONAME major).
# Usage: tools/update-abi-baseline.sh [BUILD_DIR]   (default: build)
#
# The baseline is reviewed as a diff, so it holds what the C ABI is and nothing of where or how it
# was built: the public headers' types reached from exported symbols (--headers-dir,
# --drop-private-types, --exported-interfaces-only: without the last, the opaque lfb_handle's C++
# members drag in the core's and libstdc++'s types, 60,000 lines), no build paths (--no-corpus-path,
# --no-comp-dir-path, --short-locs), no source lines (--no-show-locs: a header edit moves no
# declaration) and type ids hashed from the type (--type-id-style hash: a new type renumbers none).
# An added function is then its symbol's line and its declaration's few lines. abidiff compares
# sizes, offsets, members and signatures, none of which these options drop.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
abidw --headers-dir capi/include --drop-private-types --exported-interfaces-only \
  --no-corpus-path --no-comp-dir-path --short-locs --no-show-locs --type-id-style hash \
  --out-file capi/abi/liblfbloom.so.1.abi "$build/lib/liblfbloom.so.1"
echo "wrote capi/abi/liblfbloom.so.1.abi"
