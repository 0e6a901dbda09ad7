#!/usr/bin/env bash
# Regenerates internal/native from bindings/swig/lfbloom.i (the SWIG output is committed so Go
# users need no SWIG). With --check, regenerates into a temporary directory and fails unless the
# result equals the committed files byte for byte.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$here/internal/native
if [ "${1:-}" = "--check" ]; then out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
cd "$root/bindings/swig"  # SWIG writes paths relative to here into the output: keep them stable
swig -go -cgo -intgosize 64 -package native -I../../capi/include -outdir "$out" -o "$out/lfbloom_wrap.c" lfbloom.i
if [ "${1:-}" = "--check" ]; then
  for f in LfbNative.go lfbloom_wrap.c; do
    cmp "$out/$f" "$here/internal/native/$f" || { echo "internal/native/$f is stale: run bindings/go/generate.sh"; exit 1; }
  done
  echo "internal/native matches lfbloom.i and lfbloom.h"
fi
