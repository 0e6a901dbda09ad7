"""Two threads against one on batch lookups in one large filter (issue 39: >= 1.6x).

    python threads.py [runs]

A filter of 5 * 10^7 keys at 1% (60 MB: larger than this machine's 32 MB L3), NumPy uint64 batches of 10^5 keys, each
thread querying its own keys (half present) for about 0.3 s of batches; the median of several
runs of each, and the machine's load average before and after, since the figure means nothing
when other work holds the cores. CPUs busy (the process's CPU time over wall time) says how many
cores the run had; keys per CPU-second, equal for 1 and 2 threads, says the threads did not wait
for each other (the GIL) while they had them. Not a test: nothing here is checked.
"""
import os
import statistics
import sys
import threading
import time

import numpy as np

import lfbloom

BATCH = 100_000
ROUNDS = 30  # batches per thread per run


def run(f, batches):
    """(keys per second, CPUs busy) of len(batches) threads, each querying its batch ROUNDS times;
    CPUs busy is the process's CPU time over the wall time: 2 when both threads ran throughout."""
    start = threading.Barrier(len(batches) + 1)

    def work(keys):
        start.wait()
        for _ in range(ROUNDS):
            f.contains_many(keys)

    threads = [threading.Thread(target=work, args=(keys,)) for keys in batches]
    for t in threads:
        t.start()
    start.wait()
    began, cpu = time.perf_counter(), time.process_time()
    for t in threads:
        t.join()
    wall = time.perf_counter() - began
    return len(batches) * ROUNDS * BATCH / wall, (time.process_time() - cpu) / wall


def measure(runs):
    """(1-thread runs, 2-thread runs, filter bytes): each run (keys per second, CPUs busy)."""
    rng = np.random.default_rng(39)
    f = lfbloom.BloomFilter(50_000_000, 0.01)
    present = rng.integers(0, 2**63, 5_000_000, dtype=np.uint64)
    f.add_many(present)
    batches = [np.concatenate([present[i * BATCH // 2:(i + 1) * BATCH // 2],
                               rng.integers(0, 2**63, BATCH // 2, dtype=np.uint64)]) for i in range(2)]
    one, two = [], []
    for _ in range(runs):  # interleaved, so a change of load hits both alike
        one.append(run(f, batches[:1]))
        two.append(run(f, batches))
    return one, two, f.info().bytes


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    load_before = os.getloadavg()
    one, two, size = measure(runs)
    load_after = os.getloadavg()
    m1, m2 = statistics.median(r for r, _ in one), statistics.median(r for r, _ in two)
    for name, rows, median in (("1 thread: ", one, m1), ("2 threads:", two, m2)):
        per_cpu = statistics.median(r / c for r, c in rows)  # keys per CPU-second: what the GIL would cut
        print(f"{name} median {median / 1e6:.1f} M keys/s of {[round(r / 1e6, 1) for r, _ in rows]}, "
              f"CPUs busy {[round(c, 2) for _, c in rows]}, {per_cpu / 1e6:.1f} M keys per CPU-second")
    print(f"2 / 1: {m2 / m1:.2f}x; {size / 1e6:.0f} MB filter; load average before "
          f"{load_before[0]:.2f}, after {load_after[0]:.2f}; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
