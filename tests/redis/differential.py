"""BF.* and CF.* reply for reply against RedisBloom 2.8.2: one command script runs on a server with
RedisBloom and on one with our module, in RESP2 and in RESP3; every reply must be equal except
the documented differences (DIFFERENCES). Usage: differential.py MODULE CACHE_DIR"""
import re
import sys

import redis

import servers

# Documented differences (docs/redis.md): BF.INFO's and CF.INFO's Size is our memory, not
# RedisBloom's; CF.INFO's Number of buckets and CF.DEBUG's buckets are our sub-filter 0's 64-bit
# buckets (five 14-bit fingerprints each), and CF.DEBUG goes on with each sub-filter's facts.
SIZE_FIELDS = {"Size", b"Size", "Number of buckets", b"Number of buckets"}

SCRIPT = [
    # BF.RESERVE: defaults, every option, every error
    "BF.RESERVE a 0.01 100", "BF.RESERVE a 0.01 100", "BF.RESERVE b x 100", "BF.RESERVE b 2 100",
    "BF.RESERVE b 0 100", "BF.RESERVE b nan 100", "BF.RESERVE b 0.01 x", "BF.RESERVE b 0.01 0",
    "BF.RESERVE b 0.01 -5", "BF.RESERVE b 0.01 1e3", "BF.RESERVE b 0.01 10 EXPANSION 0",
    "BF.RESERVE b 0.01 10 EXPANSION x", "BF.RESERVE b 0.01 10 NONSCALING EXPANSION 2",
    "BF.RESERVE b 0.01 10 FOO", "BF.RESERVE b2 0.01", "BF.RESERVE p 0.01 100 NONSCALING NONSCALING",
    "BF.RESERVE p2 0.01 100 EXPANSION 2 EXPANSION 3", "BF.RESERVE l 0.01 100 EXPANSION 1",
    "BF.RESERVE m 1e-9 100", "BF.RESERVE o3 0.01 100 EXPANSION 40000",
    # adds and queries, single and batch, missing keys
    "BF.ADD a x", "BF.ADD a x", "BF.ADD a", "BF.ADD a x y", "BF.MADD a x y", "BF.MADD a",
    "BF.EXISTS a x", "BF.EXISTS a nope", "BF.EXISTS nope x", "BF.EXISTS a",
    "BF.MEXISTS a x z y", "BF.MEXISTS nope a", "BF.MEXISTS a", "BF.CARD a", "BF.CARD nope", "BF.CARD",
    # BF.INFO, whole and by field
    "BF.INFO a", "BF.INFO a CAPACITY", "BF.INFO a capacity", "BF.INFO a SIZE", "BF.INFO a FILTERS",
    "BF.INFO a ITEMS", "BF.INFO a EXPANSION", "BF.INFO a foo", "BF.INFO nope", "BF.INFO",
    "BF.INFO a ITEMS x", "BF.INFO l", "BF.INFO o3",
    # auto-created keys take the defaults
    "BF.ADD auto k", "BF.INFO auto", "BF.MADD auto2 k l k", "BF.INFO auto2",
    # wrong type
    "SET s 1", "BF.ADD s x", "BF.MADD s x", "BF.EXISTS s x", "BF.MEXISTS s x", "BF.INFO s", "BF.CARD s",
    "BF.INSERT s ITEMS x", "BF.RESERVE s 0.01 100",
    # BF.INSERT: options, errors, NOCREATE, stopping at "full"
    "BF.INSERT c ITEMS a b", "BF.INFO c", "BF.INSERT c CAPACITY 5 ITEMS z", "BF.INFO c",
    "BF.INSERT d NOCREATE ITEMS a", "BF.INSERT c NOCREATE ITEMS q", "BF.INSERT e CAPACITY 0 ITEMS a",
    "BF.INSERT e ERROR 0 ITEMS a", "BF.INSERT e ERROR 1 ITEMS a", "BF.INSERT e ERROR x ITEMS a",
    "BF.INSERT e CAPACITY x ITEMS a", "BF.INSERT e EXPANSION x ITEMS a", "BF.INSERT e EXPANSION 0 ITEMS a",
    "BF.INSERT e NONSCALING CAPACITY 2 ITEMS a b c d", "BF.INFO e", "BF.INFO e EXPANSION", "BF.CARD e",
    "BF.INSERT f ITEMS", "BF.INSERT f", "BF.INSERT f FOO ITEMS a", "BF.INSERT f CAPACITY",
    "BF.INSERT q NONSCALING EXPANSION 2 ITEMS a", "BF.INFO q",
    "BF.INSERT k CAPACITY 5 ERROR 0.1 EXPANSION 4 ITEMS z", "BF.INFO k",
    # non-scaling filters at capacity; scaling filters growing
    "BF.RESERVE h 0.1 1 NONSCALING", "BF.ADD h a", "BF.ADD h b", "BF.ADD h a", "BF.MADD h c d",
    "BF.MADD h a c", "BF.CARD h", "BF.RESERVE i 0.01 1 EXPANSION 3", "BF.MADD i a b c d e", "BF.INFO i",
    "BF.MEXISTS i a b c d e f",
    # BF.SCANDUMP / BF.LOADCHUNK errors (the payloads differ: round_trip compares what they carry)
    "BF.SCANDUMP nope 0", "BF.SCANDUMP a", "BF.SCANDUMP a x", "BF.SCANDUMP s 0", "BF.SCANDUMP a 999999",
    "BF.SCANDUMP a -1", "BF.LOADCHUNK nope 2 abc", "BF.LOADCHUNK a 1 abc", "BF.LOADCHUNK a x abc",
    "BF.LOADCHUNK n2 1 abc", "BF.EXISTS n2 abc", "BF.LOADCHUNK a 2 abc", "BF.LOADCHUNK a 0 abc",
    "BF.LOADCHUNK a -5 abc", "BF.LOADCHUNK a", "BF.LOADCHUNK s 1 abc", "BF.LOADCHUNK a 99999 0123456789abcdef",
    # BF.DEBUG: errors, and the reply's shape (its values are our sub-filters' facts: see without_size)
    "BF.DEBUG nope", "BF.DEBUG", "BF.DEBUG s", "BF.DEBUG a", "BF.DEBUG i", "BF.DEBUG h",
    # CF.RESERVE: defaults, every option, every error, in RedisBloom's order of checks
    "CF.RESERVE ca", "CF.RESERVE ca x", "CF.RESERVE ca 0", "CF.RESERVE ca -1", "CF.RESERVE ca 3", "CF.RESERVE ca 4",
    "CF.RESERVE ca 4", "CF.INFO ca", "CF.RESERVE cb 10 BUCKETSIZE 0", "CF.RESERVE cb 10 BUCKETSIZE 256",
    "CF.RESERVE cb 10 BUCKETSIZE x", "CF.RESERVE cb 10 MAXITERATIONS 0", "CF.RESERVE cb 10 MAXITERATIONS 65536",
    "CF.RESERVE cb 10 MAXITERATIONS x", "CF.RESERVE cb 10 EXPANSION -1", "CF.RESERVE cb 10 EXPANSION 32769",
    "CF.RESERVE cb 10 EXPANSION x", "CF.RESERVE cb 10 EXPANSION 1.5", "CF.RESERVE cb 10 MAXITERATIONS 0 BUCKETSIZE 0",
    "CF.RESERVE cb 10 BUCKETSIZE 0 EXPANSION -1", "CF.RESERVE cb x EXPANSION -1", "CF.RESERVE cb 10 EXPANSION",
    "CF.RESERVE cb 10 BUCKETSIZE 100", "CF.RESERVE cb 10 EXPANSION 3", "CF.INFO cb", "CF.RESERVE cc 10 FOO 3",
    "CF.RESERVE cd 1000 BUCKETSIZE 3 MAXITERATIONS 5 EXPANSION 0", "CF.INFO cd", "CF.RESERVE ce 10 expansion 5 EXPANSION 9",
    "CF.INFO ce", "CF.RESERVE cf 10 BUCKETSIZE 3 BUCKETSIZE x", "CF.RESERVE cg 100 EXPANSION 32768", "CF.INFO cg",
    # wrong type
    "CF.RESERVE s 4", "CF.ADD s x", "CF.ADDNX s x", "CF.INSERT s ITEMS x", "CF.INSERTNX s ITEMS x", "CF.EXISTS s x",
    "CF.MEXISTS s x y", "CF.DEL s x", "CF.COUNT s x", "CF.INFO s", "CF.DEBUG s", "CF.SCANDUMP s 0", "CF.LOADCHUNK s 1 abc",
    "CF.INFO a", "CF.ADD a x",
    # adds, duplicates, deletes, counts; auto-created keys take the defaults
    "CF.ADD cn x", "CF.INFO cn", "CF.ADD cn x", "CF.ADDNX cn x", "CF.ADDNX cn y", "CF.COUNT cn x", "CF.COUNT cn y",
    "CF.COUNT cn z", "CF.EXISTS cn x", "CF.EXISTS cn z", "CF.MEXISTS cn x y z", "CF.EXISTS nope x", "CF.MEXISTS nope x y",
    "CF.DEL nope x", "CF.COUNT nope x", "CF.DEL cn x", "CF.COUNT cn x", "CF.DEL cn x", "CF.DEL cn x", "CF.EXISTS cn x",
    "CF.INFO cn", "CF.DEBUG cn", "CF.INFO nope", "CF.DEBUG nope",
    # arity
    "CF.ADD", "CF.ADD k", "CF.ADD k x y", "CF.ADDNX k", "CF.EXISTS k", "CF.EXISTS k x y", "CF.MEXISTS k", "CF.DEL k",
    "CF.COUNT k", "CF.INFO", "CF.INFO cn SIZE", "CF.DEBUG", "CF.SCANDUMP cn", "CF.LOADCHUNK cn 1",
    # CF.INSERT / CF.INSERTNX: options, errors, NOCREATE, items after ITEMS whatever they say
    "CF.INSERT ci", "CF.INSERT ci ITEMS", "CF.INSERT ci x", "CF.INSERT ci ITEMS a b a", "CF.INFO ci",
    "CF.INSERTNX ci ITEMS a c", "CF.INSERTNX ci ITEMS a c d d", "CF.COUNT ci d", "CF.INFO ci",
    "CF.INSERT cj CAPACITY 0 ITEMS a", "CF.INSERT cj CAPACITY x ITEMS a", "CF.INSERT cj CAPACITY -3 ITEMS a",
    "CF.INSERT cj CAPACITY 3 ITEMS a", "CF.INSERT cj CAPACITY ITEMS a", "CF.INSERT cj CAPACITY", "CF.INFO cj",
    "CF.INSERT ck NOCREATE ITEMS a", "CF.INSERTNX ck NOCREATE ITEMS a", "CF.INSERT ck FOO ITEMS a",
    "CF.INSERT ck NOCREATE CAPACITY 10", "CF.INSERT ck ITEMS a NOCREATE CAPACITY", "CF.INFO ck",
    "CF.INSERT cl CAPACITY 10 CAPACITY 20 ITEMS a", "CF.INFO cl", "CF.INSERTNX cm CAPACITY 50 nocreate ITEMS a",
    "CF.INSERTNX cm2 capacity 50 items a b a", "CF.INFO cm2", "CF.INSERT ci NOCREATE ITEMS e",
    # scaling filters growing, a non-scaling one within its capacity
    "CF.RESERVE cs 100 EXPANSION 1", "CF.INSERT cs ITEMS " + " ".join(f"s{n}" for n in range(40)), "CF.INFO cs",
    "CF.MEXISTS cs " + " ".join(f"s{n}" for n in range(0, 40, 3)), "CF.RESERVE cx 4 EXPANSION 0", "CF.INSERT cx ITEMS x y z",
    "CF.INSERTNX cx ITEMS x y z", "CF.ADDNX cx x", "CF.INFO cx", "CF.DEL cx y", "CF.MEXISTS cx x y z",
    # CF.SCANDUMP / CF.LOADCHUNK errors (the payloads differ: round_trip compares what they carry)
    "CF.SCANDUMP nope 0", "CF.SCANDUMP cn x", "CF.SCANDUMP cn -1", "CF.SCANDUMP ci 99999",
    "CF.LOADCHUNK cn", "CF.LOADCHUNK nope -5 abc", "CF.LOADCHUNK nope 0 abc", "CF.LOADCHUNK nope x abc",
    "CF.LOADCHUNK nope 1 abc", "CF.LOADCHUNK nope 2 abc", "CF.LOADCHUNK cn 1 abc", "CF.LOADCHUNK cn 0 abc",
    "CF.LOADCHUNK cn -5 abc", "CF.EXISTS cn y",
]


def plain(reply):
    """Errors inside arrays as comparable values."""
    if isinstance(reply, Exception):
        return ("error", str(reply))
    if isinstance(reply, list):
        return [plain(r) for r in reply]
    return reply


def run(port, protocol):
    client = redis.Redis(port=port, protocol=protocol)
    client.flushall()
    replies = []
    for line in SCRIPT:
        try:
            reply = client.execute_command(*line.split())
        except redis.ResponseError as e:
            reply = ("error", str(e))
        replies.append(plain(reply))
    return replies


def copy_by_dump(client, kind, key):
    """Dumps key with {kind}.SCANDUMP and loads the pieces into copy-key with {kind}.LOADCHUNK,
    the way RedisBloom's documentation does it; returns the copy's name."""
    chunks, cursor = [], 0
    while True:
        cursor, data = client.execute_command(f"{kind}.SCANDUMP", key, cursor)
        if cursor == 0:
            break
        chunks.append((cursor, data))
    for cursor, data in chunks:
        client.execute_command(f"{kind}.LOADCHUNK", "copy-" + key, cursor, data)
    return "copy-" + key


def round_trip(port, protocol):
    """Each BF key of the script copied by copy_by_dump; returns what the copies and the keys answer."""
    client = redis.Redis(port=port, protocol=protocol)
    answers = []
    probes = "a b c d e f x y z k l nope".split()
    for key in ("a", "c", "e", "h", "i", "k", "l", "o3", "auto2"):
        copy = copy_by_dump(client, "BF", key)
        answers.append((key, client.execute_command("BF.MEXISTS", copy, *probes),
                        client.execute_command("BF.MEXISTS", key, *probes),
                        without_size("BF.INFO", client.execute_command("BF.INFO", copy)),
                        without_size("BF.INFO", client.execute_command("BF.INFO", key))))
    return answers


def cf_round_trip(port, protocol):
    """The same for CF keys: what the copies and the keys answer, count and report."""
    client = redis.Redis(port=port, protocol=protocol)
    answers = []
    probes = "a b c d e x y z s0 s3 s39 nope".split()
    for key in ("cn", "ci", "cs", "cx", "cm2"):
        pair = (copy_by_dump(client, "CF", key), key)
        answers.append((key, [client.execute_command("CF.MEXISTS", k, *probes) for k in pair],
                        [[client.execute_command("CF.COUNT", k, p) for p in probes] for k in pair],
                        [without_size("CF.INFO", client.execute_command("CF.INFO", k)) for k in pair]))
    return answers


def without_size(cmd, reply):
    """Replaces BF.INFO's and CF.INFO's Size value (and CF.INFO's Number of buckets) by a marker,
    CF.DEBUG's buckets and what follows RedisBloom's line, and BF.DEBUG's values (documented
    differences: our sub-filters' facts)."""
    words = cmd.split()
    if words[0] == "BF.DEBUG" and isinstance(reply, list):
        return [re.sub(rb":[^ ]+", b":*", line) for line in reply]
    if words[0] == "CF.DEBUG" and isinstance(reply, bytes):
        return re.sub(rb"buckets:\d+", b"buckets:*", reply.split(b" [")[0])
    if words[0] not in ("BF.INFO", "CF.INFO") or isinstance(reply, tuple):
        return reply
    if isinstance(reply, dict):
        return {k: ("size" if k in SIZE_FIELDS else v) for k, v in reply.items()}
    if len(words) == 3 and words[2].upper() == "SIZE":
        return "size"
    if isinstance(reply, list):
        return [("size" if i > 0 and reply[i - 1] in SIZE_FIELDS else v) for i, v in enumerate(reply)]
    return reply


def main():
    module, cache = sys.argv[1], sys.argv[2]
    oracle = servers.redisbloom(cache)
    failures = 0
    with servers.server([(oracle, [])], binary="redis-server") as (theirs, _), servers.server([(module, [])]) as (ours, _):
        for protocol in (2, 3):
            expected, got = run(theirs, protocol), run(ours, protocol)
            for cmd, e, g in zip(SCRIPT, expected, got):
                if without_size(cmd, e) != without_size(cmd, g):
                    failures += 1
                    print(f"RESP{protocol} {cmd!r}: RedisBloom {e!r}, ours {g!r}")
            expected, got = round_trip(theirs, protocol), round_trip(ours, protocol)
            for e, g in zip(expected, got):
                if e != g or g[1] != g[2] or g[3] != g[4]:
                    failures += 1
                    print(f"RESP{protocol} SCANDUMP/LOADCHUNK of {g[0]}: RedisBloom {e!r}, ours {g!r}")
            expected, got = cf_round_trip(theirs, protocol), cf_round_trip(ours, protocol)
            for e, g in zip(expected, got):
                if e != g or any(pair[0] != pair[1] for pair in g[1:]):
                    failures += 1
                    print(f"RESP{protocol} CF.SCANDUMP/CF.LOADCHUNK of {g[0]}: RedisBloom {e!r}, ours {g!r}")
    total = 2 * (len(SCRIPT) + 9 + 5)
    print(f"{total - failures} of {total} replies and round trips equal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
