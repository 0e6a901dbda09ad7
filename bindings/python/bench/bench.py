"""One short run: lfbloom against rbloom, pybloom-live, pyprobables and bloom-filter2, keys per
second (millions), 1% filters.

    python bench.py                      # peers that are not installed are left out
    python bench.py --plot out.png       # and a bar chart of the table (needs matplotlib)

Not a test: nothing here is checked, and CI does not run it. Each row is the best of 5 repetitions
(wall time), the load average is printed with the table; the thread rows are bench/threads.py's
(medians of 5, a filter larger than the L3 cache).
"""
import os
import statistics
import sys
import time

import numpy as np
import threads  # bench/threads.py, beside this file

import lfbloom

N = 200_000  # keys per row; pure-Python peers get N // 10
CAPACITY = 1_000_000
RATE = 0.01


def best_rate(fn, keys_per_call, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return keys_per_call / best / 1e6


def peers():
    """name -> (new filter, add, contains, bits of a filter) for each peer that is installed."""
    found = {}
    try:
        import rbloom

        found["rbloom"] = (lambda: rbloom.Bloom(CAPACITY, RATE), lambda g, k: g.add(k), lambda g, k: k in g,
                           lambda g: g.size_in_bits)
    except ImportError:
        pass
    try:
        import pybloom_live

        found["pybloom-live"] = (lambda: pybloom_live.BloomFilter(CAPACITY, RATE), lambda g, k: g.add(k),
                                 lambda g, k: k in g, lambda g: g.num_bits)
    except ImportError:
        pass
    try:
        import probables  # pyprobables: str or bytes keys only, so ints go as their decimal str

        found["pyprobables"] = (lambda: probables.BloomFilter(est_elements=CAPACITY, false_positive_rate=RATE),
                                lambda g, k: g.add(k if isinstance(k, str) else str(k)),
                                lambda g, k: g.check(k if isinstance(k, str) else str(k)), lambda g: g.number_bits)
    except ImportError:
        pass
    try:
        import bloom_filter2

        found["bloom-filter2"] = (lambda: bloom_filter2.BloomFilter(max_elements=CAPACITY, error_rate=RATE),
                                  lambda g, k: g.add(k), lambda g, k: k in g, lambda g: g.num_bits_m)
    except ImportError:
        pass
    return found


def main():
    strs = [f"user:{i}" for i in range(N)]
    ints = list(range(N))
    array = np.arange(N, dtype=np.uint64)
    rows = []

    f = lfbloom.BloomFilter(CAPACITY, RATE)
    rows.append(("lfbloom", "add str, one by one", best_rate(lambda: [f.add(k) for k in strs], N)))
    rows.append(("lfbloom", "contains str, one by one", best_rate(lambda: [k in f for k in strs], N)))
    rows.append(("lfbloom", "add int, one by one", best_rate(lambda: [f.add(k) for k in ints], N)))
    rows.append(("lfbloom", "contains int, one by one", best_rate(lambda: [k in f for k in ints], N)))
    rows.append(("lfbloom", "add str, batch (list)", best_rate(lambda: f.update(strs), N)))
    rows.append(("lfbloom", "contains str, batch (list)", best_rate(lambda: f.contains_many(strs), N)))
    rows.append(("lfbloom", "add int, batch (list)", best_rate(lambda: f.update(ints), N)))
    rows.append(("lfbloom", "contains int, batch (list)", best_rate(lambda: f.contains_many(ints), N)))
    rows.append(("lfbloom", "add int, batch (NumPy)", best_rate(lambda: f.add_many(array), N)))
    rows.append(("lfbloom", "contains int, batch (NumPy)", best_rate(lambda: f.contains_many(array), N)))
    rows.append(("lfbloom", "bytes per key at 1%", f.info().bytes / CAPACITY))

    for name, (make, add, contains, bits) in peers().items():
        g = make()
        n = N if name == "rbloom" else N // 10
        s, i = strs[:n], ints[:n]
        rows.append((name, "add str, one by one", best_rate(lambda: [add(g, k) for k in s], n)))
        rows.append((name, "contains str, one by one", best_rate(lambda: [contains(g, k) for k in s], n)))
        rows.append((name, "add int, one by one", best_rate(lambda: [add(g, k) for k in i], n)))
        rows.append((name, "contains int, one by one", best_rate(lambda: [contains(g, k) for k in i], n)))
        if name == "rbloom":  # the one peer with a batch call (update, adds only)
            rows.append((name, "add str, batch (list)", best_rate(lambda: g.update(s), n)))
            rows.append((name, "add int, batch (list)", best_rate(lambda: g.update(i), n)))
        rows.append((name, "bytes per key at 1%", bits(g) / 8 / CAPACITY))

    # Batch lookups from 1 and 2 threads on one filter (threads.py: 60 MB, NumPy batches of 10^5).
    one, two, _ = threads.measure(5)
    one = statistics.median(rate for rate, _ in one) / 1e6
    two = statistics.median(rate for rate, _ in two) / 1e6
    rows.append(("lfbloom", "contains int, NumPy batches, 1 thread (60 MB filter, median of 5)", one))
    rows.append(("lfbloom", "contains int, NumPy batches, 2 threads (60 MB filter, median of 5)", two))
    print(f"| library | row | M keys/s (bytes per key for that row) |\n|---|---|---|")
    for library, row, value in rows:
        print(f"| {library} | {row} | {value:.2f} |")
    print(f"\n2 threads / 1 thread: {two / one:.2f}x; Python {sys.version.split()[0]}; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    if "--plot" in sys.argv:
        plot(rows, sys.argv[sys.argv.index("--plot") + 1])


def plot(rows, path):
    """Horizontal bars, one group per row of the table (keys/s, log scale), a bar per library."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = ["add str, one by one", "contains str, one by one", "add int, one by one", "contains int, one by one",
             "add str, batch (list)", "contains str, batch (list)", "add int, batch (list)",
             "contains int, batch (list)", "add int, batch (NumPy)", "contains int, batch (NumPy)"]
    libraries = list(dict.fromkeys(library for library, _, _ in rows))
    values = {(library, row): value for library, row, value in rows}
    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=80)
    height = 0.8 / len(libraries)
    for k, library in enumerate(libraries):
        ys = [i + k * height for i, name in enumerate(names) if (library, name) in values]
        xs = [values[(library, name)] for name in names if (library, name) in values]
        ax.barh(ys, xs, height=height, label=library)
    ax.set_yticks([i + 0.4 - height / 2 for i in range(len(names))], names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("million keys per second (log scale; higher is better)")
    ax.set_title(f"lfbloom and peers, Python {sys.version.split()[0]}, filters of 10^6 keys at 1%", fontsize=9)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    fig.savefig(path)


if __name__ == "__main__":
    main()
