#!/bin/sh
# Python <-> Go files (ctest python.go): Python writes its filters of the shared keys, the Go test
# TestFilesOfPython checks them against Go's own and writes Go's, then Python checks Go's.
# Usage (in bindings/go, with the go tests' environment): exchange_go.sh PYTHON GO
set -eu
python=$1 go=$2
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$python" "$here/exchange.py" write "$dir"
LFBLOOM_PYTHON_FILES=$dir "$go" test -count=1 -run '^TestFilesOfPython$' -v . >"$dir/go.log" 2>&1 || { cat "$dir/go.log"; exit 1; }
grep -q -- '^--- PASS: TestFilesOfPython' "$dir/go.log" || { cat "$dir/go.log"; echo "the Go test did not run"; exit 1; }
"$python" "$here/exchange.py" check "$dir"
