#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test lfbloom. Idempotent: on a ready
# machine it checks and returns in seconds. Run as root (or with sudo available).
set -euo pipefail

# Boost 1.81 (libboost1.81-dev conflicts with the default 1.74 -dev packages; we install 1.81 only).
packages=(
  build-essential cmake pkg-config
  libboost1.81-dev libboost-test1.81-dev  # Boost.Atomic, Boost.Test, Boost.Math
  libboost-program-options1.81-dev        # command-line flags of the stress, bench and CLI programs
  libxxhash-dev                           # XXH3 checksums of saved filters
  libmurmurhash-dev                       # reference MurmurHash3, tests only
  libsqlite3-dev                          # the demo's database
  abigail-tools                           # abidw/abidiff: the C ABI gate
  python3                                 # the ctypes FFI test
  swig                                    # the Java (and Go) bindings
  relacy-dev                              # Relacy: model checks of the concurrent algorithms
  redis-server python3-venv               # the Redis module's tests (redis-py 8 goes in a venv)
  python3-dev                             # Python.h: pip install ./bindings/python compiles its cffi module
)
# Java 17 and Maven come with the machine; install them only where they are missing.
command -v javac >/dev/null 2>&1 || packages+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || packages+=(maven)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
