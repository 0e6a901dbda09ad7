"""The module's data type: replication, RDB (DEBUG RELOAD), AOF rewrite and replay, COPY, and
refusal of corrupt or oversized values without a crash. Usage: persistence.py MODULE"""
import random
import sys

import redis

import checks
import servers
from checks import check, digest, refused, scandump

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
    return [digest(r, k) for k in keys]


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
        # Keys created after the sync reach it as commands (an explicit BF.RESERVE, then BF.MADD):
        # the replica's other defaults must not change what it builds.
        # A BF.LOADCHUNK load that the sync cuts into goes on on both, and a failed one leaves neither.
        pieces = scandump(r, "reserved")
        for cursor, data in pieces[:2]:
            r.execute_command("BF.LOADCHUNK", "loading", cursor, data)
        other_defaults = ["ERROR_RATE", "0.2", "INITIAL_SIZE", "7", "EXPANSION", "5"]
        with servers.server([(module, other_defaults)], extra=["--replicaof", "127.0.0.1", str(port)]) as (rport, _):
            replica = redis.Redis(port=rport)
            for _ in range(100):
                if replica.info("replication")["master_link_status"] == "up":
                    break
                servers.time.sleep(0.05)
            r.execute_command("BF.ADD auto after-sync")
            r.execute_command("BF.ADD new-auto x")
            r.execute_command("BF.INSERT new-inserted CAPACITY 7 ERROR 0.02 EXPANSION 5 ITEMS " + " ".join(f"n{n}" for n in range(200)))
            r.execute_command("BF.INSERT new-fixed NONSCALING CAPACITY 3 ERROR 0.3 ITEMS a b c d e")
            r.execute_command("BF.RESERVE new-reserved 0.0001 50 EXPANSION 1")
            r.execute_command("BF.MADD new-reserved " + " ".join(f"m{n}" for n in range(300)))
            for cursor, data in pieces[2:]:
                r.execute_command("BF.LOADCHUNK", "loading", cursor, data)
            for cursor, data in pieces[:2]:
                r.execute_command("BF.LOADCHUNK", "failing", cursor, data)
            cursor, data = pieces[2]  # the first part's trailer, a flipped bit in it
            check("a corrupt piece fails its load", refused(r, "BF.LOADCHUNK", "failing", cursor, bytes([data[0] ^ 1]) + data[1:])
                  and not r.exists("failing"))
            after = keys + ["new-auto", "new-inserted", "new-fixed", "new-reserved", "loading"]
            check("WAIT: the replica acknowledged", r.execute_command("WAIT", 1, 5000) == 1)
            check("a load the sync cut into finished equal on both", digests(replica, ["loading"]) == digests(r, ["reserved"]))
            check("... and the failed load's key is on neither", not replica.exists("failing"))
            check("the replica's digests equal the primary's, keys created after the sync included",
                  digests(replica, after) == digests(r, after))
            check("the replica has the add made after the sync", replica.execute_command("BF.EXISTS auto after-sync") == 1)

        rng = random.Random(7)
        # BF.SCANDUMP / BF.LOADCHUNK: a filter of 18 MB comes in more than one chunk (16 MiB each)
        # and loads back equal; a corrupt header creates nothing, a misplaced chunk is refused, and
        # a corrupt chunk of words fails the load by its part's checksum and deletes the key.
        r.execute_command("BF.RESERVE dumped 0.001 10000000")
        r.execute_command("BF.MADD dumped " + " ".join(f"d{n}" for n in range(1000)))
        chunks = scandump(r, "dumped")
        big_header = chunks[0]
        for cursor, data in chunks:
            r.execute_command("BF.LOADCHUNK", "undumped", cursor, data)
        check(f"SCANDUMP and LOADCHUNK keep the digest ({len(chunks)} chunks)",
              len(chunks) > 3 and digests(r, ["undumped"]) == digests(r, ["dumped"]))
        chunks = scandump(r, "reserved")
        checks.corrupt_pieces(r, "BF", chunks, rng)
        r.execute_command("BF.LOADCHUNK", "reloaded", *chunks[0])
        check("a chunk at another cursor is refused",
              all(refused(r, "BF.LOADCHUNK", "reloaded", cursor + shift, data)
                  for cursor, data in chunks[1:] for shift in (-8, -1, 1, 8)))
        for cursor, data in chunks[1:]:
            r.execute_command("BF.LOADCHUNK", "reloaded", cursor, data)
        check(f"... and the good chunks then load equal ({len(chunks)} chunks)", digests(r, ["reloaded"]) == digests(r, ["reserved"]))
        # a load goes on across DEBUG RELOAD (RDB) and in a COPY: the key keeps its load's state
        for cursor, data in chunks[:2]:
            r.execute_command("BF.LOADCHUNK", "halfway", cursor, data)
        r.execute_command("DEBUG RELOAD")
        r.execute_command("COPY", "halfway", "halfway-copy")
        check("a half-loaded key refuses LFBF.MERGE as a source", refused(r, "LFBF.MERGE", "reloaded", "halfway"))
        for key in ("halfway", "halfway-copy"):
            for cursor, data in chunks[2:]:
                r.execute_command("BF.LOADCHUNK", key, cursor, data)
        check("a load goes on after DEBUG RELOAD, and in a COPY",
              digests(r, ["halfway", "halfway-copy"]) == digests(r, ["reserved"]) * 2)

        # Corrupt values are refused, nothing is created, and the server keeps serving.
        # Redis checks a DUMP payload's CRC before the module sees it: skip that, so truncated
        # values reach rdb_load (a short read) and our own checks.
        r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", 1)
        blob = r.execute_command("DUMP", "inserted")
        good = bytes(blob)
        cuts = sorted(rng.sample(range(1, len(good)), 40))
        n = sum(refused(r, "RESTORE", f"cut{cut}", 0, good[:cut]) for cut in cuts)
        check(f"truncated DUMP payloads are refused ({n} of {len(cuts)})", n == len(cuts))
        # our own serialized form, through LFBF.RESTORE: random bytes of random lengths
        source = digests(r, ["inserted"])[0]
        blobs = [bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200))) for _ in range(60)]
        n = sum(refused(r, "LFBF.RESTORE", f"bad{i}", blob) for i, blob in enumerate(blobs))
        check(f"random LFBF.RESTORE payloads are refused ({n} of {len(blobs)})", n == len(blobs))
        check("the server still answers", r.ping() and digests(r, ["inserted"])[0] == source)

        try:
            r.execute_command("BF.RESERVE huge 0.01 1000000000000000000")
            check("an absurd BF.RESERVE is refused", False)
        except redis.ResponseError as e:
            check(f"an absurd BF.RESERVE is refused before allocating ({e})", not r.exists("huge"))
        # a rate near 1 with a large capacity: sizing once walked ~10^8 keys per block here
        quick = redis.Redis(port=port, socket_timeout=20)
        check("BF.RESERVE at a rate near 1 answers at once",
              quick.execute_command("BF.RESERVE near-one 0.999999 100000000") == b"OK")

    # MAX_BYTES: one key's memory, refused before allocating, growth included.
    with servers.server([(module, ["MAX_BYTES", str(1 << 20)])]) as (port, _):
        r = redis.Redis(port=port)
        try:
            r.execute_command("BF.RESERVE big 0.01 10000000")  # about 12 MB
            check("a key over MAX_BYTES is refused", False)
        except redis.ResponseError as e:
            check(f"a key over MAX_BYTES is refused ({e})", not r.exists("big"))
        # sub-filters of 100,000 and 400,000 items (about 0.7 MB together); the third would exceed 1 MiB
        r.execute_command("BF.RESERVE grows 0.01 100000 EXPANSION 4")
        stop = None
        for n in range(60):
            reply = r.execute_command("BF.MADD grows " + " ".join(f"g{n}-{i}" for i in range(10000)))
            if isinstance(reply[-1], Exception):
                stop = reply[-1]
                break
        check(f"growth past MAX_BYTES is refused ({stop})", stop is not None)
        check("... and the key keeps working", r.execute_command("BF.EXISTS grows g0-0") == 1)
        check("a LOADCHUNK header over MAX_BYTES is refused",
              refused(r, "BF.LOADCHUNK", "big", *big_header) and not r.exists("big"))

    # AOF: rewrite (no RDB preamble), replay.
    checks.aof_replay(module, populate, lambda r: r.execute_command("BF.ADD auto after-rewrite"))

    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
