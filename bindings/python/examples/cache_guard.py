"""The cache-penetration guard: a filter of every user id stands before the database, so lookups of
ids that do not exist (an attack, a bug) are answered without a query. A thread pool serves the
lookups; the filter is saved at shutdown and loaded at the next start instead of being rebuilt.

    python cache_guard.py [--users N] [--lookups N] [--dir DIR]

Prints what it measured, and exits non-zero if a real user was ever refused (a false negative).
"""
import argparse
import os
import random
import sqlite3
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

import lfbloom


def open_database(path, users):
    db = sqlite3.connect(path)
    if db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'users'").fetchone()[0] == 0:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
        db.executemany("INSERT INTO users VALUES (?, ?)", ((i, f"user {i}") for i in range(users)))
        db.commit()
    db.close()


def start(db_path, filter_path, users):
    """The filter from its last save, or built from the database (the first start)."""
    if os.path.exists(filter_path):
        return lfbloom.BloomFilter.load(filter_path), "loaded"
    guard = lfbloom.BloomFilter(users, 0.01)
    db = sqlite3.connect(db_path)
    guard.add_many(row[0] for row in db.execute("SELECT id FROM users"))
    db.close()
    return guard, "built"


def serve(db_path, guard, users, lookups, seed):
    """Half real ids, half ids that do not exist, from 4 threads; counts what reached the database."""
    rng = random.Random(seed)
    ids = [rng.randrange(users) if i % 2 else users + rng.randrange(users) for i in range(lookups)]
    counts = {"queries": 0, "found": 0, "false_negatives": 0}
    lock, local = threading.Lock(), threading.local()

    def lookup(user_id):
        if user_id not in guard:
            if user_id < users:
                with lock:
                    counts["false_negatives"] += 1
            return
        if not hasattr(local, "db"):
            local.db = sqlite3.connect(db_path)
        found = local.db.execute("SELECT name FROM users WHERE id = ?", (user_id,)).fetchone() is not None
        with lock:
            counts["queries"] += 1
            counts["found"] += found

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(lookup, ids, chunksize=256))
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--lookups", type=int, default=100_000)
    parser.add_argument("--dir", default=None, help="where the database and the filter live (default: a new temporary one)")
    args = parser.parse_args()
    directory = args.dir or tempfile.mkdtemp(prefix="lfbloom-guard-")
    db_path, filter_path = os.path.join(directory, "users.db"), os.path.join(directory, "users.lfb")
    open_database(db_path, args.users)
    failed = False
    for run in (1, 2):  # a restart between the two: the second start loads what the first saved
        guard, how = start(db_path, filter_path, args.users)
        with guard:
            counts = serve(db_path, guard, args.users, args.lookups, seed=run)
            guard.save(filter_path)
        absent = args.lookups // 2
        avoided = args.lookups - counts["queries"]
        rate = (counts["queries"] - counts["found"]) / absent
        print(f"start {run} ({how}): {args.lookups} lookups, {counts['queries']} database queries, "
              f"{avoided} avoided, false-positive rate {rate:.4f}, false negatives {counts['false_negatives']}")
        failed |= counts["false_negatives"] > 0
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
