"""The filters: one base class over the C ABI's one handle, a subclass per kind.

Thread safety, for every method unless its docstring says otherwise: a filter may be used by any
number of threads at once (adds, queries, removes, batches, saves, set operations), each native
call releasing the GIL. No false negative: a key whose add happened-before a query is found.
``close`` may run while other threads are mid-call: they finish, the handle is freed after the
last, and every later call raises ``ClosedError``.
"""
from __future__ import annotations

import dataclasses
import math
import os
import sys
import sysconfig
from typing import Any, Iterable, TypeVar

from ._errors import DataError, check, error_for
from ._hot import Core
from ._keys import Key, c_key, int_keys, packed
from ._native import ffi, lib

F = TypeVar("F", bound="Filter")

_add, _contains = lib.lfbpy_add, lib.lfbpy_contains
_FORMATS = {"native": lib.LFB_FORMAT_NATIVE, "guava": lib.LFB_FORMAT_GUAVA, "parquet": lib.LFB_FORMAT_PARQUET}
_LAYOUTS = ("classic", "blocked", "split-block", "one-word", "two-word")
_FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


@dataclasses.dataclass(frozen=True)
class FilterInfo:
    """A snapshot of a filter (the C ABI's lfb_info); fields a kind does not have are 0."""

    kind: str
    sub_kind: str
    slots: int
    slot_bits: int
    hashes: int
    bytes: int
    capacity: int
    target_fpr: float
    seed: int
    slots_set: int
    fill_ratio: float
    estimated_count: float
    expected_fpr: float
    near_capacity: bool
    saturated: int
    kicks: int
    failed_adds: int
    duplicate_refusals: int
    parts: int
    generation: int
    ambiguous_removes: int

    @classmethod
    def _of(cls, info: Any) -> "FilterInfo":
        values = {f.name: getattr(info, f.name) for f in dataclasses.fields(cls)}
        values["kind"], values["sub_kind"] = _kind_name(info.kind), _kind_name(info.sub_kind)
        values["near_capacity"] = bool(info.near_capacity)
        return cls(**values)


def _kind_name(kind: int) -> str:
    name = lib.lfb_kind_name(kind)
    return ffi.string(name).decode() if name != ffi.NULL else ""


def _uint(name: str, value: Any, bits: int = 64) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not 0 <= value < 1 << bits:
        raise ValueError(f"{name} must be in [0, 2**{bits}), not {value}")
    return value


def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if math.isnan(value):
        raise ValueError(f"{name} must not be NaN")
    return float(value)


def _spec(kind: int, capacity: Any, fpr: Any, seed: Any, memory_limit: Any) -> Any:
    """An lfb_spec with its defaults from the C library; the library validates every domain."""
    spec = ffi.new("lfb_spec*")
    check(lib.lfb_spec_init_size(spec, ffi.sizeof("lfb_spec")), "spec")
    spec.kind = kind
    spec.capacity = _uint("capacity", capacity)
    spec.fpr = _real("fpr", fpr)
    spec.seed = _uint("seed", seed)
    spec.memory_limit = _uint("memory_limit", memory_limit)
    return spec


def _format(name: str) -> int:
    try:
        return _FORMATS[name]
    except (KeyError, TypeError):
        raise ValueError(f"format is 'native', 'guava' or 'parquet', not {name!r}") from None


def _path(path: Any) -> bytes:
    return os.fsencode(path)


class Filter(Core):
    """The base of every lfbloom filter: one handle of the C ABI, whatever its kind.

    Keys are bytes, bytearray, memoryview (any contiguous buffer), str (its UTF-8 bytes) or int
    (its 8 little-endian bytes, two's complement), so a key has the same bits as in C, Java, Go
    and Guava. See the module docstring for thread safety; each method repeats what it adds.

    ``add`` and ``key in f`` are C slots of the native base ``Core`` (lfbloom._hot), which keep the
    GIL for exact str, bytes and int keys; other keys and errors come back to ``_add_slow``,
    ``_contains_slow`` and ``_fail`` below.
    """

    __slots__ = ("_ref", "_closed", "__weakref__")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("Filter is the base class: make a BloomFilter, CuckooFilter, ... or load one")

    # ---- life -----------------------------------------------------------------------------------

    def _attach(self, handle: Any) -> None:
        ref = lib.lfbpy_wrap(handle)
        if ref == ffi.NULL:
            lib.lfb_free(handle)
            raise MemoryError("lfbloom: no memory for a filter's guard")
        self._ref = ffi.gc(ref, lib.lfbpy_release)
        self._closed = False
        self._bind(int(ffi.cast("uintptr_t", ref)))  # the hot path's calls go through the same guard

    @classmethod
    def _wrap(cls: type[F], handle: Any) -> F:
        """A new object of the class for the handle's kind (cls itself or a subclass)."""
        kind = lib.lfb_kind(handle)
        found = _BY_KIND.get(kind)
        if found is None or not issubclass(found, cls):
            lib.lfb_free(handle)
            what = found.__name__ if found else (_kind_name(kind) or "filter of unknown kind")
            raise DataError(f"the data hold a {what}, not a {cls.__name__}", lib.LFB_ERR_INCOMPATIBLE)
        obj = found.__new__(found)
        obj._attach(handle)
        return obj

    def close(self) -> None:
        """Releases the filter; idempotent. Thread-safe: calls in flight on other threads finish
        first (the memory is freed after the last), every later call raises ``ClosedError``."""
        self._closed = True
        lib.lfbpy_close(self._ref)

    @property
    def closed(self) -> bool:
        """True once ``close`` was called (or a swap took the filter over). Thread-safe."""
        return self._closed

    def __enter__(self: F) -> F:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._closed:
            return f"<{type(self).__name__} closed>"
        info = ffi.new("lfb_info*")
        if lib.lfbpy_geometry(self._ref, info) < 0:
            return f"<{type(self).__name__} closed>"
        return (f"<{type(self).__name__} {_kind_name(info.kind)} capacity={info.capacity} "
                f"fpr={info.target_fpr:g} bytes={info.bytes} seed={info.seed}>")

    # ---- one key --------------------------------------------------------------------------------

    def _add_slow(self, key: Key) -> bool:
        """``add`` for keys other than exact str, bytes and int (and the reference for them)."""
        data = c_key(key)
        status = _add(self._ref, data, len(data))
        if status < 0:
            raise error_for(status, "add")
        return status == 1

    def _contains_slow(self, key: Key) -> bool:
        """``key in f`` for keys other than exact str, bytes and int."""
        data = c_key(key)
        status = _contains(self._ref, data, len(data))
        if status < 0:
            raise error_for(status, "contains")
        return status == 1

    def _fail(self, status: int, what: str) -> None:
        """Raises the exception of a negative status (for the native hot path)."""
        raise error_for(status, what)

    # ---- many keys ------------------------------------------------------------------------------

    def _batch(self, op: int, keys: Any, width: int | None, results: bool, bulk: bool = False) -> Any:
        """Runs one batch; returns (positive, mask): mask None, a list, a bytearray or a NumPy array.
        ``bulk``: a list's adds may build in bulk (``update``; positive is then 0)."""
        numpy_keys = _numpy_keys(keys)
        if numpy_keys is None and width is None and not isinstance(keys, (str, bytes, bytearray, memoryview)):
            keys = keys if type(keys) in (list, tuple) else list(keys)
            if _FREE_THREADED and type(keys) is list:
                keys = tuple(keys)  # no GIL holds a list still while the hot path reads its items
            hot = self._batch_list(op, keys, results, bulk)  # None: some key is not an exact str, bytes or int
            if hot is not None:
                status, positive, done, answers = hot
                if status < 0:
                    error = error_for(status, "batch")
                    error.done = done  # keys processed before the one that stopped the batch
                    raise error
                return positive, answers
        fixed = numpy_keys or (_fixed_width(keys, width) if width is not None else int_keys(keys))
        positive, done = ffi.new("uint64_t*"), ffi.new("uint64_t*")
        if fixed is None:
            data, offsets, count = packed(keys)
            mask = bytearray(count) if results else None
            status = lib.lfbpy_batch(self._ref, op, data, offsets, count, _c_mask(mask), positive, done)
        else:
            view, key_width = fixed
            count = len(view) // key_width
            mask = bytearray(count) if results else None
            status = lib.lfbpy_batch_fixed(self._ref, op, ffi.from_buffer(view), key_width, count, _c_mask(mask),
                                           positive, done)
        if status < 0:
            error = error_for(status, "batch")
            error.done = done[0]  # keys processed before the one that stopped the batch
            raise error
        if mask is not None and numpy_keys is not None:
            return positive[0], sys.modules["numpy"].frombuffer(mask, dtype=bool)
        if mask is not None and width is None:
            return positive[0], [b == 1 for b in mask]
        return positive[0], mask

    def add_many(self, keys: Iterable[Key] | Any, *, width: int | None = None) -> int:
        """Adds many keys in one native call (GIL released); returns how many were new.

        ``keys``: an iterable of keys, a NumPy array of 8-byte ints (each the int key) or of fixed
        width bytes (dtype ``S``), read without a copy, or any buffer with ``width=`` (its bytes cut
        into keys of that many bytes, without a copy). Thread-safe. If a key is refused midway
        (a full cuckoo or scalable filter), the ``RefusalError``'s ``done`` counts the keys added.
        """
        return self._batch(lib.LFB_OP_ADD, keys, width, False)[0]

    def update(self, keys: Iterable[Key] | Any, *, width: int | None = None) -> None:
        """Adds every key, as ``add_many`` (set's name for it), without counting the new ones.

        A list or tuple of at least a quarter as many keys as a Bloom or counting filter of at most
        2 MiB has 8-byte words, most of them new (a sample of 64 is looked up), is built in bulk
        (the C ABI's ``LFB_BATCH_BULK``): the keys' bits go into a private copy with plain stores,
        merged into the filter with one locked OR a word. The same bits as ``add_many``, about 1.4
        times as fast for new keys. Thread-safe: beside any other call; every key is present when
        it returns, and a query from another thread meanwhile may see some of its keys and not
        others."""
        self._batch(lib.LFB_OP_ADD, keys, width, False, bulk=True)

    def contains_many(self, keys: Iterable[Key] | Any, *, width: int | None = None) -> Any:
        """Queries many keys in one native call (GIL released).

        Returns a list of bools for an iterable, a NumPy bool array for a NumPy array, and a
        ``bytearray`` mask (1 or 0 per key) for a buffer with ``width=``; ``keys`` as in
        ``add_many``. Thread-safe, lock-free.
        """
        return self._batch(lib.LFB_OP_CONTAINS, keys, width, True)[1]

    # ---- files and bytes ------------------------------------------------------------------------

    def to_bytes(self, format: str = "native") -> bytes:
        """The filter serialized: ``"native"`` (every kind, docs/FORMAT.md), ``"guava"``
        (Guava's ``writeTo``; classic layout of seed 0) or ``"parquet"`` (a Parquet column
        chunk's split-block bitset, the bytes after its ``BloomFilterHeader``; split-block layout
        of seed 0, at most 2**31 - 32 bytes: ``BloomFilter.for_parquet``). Another kind raises
        ``DataError`` (incompatible). Thread-safe: holds every add that completed before it
        began (a cuckoo filter's writers wait meanwhile)."""
        fmt, size, written = _format(format), ffi.new("uint64_t*"), ffi.new("uint64_t*")
        # a growing filter may outgrow the size it gave: then ask again. Each failed try means a new
        # sub-filter, of which a scalable filter has at most 255 (8 tries did not outlast fast
        # adders in Java and Go)
        for _ in range(256):
            check(lib.lfbpy_serialized_size(self._ref, fmt, size), "to_bytes")
            buffer = bytearray(size[0])
            status = lib.lfbpy_save(self._ref, fmt, ffi.from_buffer(buffer), len(buffer), written)
            if status != lib.LFB_ERR_INVALID_ARGUMENT:
                break
        check(status, "to_bytes")
        return bytes(buffer[: written[0]])

    def save(self, path: str | os.PathLike, format: str = "native", *, mode: int = 0o666) -> None:
        """Writes the filter to ``path`` atomically (a new file gets ``mode`` less the umask).
        Thread-safe, as ``to_bytes``."""
        check(lib.lfbpy_save_file(self._ref, _format(format), _path(path), _uint("mode", mode, 9)), "save")

    @classmethod
    def from_bytes(cls: type[F], data: Any, format: str = "native", *, memory_limit: int = 0) -> F:
        """The filter ``data`` holds (exactly one). Validates everything, the memory limit
        (bytes, 0 = none) from the header before allocating; ``DataError`` for corrupt or
        truncated data, or a kind other than ``cls``'s. Thread-safe.

        ``format="parquet"``: ``data`` is a Parquet split-block bitset (numBytes bytes, no
        header: its length is the filter's, a positive multiple of 32 up to 2**31 - 32, else
        ``ArgumentError``); the result is a split-block ``BloomFilter`` that answers as Parquet
        readers do, for keys given as Parquet hashes them (a BYTE_ARRAY's bytes, a str's UTF-8,
        an INT64 as an int)."""
        view = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        out = ffi.new("lfb_handle**")
        check(lib.lfb_load(_format(format), ffi.from_buffer(view), len(view), _uint("memory_limit", memory_limit), out),
              "from_bytes")
        return cls._wrap(out[0])

    @classmethod
    def load(cls: type[F], path: str | os.PathLike, format: str = "native", *, memory_limit: int = 0) -> F:
        """The filter saved in the file at ``path``, as ``from_bytes``. Thread-safe."""
        out = ffi.new("lfb_handle**")
        check(lib.lfb_load_file(_format(format), _path(path), _uint("memory_limit", memory_limit), out), "load")
        return cls._wrap(out[0])

    @classmethod
    def open_shared(cls: type[F], path: str | os.PathLike, *args: Any, read_only: bool = False,
                    exclusive: bool = False, mode: int = 0o666, **options: Any) -> F:
        """Maps the shared file at ``path``, which other processes may map and use at once.

        With no sizing arguments, opens whatever filter the file holds. With the constructor's
        arguments (``BloomFilter.open_shared(path, 10**6, 0.01)``), creates the file if it does not
        exist (``exclusive``: fail if it does), or checks that it holds that filter. ``read_only``
        maps it read-only: writes raise ``StateError``. Layouts, counting and cuckoo filters
        only. Thread-safe, also across processes.
        """
        flags = lib.LFB_SHARED_READ_ONLY if read_only else 0
        spec = ffi.NULL
        if args or options:
            spec = cls._spec(*args, **options)
            flags |= lib.LFB_SHARED_CREATE | (lib.LFB_SHARED_EXCLUSIVE if exclusive else 0)
        out = ffi.new("lfb_handle**")
        check(lib.lfb_open_shared(_path(path), spec, flags, _uint("mode", mode, 9), out), "open_shared")
        return cls._wrap(out[0])

    def flush(self) -> None:
        """Writes a shared file's pages to disk (only needed to survive a machine crash); nothing
        for other filters. Thread-safe."""
        check(lib.lfbpy_flush(self._ref), "flush")

    def __reduce__(self) -> Any:
        return (_restore, (type(self), self.to_bytes()))

    # ---- whole filters --------------------------------------------------------------------------

    def info(self) -> FilterInfo:
        """A snapshot of the filter's shape and fill; reads the whole filter, O(size).
        Thread-safe (a racing add may or may not be counted)."""
        out = ffi.new("lfb_info*")
        check(lib.lfbpy_info(self._ref, out), "info")
        return FilterInfo._of(out)

    def approx_count(self) -> float:
        """The number of distinct keys estimated from the fill (a rotating filter: its current
        generation's; ``inf`` for a full Bloom filter). O(size). Thread-safe."""
        return self.info().estimated_count

    def copy(self: F) -> F:
        """A private copy, writable even if this one is mapped read-only. O(size). Thread-safe:
        keys added meanwhile may or may not be in it. Composites: ``DataError``."""
        out = ffi.new("lfb_handle**")
        check(lib.lfbpy_copy(self._ref, out), "copy")
        return type(self)._wrap(out[0])

    def __copy__(self: F) -> F:
        return self.copy()

    def clear(self) -> None:
        """Empties the filter. Thread-safe, but adds racing with it may be lost. Composites:
        ``DataError``."""
        check(lib.lfbpy_clear(self._ref), "clear")

    def __eq__(self, other: object) -> bool:
        """True if both map keys alike and hold the same bits (every key answers the same).
        O(size). Thread-safe. Composites raise ``DataError``."""
        if not isinstance(other, Filter):
            return NotImplemented
        return check(lib.lfbpy_equal(self._ref, other._ref), "==") == 1

    __hash__ = None  # type: ignore[assignment]  # mutable

    def _merge(self: F, other: object, merge: Any, what: str) -> F:
        if not isinstance(other, Filter):
            return NotImplemented
        check(merge(self._ref, other._ref), what)
        return self

    def _merged_copy(self: F, other: object, merge: Any, what: str) -> F:
        if not isinstance(other, Filter):
            return NotImplemented
        result = self.copy()
        try:
            return result._merge(other, merge, what)
        except BaseException:
            result.close()
            raise

    def __ior__(self: F, other: "Filter") -> F:
        """``f |= g``: adds g's keys to f (same kind, size and seed, else ``DataError``). O(size).
        Thread-safe."""
        return self._merge(other, lib.lfbpy_union, "|=")

    def __iand__(self: F, other: "Filter") -> F:
        """``f &= g``: keeps what both hold (no false negative for a key both held). O(size).
        Thread-safe."""
        return self._merge(other, lib.lfbpy_intersect, "&=")

    def __or__(self: F, other: "Filter") -> F:
        """``f | g``: a new filter holding the keys of both. Thread-safe."""
        return self._merged_copy(other, lib.lfbpy_union, "|")

    def __and__(self: F, other: "Filter") -> F:
        """``f & g``: a new filter of what both hold. Thread-safe."""
        return self._merged_copy(other, lib.lfbpy_intersect, "&")

    @classmethod
    def _spec(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{cls.__name__} takes no sizing arguments here")


class _Removing(Filter):
    """Counting, cuckoo and (with cuckoo sub-filters) scalable filters: removes and counts."""

    __slots__ = ()

    def remove(self, key: Key) -> None:
        """Removes one copy of the key; ``KeyError`` if none was there (nothing changed).
        Remove only keys you added: removing another key's copy loses it. Thread-safe."""
        if not self.discard(key):
            raise KeyError(key)

    def discard(self, key: Key) -> bool:
        """Removes one copy of the key if there is one; True if one was removed. Thread-safe."""
        data = c_key(key)
        return check(lib.lfbpy_remove(self._ref, data, len(data)), "remove") == 1

    def remove_many(self, keys: Iterable[Key] | Any, *, width: int | None = None) -> int:
        """Removes a copy of each key in one native call (GIL released); returns how many were
        removed. Keys as in ``add_many``. Thread-safe."""
        return self._batch(lib.LFB_OP_REMOVE, keys, width, False)[0]

    def count(self, key: Key) -> int:
        """How often the key was added, at most (counting: its smallest counter; cuckoo: copies
        of its fingerprint); 0 means certainly absent. Thread-safe, lock-free."""
        data = c_key(key)
        return check(lib.lfbpy_count(self._ref, data, len(data)), "count")


class BloomFilter(Filter):
    """A Bloom filter: ``BloomFilter(capacity, fpr, *, layout="blocked", seed=0, memory_limit=0)``.

    ``capacity`` distinct keys at false-positive rate ``fpr`` in (0, 1). ``layout``: "blocked"
    (one cache line a key, the default), "classic" (bit-exact with Guava), "split-block"
    (Parquet's), "one-word" (fastest) or "two-word". ``memory_limit``: bytes, 0 = none.
    Creating is thread-safe.
    """

    __slots__ = ()

    def __init__(self, capacity: int, fpr: float, *, layout: str = "blocked", seed: int = 0,
                 memory_limit: int = 0) -> None:
        self._attach(_create(self._spec(capacity, fpr, layout=layout, seed=seed, memory_limit=memory_limit)))

    @classmethod
    def for_parquet(cls, num_bytes: int, *, memory_limit: int = 0) -> "BloomFilter":
        """An empty split-block filter of seed 0 whose Parquet bitset (``to_bytes("parquet")``)
        has ``num_bytes`` bytes: Parquet's numBytes, a positive multiple of 32 up to 2**31 - 32
        (writers use powers of two up to 128 MiB, and some readers expect one). Keys hash as
        Parquet hashes a column's values (XXH64 of the bytes, seed 0): bytes and str for
        BYTE_ARRAY columns, int for INT64 columns (8 bytes little-endian). Thread-safe."""
        num_bytes = _uint("num_bytes", num_bytes)
        if num_bytes == 0 or num_bytes % 32 or num_bytes > 0x7FFFFFE0:
            raise ValueError(f"a Parquet bitset has a positive multiple of 32 bytes, at most 2**31 - 32, not {num_bytes}")
        spec = _spec(lib.LFB_KIND_SPLIT_BLOCK, 0, 0.0, 0, memory_limit)
        spec.slots, spec.hashes = num_bytes * 8, 8
        return cls._wrap(_create(spec))

    @classmethod
    def _spec(cls, capacity: int, fpr: float, *, layout: str = "blocked", seed: int = 0,
              memory_limit: int = 0) -> Any:
        if layout not in _LAYOUTS:
            raise ValueError(f"layout is one of {', '.join(_LAYOUTS)}, not {layout!r}")
        return _spec(lib.lfb_kind_parse(layout.encode()), capacity, fpr, seed, memory_limit)


class CountingBloomFilter(_Removing):
    """A counting Bloom filter, which removes:
    ``CountingBloomFilter(capacity, fpr, *, counter_bits=4, seed=0, memory_limit=0)``.

    Counters of 4 or 8 bits; a counter at its maximum stays there. Creating is thread-safe.
    """

    __slots__ = ()

    def __init__(self, capacity: int, fpr: float, *, counter_bits: int = 4, seed: int = 0,
                 memory_limit: int = 0) -> None:
        self._attach(_create(self._spec(capacity, fpr, counter_bits=counter_bits, seed=seed,
                                        memory_limit=memory_limit)))

    @classmethod
    def _spec(cls, capacity: int, fpr: float, *, counter_bits: int = 4, seed: int = 0, memory_limit: int = 0) -> Any:
        spec = _spec(lib.LFB_KIND_COUNTING, capacity, fpr, seed, memory_limit)
        spec.counter_bits = _uint("counter_bits", counter_bits, 32)
        return spec


class CuckooFilter(_Removing):
    """A cuckoo filter, which removes and is smaller than a Bloom filter below about 0.2%:
    ``CuckooFilter(capacity, fpr, *, fingerprint_bits=0, seed=0, memory_limit=0)``.

    ``fingerprint_bits``: 14, 16 or 17, or 0 for the fewest bytes at ``fpr``. An add may be
    refused (``RefusalError``: full, or 8 copies of the key already), changing nothing. Adds
    lock one stripe of buckets; queries never wait. Creating is thread-safe.
    """

    __slots__ = ()

    def __init__(self, capacity: int, fpr: float, *, fingerprint_bits: int = 0, seed: int = 0,
                 memory_limit: int = 0) -> None:
        self._attach(_create(self._spec(capacity, fpr, fingerprint_bits=fingerprint_bits, seed=seed,
                                        memory_limit=memory_limit)))

    @classmethod
    def _spec(cls, capacity: int, fpr: float, *, fingerprint_bits: int = 0, seed: int = 0,
              memory_limit: int = 0) -> Any:
        spec = _spec(lib.LFB_KIND_CUCKOO, capacity, fpr, seed, memory_limit)
        spec.counter_bits = _uint("fingerprint_bits", fingerprint_bits, 32)
        return spec


class ScalableBloomFilter(_Removing):
    """A filter that grows by sub-filters, its whole rate staying below ``fpr``:
    ``ScalableBloomFilter(capacity, fpr, *, removes=False, growth=2.0, tightening=0.5,
    max_filters=32, seed=0, memory_limit=0)``.

    ``capacity`` is the first sub-filter's; each next holds ``growth`` times more. ``removes``
    uses cuckoo sub-filters (``remove``, ``count``); without it ``remove`` raises ``DataError``.
    An add past ``max_filters`` or ``memory_limit`` raises ``RefusalError``. Growth is lock-free.
    Creating is thread-safe.
    """

    __slots__ = ()

    def __init__(self, capacity: int, fpr: float, *, removes: bool = False, growth: float = 2.0,
                 tightening: float = 0.5, max_filters: int = 32, seed: int = 0, memory_limit: int = 0) -> None:
        spec = _spec(lib.LFB_KIND_SCALABLE, capacity, fpr, seed, memory_limit)
        spec.sub_kind = lib.LFB_KIND_CUCKOO if removes else lib.LFB_KIND_BLOCKED
        spec.growth = _real("growth", growth)
        spec.tightening = _real("tightening", tightening)
        spec.max_filters = _uint("max_filters", max_filters, 32)
        self._attach(_create(spec))


class RotatingBloomFilter(Filter):
    """A ring of Bloom filters whose keys expire:
    ``RotatingBloomFilter(capacity, fpr, *, generations=2, period=None, double_write=False, seed=0,
    memory_limit=0)``.

    ``capacity`` keys per period; a key is forgotten after ``generations`` rotations. ``period``
    (seconds) rotates by the clock, else only ``rotate()`` does. Creating is thread-safe.
    """

    __slots__ = ()

    def __init__(self, capacity: int, fpr: float, *, generations: int = 2, period: float | None = None,
                 double_write: bool = False, seed: int = 0, memory_limit: int = 0) -> None:
        spec = _spec(lib.LFB_KIND_ROTATING, capacity, fpr, seed, memory_limit)
        spec.generations = _uint("generations", generations, 32)
        if period is not None:
            seconds = _real("period", period)
            if not 0 < seconds < 1e9:
                raise ValueError(f"period must be positive seconds, not {period}")
            spec.period_ns = max(1, round(seconds * 1e9))
        spec.rotating_flags = lib.LFB_ROTATING_DOUBLE_WRITE if double_write else 0
        self._attach(_create(spec))

    def rotate(self) -> None:
        """One rotation now: the oldest generation's keys are forgotten. Thread-safe: waits only
        for another rotation; adds and queries never wait."""
        check(lib.lfbpy_rotate(self._ref), "rotate")


class SwappableBloomFilter(Filter):
    """A filter replaced atomically while in use: ``SwappableBloomFilter(initial)``.

    Takes ``initial`` (a writable ``BloomFilter`` or ``CountingBloomFilter`` with no call in
    flight) over: ``initial`` is closed. Rebuild without a gap: ``stage(next)`` (adds go to both
    from then on), fill it with ``add_staged``, then ``publish()``; or ``replace(next)``.
    Every call sees the old or the new filter, never a freed one. Creating is thread-safe.
    """

    __slots__ = ()

    def __init__(self, initial: Filter) -> None:
        if not isinstance(initial, Filter):
            raise TypeError(f"initial must be a filter, not {type(initial).__name__}")
        out = ffi.new("lfb_handle**")
        check(lib.lfbpy_create_swap(initial._ref, out), "SwappableBloomFilter")
        initial._closed = True
        self._attach(out[0])

    def stage(self, next: Filter) -> None:
        """Makes every add also go to ``next`` (taken over and closed). Thread-safe: waits for
        the readers of an earlier staged filter."""
        if not isinstance(next, Filter):
            raise TypeError(f"next must be a filter, not {type(next).__name__}")
        check(lib.lfbpy_stage(self._ref, next._ref), "stage")
        next._closed = True

    def add_staged(self, key: Key) -> bool:
        """Adds a key to the staged filter only; True if new. Thread-safe, lock-free."""
        data = c_key(key)
        return check(lib.lfbpy_add_staged(self._ref, data, len(data)), "add_staged") == 1

    def add_staged_many(self, keys: Iterable[Key] | Any, *, width: int | None = None) -> int:
        """``add_staged`` for many keys in one native call (GIL released), as ``add_many``."""
        return self._batch(lib.LFB_OP_ADD_STAGED, keys, width, False)[0]

    def publish(self) -> None:
        """Makes the staged filter current. Thread-safe: waits for the old filter's readers."""
        check(lib.lfbpy_publish(self._ref), "publish")

    def replace(self, next: Filter) -> None:
        """Stage and publish of a complete filter (taken over and closed). Thread-safe."""
        if not isinstance(next, Filter):
            raise TypeError(f"next must be a filter, not {type(next).__name__}")
        check(lib.lfbpy_replace(self._ref, next._ref), "replace")
        next._closed = True

    @classmethod
    def from_bytes(cls, data: Any, format: str = "native", *, memory_limit: int = 0) -> "SwappableBloomFilter":
        """A swap whose current filter is the one ``data`` holds (a swap saves its current
        filter), as ``Filter.from_bytes``. Thread-safe."""
        return cls(Filter.from_bytes(data, format, memory_limit=memory_limit))

    @classmethod
    def load(cls, path: str | os.PathLike, format: str = "native", *, memory_limit: int = 0) -> "SwappableBloomFilter":
        """A swap whose current filter is the one saved at ``path``, as ``Filter.load``. Thread-safe."""
        return cls(Filter.load(path, format, memory_limit=memory_limit))


# Which class holds which enum lfb_kind: built once at import, read-only after.
_BY_KIND: dict[int, type[Filter]] = {
    **{lib.lfb_kind_parse(layout.encode()): BloomFilter for layout in _LAYOUTS},
    lib.LFB_KIND_COUNTING: CountingBloomFilter, lib.LFB_KIND_CUCKOO: CuckooFilter,
    lib.LFB_KIND_SCALABLE: ScalableBloomFilter, lib.LFB_KIND_ROTATING: RotatingBloomFilter,
    lib.LFB_KIND_SWAP: SwappableBloomFilter,
}


def _create(spec: Any) -> Any:
    out = ffi.new("lfb_handle**")
    check(lib.lfb_create(spec, out), "create")
    return out[0]


def _restore(cls: type[Filter], data: bytes) -> Filter:
    return cls.from_bytes(data)


def _c_mask(mask: bytearray | None) -> Any:
    return ffi.NULL if mask is None else ffi.from_buffer(mask)


def _fixed_width(keys: Any, width: Any) -> tuple[memoryview, int]:
    """(bytes view, width) of a buffer cut into keys of ``width`` bytes, read in place."""
    width = _uint("width", width)
    view = memoryview(keys)
    if width == 0 or not view.c_contiguous:
        raise ValueError("width= needs a positive width and a contiguous buffer")
    view = view.cast("B")
    if len(view) % width:
        raise ValueError(f"a buffer of {len(view)} bytes is no whole number of {width}-byte keys")
    return view, width


def _numpy_keys(keys: Any) -> tuple[memoryview, int] | None:
    """(bytes view, key width) of a NumPy array of keys, read in place; None for anything else."""
    numpy = sys.modules.get("numpy")
    if numpy is None or not isinstance(keys, numpy.ndarray):
        return None
    dtype = keys.dtype
    if dtype.kind in "iu" and dtype.itemsize == 8:
        if dtype.byteorder == ">" or (dtype.byteorder == "=" and sys.byteorder == "big"):
            raise ValueError("int keys must be little-endian (dtype '<u8' or '<i8')")
    elif dtype.kind != "S" or dtype.itemsize == 0:
        raise TypeError(f"a NumPy array of keys has dtype uint64, int64 or S<n>, not {dtype}")
    if keys.ndim != 1 or not keys.flags.c_contiguous:
        raise ValueError("a NumPy array of keys must be one-dimensional and contiguous")
    return memoryview(keys).cast("B"), dtype.itemsize

