"""BF.* reply for reply against RedisBloom 2.8.2: one command script runs on a server with
RedisBloom and on one with our module, in RESP2 and in RESP3; every reply must be equal except
the documented differences (DIFFERENCES). Usage: differential.py MODULE CACHE_DIR"""
import sys

import redis

import servers

# Documented differences (README, Redis module): BF.INFO's Size is our memory, not RedisBloom's.
SIZE_FIELDS = {"Size", b"Size"}

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


def round_trip(port, protocol):
    """Each key of the script dumped with BF.SCANDUMP and loaded into a new key with
    BF.LOADCHUNK, the way RedisBloom's documentation does it; returns what the copies answer."""
    client = redis.Redis(port=port, protocol=protocol)
    answers = []
    probes = "a b c d e f x y z k l nope".split()
    for key in ("a", "c", "e", "h", "i", "k", "l", "o3", "auto2"):
        chunks, cursor = [], 0
        while True:
            cursor, data = client.execute_command("BF.SCANDUMP", key, cursor)
            if cursor == 0:
                break
            chunks.append((cursor, data))
        for cursor, data in chunks:
            client.execute_command("BF.LOADCHUNK", "copy-" + key, cursor, data)
        answers.append((key, client.execute_command("BF.MEXISTS", "copy-" + key, *probes),
                        client.execute_command("BF.MEXISTS", key, *probes),
                        without_size("BF.INFO", client.execute_command("BF.INFO", "copy-" + key)),
                        without_size("BF.INFO", client.execute_command("BF.INFO", key))))
    return answers


def without_size(cmd, reply):
    """Replaces BF.INFO's Size value by a marker (a documented difference)."""
    words = cmd.split()
    if words[0] != "BF.INFO" or isinstance(reply, tuple):
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
    total = 2 * (len(SCRIPT) + 9)
    print(f"{total - failures} of {total} replies and round trips equal")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
