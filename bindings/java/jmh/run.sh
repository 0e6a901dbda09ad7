#!/usr/bin/env bash
# Builds lfbloom's jar (from the CMake build in ../../build), installs it in the local Maven
# repository, builds the JMH benchmarks and runs them with 1 and 2 threads.
#   bindings/java/jmh/run.sh [extra JMH flags]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cmake --build "$root/build" -j2 --target lfbloom_jni >/dev/null
mvn -B -q -f "$here/../pom.xml" -Dlfbloom.generated="$root/build/bindings/java/java-gen" \
  -Dlfbloom.native.dir="$root/build/lib" -DskipTests install
mvn -B -q -f "$here/pom.xml" package
for threads in 1 2; do
  java -jar "$here/target/benchmarks.jar" -t "$threads" -rf json -rff "$here/target/jmh-$threads.json" "$@"
done
