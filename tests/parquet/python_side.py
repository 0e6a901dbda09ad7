#!/usr/bin/env python3
"""lfbloom's Python package behind interop.py's and duckdb_interop.py's command line (ctest
parquet.python and parquet.python.duckdb), so parquet-mr and DuckDB check the bitsets that Python
writes, and Python reads theirs:

    python_side.py write NUM_BYTES KEYS_FILE OUT_FILE   BloomFilter.for_parquet(NUM_BYTES), every key
                                                         added (single calls and a list batch), then
                                                         to_bytes("parquet")
    python_side.py check BITSET_FILE KEYS_FILE          prints how many of the keys the filter of
                                                         from_bytes(bitset, "parquet") finds

KEYS_FILE: one key a line in lowercase hex (an empty line is the empty key). Run by a Python with
lfbloom installed (the venv that ctest python.3.13 makes).
"""
import sys

import lfbloom


def read_keys(path):
    with open(path) as file:
        return [bytes.fromhex(line.rstrip("\n")) for line in file]


def main(argv):
    if len(argv) == 5 and argv[1] == "write":
        keys = read_keys(argv[3])
        f = lfbloom.BloomFilter.for_parquet(int(argv[2]))
        for key in keys[::2]:
            f.add(key)
        f.add_many(keys[1::2])
        with open(argv[4], "wb") as out:
            out.write(f.to_bytes("parquet"))
        return 0
    if len(argv) == 4 and argv[1] == "check":
        with open(argv[2], "rb") as file:
            f = lfbloom.from_bytes(file.read(), "parquet")
        print(sum(f.contains_many(read_keys(argv[3]))))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
