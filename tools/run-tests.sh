#!/usr/bin/env bash
# Sets up, builds and runs every lfbloom test. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
ctest --test-dir build -j2 --output-on-failure
