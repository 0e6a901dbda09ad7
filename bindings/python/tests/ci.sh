#!/usr/bin/env bash
# ctest's Python stage (bindings/python/CMakeLists.txt), each venv made anew under the build tree:
#   ci.sh wheel OUT PYTHON LIBRARY   builds the one abi3 wheel into OUT/dist with PYTHON (the
#                                    oldest supported: an abi3 module must be built by its floor),
#                                    from this build's liblfbloom.so.1 (no second C++ compile)
#   ci.sh test OUT PYTHON NAME       installs that wheel and the pinned test requirements into a
#                                    clean venv OUT/venv-NAME and runs the pytest suite there
set -euo pipefail
mode=$1 out=$2 python=$3
here=$(cd "$(dirname "$0")" && pwd)
export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1 HYPOTHESIS_STORAGE_DIRECTORY=$out/hypothesis
fresh_venv() {
  rm -rf "$1"
  "$python" -m venv "$1"
}
case $mode in
wheel)
  fresh_venv "$out/venv-build"
  "$out/venv-build/bin/pip" install -q -r "$here/build-requirements.txt"
  rm -rf "$out/dist" "$here/../build"
  LFBLOOM_LIBRARY=$4 "$out/venv-build/bin/pip" wheel -q --no-build-isolation --no-deps -w "$out/dist" "$here/.."
  rm -rf "$here/../build" "$here/../src/lfbloom.egg-info"
  ls "$out"/dist/lfbloom-*-abi3-*.whl
  ;;
test)
  venv=$out/venv-$4
  fresh_venv "$venv"
  "$venv/bin/pip" install -q -r "$here/requirements.txt" "$out"/dist/lfbloom-*.whl
  cd "$here"  # the installed package is tested: the source tree's src/ is not on the path
  "$venv/bin/python" -c 'import lfbloom, sys; print("lfbloom", lfbloom.library_version, "from", lfbloom.__file__, "on", sys.version)'
  exec "$venv/bin/python" -m pytest -p no:cacheprovider -q .
  ;;
*)
  echo "usage: ci.sh wheel OUT PYTHON LIBRARY | ci.sh test OUT PYTHON NAME" >&2
  exit 2
  ;;
esac
