#!/usr/bin/env bash
# cmake --install into a temporary prefix, then build a consumer twice: with find_package(lfbloom)
# and with pkg-config, and run both.
set -euo pipefail
build=$1 source=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'liblfbloom.so.1' | head -n 1)")
cmake -S "$source/tests/capi/consumer" -B "$prefix/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer" >/dev/null
"$prefix/consumer/consumer"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -std=c99 "$source/tests/capi/consumer/main.c" $(pkg-config --cflags --libs lfbloom) -o "$prefix/pc-consumer"
LD_LIBRARY_PATH="$libdir" "$prefix/pc-consumer"
