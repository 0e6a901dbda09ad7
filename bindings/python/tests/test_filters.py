"""The package's surface over the C ABI: kinds, keys, batches, files, set operations, errors."""
import array
import copy
import math
import os
import pickle
import random
import struct
import subprocess
import sys

import pytest

import lfbloom
from conftest import GOLDEN

np = pytest.importorskip("numpy")


def every_kind():
    """One filter of every kind, fresh each time."""
    return {
        "blocked": lfbloom.BloomFilter(1000, 0.01),
        "classic": lfbloom.BloomFilter(1000, 0.01, layout="classic", seed=3),
        "split-block": lfbloom.BloomFilter(1000, 0.01, layout="split-block"),
        "one-word": lfbloom.BloomFilter(1000, 0.01, layout="one-word"),
        "two-word": lfbloom.BloomFilter(1000, 0.01, layout="two-word"),
        "counting": lfbloom.CountingBloomFilter(1000, 0.01),
        "cuckoo": lfbloom.CuckooFilter(1000, 0.001),
        "scalable": lfbloom.ScalableBloomFilter(100, 0.01),
        "scalable-cuckoo": lfbloom.ScalableBloomFilter(100, 0.01, removes=True),
        "rotating": lfbloom.RotatingBloomFilter(1000, 0.01, generations=3),
        "swappable": lfbloom.SwappableBloomFilter(lfbloom.BloomFilter(1000, 0.01)),
    }


@pytest.fixture(params=list(every_kind()))
def kind_filter(request):
    with every_kind()[request.param] as f:
        yield request.param, f


KEYS = [b"bytes", bytearray(b"bytearray"), memoryview(b"memoryview"), "str \u00e9\u4e2d", 0, 1, -1, 2**63, 2**64 - 1,
        -(2**63), b"", array.array("I", [1, 2, 3])]


def test_every_kind_adds_and_finds_every_key_type(kind_filter):
    _, f = kind_filter
    for key in KEYS:
        f.add(key)
    for key in KEYS:
        assert key in f, key
    assert "never added" not in f or True  # a false positive is allowed; no exception is the point


def test_a_key_has_the_bytes_the_c_abi_documents():
    # lfbloom.h: strings as their UTF-8 bytes, integers as 8 little-endian bytes (Guava, Java, Go).
    assert lfbloom.key_bytes("\u00e9") == "\u00e9".encode("utf-8")
    assert lfbloom.key_bytes(1) == struct.pack("<Q", 1)
    assert lfbloom.key_bytes(-1) == lfbloom.key_bytes(2**64 - 1) == b"\xff" * 8
    assert lfbloom.key_bytes(-(2**63)) == struct.pack("<q", -(2**63))
    assert bytes(lfbloom.key_bytes(array.array("I", [1]))) == struct.pack("=I", 1)
    for same in ((1, struct.pack("<Q", 1)), ("x", b"x"), (-5, struct.pack("<q", -5))):
        a, b = lfbloom.BloomFilter(100, 0.01), lfbloom.BloomFilter(100, 0.01)
        a.add(same[0])
        b.add(same[1])
        assert a == b


GOLDEN_LAYOUTS = [("blocked-rule2.lfb", lfbloom.BloomFilter, dict(layout="blocked")),
                  ("split-block.lfb", lfbloom.BloomFilter, dict(layout="split-block")),
                  ("one-word.lfb", lfbloom.BloomFilter, dict(layout="one-word")),
                  ("two-word.lfb", lfbloom.BloomFilter, dict(layout="two-word")),
                  ("counting4-rule2.lfb", lfbloom.CountingBloomFilter, dict())]


@pytest.mark.parametrize("name,cls,options", GOLDEN_LAYOUTS)
def test_same_bits_as_the_cpp_core(name, cls, options):
    """The C++ core wrote these files (tests/core/serialization_test.cpp: keys "golden:0" to
    "golden:99", capacity 1000, rate 0.01); Python's str keys must set the very same bits."""
    path = os.path.join(GOLDEN, "format-v1", name)
    with cls(1000, 0.01, **options) as ours, cls.load(path) as theirs:
        ours.update(f"golden:{i}" for i in range(100))
        assert ours == theirs
        with open(path, "rb") as file:
            assert ours.to_bytes() == file.read()
        keys = [f"absent:{i}" for i in range(5000)]
        assert ours.contains_many(keys) == theirs.contains_many(keys)


def test_golden_composites_load_as_their_class():
    for name, cls in (("scalable.lfb", lfbloom.ScalableBloomFilter), ("rotating.lfb", lfbloom.RotatingBloomFilter),
                      ("cuckoo.lfb", lfbloom.CuckooFilter), ("scalable-cuckoo.lfb", lfbloom.ScalableBloomFilter)):
        with lfbloom.load(os.path.join(GOLDEN, "format-v1", name)) as f:
            assert type(f) is cls
            assert all(f.contains_many([f"golden:{i}" for i in range(100)]))


def test_batches_of_lists_numpy_and_buffers_agree_with_single_calls(kind_filter):
    _, f = kind_filter
    ints = np.arange(0, 3000, 3, dtype=np.uint64)
    assert f.add_many(ints[:500]) >= 1
    f.update([int(i) for i in ints[500:600]])
    f.add_many(memoryview(ints[600:700]).cast("B"), width=8)
    mask = f.contains_many(ints)
    assert mask.dtype == np.bool_ and mask.shape == ints.shape
    assert mask[:700].all()
    assert list(mask) == [int(i) in f for i in ints]
    assert f.contains_many(ints.astype("<i8")).tolist() == mask.tolist()
    as_bytes = f.contains_many(ints.tobytes(), width=8)
    assert isinstance(as_bytes, bytearray) and list(as_bytes) == [int(m) for m in mask]
    strs = [f"s{i}" for i in range(300)]
    assert f.add_many(strs) >= 1
    assert f.contains_many(strs) == [True] * 300
    fixed = np.array([b"abcd", b"efgh"], dtype="S4")
    f.add_many(fixed)
    assert b"abcd" in f and b"efgh" in f
    assert f.contains_many([]) == [] and f.add_many(np.zeros(0, np.uint64)) == 0


def test_list_batches_of_keys_of_every_length_agree_with_single_calls():
    # A list batch copies str and bytes keys of up to 16 bytes (two overlapping loads) and reads
    # longer ones in place: every length around those edges gives the single calls' bits.
    rng = random.Random(5)
    keys = [bytes(rng.randrange(256) for _ in range(n)) for n in range(41) for _ in range(3)]
    keys += ["".join(chr(rng.randrange(32, 0x2FF)) for _ in range(n)) for n in range(30) for _ in range(3)]
    single, listed, built = (lfbloom.BloomFilter(200, 0.01) for _ in range(3))
    for key in keys:
        single.add(key)
    listed.add_many(keys)
    from lfbloom._native import lib
    status, positive, done, _ = built._batch_list(lib.LFB_OP_ADD, keys * 2, False, True)
    assert (status, positive, done) == (0, 0, 2 * len(keys))  # long next to the filter: one bulk build
    assert listed == single and built == single
    assert all(single.contains_many(keys))
    others = [key + (b"!" if isinstance(key, bytes) else "!") for key in keys]
    assert single.contains_many(others) == [key in single for key in others]


def test_removing_kinds_remove_count_and_discard():
    for f in (lfbloom.CountingBloomFilter(1000, 0.01), lfbloom.CuckooFilter(1000, 0.001),
              lfbloom.ScalableBloomFilter(100, 0.001, removes=True)):
        with f:
            f.add("k")
            f.add("k")
            assert f.count("k") == 2
            f.remove("k")
            assert f.discard("k") is True
            assert "k" not in f and f.count("k") == 0
            with pytest.raises(KeyError):
                f.remove("k")
            assert f.add_many(range(100)) == 100
            assert f.remove_many(np.arange(100, dtype=np.uint64)) == 100
    with lfbloom.ScalableBloomFilter(100, 0.01) as blocked_subfilters:
        with pytest.raises(lfbloom.DataError) as e:
            blocked_subfilters.remove("k")
        assert e.value.status_name == "incompatible"
    assert not hasattr(lfbloom.BloomFilter, "remove")


def test_save_load_bytes_and_pickle_keep_every_kind(kind_filter, tmp_path):
    name, f = kind_filter
    keys = [f"key:{i}" for i in range(200)]
    f.update(keys)
    path = tmp_path / "f.lfb"
    f.save(path)
    for back in (type(f).load(path), lfbloom.load(str(path)), lfbloom.from_bytes(f.to_bytes()),
                 type(f).from_bytes(bytearray(f.to_bytes())), pickle.loads(pickle.dumps(f))):
        with back:
            assert type(back) is type(f) or name == "swappable"  # lfbloom.load: its current filter
            assert all(back.contains_many(keys))
            assert back.to_bytes() == f.to_bytes() or name in ("rotating", "scalable", "scalable-cuckoo")


def test_guava_bytes_round_trip():
    f = lfbloom.BloomFilter(1000, 0.01, layout="classic")
    f.update(range(100))
    data = f.to_bytes("guava")
    back = lfbloom.BloomFilter.from_bytes(data, "guava")
    assert back == f and all(back.contains_many(range(100)))
    with pytest.raises(lfbloom.Error):
        lfbloom.BloomFilter(1000, 0.01).to_bytes("guava")  # blocked: no Guava form


def test_copy_equality_and_set_operators():
    a, b = lfbloom.BloomFilter(1000, 0.01), lfbloom.BloomFilter(1000, 0.01)
    a.update(["a", "both"])
    b.update(["b", "both"])
    assert a != b and a == a.copy() and copy.copy(a) == a
    union, inter = a | b, a & b
    assert all(k in union for k in ("a", "b", "both")) and "both" in inter
    c = a.copy()
    c |= b
    assert c == union
    c &= a
    assert "a" in c
    c.clear()
    assert "a" not in c and c.approx_count() == 0
    with pytest.raises(lfbloom.DataError):
        a |= lfbloom.BloomFilter(1000, 0.01, seed=1)
    with pytest.raises(TypeError):
        hash(a)
    assert (a == "x") is False


def test_info_is_a_dataclass_of_the_c_fields():
    f = lfbloom.BloomFilter(1000, 0.01)
    f.update(range(500))
    info = f.info()
    assert info.kind == "blocked" and info.capacity == 1000 and info.target_fpr == 0.01
    assert info.bytes * 8 == info.slots and 0 < info.fill_ratio < 1
    assert 400 < f.approx_count() < 600
    assert "BloomFilter blocked capacity=1000" in repr(f)


def test_rotation_forgets_and_swaps_replace():
    r = lfbloom.RotatingBloomFilter(1000, 0.01, generations=2)
    r.add("old")
    r.rotate()
    assert "old" in r
    r.rotate()
    assert "old" not in r
    first = lfbloom.BloomFilter(1000, 0.01)
    first.add("v1")
    s = lfbloom.SwappableBloomFilter(first)
    assert first.closed and "v1" in s
    with pytest.raises(lfbloom.ClosedError):
        first.add("x")
    s.stage(lfbloom.BloomFilter(1000, 0.01))
    s.add("both")
    s.add_staged_many(["v2"])
    s.publish()
    assert "v2" in s and "both" in s and "v1" not in s
    s.replace(lfbloom.BloomFilter(1000, 0.01))
    assert "v2" not in s


def test_shared_files_are_seen_by_every_opener(tmp_path):
    path = tmp_path / "shared.lfbs"
    with lfbloom.BloomFilter.open_shared(path, 10000, 0.01) as writer:
        writer.add("k")
        with lfbloom.open_shared(path, read_only=True) as reader:
            assert "k" in reader
            writer.add("later")
            assert "later" in reader
            with pytest.raises(lfbloom.StateError):
                reader.add("x")
        writer.flush()


BAD_SIZES = [(0, 0.01), (-1, 0.01), (2**64, 0.01), (10, 0.0), (10, 1.0), (10, -0.5), (10, math.nan), (10, math.inf)]


@pytest.mark.parametrize("capacity,fpr", BAD_SIZES)
def test_bad_sizes_raise_value_errors(capacity, fpr):
    for cls in (lfbloom.BloomFilter, lfbloom.CountingBloomFilter, lfbloom.CuckooFilter,
                lfbloom.ScalableBloomFilter, lfbloom.RotatingBloomFilter):
        with pytest.raises(ValueError):
            cls(capacity, fpr)


def test_bad_types_and_absurd_sizes_raise_clear_errors():
    with pytest.raises(TypeError):
        lfbloom.BloomFilter(None, 0.01)
    with pytest.raises(TypeError):
        lfbloom.BloomFilter(10, "0.01")
    with pytest.raises(TypeError):
        lfbloom.BloomFilter(True, 0.01)
    with pytest.raises(ValueError):
        lfbloom.BloomFilter(10, 0.01, layout="nope")
    with pytest.raises(lfbloom.Error) as e:
        lfbloom.BloomFilter(2**62, 1e-9)  # exabytes: too large for the machine
    assert e.value.status < 0
    with pytest.raises(lfbloom.ResourceError):
        lfbloom.BloomFilter(10**6, 0.01, memory_limit=1000)
    f = lfbloom.BloomFilter(100, 0.01)
    for key in (None, 1.5, True, object(), [1], (1, 2), 2**64, -(2**63) - 1):
        with pytest.raises((TypeError, ValueError)):
            f.add(key)
        with pytest.raises((TypeError, ValueError)):
            _ = key in f
    for keys in ("abc", b"abc", [b"ok", None], np.zeros(3, np.float64), np.zeros((2, 2), np.uint64)):
        with pytest.raises((TypeError, ValueError)):
            f.add_many(keys)
    with pytest.raises(ValueError):
        f.add_many(b"123", width=2)
    with pytest.raises(ValueError):
        f.to_bytes("xml")
    assert f.info().slots_set == 0  # nothing above changed it


def test_corrupt_and_truncated_data_raise_data_errors(rng):
    f = lfbloom.CuckooFilter(1000, 0.001)
    f.update(range(100))
    good = f.to_bytes()
    for bad in (b"", good[:10], good[:-1], good + b"\0", b"\0" * len(good)):
        with pytest.raises(lfbloom.DataError):
            lfbloom.from_bytes(bad)
    for _ in range(200):
        flipped = bytearray(good)
        flipped[rng.randrange(len(good))] ^= 1 << rng.randrange(8)
        with pytest.raises(lfbloom.DataError):
            lfbloom.from_bytes(flipped)
    with pytest.raises(lfbloom.ResourceError):
        lfbloom.from_bytes(good, memory_limit=100)
    with pytest.raises(lfbloom.DataError):
        lfbloom.BloomFilter.from_bytes(good)  # a cuckoo filter, asked for as a Bloom filter
    with pytest.raises(lfbloom.ResourceError):
        lfbloom.load("/nonexistent/file.lfb")


def test_a_closed_filter_raises_and_close_is_idempotent(kind_filter):
    _, f = kind_filter
    f.add("k")
    f.close()
    f.close()
    assert f.closed and "closed" in repr(f)
    for call in (lambda: f.add("k"), lambda: "k" in f, lambda: f.add_many(["a"]), lambda: f.contains_many(range(3)),
                 f.to_bytes, f.info, f.copy, lambda: f == f, lambda: f.save("/tmp/never")):
        with pytest.raises(lfbloom.ClosedError) as e:
            call()
        assert isinstance(e.value, ValueError) and e.value.status == -1


def test_the_library_is_the_wheels_own():
    assert lfbloom.library_version == lfbloom.__version__
    package = os.path.dirname(lfbloom.__file__)
    assert os.path.exists(os.path.join(package, "liblfbloom.so.1"))
    assert "LD_LIBRARY_PATH" not in os.environ or package not in os.environ["LD_LIBRARY_PATH"]


def test_the_native_hot_path_sets_the_bits_of_the_reference_path():
    """add/in/list batches of exact str, bytes and int keys run in lfbloom._hot (C); every other key
    goes through _add_slow (cffi and key_bytes, the reference). Both must set the same bits."""
    keys = ["", "ascii", "\u00e9\u4e2d\U0001f600", b"", b"\x00\xff", 0, 1, -1, 2**63, 2**64 - 1, -(2**63), 12345]
    hot, reference, batched = (lfbloom.BloomFilter(1000, 0.01) for _ in range(3))
    for key in keys:
        assert hot.add(key) == reference._add_slow(key)
    assert batched.add_many(keys) >= 1 and batched.contains_many(tuple(keys)) == [True] * len(keys)
    assert hot == reference == batched
    assert all(key in hot for key in keys)


def test_a_list_batch_with_a_bad_key_changes_nothing():
    f = lfbloom.BloomFilter(1000, 0.01)
    for bad in (["ok", "\ud800"], ["ok", 2**64], [1, -(2**63) - 1], ["ok", True], ["ok", 1.5]):
        with pytest.raises((TypeError, ValueError)):
            f.add_many(bad)
    assert f.info().slots_set == 0


def test_a_list_longer_than_one_pass_is_checked_before_any_key_is_added():
    # Up to _hot.ONE_PASS keys are converted in one pass before the run; a longer list is checked
    # whole first, then run window by window: a bad key at its end must still change nothing.
    from lfbloom import _hot

    f = lfbloom.BloomFilter(1000, 0.01)
    long = list(range(_hot.ONE_PASS + 10))
    for bad in ("\ud800", 2**64, 1.5):
        with pytest.raises((TypeError, ValueError)):
            f.add_many(long + [bad])
    assert f.info().slots_set == 0


def test_long_mixed_lists_set_the_bits_of_single_calls():
    # str, bytes and int keys across the windows of a list longer than one pass, and a short one:
    # the same filter as one call a key, and every key found.
    from lfbloom import _hot

    for count in (_hot.ONE_PASS // 3 + 5000, 3000):
        keys = [k for i in range(count) for k in (i, f"s{i}", b"b%d" % i)]
        batched, single = lfbloom.BloomFilter(10**6, 0.01), lfbloom.BloomFilter(10**6, 0.01)
        assert batched.add_many(keys) >= count
        for key in keys:
            single.add(key)
        assert batched == single
        assert all(batched.contains_many(keys))


@pytest.mark.parametrize("make", [
    lambda: lfbloom.BloomFilter(20_000, 0.01),
    lambda: lfbloom.BloomFilter(20_000, 0.01, layout="classic"),
    lambda: lfbloom.BloomFilter(20_000, 0.01, layout="split-block"),
    lambda: lfbloom.BloomFilter(20_000, 0.01, layout="one-word"),
    lambda: lfbloom.CountingBloomFilter(20_000, 0.01),
], ids=["blocked", "classic", "split-block", "one-word", "counting"])
def test_update_builds_in_bulk_the_bits_of_add_many(make):
    # update() of a list large next to its small filter is one bulk build (LFB_BATCH_BULK: no answer
    # per key, so positive 0), add_many one add a key: the same filter, also past one pass of keys.
    from lfbloom import _hot
    from lfbloom._native import lib

    for count in (30_000, _hot.ONE_PASS + 7):
        keys = [k for i in range(count // 3 + 1) for k in (i, f"s{i}", b"b%d" % i)][:count]
        built, added = make(), make()
        status, positive, done, _ = built._batch_list(lib.LFB_OP_ADD, keys, False, True)
        assert (status, positive, done) == (0, 0, count)  # in bulk
        assert added.add_many(keys) > 0
        assert built == added
        assert all(built.contains_many(keys[:1000] + keys[-1000:]))
        again = make()
        again.update(tuple(keys))
        assert again == added
    small = make()
    assert small._batch_list(lib.LFB_OP_ADD, ["a", "b"], False, True)[1] == 2  # too few: one by one
    some, mostly_present, expected = keys[:15_000], make(), make()  # 9 keys in 10 present already:
    for f in (mostly_present, expected):  # one by one (positive counts the new)
        f.add_many([k for i, k in enumerate(some) if i % 10])
    assert mostly_present._batch_list(lib.LFB_OP_ADD, some, False, True)[1] > 0
    expected.add_many(some)
    assert mostly_present == expected


KEYS_OUTLIVE_THE_LIST = r"""
import sys, threading, lfbloom
f = lfbloom.BloomFilter(10**6, 0.01)
for round in range(3):
    # the list holds the only reference to each; keys of over 16 bytes are read in place (shorter
    # ones are copied into the batch)
    keys = [f"a longer key:{round}:{i}" if i % 2 else f"k:{round}:{i}" for i in range(400_000)]
    expected = [k.encode() for k in keys]
    go = threading.Event()
    def clear():
        go.wait()
        keys.clear()  # runs as soon as the batch releases the GIL: frees every key it has not kept
    t = threading.Thread(target=clear)
    t.start()
    go.set()
    f.update(keys)
    t.join()
    missing = sum(not hit for hit in f.contains_many(expected))
    if missing:
        sys.exit(f"round {round}: {missing} keys lost (their str freed while the batch read them)")
"""


def test_a_list_batch_keeps_its_keys_alive_while_the_gil_is_released():
    # The batch reads str keys in place, the GIL released: another thread that drops them from the
    # list meanwhile must not free them under it. PYTHONMALLOC=debug overwrites freed memory, so
    # a batch that held no reference would hash garbage and lose keys.
    env = dict(os.environ, PYTHONMALLOC="debug")
    run = subprocess.run([sys.executable, "-c", KEYS_OUTLIVE_THE_LIST], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_refused_list_batch_says_how_far_it_got_and_keeps_every_reference_count():
    # A cuckoo filter refuses keys once full: the batch stops in some window, says where, and has
    # dropped exactly the references it took (to the keys it ran and to those it never reached).
    f = lfbloom.CuckooFilter(1000, 0.01)
    # windows of 4096: the refusal comes in the first; keys of over 16 bytes are held by reference
    keys = [f"key:{i}" if i % 2 else f"a longer key:{i:06}" for i in range(50_000)]
    counts = [sys.getrefcount(keys[i]) for i in (0, 1, 5000, -1)]  # held, copied, never reached, copied
    with pytest.raises(lfbloom.RefusalError) as refused:
        f.add_many(keys)
    assert 1000 <= refused.value.done < len(keys)
    assert all(f.contains_many(keys[: refused.value.done]))
    assert [sys.getrefcount(keys[i]) for i in (0, 1, 5000, -1)] == counts
