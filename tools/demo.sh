#!/usr/bin/env bash
# Sets up, builds and runs lfbloom's main job: the README's first command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
# Only the lfbloom command: the demo runs nothing else (all of build/ is run-tests.sh's job).
cmake --build build -j2 --target lfbloom >/dev/null
exec build/bin/lfbloom demo "$@"
