#!/bin/sh
# The lfbloom command -> Go: `lfbloom build` makes a scalable, a scalable cuckoo and a rotating
# filter from one key file (UTF-8 keys), then the Go test TestLoadCompositesFromTheCLI loads each
# and checks its type, parts and every key.
# Usage (in bindings/go, with the go test's environment): cli_to_go.sh LFBLOOM GO
set -eu
lfbloom=$1 go=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
seq 0 2999 | sed 's/^/clé:/' >"$dir/keys.txt"
"$lfbloom" build --no-progress -o "$dir/scalable.lfb" -n 500 -p 0.01 --kind scalable --seed 11 "$dir/keys.txt"
"$lfbloom" build --no-progress -o "$dir/scalable-cuckoo.lfb" -n 500 -p 0.01 --kind scalable --sub-kind cuckoo "$dir/keys.txt"
"$lfbloom" build --no-progress -o "$dir/rotating.lfb" -n 5000 -p 0.01 --kind rotating --generations 3 --period 3600 "$dir/keys.txt"
LFBLOOM_CLI_TO_GO=$dir "$go" test -count=1 -run '^TestLoadCompositesFromTheCLI$' -v . >"$dir/go.log" 2>&1 || { cat "$dir/go.log"; exit 1; }
cat "$dir/go.log"
grep -q -- '^--- PASS: TestLoadCompositesFromTheCLI' "$dir/go.log" || { echo "the Go reader did not run"; exit 1; }
