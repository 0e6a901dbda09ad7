#!/usr/bin/env bash
# Sets up, builds and runs lfbloom's main job: the README's first command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j2 >/dev/null
exec build/bin/lfbloom demo "$@"
