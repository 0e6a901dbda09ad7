"""What the build made for this interpreter: one abi3 wheel for CPython with a GIL, and on a
free-threaded CPython (sysconfig's Py_GIL_DISABLED) modules of its own full API that declare they
run without the GIL, so importing lfbloom leaves the GIL off."""
import sys
import sysconfig
import threading

import lfbloom
from lfbloom import _hot, _native

FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def test_the_modules_are_abi3_exactly_when_the_interpreter_has_a_gil():
    for module in (_hot, _native):
        assert module.__file__.endswith(".abi3.so") is not FREE_THREADED, module.__file__


def test_importing_lfbloom_leaves_a_free_threaded_interpreter_without_the_gil():
    if FREE_THREADED:  # a module that did not declare Py_mod_gil would have turned it back on
        assert not sys._is_gil_enabled()
    elif hasattr(sys, "_is_gil_enabled"):
        assert sys._is_gil_enabled()


def test_threads_batching_lists_that_another_thread_changes_lose_nothing():
    """The list batch reads a list's items in C; under free threading it gets a snapshot. Here:
    keys added from lists that a third thread keeps appending to are all found."""
    f = lfbloom.BloomFilter(100_000, 0.01)
    lists = [[f"t{t}:{i}" for i in range(5000)] for t in range(2)]
    stop = threading.Event()

    def grow():
        n = 0
        while not stop.is_set() and n < 20_000:
            for keys in lists:
                keys.append(f"late:{n}")
            n += 1

    def add(keys):
        for _ in range(5):
            f.add_many(keys)

    grower = threading.Thread(target=grow)
    grower.start()
    adders = [threading.Thread(target=add, args=(keys,)) for keys in lists]
    for t in adders:
        t.start()
    for t in adders:
        t.join()
    stop.set()
    grower.join()
    for keys in lists:
        assert all(f.contains_many([k for k in keys if not k.startswith("late:")]))
