#!/usr/bin/env bash
# Sets up, builds and runs lfbloom's main job: the README's first command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
# Only the lfbloom command: the demo runs nothing else (all of build/ is run-tests.sh's job).
cmake --build build -j2 --target lfbloom >/dev/null
build/bin/lfbloom demo "$@"  # fails the script (set -e) if the demo's self-check fails
cat <<'NEXT'

Next, three things to try (README.md has one example per language):
  1. Your own keys (one per line; here made up):
       seq -f 'user:%g' 1 100000 | build/bin/lfbloom build -o users.lfb -n 1000000 -p 0.01
       printf 'user:7\nuser:0\n' | build/bin/lfbloom query users.lfb
  2. Another kind in front of the database:  build/bin/lfbloom demo --kind cuckoo
     (README.md, "Which filter do I want?", says which kind fits which situation)
  3. From your language: the C++, C, Python, Redis, Go and Java examples in README.md
NEXT
