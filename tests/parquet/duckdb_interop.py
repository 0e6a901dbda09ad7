#!/usr/bin/env python3
"""Bit-exactness of lfbloom's Parquet split-block Bloom filter with the filters DuckDB writes.

DuckDB (PyPI's duckdb, which this script needs) writes a Bloom filter for every dictionary-encoded
column chunk of a Parquet file. For each one, this script reads the filter out of the file itself
(ColumnMetaData.bloom_filter_offset/length, as DuckDB's parquet_metadata() reports them: a Thrift
compact BloomFilterHeader, then the bitset), has lfbloom-parquet-interop (--cpp) write a filter of
the same size holding that chunk's distinct values, and compares the two bitsets byte for byte; the
C++ program must also find every value in DuckDB's bitset. With --jar, parquet-mr (tests/parquet/java)
writes the same filter too and must agree with both.

Values are hashed as Parquet hashes their plain encoding: a BYTE_ARRAY's bytes, an INT32 or INT64
as 4 or 8 bytes little-endian, a DOUBLE as its 8 IEEE bytes little-endian. The cases: random byte
strings (BLOB, the empty one included), UTF-8 text, BIGINT with NULLs (which no filter holds),
INTEGER, SMALLINT (an INT32 in Parquet), DOUBLE; several false-positive ratios (so several filter
sizes) and several row groups, each with its own filter.

    duckdb_interop.py --cpp build/bin/lfbloom-parquet-interop [--jar .../parquet-bits.jar]

Prints one line per filter and a closing 'N passed, N failed'; exits 1 on any mismatch.
"""
import argparse
import os
import pathlib
import random
import shlex
import struct
import subprocess
import sys
import tempfile

import duckdb

SEED = 20261123
ROWS = 30000


# ---- the Bloom filter's header: Thrift compact protocol ------------------------------------------
def varint(data, pos):
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def skip(data, pos, kind):
    """Skips one value of compact type kind (enough of the protocol for BloomFilterHeader)."""
    if kind in (1, 2):  # boolean true/false: the value is in the type
        return pos
    if kind == 3:  # byte
        return pos + 1
    if kind in (4, 5, 6):  # i16, i32, i64: zigzag varints
        return varint(data, pos)[1]
    if kind == 7:  # double
        return pos + 8
    if kind == 8:  # binary
        length, pos = varint(data, pos)
        return pos + length
    if kind == 12:  # struct
        return read_struct(data, pos, {})[1]
    raise ValueError(f"Thrift compact type {kind} not expected in a BloomFilterHeader")


def read_struct(data, pos, want):
    """Reads a struct; returns {field id: i32 value} for the i32 fields in want, and the end."""
    found, field = {}, 0
    while True:
        head = data[pos]
        pos += 1
        if head == 0:
            return found, pos
        kind, delta = head & 0x0F, head >> 4
        if delta:
            field += delta
        else:
            zigzag, pos = varint(data, pos)
            field = (zigzag >> 1) ^ -(zigzag & 1)
        if kind == 5 and field in want:
            zigzag, pos = varint(data, pos)
            found[field] = (zigzag >> 1) ^ -(zigzag & 1)
        else:
            pos = skip(data, pos, kind)


def bloom_bitset(data, offset, length):
    """BloomFilterHeader {1: i32 numBytes, 2: algorithm, 3: hash, 4: compression} then the bitset."""
    header, start = read_struct(data, offset, {1})
    num_bytes = header.get(1)
    if num_bytes is None or start + num_bytes != offset + length:
        raise ValueError(f"bloom filter at {offset}: header says {num_bytes} bytes, "
                         f"{offset + length - start} follow it")
    return data[start:start + num_bytes]


# ---- the data -------------------------------------------------------------------------------------
COLUMNS = {  # name: (DuckDB type, how the CSV field becomes it, Parquet plain encoding of a value)
    "b": ("BLOB", "unhex(substr(b, 2))", lambda v: v),  # 'x' + hex: an empty field would be no value
    "s": ("VARCHAR", "decode(unhex(substr(s, 2)))", lambda v: v.encode()),
    "i64": ("BIGINT", "i64", lambda v: struct.pack("<q", v)),
    "i32": ("INTEGER", "i32", lambda v: struct.pack("<i", v)),
    "i16": ("SMALLINT", "i16", lambda v: struct.pack("<i", v)),
    "f64": ("DOUBLE", "f64", lambda v: struct.pack("<d", v)),
}


def make_rows(rng, distinct):
    """ROWS rows whose columns each draw from about `distinct` values."""
    blobs = [b""] + [rng.randbytes(8 if rng.random() < 0.3 else rng.randint(1, 64)) for _ in range(distinct - 1)]
    words = ["", "parquet", "Blüte", "布隆过滤器", "🌸"] + [
        "".join(chr(rng.choice((rng.randint(0x20, 0x7E), rng.randint(0xA0, 0x2FFF)))) for _ in range(rng.randint(1, 20)))
        for _ in range(distinct - 5)]
    ints = [rng.randint(-2**63, 2**63 - 1) for _ in range(distinct)] + [0, -1, 2**63 - 1, -2**63]
    rows = []
    for _ in range(ROWS):
        rows.append({
            "b": rng.choice(blobs),
            "s": rng.choice(words),
            "i64": None if rng.random() < 0.05 else rng.choice(ints),
            "i32": rng.randint(-2**31, 2**31 - 1) if rng.random() < 0.001 else rng.randint(-distinct // 2, distinct // 2),
            "i16": rng.randint(-2**15, 2**15 - 1) if rng.random() < 0.01 else rng.randint(0, 40),
            "f64": rng.randrange(distinct) / 7 - 100.0,
        })
    return rows


def write_csv(path, rows):
    with open(path, "w") as f:
        for row in rows:
            f.write(",".join(["x" + row["b"].hex(), "x" + row["s"].encode().hex(), "NULL" if row["i64"] is None else str(row["i64"]),
                              str(row["i32"]), str(row["i16"]), repr(row["f64"])]) + "\n")


def write_parquet(con, csv, parquet, options):
    fields = ", ".join(f"'{name}': 'VARCHAR'" if name in ("b", "s") else f"'{name}': '{kind}'"
                       for name, (kind, _, _) in COLUMNS.items())
    select = ", ".join(f"{expr}::{kind} AS {name}" for name, (kind, expr, _) in COLUMNS.items())
    con.execute(f"""COPY (SELECT {select} FROM read_csv('{csv}', header = false, columns = {{{fields}}},
                          auto_detect = false, quote = '', escape = '', delim = ',', nullstr = 'NULL'))
                    TO '{parquet}' (FORMAT parquet, {options})""")


# ---- the comparison -------------------------------------------------------------------------------
def run(command, *args):
    done = subprocess.run(command + [str(a) for a in args], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command + [str(a) for a in args])}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def first_difference(a, b):
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def check_file(con, parquet, rows, cpp, java, work, label):
    """Compares every Bloom filter in the file; returns (passed, failures)."""
    con.execute("SET preserve_insertion_order = true")
    # The file's rows must be ours in our order, so row group k holds rows [start_k, start_k + n_k).
    read_back = con.execute(f"SELECT i64 FROM read_parquet('{parquet}')").fetchall()
    if [r[0] for r in read_back] != [row["i64"] for row in rows]:
        return 0, [f"{label}: DuckDB did not keep the rows in order"]
    meta = con.execute(f"""SELECT row_group_id, row_group_num_rows, path_in_schema, type, bloom_filter_offset,
                                  bloom_filter_length, encodings
                           FROM parquet_metadata('{parquet}') ORDER BY row_group_id, column_id""").fetchall()
    data = pathlib.Path(parquet).read_bytes()
    group_rows = {m[0]: m[1] for m in meta}
    starts, offset = {}, 0
    for group in sorted(group_rows):
        starts[group] = offset
        offset += group_rows[group]
    filtered, passed, failures = set(), 0, []
    for group, num_rows, column, physical, bf_offset, bf_length, _ in meta:
        if bf_offset is None:
            continue
        filtered.add(column)
        encode = COLUMNS[column][2]
        chunk = rows[starts[group]:starts[group] + num_rows]
        keys = sorted({encode(row[column]) for row in chunk if row[column] is not None})
        keys_file = work / f"{label}-{group}-{column}.keys"
        keys_file.write_text("".join(k.hex() + "\n" for k in keys))
        name = f"{label} row group {group} {column} ({physical})"
        problems = []
        try:
            theirs = bloom_bitset(data, bf_offset, bf_length)
            duck_file = work / f"{label}-{group}-{column}.duckdb.bin"
            duck_file.write_bytes(theirs)
            writers = [("cpp", cpp)] + ([("java", java)] if java else [])
            for side, command in writers:
                out = work / f"{label}-{group}-{column}.{side}.bin"
                run(command, "write", len(theirs), keys_file, out)
                ours = out.read_bytes()
                if ours != theirs:
                    at = first_difference(ours, theirs)
                    problems.append(f"{side}'s bitset differs from DuckDB's first at byte {at} (block {at // 32}): "
                                    f"{side} {ours[at:at + 4].hex() or '(end)'}, duckdb {theirs[at:at + 4].hex() or '(end)'}")
            found = int(run(cpp, "check", duck_file, keys_file))
            if found != len(keys):
                problems.append(f"cpp finds {found} of the {len(keys)} values in DuckDB's bitset")
        except (RuntimeError, ValueError, OSError, subprocess.TimeoutExpired) as e:
            problems.append(str(e))
            theirs = b""
        print(f"{'ok  ' if not problems else 'FAIL'} {name}: {len(keys)} values, {len(theirs)} bytes", flush=True)
        for problem in problems:
            print(f"     {problem}", flush=True)
        if problems:
            failures.append(name)
        else:
            passed += 1
    for column in sorted(set(COLUMNS) - filtered):  # each column is dictionary-encoded somewhere
        failures.append(f"{label} {column}: DuckDB wrote no Bloom filter")
        print(f"FAIL {label} {column}: DuckDB wrote no Bloom filter")
    return passed, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cpp", required=True, help="lfbloom-parquet-interop (or any command line with its interface, split as a shell does)")
    parser.add_argument("--jar", help="parquet-bits.jar from tests/parquet/java: parquet-mr writes each filter too")
    parser.add_argument("--java", default=os.environ.get("JAVA", "java"), help="the java launcher (default: $JAVA or java)")
    parser.add_argument("--keep", metavar="DIR", help="write the files here and keep them")
    args = parser.parse_args()
    cpp = shlex.split(args.cpp)
    java = [args.java, "-jar", args.jar] if args.jar else None

    rng = random.Random(SEED)
    con = duckdb.connect()
    print(f"DuckDB {duckdb.__version__}")
    # (label, distinct values a column draws from, COPY options)
    cases = [(f"fpp{fpp}", 1000, f"BLOOM_FILTER_FALSE_POSITIVE_RATIO {fpp}") for fpp in (0.5, 0.1, 0.01, 0.0001)]
    cases += [("rowgroups", 300, "ROW_GROUP_SIZE 8192"), ("small", 20, "BLOOM_FILTER_FALSE_POSITIVE_RATIO 0.3")]
    passed, failures = 0, []
    with tempfile.TemporaryDirectory(prefix="lfbloom-duckdb-") as scratch:
        work = pathlib.Path(args.keep or scratch)
        work.mkdir(parents=True, exist_ok=True)
        for label, distinct, options in cases:
            rows = make_rows(rng, distinct)
            csv, parquet = work / f"{label}.csv", work / f"{label}.parquet"
            write_csv(csv, rows)
            write_parquet(con, csv, parquet, options)
            p, f = check_file(con, parquet, rows, cpp, java, work, label)
            passed += p
            failures += f
    print(f"duckdb: {passed} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
