"""Files between Python, Go, Java and C (ctest python.go through tests/exchange_go.sh, then java
and python.java, and python.c): the same keys give the same file in each, and each loads the
others' with identical answers.

    exchange.py write DIR         Python's filters of the shared keys: DIR/py-str.lfb, DIR/py-int.lfb,
                                  and Parquet bitsets of them: DIR/py-str.parquet, DIR/py-int.parquet
    exchange.py check DIR go      Go's (DIR/go-str.lfb, DIR/go-int.lfb, written by the Go test
                                  TestFilesOfPython) are byte for byte Python's, and answer alike
    exchange.py check DIR java    Java's (DIR/java-*.lfb, by the JUnit test PythonFilesTest), the same
    exchange.py check DIR c       C's (DIR/c-*.lfb, by tests/capi/capi_test.c --python-files), the same;
                                  and C's Parquet bitsets (DIR/c-*.parquet) against Python's
                                  (DIR/py-*.parquet, which write makes too and the C test checks)

The keys, which bindings/go/python_files_test.go, bindings/java/.../PythonFilesTest.java and
tests/capi/capi_test.c make by the same rule: str keys "xlang:é:<i>"
(UTF-8), and int keys i * 0x9E3779B97F4A7C15 mod 2**64 as 8 little-endian bytes, given to Python
as signed ints when the top bit is set (two's complement: the same bytes as Go's uint64).
"""
import sys

import lfbloom

ADDED, ASKED = 2000, 4000  # keys 0..1999 are added; 0..3999 are asked


def str_keys(count):
    return [f"xlang:\u00e9:{i}" for i in range(count)]


def int_keys(count):
    keys = [(i * 0x9E3779B97F4A7C15) % 2**64 for i in range(count)]
    return [k - 2**64 if k >= 2**63 else k for k in keys]


def filters():
    """name -> Python's filter of that key type, made as the Go test makes its own."""
    made = {}
    for name, keys in (("str", str_keys), ("int", int_keys)):
        f = lfbloom.BloomFilter(ADDED, 0.01, seed=39)
        for key in keys(ADDED)[::2]:
            f.add(key)  # single calls and a batch: both of Python's paths
        f.add_many(keys(ADDED)[1::2])
        made[name] = f
    return made


def parquet_filters():
    """name -> Python's split-block filter of seed 0 of that key type, as a Parquet bitset."""
    made = {}
    for name, keys in (("str", str_keys), ("int", int_keys)):
        f = lfbloom.BloomFilter(ADDED, 0.01, layout="split-block")
        for key in keys(ADDED)[::2]:
            f.add(key)
        f.add_many(keys(ADDED)[1::2])
        made[name] = f
    return made


def check_parquet(directory, language):
    for name, ours in parquet_filters().items():
        path = f"{directory}/{language}-{name}.parquet"
        with open(path, "rb") as file:
            data = file.read()
        theirs = lfbloom.load(path, "parquet")
        assert data == ours.to_bytes("parquet"), f"{path}: not the bitset Python makes from the same keys"
        asked = (str_keys if name == "str" else int_keys)(ASKED)
        answers = theirs.contains_many(asked)
        assert answers == ours.contains_many(asked) == [key in theirs for key in asked], path
        assert all(answers[:ADDED]), f"{path}: a false negative"
        print(f"{path}: {sum(answers[ADDED:])} of {ASKED - ADDED} absent keys answered present, as in Python")


def main(mode, directory, language="go"):
    if mode == "write":
        for name, ours in parquet_filters().items():
            ours.save(f"{directory}/py-{name}.parquet", "parquet")
    elif language == "c":
        check_parquet(directory, language)
    for name, ours in filters().items():
        if mode == "write":
            ours.save(f"{directory}/py-{name}.lfb")
            continue
        path = f"{directory}/{language}-{name}.lfb"
        with open(path, "rb") as file:
            data = file.read()
        theirs = lfbloom.load(path)
        assert data == ours.to_bytes(), f"{path}: not the bytes Python makes from the same keys"
        asked = (str_keys if name == "str" else int_keys)(ASKED)
        answers = theirs.contains_many(asked)
        assert answers == ours.contains_many(asked) == [key in theirs for key in asked], path
        assert all(answers[:ADDED]), f"{path}: a false negative"
        print(f"{path}: {sum(answers[ADDED:])} of {ASKED - ADDED} absent keys answered present, as in Python")
    print(f"exchange.py {mode}: ok")


if __name__ == "__main__":
    main(*sys.argv[1:])
