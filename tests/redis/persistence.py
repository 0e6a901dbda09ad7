"""The module's data type: replication, RDB (DEBUG RELOAD), AOF rewrite and replay, COPY, and
refusal of corrupt or oversized values without a crash. Usage: persistence.py MODULE"""
import random
import sys

import redis

import servers

failures = []


def check(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def populate(r):
    """Every way a filter comes to exist, with items present in all of them."""
    r.execute_command("BF.RESERVE reserved 0.001 1000 EXPANSION 3")
    r.execute_command("BF.RESERVE fixed 0.1 4 NONSCALING")
    r.execute_command("BF.ADD auto x")
    r.execute_command("BF.INSERT inserted CAPACITY 10 ERROR 0.05 ITEMS " + " ".join(f"i{n}" for n in range(100)))
    r.execute_command("BF.MADD fixed a b c d e")  # the fifth is refused: full
    r.execute_command("BF.MADD reserved " + " ".join(f"r{n}" for n in range(3000)))  # grows once
    return ["reserved", "fixed", "auto", "inserted"]


def digests(r, keys):
    return [r.execute_command("DEBUG", "DIGEST-VALUE", k)[0] for k in keys]


def members(r):
    return (r.execute_command("BF.MEXISTS reserved " + " ".join(f"r{n}" for n in range(3000))),
            r.execute_command("BF.MEXISTS inserted " + " ".join(f"i{n}" for n in range(100))))


def main():
    module = sys.argv[1]
    with servers.server([(module, [])]) as (port, _):
        r = redis.Redis(port=port)
        keys = populate(r)
        before = digests(r, keys)
        present = members(r)
        check("every added item is present", all(present[0]) and all(present[1]))
        check("digests differ between different filters", len(set(before)) == len(before))

        r.execute_command("COPY reserved copied")
        check("COPY gives an equal digest", digests(r, ["copied"]) == digests(r, ["reserved"]))
        r.execute_command("BF.ADD copied new-only-in-copy")
        check("a copy is independent", not r.execute_command("BF.EXISTS reserved new-only-in-copy"))

        r.execute_command("DEBUG RELOAD")
        check("DEBUG RELOAD (RDB save and load) keeps every digest", digests(r, keys) == before)
        check("... and every item", members(r) == present)
        info = r.execute_command("BF.INFO reserved")  # redis-py makes it a dict
        filters, items = info[b"Number of filters"], info[b"Number of items inserted"]
        # 1000 + 3000 capacity: two sub-filters; an item a sub-filter already answers (a false
        # positive at 0.001) is not counted
        check(f"... and the chain ({filters} sub-filters, {items} items)", filters == 2 and 2990 <= items <= 3000)

        # Replication: a replica of this primary converges to equal digests.
        with servers.server([(module, [])], extra=["--replicaof", "127.0.0.1", str(port)]) as (rport, _):
            replica = redis.Redis(port=rport)
            r.execute_command("BF.ADD auto after-sync")
            r.execute_command("WAIT", 1, 5000)
            check("the replica's digests equal the primary's",
                  digests(replica, keys) == digests(r, keys))
            check("the replica has the add made after the sync", replica.execute_command("BF.EXISTS auto after-sync") == 1)

        # Corrupt values are refused, nothing is created, and the server keeps serving.
        blob = r.execute_command("DUMP", "inserted")
        good = bytes(blob)
        rng = random.Random(7)
        refused = 0
        trials = 0
        for cut in sorted(rng.sample(range(1, len(good)), 40)):
            trials += 1
            try:
                r.execute_command("RESTORE", f"cut{cut}", 0, good[:cut])
            except redis.ResponseError:
                refused += 1
        check(f"truncated DUMP payloads are refused ({refused} of {trials})", refused == trials)
        # our own serialized form, through LFBF.RESTORE: random bytes of random lengths
        refused = trials = 0
        source = digests(r, ["inserted"])[0]
        for n in range(60):
            trials += 1
            try:
                r.execute_command("LFBF.RESTORE", f"bad{n}", bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200))))
            except redis.ResponseError:
                refused += 1
        check(f"random LFBF.RESTORE payloads are refused ({refused} of {trials})", refused == trials)
        check("the server still answers", r.ping() and digests(r, ["inserted"])[0] == source)

        try:
            r.execute_command("BF.RESERVE huge 0.01 1000000000000000000")
            check("an absurd BF.RESERVE is refused", False)
        except redis.ResponseError as e:
            check(f"an absurd BF.RESERVE is refused before allocating ({e})", not r.exists("huge"))

    # AOF: rewrite (no RDB preamble), restart, replay.
    with servers.server([(module, [])], extra=["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]) as (port, directory):
        r = redis.Redis(port=port)
        keys = populate(r)
        before = digests(r, keys)
        r.execute_command("BGREWRITEAOF")
        for _ in range(100):
            if r.info("persistence")["aof_rewrite_in_progress"] == 0 and r.info("persistence")["aof_rewrite_scheduled"] == 0:
                break
            servers.time.sleep(0.05)
        r.execute_command("BF.ADD auto after-rewrite")
        before = digests(r, keys)
        r.execute_command("DEBUG LOADAOF")
        check("AOF rewrite and replay keep every digest", digests(r, keys) == before)

    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
