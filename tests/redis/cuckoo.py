"""CF.* keys beyond the replies (differential.py has those): RDB (DEBUG RELOAD), COPY, digests,
MEMORY USAGE, keyspace events, replication to a replica with other settings, AOF rewrite and
replay, CF.SCANDUMP / CF.LOADCHUNK in several pieces and across a reload, corrupt and truncated
values and pieces refused with the server up, max-bytes, and CF.DEL's hazard measured.
Usage: cuckoo.py MODULE"""
import math
import random
import sys
import time

import redis

import checks
import servers
from checks import check, digest, refused, scandump


def populate(r):
    """Every way a CF key comes to exist: grown, full, duplicated, deleted from, kicked."""
    r.execute_command("CF.RESERVE grown 1000 EXPANSION 2")
    r.execute_command("CF.INSERT grown ITEMS " + " ".join(f"g{n}" for n in range(5000)))  # three sub-filters
    r.execute_command("CF.RESERVE fixed 50 BUCKETSIZE 4 MAXITERATIONS 7 EXPANSION 0")
    r.execute_command("CF.INSERT fixed ITEMS " + " ".join(f"f{n}" for n in range(400)))  # the last ones refused
    r.execute_command("CF.ADD auto x")
    r.execute_command("CF.ADD auto x")
    r.execute_command("CF.INSERTNX inserted CAPACITY 300 ITEMS " + " ".join(f"i{n}" for n in range(280)))  # near full: kicks
    for n in range(0, 280, 7):
        r.execute_command("CF.DEL", "inserted", f"i{n}")
    return ["grown", "fixed", "auto", "inserted"]


def digests(r, keys):
    return [digest(r, k) for k in keys]


def members(r):
    return (r.execute_command("CF.MEXISTS grown " + " ".join(f"g{n}" for n in range(5000))),
            r.execute_command("CF.MEXISTS inserted " + " ".join(f"i{n}" for n in range(280) if n % 7)),
            r.execute_command("CF.COUNT auto x"))


def wait_sync(replica):
    for _ in range(100):
        if replica.info("replication")["master_link_status"] == "up":
            return
        time.sleep(0.05)


def poisson_tail_ok(k, mean, alarm=1e-4):
    """Whether k is inside the two-sided interval a Poisson(mean) count leaves with probability
    at most 2 * alarm (each tail's probability, summed exactly)."""
    below = sum(math.exp(-mean) * mean ** i / math.factorial(i) for i in range(k + 1))
    above = 1 - below + math.exp(-mean) * mean ** k / math.factorial(k)
    return below > alarm and above > alarm


def hazard(r, load):
    """CF.DEL of items never added, on a filter at `load` of its table: how many deletes took
    another item's copy, how many added items then read as absent, the expected hits, and the load
    reached (near 0.95 a table of four-slot buckets may refuse some adds: only stored items count)."""
    key = f"hazard{load}"
    r.execute_command("CF.RESERVE", key, 20000, "EXPANSION", 0)
    line = r.execute_command("CF.DEBUG", key).decode()
    sub = line.split(" [")[1]
    buckets, slots, bits = (int(sub.split(f"{field}:")[1].split()[0].rstrip("]"))
                            for field in ("buckets", "slots_per_bucket", "fingerprint_bits"))
    n = int(round(load * buckets * slots))
    added = []
    for at in range(0, n, 2000):
        batch = [f"member-{load}-{i}" for i in range(at, min(n, at + 2000))]
        added += [item for item, stored in zip(batch, r.execute_command("CF.INSERT", key, "ITEMS", *batch)) if stored == 1]
    deletes = 40000
    pipe = r.pipeline(transaction=False)
    for i in range(deletes):
        pipe.execute_command("CF.DEL", key, f"never-{load}-{i}")
    hits = sum(pipe.execute())
    missing = 0
    for at in range(0, len(added), 2000):
        missing += sum(1 for e in r.execute_command("CF.MEXISTS", key, *added[at:at + 2000]) if not e)
    # an absent item matches a slot of its two buckets with probability 1 / (2^bits - 1) each
    reached = len(added) / (buckets * slots)
    mean = deletes * -math.expm1(2 * slots * reached * math.log1p(-1 / (2 ** bits - 1)))
    return hits, missing, mean, reached


def main():
    module = sys.argv[1]
    rng = random.Random(11)
    print("seed 11")
    with servers.server([(module, [])], extra=["--notify-keyspace-events", "Ed"]) as (port, _):
        r = redis.Redis(port=port)
        events = r.pubsub()
        events.psubscribe("__keyevent@0__:cf.*")
        events.get_message(timeout=1)
        keys = populate(r)
        before = digests(r, keys)
        present = members(r)
        check("every added item is present, duplicates counted", all(present[0]) and all(present[1]) and present[2] == 2)
        check("digests differ between different filters", len(set(before)) == len(before))
        info = r.execute_command("CF.INFO grown")
        check(f"a filter grows by EXPANSION ({info[b'Number of filters']} sub-filters)", info[b"Number of filters"] == 3)
        fixed = r.execute_command("CF.INFO fixed")
        check(f"a non-scaling filter holds its capacity and refuses past it ({fixed[b'Number of items inserted']} items)",
              50 <= fixed[b"Number of items inserted"] < 400 and fixed[b"Number of filters"] == 1)
        usage = r.memory_usage("grown")
        check(f"MEMORY USAGE counts the sub-filters ({usage} bytes)", usage >= info[b"Size"] > 5000 * 13 // 8)
        seen = []
        deadline = time.time() + 5
        while time.time() < deadline and len(seen) < 13:
            m = events.get_message(timeout=0.2)
            if m and m["type"] == "pmessage":
                seen.append((m["channel"].split(b":", 1)[1].decode(), m["data"].decode()))
        check(f"keyspace events: a creation and an add or delete that changed the key ({len(seen)})",
              seen[:6] == [("cf.reserve", "grown"), ("cf.add", "grown"), ("cf.reserve", "fixed"), ("cf.add", "fixed"),
                           ("cf.reserve", "auto"), ("cf.add", "auto")] and ("cf.del", "inserted") in seen)

        infos = [r.execute_command("CF.INFO", k) for k in keys]
        r.execute_command("COPY grown copied")
        check("COPY gives an equal digest", digests(r, ["copied"]) == digests(r, ["grown"]))
        r.execute_command("CF.ADD copied only-in-copy")
        check("a copy is independent", not r.execute_command("CF.EXISTS grown only-in-copy"))
        r.execute_command("DEBUG RELOAD")
        check("DEBUG RELOAD keeps every digest, item and count", digests(r, keys) == before and members(r) == present)
        check("... and every key's CF.INFO", [r.execute_command("CF.INFO", k) for k in keys] == infos)

        # Replication to a replica with another max-bytes (small: it must not refuse what its
        # primary stored), through a sync that cuts into a CF.LOADCHUNK load.
        pieces = scandump(r, "grown", "CF")
        r.execute_command("CF.LOADCHUNK", "loading", *pieces[0])
        with servers.server([(module, ["MAX_BYTES", "4096"])], extra=["--replicaof", "127.0.0.1", str(port)]) as (rport, _):
            replica = redis.Redis(port=rport)
            wait_sync(replica)
            r.execute_command("CF.ADD auto after-sync")
            r.execute_command("CF.INSERT new-grown CAPACITY 100 ITEMS " + " ".join(f"n{n}" for n in range(2000)))
            r.execute_command("CF.INSERTNX new-grown ITEMS " + " ".join(f"n{n}" for n in range(1990, 2010)))
            r.execute_command("CF.RESERVE new-kicked 2000 MAXITERATIONS 3")
            r.execute_command("CF.INSERT new-kicked ITEMS " + " ".join(f"k{n}" for n in range(2000)))  # at 0.94: kicks
            for n in range(0, 2000, 3):
                r.execute_command("CF.DEL", "new-kicked", f"k{n}")
            r.execute_command("CF.INSERT new-kicked ITEMS " + " ".join(f"j{n}" for n in range(700)))
            r.execute_command("CF.INSERT fixed ITEMS more1 more2 more3")
            for piece in pieces[1:]:
                r.execute_command("CF.LOADCHUNK", "loading", *piece)
            after = keys + ["new-grown", "new-kicked", "loading"]
            check("WAIT: the replica acknowledged", r.execute_command("WAIT", 1, 5000) == 1)
            check("the replica's digests equal the primary's (its max-bytes refused nothing the primary stored)",
                  digests(replica, after) == digests(r, after))
            check("... and a load the sync cut into finished equal on both",
                  digests(replica, ["loading"]) == digests(r, ["grown"]))

        # CF.SCANDUMP / CF.LOADCHUNK: 16 MiB pieces, a load across DEBUG RELOAD and in a COPY
        r.execute_command("CF.RESERVE big 11000000")  # about 18.7 MB of buckets: two pieces after the head
        r.execute_command("CF.INSERT big ITEMS " + " ".join(f"b{n}" for n in range(1000)))
        chunks = scandump(r, "big", "CF")
        big_head, small_head = chunks[0], scandump(r, "auto", "CF")[0]
        for cursor, data in chunks[:2]:
            r.execute_command("CF.LOADCHUNK", "halfway", cursor, data)
        r.execute_command("DEBUG RELOAD")
        r.execute_command("COPY", "halfway", "halfway-copy")
        check("a key being loaded refuses adds", refused(r, "CF.ADD", "halfway", "x"))
        for key in ("halfway", "halfway-copy"):
            for cursor, data in chunks[2:]:
                r.execute_command("CF.LOADCHUNK", key, cursor, data)
        check(f"a load in {len(chunks)} pieces goes on after DEBUG RELOAD, and in a COPY",
              len(chunks) >= 3 and digests(r, ["halfway", "halfway-copy"]) == digests(r, ["big"]) * 2)

        chunks = scandump(r, "grown", "CF")
        checks.corrupt_pieces(r, "CF", chunks, rng, per_piece=20)
        r.execute_command("CF.LOADCHUNK", "reloaded", *chunks[0])
        check("a piece at another cursor is refused and deletes the key being loaded",
              refused(r, "CF.LOADCHUNK", "reloaded", chunks[1][0] + 8, chunks[1][1]) and not r.exists("reloaded"))

        # corrupt values: truncated DUMP payloads and random LFBF.RESTORE blobs, refused
        r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", 1)
        good = bytes(r.execute_command("DUMP", "inserted"))
        cuts = sorted(rng.sample(range(1, len(good)), 40))
        n = sum(refused(r, "RESTORE", f"cut{cut}", 0, good[:cut]) for cut in cuts)
        check(f"truncated DUMP payloads are refused ({n} of {len(cuts)})", n == len(cuts))
        blob = b"LFBRCF01" + bytes(rng.getrandbits(8) for _ in range(200))
        blobs = [blob[:rng.randint(0, len(blob))] for _ in range(40)] + [b"LFBRCF0L" + blob[8:]]
        n = sum(refused(r, "LFBF.RESTORE", f"bad{i}", b) for i, b in enumerate(blobs))
        check(f"random LFBF.RESTORE payloads are refused ({n} of {len(blobs)})", n == len(blobs))
        try:
            r.execute_command("CF.RESERVE huge 1000000000000000000")
            check("an absurd CF.RESERVE is refused", False)
        except redis.ResponseError as e:
            check(f"an absurd CF.RESERVE is refused before allocating ({e})", not r.exists("huge"))
        check("the server still answers", r.ping() and digests(r, ["grown"]) == before[:1])

        # CF.DEL's hazard: deleting items never added takes other items' copies. Expected per
        # delete: 1 - (1 - 1/65535)^(8 * load) (16-bit fingerprints, 4 slots a bucket: 0.006% at
        # 0.5, 0.012% at 0.95; RedisBloom's 8-bit fingerprints, 2 slots a bucket: about 4 * load /
        # 255, 0.8% and 1.5%). Deterministic (fixed items, no randomness in the filter); the bound
        # is a Poisson interval of false-alarm rate 2e-4.
        for load in (0.5, 0.95):
            hits, missing, mean, reached = hazard(r, load)
            print(f"load {load} ({reached:.3f} reached): {hits} of 40000 deletes of items never added took another "
                  f"item's copy (expected {mean:.1f}); {missing} added items now read as absent")
            check(f"CF.DEL hazard at load {load}: {hits} hits, within the bound around {mean:.1f}, "
                  f"each a false negative ({missing})", poisson_tail_ok(hits, mean) and missing == hits)

    # max-bytes: a reserve, a growth and a CF.LOADCHUNK head past it are refused before allocating
    with servers.server([(module, ["MAX_BYTES", str(1 << 20)])]) as (port, _):
        r = redis.Redis(port=port)
        try:
            r.execute_command("CF.RESERVE big 2000000")  # about 3.4 MB
            check("a CF key over MAX_BYTES is refused", False)
        except redis.ResponseError as e:
            check(f"a CF key over MAX_BYTES is refused ({e})", not r.exists("big"))
        r.execute_command("CF.RESERVE grows 100000 EXPANSION 4")  # 170 KB, then 680 KB; the third is over
        stop = None
        for n in range(200):
            try:
                r.execute_command("CF.ADD", "grows", f"x{n}")
                r.execute_command("CF.INSERT grows ITEMS " + " ".join(f"g{n}-{i}" for i in range(5000)))
            except redis.ResponseError as e:
                stop = e
                break
        check(f"growth past MAX_BYTES is refused ({stop})", stop is not None and "memory limit" in str(stop))
        check("... and the key keeps working", r.execute_command("CF.EXISTS grows g0-0") == 1)
        check("a CF.LOADCHUNK head within MAX_BYTES loads, one past it is refused",
              r.execute_command("CF.LOADCHUNK", "small", *small_head) == b"OK" and
              refused(r, "CF.LOADCHUNK", "big", *big_head) and not r.exists("big"))

    # AOF: rewrite (LFBF.RESTORE, no RDB preamble) and replay
    checks.aof_replay(module, populate, lambda r: (r.execute_command("CF.ADD auto after-rewrite"),
                                                   r.execute_command("CF.DEL inserted i1")))

    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
