"""Proof that any FFI can use liblfbloom.so.1: Python's ctypes, standard library only.

Usage: python3 ctypes_test.py /path/to/liblfbloom.so.1
"""
import ctypes
import struct
import sys
import threading
import unittest

LIB_PATH = sys.argv.pop(1) if len(sys.argv) > 1 else "liblfbloom.so.1"
lib = ctypes.CDLL(LIB_PATH)

c_u64 = ctypes.c_uint64
lib.lfb_version_string.restype = ctypes.c_char_p
lib.lfb_strerror.restype = ctypes.c_char_p
lib.lfb_last_error.restype = ctypes.c_char_p
lib.lfb_filter_create.argtypes = [c_u64, ctypes.c_double, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
lib.lfb_filter_free.argtypes = [ctypes.c_void_p]
lib.lfb_filter_free.restype = None
for name in ("lfb_filter_add", "lfb_filter_contains"):
    getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p, c_u64]
lib.lfb_filter_contains_many.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(c_u64), c_u64,
                                         ctypes.POINTER(ctypes.c_uint8), ctypes.POINTER(c_u64)]

LFB_ERR_INVALID_ARGUMENT = -1
LFB_ERR_INCOMPATIBLE = -4
LFB_KIND_BLOCKED, LFB_KIND_CUCKOO = 2, 7


class Spec(ctypes.Structure):
    """lfb_spec (1.5), field for field."""
    _fields_ = [("struct_size", ctypes.c_uint32), ("kind", ctypes.c_uint32), ("capacity", c_u64),
                ("fpr", ctypes.c_double), ("seed", c_u64), ("memory_limit", c_u64),
                ("counter_bits", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


lib.lfb_spec_init.argtypes = [ctypes.POINTER(Spec)]
lib.lfb_create.argtypes = [ctypes.POINTER(Spec), ctypes.POINTER(ctypes.c_void_p)]
lib.lfb_free.argtypes = [ctypes.c_void_p]
lib.lfb_free.restype = None
lib.lfb_kind.argtypes = [ctypes.c_void_p]
for name in ("lfb_add", "lfb_contains", "lfb_remove", "lfb_count"):
    getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_char_p, c_u64]


def new_filter(capacity, fpr):
    handle = ctypes.c_void_p()
    status = lib.lfb_filter_create(capacity, fpr, None, ctypes.byref(handle))
    if status != 0:
        raise ValueError(lib.lfb_last_error().decode())
    return handle


class CtypesTest(unittest.TestCase):
    def test_version(self):
        self.assertEqual(lib.lfb_version_string(), b"1.13.0")
        self.assertEqual(lib.lfb_abi_version(), 1)

    def test_one_handle_for_every_kind(self):
        for kind in (LFB_KIND_BLOCKED, LFB_KIND_CUCKOO):
            spec = Spec()
            self.assertEqual(lib.lfb_spec_init(ctypes.byref(spec)), 0)
            self.assertEqual(spec.struct_size, ctypes.sizeof(Spec))
            spec.kind, spec.capacity, spec.fpr = kind, 10000, 0.001
            handle = ctypes.c_void_p()
            self.assertEqual(lib.lfb_create(ctypes.byref(spec), ctypes.byref(handle)), 0, lib.lfb_last_error())
            try:
                self.assertEqual(lib.lfb_kind(handle), kind)
                self.assertEqual(lib.lfb_add(handle, b"user:42", 7), 1)
                self.assertEqual(lib.lfb_contains(handle, b"user:42", 7), 1)
                if kind == LFB_KIND_CUCKOO:
                    self.assertEqual(lib.lfb_count(handle, b"user:42", 7), 1)
                    self.assertEqual(lib.lfb_remove(handle, b"user:42", 7), 1)
                    self.assertEqual(lib.lfb_remove(handle, b"user:42", 7), 0)
                    self.assertEqual(lib.lfb_contains(handle, b"user:42", 7), 0)
                else:
                    self.assertEqual(lib.lfb_remove(handle, b"user:42", 7), LFB_ERR_INCOMPATIBLE)
            finally:
                lib.lfb_free(handle)

    def test_errors_are_codes_with_messages(self):
        handle = ctypes.c_void_p()
        self.assertEqual(lib.lfb_filter_create(0, 0.01, None, ctypes.byref(handle)), LFB_ERR_INVALID_ARGUMENT)
        self.assertIn(b"capacity", lib.lfb_last_error())
        self.assertEqual(lib.lfb_strerror(LFB_ERR_INVALID_ARGUMENT), b"invalid argument")
        self.assertEqual(lib.lfb_filter_add(None, b"k", 1), LFB_ERR_INVALID_ARGUMENT)

    def test_threads_share_one_filter(self):
        # ctypes releases the GIL around foreign calls, so these threads really run in the library
        # at once. Each writer publishes how many keys it has added; a reader checks only keys that
        # were published (the add happened before the publication it read).
        f = new_filter(200_000, 0.01)
        writers, per_writer = 4, 20_000
        published = [0] * writers
        missing = []

        def writer(w):
            for i in range(per_writer):
                key = b"user:%d:%d" % (w, i)
                lib.lfb_filter_add(f, key, len(key))
                published[w] = i + 1

        def reader():
            for _ in range(3):
                for w in range(writers):
                    for i in range(published[w]):
                        key = b"user:%d:%d" % (w, i)
                        if lib.lfb_filter_contains(f, key, len(key)) != 1:
                            missing.append(key)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
        threads.append(threading.Thread(target=reader))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(missing, [])

        # One batch call over every key: all present; absent keys mostly not.
        keys = [b"user:%d:%d" % (w, i) for w in range(writers) for i in range(per_writer)]
        absent = [b"absent:%d" % i for i in range(10_000)]
        for batch, expect_all in ((keys, True), (absent, False)):
            data = b"".join(batch)
            offsets = (c_u64 * (len(batch) + 1))()
            pos = 0
            for i, k in enumerate(batch):
                offsets[i] = pos
                pos += len(k)
            offsets[len(batch)] = pos
            results = (ctypes.c_uint8 * len(batch))()
            found = c_u64()
            self.assertEqual(lib.lfb_filter_contains_many(f, data, offsets, len(batch), results, ctypes.byref(found)), 0)
            if expect_all:
                self.assertEqual(found.value, len(batch))
            else:
                self.assertLess(found.value, len(batch) * 0.02)  # 1% expected; 2% is > 10 sigma away
        lib.lfb_filter_free(f)


if __name__ == "__main__":
    unittest.main(verbosity=2)
