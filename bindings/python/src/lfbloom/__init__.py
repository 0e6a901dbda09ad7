"""lfbloom: concurrent lock-free Bloom, counting, cuckoo, scalable and rotating filters.

A binding of lfbloom's C library (liblfbloom.so.1, shipped inside this package): every filter is
one handle of the C ABI, and no algorithm, hash or format is implemented in Python, so a key and a
saved file mean the same here as in C, C++, Java, Go and Guava.

    >>> import lfbloom
    >>> seen = lfbloom.BloomFilter(1_000_000, 0.01)
    >>> seen.add("https://example.org/")
    True
    >>> "https://example.org/" in seen
    True

Thread safety: every filter may be used by any number of threads at once; every native call
releases the GIL, so batches (``add_many``, ``contains_many``), saves, loads and set operations
run in parallel. No false negative for a key whose add happened-before the query. ``close`` is
safe while other threads are mid-call: they finish, later calls raise ``ClosedError``. Module
state is constant after import.
"""
from ._errors import (ArgumentError, ClosedError, DataError, Error, InternalError, RefusalError,
                      ResourceError, StateError)
from ._filters import (BloomFilter, CountingBloomFilter, CuckooFilter, Filter, FilterInfo,
                       RotatingBloomFilter, ScalableBloomFilter, SwappableBloomFilter)
from ._keys import Key, key_bytes
from ._native import ffi as _ffi, lib as _lib

__version__ = "1.14.4"
#: The version of the C library this package carries.
library_version: str = _ffi.string(_lib.lfb_version_string()).decode()

load = Filter.load
from_bytes = Filter.from_bytes
open_shared = Filter.open_shared

__all__ = ["ArgumentError", "BloomFilter", "ClosedError", "CountingBloomFilter", "CuckooFilter", "DataError",
           "Error", "Filter", "FilterInfo", "InternalError", "Key", "RefusalError", "ResourceError",
           "RotatingBloomFilter", "ScalableBloomFilter", "StateError", "SwappableBloomFilter", "from_bytes",
           "key_bytes", "library_version", "load", "open_shared"]
