#!/usr/bin/env bash
# Writes capi/abi/liblfbloom.so.1.abi from the current build: run after an intended, compatible
# ABI addition (never to paper over a break: that needs a new SONAME major).
# Usage: tools/update-abi-baseline.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
abidw --headers-dir capi/include --drop-private-types --no-corpus-path --out-file capi/abi/liblfbloom.so.1.abi "$build/lib/liblfbloom.so.1"
echo "wrote capi/abi/liblfbloom.so.1.abi"
