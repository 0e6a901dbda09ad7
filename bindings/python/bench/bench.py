"""One short run: lfbloom against rbloom, pybloom-live, pyprobables and bloom-filter2, keys per
second (millions), 1% filters.

    python bench.py                      # peers that are not installed are left out
    python bench.py --plot out.png       # and a bar chart of the table (needs matplotlib)

Not a test: nothing here is checked, and CI does not run it. Each row runs every library that has
it in turn, REPEAT times over (interleaved, so a burst of load elsewhere on the machine falls on
all of them alike), and reports the median of each library's wall times; the thread rows are
bench/threads.py's (medians of 5, a filter larger than the L3 cache). A second table gives
lfbloom's ratio to rbloom in each row by wall time and by the thread's CPU time (what a busy
machine disturbs least). Every repetition of an add row adds the same keys to the same filter, so
after the first they are all present (for every library alike); the first lines printed give the
batch adds of new keys into fresh filters too.
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
REPEAT = 7


def timed(fn):
    """(wall seconds, this thread's CPU seconds) of one call."""
    wall, cpu = time.perf_counter(), time.thread_time()
    fn()
    return time.perf_counter() - wall, time.thread_time() - cpu


def interleaved(cases, repeat=REPEAT):
    """cases: [(library, fn, keys per call)]. Runs them in turn, repeat times over; returns
    {library: (M keys/s by the median wall time, M keys/s by the median CPU time)}."""
    walls = {library: [] for library, _, _ in cases}
    cpus = {library: [] for library, _, _ in cases}
    for _ in range(repeat):
        for library, fn, _ in cases:
            wall, cpu = timed(fn)
            walls[library].append(wall)
            cpus[library].append(cpu)
    return {library: (n / statistics.median(walls[library]) / 1e6, n / max(statistics.median(cpus[library]), 1e-9) / 1e6)
            for library, _, n in cases}


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
    found = peers()
    f = lfbloom.BloomFilter(CAPACITY, RATE)
    filters = {name: make() for name, (make, _, _, _) in found.items()}

    def peer_cases(op, keys):
        cases = []
        for name, (_, add, contains, _) in found.items():
            g, n = filters[name], N if name == "rbloom" else N // 10
            some, call = keys[:n], add if op == "add" else contains
            cases.append((name, lambda g=g, some=some, call=call: [call(g, k) for k in some], n))
        return cases

    rbloom_update = "rbloom" in found
    table = [  # (row, cases)
        ("add str, one by one", [("lfbloom", lambda: [f.add(k) for k in strs], N)] + peer_cases("add", strs)),
        ("contains str, one by one", [("lfbloom", lambda: [k in f for k in strs], N)] + peer_cases("contains", strs)),
        ("add int, one by one", [("lfbloom", lambda: [f.add(k) for k in ints], N)] + peer_cases("add", ints)),
        ("contains int, one by one", [("lfbloom", lambda: [k in f for k in ints], N)] + peer_cases("contains", ints)),
        ("add str, batch (list)", [("lfbloom", lambda: f.update(strs), N)] +
         ([("rbloom", lambda: filters["rbloom"].update(strs), N)] if rbloom_update else [])),
        ("contains str, batch (list)", [("lfbloom", lambda: f.contains_many(strs), N)]),
        ("add int, batch (list)", [("lfbloom", lambda: f.update(ints), N)] +
         ([("rbloom", lambda: filters["rbloom"].update(ints), N)] if rbloom_update else [])),
        ("contains int, batch (list)", [("lfbloom", lambda: f.contains_many(ints), N)]),
        ("add int, batch (NumPy)", [("lfbloom", lambda: f.add_many(array), N)] +  # rbloom: its list update
         ([("rbloom", lambda: filters["rbloom"].update(ints), N)] if rbloom_update else [])),
        ("contains int, batch (NumPy)", [("lfbloom", lambda: f.contains_many(array), N)]),
    ]
    if rbloom_update:  # new keys into a fresh filter each time (the filter's creation is timed too)
        import rbloom

        fresh = [("str", strs), ("int", ints)]
        for kind, keys in fresh:
            got = interleaved([("lfbloom", lambda keys=keys: lfbloom.BloomFilter(CAPACITY, RATE).update(keys), N),
                               ("rbloom", lambda keys=keys: rbloom.Bloom(CAPACITY, RATE).update(keys), N)])
            print(f"new keys, fresh filters, add {kind} batch (list): lfbloom {got['lfbloom'][0]:.2f}, rbloom "
                  f"{got['rbloom'][0]:.2f} M keys/s: {got['lfbloom'][0] / got['rbloom'][0]:.2f}x by wall time, "
                  f"{got['lfbloom'][1] / got['rbloom'][1]:.2f}x by CPU time")
    rows, ratios = [], []
    for row, cases in table:
        got = interleaved(cases)
        rows += [(library, row, wall) for library, (wall, _) in got.items()]
        if "rbloom" in got:
            ratios.append((row, got["lfbloom"][0] / got["rbloom"][0], got["lfbloom"][1] / got["rbloom"][1]))
    rows.append(("lfbloom", "bytes per key at 1%", f.info().bytes / CAPACITY))
    rows += [(name, "bytes per key at 1%", found[name][3](filters[name]) / 8 / CAPACITY) for name in found]

    # Batch lookups from 1 and 2 threads on one filter (threads.py: 60 MB, NumPy batches of 10^5).
    one, two, _ = threads.measure(5)
    one = statistics.median(rate for rate, _ in one) / 1e6
    two = statistics.median(rate for rate, _ in two) / 1e6
    rows.append(("lfbloom", "contains int, NumPy batches, 1 thread (60 MB filter, median of 5)", one))
    rows.append(("lfbloom", "contains int, NumPy batches, 2 threads (60 MB filter, median of 5)", two))
    print(f"| library | row | M keys/s, median of {REPEAT} (bytes per key for that row) |\n|---|---|---|")
    for library, row, value in rows:
        print(f"| {library} | {row} | {value:.2f} |")
    print("\n| row | lfbloom / rbloom, wall time | lfbloom / rbloom, CPU time |\n|---|---|---|")
    for row, wall, cpu in ratios:
        print(f"| {row} | {wall:.2f} | {cpu:.2f} |")
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
