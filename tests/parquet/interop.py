#!/usr/bin/env python3
"""Bit-exactness of lfbloom's Parquet split-block Bloom filter with Apache Parquet's own.

Runs two programs with one interface, lfbloom's (--cpp) and the reference over parquet-mr's
BlockSplitBloomFilter (--jar, tests/parquet/java):

    write NUM_BYTES KEYS_FILE OUT_FILE   the raw bitset (no header) of a filter holding every key
    check BITSET_FILE KEYS_FILE          prints how many of the keys the filter over those bytes finds

KEYS_FILE: one key a line in lowercase hex, every line ending in a newline (an empty line is the
empty key). For each case (bitset size, number of keys), from sparse to overfull, both sides write
a filter of the same keys and the two bitsets must be equal byte for byte; each side must then find
every key in the other's bitset, and both must count the same number of a set of absent keys (the
false positives: the same bits give the same answers). Keys come from a fixed seed: lengths 0 to 64
bytes, the empty key among them, many 8-byte keys (a BYTE_ARRAY value is hashed as its bytes, XXH64
with seed 0, so every XXH64 length path is covered).

    interop.py --cpp build/bin/lfbloom-parquet-interop --jar build/tests/parquet/maven/parquet-bits.jar

Prints one line per case and a closing 'N passed, N failed'; exits 1 on any mismatch.
"""
import argparse
import os
import pathlib
import random
import shlex
import subprocess
import sys
import tempfile
import time

SEED = 20261123
# (bitset bytes, keys): parquet-mr makes powers of two from 32 bytes (one block) to 128 MiB.
CASES = [
    (32, 0), (32, 1), (32, 12), (32, 200),
    (1024, 10), (1024, 300), (1024, 5000),
    (64 * 1024, 100), (64 * 1024, 20000), (64 * 1024, 150000),
    (1024 * 1024, 5000), (1024 * 1024, 300000),
]
ABSENT = 20000  # keys in none of the filters


def make_keys(count, absent):
    """count + absent distinct keys from SEED: the first count are inserted, the rest never are."""
    rng = random.Random(SEED)
    keys, seen = [b""], {b""}
    while len(keys) < count + absent:
        length = 8 if rng.random() < 0.3 else rng.randint(1, 64)
        key = rng.randbytes(length)
        if key not in seen:
            seen.add(key)
            keys.append(key)
    return keys[:count], keys[count:]


def write_keys(path, keys):
    path.write_text("".join(key.hex() + "\n" for key in keys))
    return path


class Side:
    """One implementation: its command line and the time its runs took."""

    def __init__(self, name, command):
        self.name, self.command, self.seconds = name, command, 0.0

    def run(self, *args):
        start = time.monotonic()
        done = subprocess.run(self.command + [str(a) for a in args], capture_output=True, text=True, timeout=600)
        self.seconds += time.monotonic() - start
        if done.returncode != 0:
            raise RuntimeError(f"{self.name} {' '.join(map(str, args))}: exit {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def count(self, bitset, keys_file):
        out = self.run("check", bitset, keys_file).strip()
        if not out.isdigit():
            raise RuntimeError(f"{self.name} check printed {out!r}, not a count")
        return int(out)


def first_difference(a, b):
    for offset, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return offset
    return min(len(a), len(b))


def run_case(num_bytes, count, keys_file, absent_file, sides, work):
    cpp, java = sides
    bits = {}
    for side in sides:
        bits[side.name] = work / f"{side.name}-{num_bytes}-{count}.bin"
        side.run("write", num_bytes, keys_file, bits[side.name])
    ours, theirs = bits[cpp.name].read_bytes(), bits[java.name].read_bytes()
    problems = []
    for name, data in ((cpp.name, ours), (java.name, theirs)):
        if len(data) != num_bytes:
            problems.append(f"{name} wrote {len(data)} bytes, not {num_bytes}")
    if ours != theirs:
        offset = first_difference(ours, theirs)
        problems.append(f"bitsets differ first at byte {offset} (block {offset // 32}, word {offset % 32 // 4}): "
                        f"{cpp.name} {ours[offset:offset + 4].hex() or '(end)'}, "
                        f"{java.name} {theirs[offset:offset + 4].hex() or '(end)'}")
    # Each side reads the other's bitset.
    for reader, writer in ((cpp, java), (java, cpp)):
        found = reader.count(bits[writer.name], keys_file)
        if found != count:
            problems.append(f"{reader.name} finds {found} of the {count} keys in {writer.name}'s bitset")
    absent = {reader.name: reader.count(bits[writer.name], absent_file) for reader, writer in ((cpp, java), (java, cpp))}
    if absent[cpp.name] != absent[java.name]:
        problems.append(f"absent keys found: {cpp.name} {absent[cpp.name]} in {java.name}'s bitset, "
                        f"{java.name} {absent[java.name]} in {cpp.name}'s")
    fill = int.from_bytes(theirs, "little").bit_count() / (8 * len(theirs)) if theirs else 0.0
    summary = (f"{num_bytes:>8} bytes {count:>6} keys  fill {100 * fill:5.1f}%  "
               f"absent found {absent[cpp.name]}/{ABSENT}")
    return summary, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpp", required=True, help="lfbloom-parquet-interop (or any command line with its interface, split as a shell does)")
    parser.add_argument("--jar", required=True, help="parquet-bits.jar, from tests/parquet/java")
    parser.add_argument("--java", default=os.environ.get("JAVA", "java"), help="the java launcher (default: $JAVA or java)")
    parser.add_argument("--keep", metavar="DIR", help="write the key files and bitsets here and keep them")
    args = parser.parse_args()

    sides = (Side("cpp", shlex.split(args.cpp)), Side("java", [args.java, "-jar", args.jar]))
    largest = max(count for _, count in CASES)
    present, absent = make_keys(largest, ABSENT)

    with tempfile.TemporaryDirectory(prefix="lfbloom-parquet-") as scratch:
        work = pathlib.Path(args.keep or scratch)
        work.mkdir(parents=True, exist_ok=True)
        absent_file = write_keys(work / "absent.keys", absent)
        passed, failed = 0, []
        for num_bytes, count in CASES:
            keys_file = work / f"{count}.keys"
            if not keys_file.exists():
                write_keys(keys_file, present[:count])
            try:
                summary, problems = run_case(num_bytes, count, keys_file, absent_file, sides, work)
            except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
                summary, problems = f"{num_bytes:>8} bytes {count:>6} keys", [str(e)]
            print(f"{'ok  ' if not problems else 'FAIL'} {summary}", flush=True)
            for problem in problems:
                print(f"     {problem}", flush=True)
            if problems:
                failed.append(f"{num_bytes}/{count}")
            else:
                passed += 1
    print(f"time: cpp {sides[0].seconds:.1f} s, java {sides[1].seconds:.1f} s")
    if failed:
        print(f"failed cases (bytes/keys): {', '.join(failed)}")
    print(f"interop: {passed} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
