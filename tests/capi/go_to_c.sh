#!/bin/sh
# Go -> C: the Go test TestWriteCompositesForC writes a scalable, a scalable cuckoo and a rotating
# filter into a fresh directory, then the C test program's --go-composites mode loads them and
# checks their kinds, parts, rotations and every key.
# Usage (in bindings/go, with the go test's environment): go_to_c.sh GO CAPI_TEST_PROGRAM
set -eu
go=$1 capi=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
LFBLOOM_GO_TO_C=$dir "$go" test -count=1 -run '^TestWriteCompositesForC$' -v . >"$dir/go.log" 2>&1 || { cat "$dir/go.log"; exit 1; }
grep -q -- '^--- PASS: TestWriteCompositesForC' "$dir/go.log" || { cat "$dir/go.log"; echo "the Go writer did not run"; exit 1; }
"$capi" --go-composites "$dir"
