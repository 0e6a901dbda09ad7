#!/bin/sh
# Python <-> Go files (ctest python.go): Python writes its filters of the shared keys, the Go test
# TestFilesOfPython checks them against Go's own and writes Go's, then Python checks Go's. DIR
# keeps the files for the Java test (ctest java, then python.java).
# Usage (in bindings/go, with the go tests' environment): exchange_go.sh PYTHON GO DIR
set -eu
python=$1 go=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir"
mkdir -p "$dir"
"$python" "$here/exchange.py" write "$dir"
LFBLOOM_PYTHON_FILES=$dir "$go" test -count=1 -run '^TestFilesOfPython$' -v . >"$dir/go.log" 2>&1 || { cat "$dir/go.log"; exit 1; }
grep -q -- '^--- PASS: TestFilesOfPython' "$dir/go.log" || { cat "$dir/go.log"; echo "the Go test did not run"; exit 1; }
"$python" "$here/exchange.py" check "$dir" go
