"""Seed 001's architecture across processes: several service processes answer "who is user N?"
with a Redis cache in front of SQLite, and one Bloom filter shared by all of them in that Redis
(our module's BF.*), under an attack of ids that do not exist.

A lookup asks the cache; on a miss it asks the filter, and only a "maybe" goes to the database
(whose rows are then cached). Half the lookups are real users, half attack ids. The demo prints
database queries made and avoided, the filter's measured false-positive rate against the
configured one, and false negatives, and fails (exit 1) unless: no real user was ever refused,
the rate is within a binomial bound of the configured one, and every count adds up.

Usage: redis_guard.py MODULE [--users N] [--processes P] [--lookups L] [--rate R]
(MODULE: build/lib/lfbloom-redis.so; needs redis-server and redis-py)."""
import argparse
import math
import multiprocessing
import pathlib
import random
import sqlite3
import sys
import tempfile
import time

import redis

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "redis"))
import servers  # noqa: E402

FILTER = "users:filter"


def serve(port, database, users, lookups, seed, out):
    """One service process: `lookups` requests, half real ids, half attack ids (>= users)."""
    cache = redis.Redis(port=port)
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    rng = random.Random(seed)
    counts = dict(cache_hits=0, refused=0, db_queries=0, db_found=0, false_positives=0, false_negatives=0,
                  attack=0, real=0)
    for _ in range(lookups):
        real = rng.random() < 0.5
        uid = rng.randrange(users) if real else users + rng.randrange(10 ** 12)
        counts["real" if real else "attack"] += 1
        key = f"user:{uid}"
        if cache.get(key) is not None:
            counts["cache_hits"] += 1
            continue
        if not cache.execute_command("BF.EXISTS", FILTER, uid):
            counts["refused"] += 1
            counts["false_negatives"] += real  # a real user refused: must never happen
            continue
        counts["db_queries"] += 1
        row = db.execute("SELECT name FROM users WHERE id = ?", (uid,)).fetchone()
        if row is None:
            counts["false_positives"] += 1
        else:
            counts["db_found"] += 1
            cache.set(key, row[0], ex=60)
    out.put(counts)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("module")
    parser.add_argument("--users", type=int, default=200_000)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--lookups", type=int, default=50_000, help="per process")
    parser.add_argument("--rate", type=float, default=0.01)
    a = parser.parse_args()
    module = pathlib.Path(a.module).resolve()
    with tempfile.TemporaryDirectory() as directory, servers.server([(module, [])]) as (port, _):
        database = pathlib.Path(directory) / "users.db"
        db = sqlite3.connect(database)
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        db.executemany("INSERT INTO users VALUES (?, ?)", ((i, f"user {i}") for i in range(a.users)))
        db.commit()

        # warm the shared filter from the database, as a deploy step would
        r = redis.Redis(port=port)
        r.execute_command("BF.RESERVE", FILTER, a.rate, a.users)
        ids = [row[0] for row in db.execute("SELECT id FROM users")]
        pipe = r.pipeline(transaction=False)
        for i in range(0, len(ids), 1000):
            pipe.execute_command("BF.MADD", FILTER, *ids[i:i + 1000])
        pipe.execute()
        db.close()

        results = multiprocessing.Queue()
        start = time.time()
        workers = [multiprocessing.Process(target=serve, args=(port, database, a.users, a.lookups, seed, results))
                   for seed in range(a.processes)]
        for w in workers:
            w.start()
        totals = {}
        for _ in workers:
            for k, v in results.get(timeout=600).items():
                totals[k] = totals.get(k, 0) + v
        for w in workers:
            w.join()
        seconds = time.time() - start
        filters = r.execute_command("BF.INFO", FILTER, "FILTERS")

    t = totals
    lookups = a.processes * a.lookups
    # the filter was asked about every attack id (none can be cached): its FP rate over those
    rate = t["false_positives"] / t["attack"]
    bound = a.rate + 4 * math.sqrt(a.rate * (1 - a.rate) / t["attack"])
    print(f"{a.processes} processes, {lookups} lookups ({t['real']} real users, {t['attack']} attack ids) in {seconds:.1f} s")
    print(f"cache hits {t['cache_hits']}, refused by the filter {t['refused']}, database queries {t['db_queries']} "
          f"({t['db_found']} found, {t['false_positives']} false positives)")
    print(f"database queries avoided: {t['refused']} of {t['attack']} attack lookups "
          f"({100 * t['refused'] / t['attack']:.2f}%); without the filter every one would have reached the database")
    print(f"false-positive rate {rate:.4%} (configured {a.rate:.2%}, bound {bound:.4%}); false negatives {t['false_negatives']}")
    checks = {
        "no real user was refused": t["false_negatives"] == 0,
        "every lookup is counted once": t["cache_hits"] + t["refused"] + t["db_queries"] == lookups,
        "every database query found a user or was a false positive": t["db_found"] + t["false_positives"] == t["db_queries"],
        "every refusal was an attack id": t["refused"] + t["false_positives"] == t["attack"],
        "the false-positive rate is within its bound": rate <= bound,
        "the filter did not grow (the users fit its capacity)": filters in (1, [1], {"Number of filters": 1}, {b"Number of filters": 1}),
    }
    failed = [what for what, ok in checks.items() if not ok]
    for what in failed:
        print("FAILED: " + what)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
