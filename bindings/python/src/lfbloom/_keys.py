"""Keys as the bytes the C ABI takes: the same key gives the same bits in C, Java, Go and Guava."""
from __future__ import annotations

import array
import itertools
import sys
from typing import Any, Iterable, Union

from ._native import ffi

Key = Union[bytes, bytearray, memoryview, str, int]

_INT_MIN = -(1 << 63)
_UINT_MAX = (1 << 64) - 1


def key_bytes(key: Any) -> Any:
    """bytes, or a 1-D memoryview of bytes: str as UTF-8, int as 8 little-endian bytes.

    An int is two's complement in 64 bits, so -1 and 2**64 - 1 are one key (Java's long, Go's
    uint64). bool is refused: True would silently be the key 1.
    """
    if type(key) is bytes:
        return key
    if type(key) is int and _INT_MIN <= key <= _UINT_MAX:
        return (key & _UINT_MAX).to_bytes(8, "little")
    if isinstance(key, str):
        return key.encode("utf-8")
    if isinstance(key, bool):
        raise TypeError("a key cannot be a bool")
    if isinstance(key, int):
        if not _INT_MIN <= key <= _UINT_MAX:
            raise ValueError(f"an int key must fit in 64 bits, not {key}")
        return (key & _UINT_MAX).to_bytes(8, "little")
    if isinstance(key, (bytes, bytearray, memoryview)) or _is_buffer(key):
        view = memoryview(key)
        if not view.c_contiguous:
            raise ValueError("a buffer key must be contiguous")
        return view.cast("B") if view.format != "B" or view.ndim != 1 else view
    if key is None:
        raise TypeError("a key cannot be None")
    raise TypeError(f"a key is bytes, bytearray, memoryview, str or int, not {type(key).__name__}")


def c_key(key: Any) -> Any:
    """What a one-key call passes: bytes as they are, other buffers through cffi without a copy."""
    data = key_bytes(key)
    return data if type(data) is bytes else ffi.from_buffer(data)


def int_keys(keys: Any) -> tuple[memoryview, int] | None:
    """(bytes, 8) of a list or tuple of ints that all fit one of uint64 or int64, as 8-byte keys
    made in C (array's conversion); None for anything else (the general path checks each key)."""
    if not isinstance(keys, (list, tuple)) or not keys or set(map(type, keys)) != {int}:
        return None
    for code in "Qq":
        try:
            ints = array.array(code, keys)
        except OverflowError:
            continue
        if sys.byteorder == "big":
            ints.byteswap()
        return memoryview(ints).cast("B"), 8
    return None


def packed(keys: Iterable[Any]) -> tuple[bytes, Any, int]:
    """Many keys end to end with count + 1 offsets (the lfb_batch form): (data, offsets, count)."""
    if isinstance(keys, (str, bytes, bytearray, memoryview)):
        raise TypeError("keys must be an iterable of keys; for a buffer of fixed-width keys pass width=")
    keys = keys if isinstance(keys, (list, tuple)) else list(keys)
    types = set(map(type, keys))
    text = "".join(keys) if types == {str} else None
    if text is not None and text.isascii():  # the common case: no Python call per key
        data, lengths = text.encode("ascii"), map(len, keys)
    else:
        parts = keys if types <= {bytes} else [key_bytes(key) for key in keys]
        data, lengths = b"".join(parts), map(len, parts)
    offsets = array.array("Q", itertools.accumulate(lengths, initial=0))
    return data, ffi.from_buffer("uint64_t[]", offsets), len(keys)


def _is_buffer(value: Any) -> bool:
    try:
        memoryview(value)
    except TypeError:
        return False
    return True
