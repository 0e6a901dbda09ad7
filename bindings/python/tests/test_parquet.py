"""Parquet split-block bitsets from Python: to_bytes("parquet"), from_bytes(data, "parquet"),
save/load, BloomFilter.for_parquet.

The expected bits come from the Parquet spec's own description (apache/parquet-format
BloomFilter.md: XXH64 with seed 0, block ((hash >> 32) * blocks) >> 32, word i gets bit
((uint32)hash * SALT[i]) >> 27, words little-endian), written here from the spec, with the keys'
XXH64 values from xxHash's reference implementation: so a key added from Python sets the bits a
Parquet writer sets for the same column value (a BYTE_ARRAY's bytes, a str's UTF-8, an INT64's 8
little-endian bytes). tests/parquet checks the same against parquet-mr and DuckDB themselves.
"""
import struct
import threading
import time

import pytest

import lfbloom

np = pytest.importorskip("numpy")

SALT = (0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D, 0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31)

# key as Python gives it -> XXH64(its bytes as Parquet hashes them, seed 0)
XXH64 = {
    b"": 0xEF46DB3751D8E999,
    "abc": 0x44BC2CF5AD770999,
    b"hello": 0x26C7827D889F6DA3,
    "user:42": 0xDC1FEA7DA8D2D1C2,
    "\u00e9t\u00e9": 0xEC4A491A57C3C9B1,  # UTF-8 c3 a9 74 c3 a9
    42: 0xB556806FB6D14353,  # an INT64 column's 42: 2a 00 00 00 00 00 00 00
    -1: 0x85D136ADB773C6C9,  # ff x 8: the INT64 -1 (and 2**64 - 1, the same 8 bytes)
}


def spec_bitset(num_bytes, hashes):
    """The bitset the Parquet spec makes of keys with these XXH64 values."""
    blocks = num_bytes // 32
    words = [0] * (num_bytes // 4)
    for h in hashes:
        block = ((h >> 32) * blocks) >> 32
        key = h & 0xFFFFFFFF
        for i, salt in enumerate(SALT):
            words[block * 8 + i] |= 1 << (((key * salt) & 0xFFFFFFFF) >> 27)
    return struct.pack(f"<{len(words)}I", *words)


@pytest.mark.parametrize("num_bytes", [32, 1024, 4096])
def test_keys_from_python_set_the_bits_the_parquet_spec_sets(num_bytes):
    expected = spec_bitset(num_bytes, XXH64.values())
    f = lfbloom.BloomFilter.for_parquet(num_bytes)
    for key in XXH64:
        f.add(key)
    assert f.to_bytes("parquet") == expected
    batch = lfbloom.BloomFilter.for_parquet(num_bytes)  # the list batch path: the same bits
    batch.add_many(list(XXH64))
    assert batch.to_bytes("parquet") == expected
    ints = lfbloom.BloomFilter.for_parquet(num_bytes)  # NumPy int64 keys read in place
    ints.add_many(np.array([42, -1], dtype=np.int64))
    assert ints.to_bytes("parquet") == spec_bitset(num_bytes, [XXH64[42], XXH64[-1]])
    info = f.info()
    assert info.kind == "split-block" and info.bytes == num_bytes and info.hashes == 8 and info.seed == 0


def test_a_bitset_reads_back_as_the_same_filter(tmp_path):
    f = lfbloom.BloomFilter.for_parquet(1 << 14)
    keys = [f"row:{i}" for i in range(2000)]
    f.add_many(keys)
    data = f.to_bytes("parquet")
    assert len(data) == 1 << 14
    for back in (lfbloom.BloomFilter.from_bytes(data, "parquet"), lfbloom.from_bytes(bytearray(data), "parquet"),
                 lfbloom.from_bytes(memoryview(data), format="parquet", memory_limit=1 << 14)):
        assert type(back) is lfbloom.BloomFilter and back == f
        assert all(back.contains_many(keys))
        absent = [f"absent:{i}" for i in range(2000)]
        assert back.contains_many(absent) == f.contains_many(absent)
    path = tmp_path / "chunk.bloom"
    f.save(path, "parquet")
    assert path.read_bytes() == data
    assert lfbloom.load(path, "parquet") == f
    # The spec's bitset, read: every key found; a sized filter of seed 0 writes one too.
    spec = spec_bitset(64, XXH64.values())
    assert all(key in lfbloom.from_bytes(spec, "parquet") for key in XXH64)
    sized = lfbloom.BloomFilter(1000, 0.01, layout="split-block")
    sized.update(XXH64)
    assert lfbloom.from_bytes(sized.to_bytes("parquet"), "parquet") == sized
    swap = lfbloom.SwappableBloomFilter(lfbloom.BloomFilter.for_parquet(64))  # its current filter's bitset
    swap.update(XXH64)
    assert swap.to_bytes("parquet") == spec


def test_bad_bitsets_raise_clear_errors_and_allocate_nothing(tmp_path):
    good = spec_bitset(1024, XXH64.values())
    for bad in (b"", good[:31], good[:33], good[:-1], good[:1000], good + b"\0"):
        with pytest.raises(lfbloom.ArgumentError) as e:  # also a ValueError
            lfbloom.from_bytes(bad, "parquet")
        assert isinstance(e.value, ValueError) and "multiple of 32" in str(e.value)
    with pytest.raises(lfbloom.ResourceError):
        lfbloom.from_bytes(good, "parquet", memory_limit=len(good) - 1)
    for data in (None, 1024, "x" * 32, [0] * 32):
        with pytest.raises(TypeError):
            lfbloom.from_bytes(data, "parquet")
    with pytest.raises(lfbloom.DataError):  # a split-block filter, asked for as another class
        lfbloom.CountingBloomFilter.from_bytes(good, "parquet")
    with pytest.raises(ValueError):
        lfbloom.from_bytes(good, "parquet-ish")
    path = tmp_path / "cut.bloom"
    path.write_bytes(good[:1000])  # truncated: no length a bitset has
    with pytest.raises(lfbloom.ArgumentError):
        lfbloom.load(path, "parquet")
    for num_bytes in (0, 31, 33, 1000, 2**31, 2**31 - 31, 2**40):
        with pytest.raises(ValueError):
            lfbloom.BloomFilter.for_parquet(num_bytes)
    for num_bytes in (None, 32.0, True, "32"):
        with pytest.raises(TypeError):
            lfbloom.BloomFilter.for_parquet(num_bytes)
    with pytest.raises(lfbloom.ResourceError):
        lfbloom.BloomFilter.for_parquet(1 << 20, memory_limit=1 << 19)


def test_only_split_block_filters_of_seed_0_have_a_parquet_form():
    others = [lfbloom.BloomFilter(1000, 0.01), lfbloom.BloomFilter(1000, 0.01, layout="classic"),
              lfbloom.BloomFilter(1000, 0.01, layout="split-block", seed=7), lfbloom.CountingBloomFilter(1000, 0.01),
              lfbloom.CuckooFilter(1000, 0.001), lfbloom.ScalableBloomFilter(100, 0.01),
              lfbloom.RotatingBloomFilter(1000, 0.01, generations=2)]
    for f in others:
        f.add("k")
        with pytest.raises(lfbloom.DataError) as e:
            f.to_bytes("parquet")
        assert e.value.status_name == "incompatible"
        assert "k" in f  # nothing changed


def test_a_closed_filter_has_no_bitset():
    f = lfbloom.BloomFilter.for_parquet(64)
    f.close()
    with pytest.raises(lfbloom.ClosedError):
        f.to_bytes("parquet")


def test_a_bitset_written_while_threads_add_holds_every_completed_add():
    f = lfbloom.BloomFilter.for_parquet(1 << 16)
    done = [[] for _ in range(3)]

    def adder(t):
        for i in range(3000):
            key = f"t{t}:{i}"
            f.add(key)
            done[t].append(key)

    threads = [threading.Thread(target=adder, args=(t,)) for t in range(3)]
    for t in threads:
        t.start()
    snapshots = []
    while any(t.is_alive() for t in threads) and len(snapshots) < 40:
        before = [list(keys) for keys in done]  # completed before the save began
        snapshots.append((before, f.to_bytes("parquet")))
        time.sleep(0.001)
    for t in threads:
        t.join()
    for before, data in snapshots:
        back = lfbloom.from_bytes(data, "parquet")
        assert all(all(back.contains_many(keys)) for keys in before if keys)
    assert lfbloom.from_bytes(f.to_bytes("parquet"), "parquet") == f
