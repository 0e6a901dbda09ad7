"""Batch adds against rbloom's `update`, new keys into fresh filters and keys already present,
ns a key by the thread's CPU time (medians of 9, the two libraries interleaved in one process).
Not a test. Run it with two installed wheels in turn to compare two versions of lfbloom:

    venv-old/bin/python fresh.py; venv-new/bin/python fresh.py
"""
import statistics
import time

import lfbloom
import rbloom

N, CAPACITY, RATE, REPEAT = 200_000, 1_000_000, 0.01, 9


def run(cases):
    times = {name: [] for name, _ in cases}
    for _ in range(REPEAT):
        for name, fn in cases:
            start = time.thread_time()
            fn()
            times[name].append(time.thread_time() - start)
    return {name: statistics.median(t) / N * 1e9 for name, t in times.items()}


def main():
    print(f"lfbloom {lfbloom.__version__}, rbloom; {N} keys, capacity {CAPACITY}, rate {RATE}")
    for kind, keys in (("str", [f"user:{i}" for i in range(N)]), ("int", list(range(N)))):
        got = run([("lfbloom", lambda: lfbloom.BloomFilter(CAPACITY, RATE).update(keys)),
                   ("rbloom", lambda: rbloom.Bloom(CAPACITY, RATE).update(keys))])
        print(f"new {kind} keys, fresh filters: lfbloom {got['lfbloom']:.1f} ns, rbloom {got['rbloom']:.1f} ns, "
              f"lfbloom's speed / rbloom's {got['rbloom'] / got['lfbloom']:.2f}")
        ours, theirs = lfbloom.BloomFilter(CAPACITY, RATE), rbloom.Bloom(CAPACITY, RATE)
        got = run([("lfbloom", lambda: ours.update(keys)), ("rbloom", lambda: theirs.update(keys))])
        print(f"{kind} keys already present: lfbloom {got['lfbloom']:.1f} ns, rbloom {got['rbloom']:.1f} ns, "
              f"lfbloom's speed / rbloom's {got['rbloom'] / got['lfbloom']:.2f}")


if __name__ == "__main__":
    main()
