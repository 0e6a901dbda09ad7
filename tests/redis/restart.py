"""Real restarts (a new server process on the same directory, not DEBUG RELOAD): from the RDB
(SHUTDOWN SAVE), from an AOF of commands (no RDB preamble), and from a rewritten AOF (LFBF.RESTORE
payloads, then commands; with and without an RDB preamble). Every filter keeps its digest, its
BF.INFO and its answers, present and absent items alike; CBF and RBF keys keep their digests and
counts, and so do CF keys (digests and CF.INFO). Usage: restart.py MODULE"""
import pathlib
import sys
import tempfile
import time

import redis

import checks
import servers
from checks import ask, check

BINARY_KEY = b"bin\x00key\r\n\xff"  # a key name that needs the AOF's and RDB's length prefixes
items = {  # every key and the items added to it (a refused add is not listed)
    "reserved": [f"r{n}" for n in range(3000)],
    "fixed": list("abcd"),
    "auto": ["x"],
    "auto-madd": [f"m{n}" for n in range(150)],
    "auto-insert": [f"a{n}" for n in range(50)],
    "inserted": [f"i{n}" for n in range(100)],
    "inserted-fixed": list("abc"),
    "chain": [f"c{n}" for n in range(2000)],
    "empty": [],
    BINARY_KEY: [b"\x00", b"\xff\xfe", b"\r\n*1\r\n$4\r\n"],
}
# The module's other types (CBF.*, RBF.*): their digests and counts must survive restarts too
OTHERS = {"counted": "CBF.CARD", "counted8": "CBF.CARD", "counted-auto": "CBF.CARD", "window": "RBF.INFO",
          "timed": "RBF.INFO", "cuckoo": "CF.INFO", "cuckoo-auto": "CF.INFO", "cuckoo-fixed": "CF.INFO"}
absent = [f"absent{n}" for n in range(3000)]  # never added: their answers (false positives included) must not change


def populate(r):
    """Every way a filter comes to exist. The refused adds: a full NONSCALING filter's."""
    r.execute_command("BF.RESERVE reserved 0.001 1000 EXPANSION 3")
    r.execute_command("BF.MADD reserved", *items["reserved"])  # grows once
    r.execute_command("BF.RESERVE fixed 0.1 4 NONSCALING")
    full = r.execute_command("BF.MADD fixed a b c d e")
    check("a NONSCALING filter fills up (the fifth add is refused)",
          full[:4] == [1, 1, 1, 1] and isinstance(full[4], redis.ResponseError))
    r.execute_command("BF.ADD auto x")
    r.execute_command("BF.MADD auto-madd", *items["auto-madd"])
    r.execute_command("BF.INSERT auto-insert ITEMS", *items["auto-insert"])
    r.execute_command("BF.INSERT inserted CAPACITY 10 ERROR 0.05 EXPANSION 4 ITEMS", *items["inserted"])
    full = r.execute_command("BF.INSERT inserted-fixed NONSCALING CAPACITY 3 ERROR 0.3 ITEMS a b c d")
    check("a NONSCALING BF.INSERT fills up", isinstance(full[-1], redis.ResponseError))
    r.execute_command("BF.RESERVE chain 0.01 50 EXPANSION 2")
    for n in range(0, 2000, 100):  # in steps, as a chain grows in real use
        r.execute_command("BF.MADD chain", *items["chain"][n:n + 100])
    r.execute_command("BF.RESERVE empty 0.02 500")
    r.execute_command("BF.MADD", BINARY_KEY, *items[BINARY_KEY])
    for line in ("CBF.RESERVE counted 0.01 1000", "CBF.MADD counted a b c a", "CBF.DEL counted b",
                 "CBF.RESERVE counted8 0.05 100 COUNTER 8", "CBF.MADD counted8 x x y", "CBF.ADD counted-auto x",
                 "RBF.RESERVE window 0.01 100 0 GENERATIONS 3", "RBF.MADD window a b", "RBF.ROTATE window",
                 "RBF.ADD window c", "RBF.RESERVE timed 0.01 100 3600000", "RBF.MADD timed a b",
                 "CF.RESERVE cuckoo 100 EXPANSION 2", "CF.INSERT cuckoo ITEMS " + " ".join(f"k{n}" for n in range(400)),
                 "CF.DEL cuckoo k7", "CF.ADD cuckoo k8", "CF.ADDNX cuckoo-auto x",
                 "CF.RESERVE cuckoo-fixed 20 BUCKETSIZE 4 MAXITERATIONS 9 EXPANSION 0",
                 "CF.INSERT cuckoo-fixed ITEMS " + " ".join(f"f{n}" for n in range(100))):
        r.execute_command(*line.split())


def state(r):
    """What a restart must keep: per key its digest, BF.INFO, BF.CARD, type, and its answers for
    its items and for the absent ones; and the whole dataset's digest."""
    keys = {}
    for key, added in items.items():
        keys[key] = (r.execute_command("DEBUG", "DIGEST-VALUE", key)[0],
                     ask(r, "BF.INFO", key),
                     ask(r, "BF.CARD", key),
                     r.type(key),
                     ask(r, "BF.MEXISTS", key, *added) if added else [],
                     ask(r, "BF.MEXISTS", key, *absent))
    others = {key: (r.execute_command("DEBUG", "DIGEST-VALUE", key)[0], ask(r, count, key)) for key, count in OTHERS.items()}
    return {"keys": keys, "others": others, "dbsize": r.dbsize(), "digest": r.execute_command("DEBUG DIGEST")}


def compare(what, before, after):
    """One check per aspect, naming the keys that differ."""
    check(f"{what}: the same keys ({after['dbsize']})", after["dbsize"] == before["dbsize"] == len(items) + len(OTHERS))
    check(f"{what}: the CBF and RBF keys' digests and counts are unchanged", after["others"] == before["others"])
    for i, aspect in enumerate(("digest", "BF.INFO", "BF.CARD", "type", "answers for added items",
                                "answers for absent items")):
        differ = [k for k in items if k not in after["keys"] or after["keys"][k][i] != before["keys"][k][i]]
        check(f"{what}: every key's {aspect} is unchanged" + (f" (differ: {differ})" if differ else ""), not differ)
    check(f"{what}: DEBUG DIGEST of the whole dataset is unchanged", after["digest"] == before["digest"])


def fields(info):
    """BF.INFO as a dict (RESP2 gives a flat list); {} for an error."""
    if isinstance(info, list):
        return dict(zip(info[::2], info[1::2]))
    return info if isinstance(info, dict) else {}


def sound(what, s):
    """No false negatives; the filters are what populate made."""
    keys = s["keys"]
    check(f"{what}: every added item is present", all(all(v == 1 for v in keys[k][4]) for k in items))
    filters = {k: fields(keys[k][1]).get(b"Number of filters") for k in items}
    check(f"{what}: the chains have their sub-filters ({filters})",
          filters["reserved"] == 2 and filters["chain"] >= 5 and filters["empty"] == 1 and filters["fixed"] == 1)
    check(f"{what}: the empty filter is empty and the full ones full",
          keys["empty"][2] == 0 and keys["fixed"][2] == 4 and keys["inserted-fixed"][2] == 3)
    check(f"{what}: the digests differ between filters", len({v[0] for v in keys.values()}) == len(keys))


def usable(r, what):
    """After a restart the filters take adds: a scaling one grows, a full one still refuses."""
    r.execute_command("BF.MADD chain", *[f"late{n}" for n in range(500)])
    r.execute_command("BF.ADD empty now-not-empty")
    r.execute_command("BF.ADD auto y")
    try:
        r.execute_command("BF.ADD fixed z")
        full = False
    except redis.ResponseError as e:
        full = "full" in str(e)
    check(f"{what}: the filters take adds, a full one still refuses",
          full and r.execute_command("BF.EXISTS empty now-not-empty") == 1
          and all(r.execute_command("BF.MEXISTS chain", *[f"late{n}" for n in range(500)])))
    items["chain"] += [f"late{n}" for n in range(500)]
    items["empty"] += ["now-not-empty"]
    items["auto"] += ["y"]


def wait_rewrite(r):
    for _ in range(400):
        p = r.info("persistence")
        if p["aof_rewrite_in_progress"] == 0 and p["aof_rewrite_scheduled"] == 0:
            return p["aof_last_bgrewrite_status"] == "ok"
        time.sleep(0.05)
    return False


def aof_files(directory, pattern):
    return b"".join(f.read_bytes() for f in sorted(pathlib.Path(directory).rglob(pattern)))


def clean_log(what, directory, starts):
    """The server log: no crash, and a load at each restart."""
    log = (pathlib.Path(directory) / "server.log").read_text(errors="replace")
    bad = [line for line in log.splitlines()
           if any(s in line for s in ("crashed", "Guru Meditation", "ASSERTION", "BUG REPORT", "Bad file format",
                                      "Bad data format", "Short read", "Internal error", "<lfbloom>"))]
    check(f"{what}: the log shows no crash or load error" + (f" ({bad[:3]})" if bad else ""), not bad)
    loads = log.count("DB loaded from disk") + log.count("DB loaded from append only file")
    check(f"{what}: the log shows {starts - 1} loads from disk ({loads})", loads == starts - 1)


def main():
    module = pathlib.Path(sys.argv[1]).resolve()  # the server runs in its directory
    # The restarted servers load with other defaults: a loaded filter keeps its own parameters.
    other_defaults = ["ERROR_RATE", "0.2", "INITIAL_SIZE", "7", "EXPANSION", "5"]
    global items
    original = {k: list(v) for k, v in items.items()}

    # (a) RDB: SHUTDOWN SAVE, a new process on the same directory.
    with tempfile.TemporaryDirectory() as directory:
        with servers.server([(module, [])], directory=directory, save=True) as (port, _):
            r = redis.Redis(port=port)
            populate(r)
            before = state(r)
            sound("before any restart", before)
        check("SHUTDOWN SAVE wrote dump.rdb", (pathlib.Path(directory) / "dump.rdb").is_file())
        with servers.server([(module, other_defaults)], directory=directory, save=True) as (port, _):
            r = redis.Redis(port=port)
            after = state(r)
            compare("restart from RDB", before, after)
            sound("restart from RDB", after)
            usable(r, "restart from RDB")
            before = state(r)
        with servers.server([(module, [])], directory=directory) as (port, _):
            compare("second restart from RDB (after adds)", before, state(redis.Redis(port=port)))
        clean_log("RDB", directory, 3)

    # (b) AOF only: the creating commands are in the AOF as commands; a restart replays them.
    items = {k: list(v) for k, v in original.items()}
    aof = ["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]
    with tempfile.TemporaryDirectory() as directory:
        with servers.server([(module, [])], extra=aof, directory=directory) as (port, _):
            r = redis.Redis(port=port)
            populate(r)
            before = state(r)
            sound("AOF, before any restart", before)
            incr = aof_files(directory, "*.incr.aof")
            check("the AOF holds the creating commands, no LFBF.RESTORE",
                  all(c in incr for c in (b"BF.RESERVE", b"BF.MADD", b"CBF.DEL", b"RBF.ROTATE")) and b"LFBF.RESTORE" not in incr)
        check("no RDB was written (the restart can only replay the AOF)",
              not (pathlib.Path(directory) / "dump.rdb").exists())
        with servers.server([(module, other_defaults)], extra=aof, directory=directory) as (port, _):
            r = redis.Redis(port=port)
            after = state(r)
            compare("restart from an AOF of commands", before, after)
            sound("restart from an AOF of commands", after)

            # BGREWRITEAOF: the base becomes LFBF.RESTORE payloads; adds after it go to a new
            # incr file as commands. A restart replays both.
            r.execute_command("BGREWRITEAOF")
            check("the AOF rewrite finished", wait_rewrite(r))
            base = aof_files(directory, "*.base.aof")
            check(f"the rewritten base holds one LFBF.RESTORE per key ({base.count(b'LFBF.RESTORE')})",
                  base.count(b"LFBF.RESTORE") == len(items) + len(OTHERS) and b"BF.RESERVE" not in base)
            usable(r, "after the AOF rewrite")
            before = state(r)
        with servers.server([(module, [])], extra=aof, directory=directory) as (port, _):
            r = redis.Redis(port=port)
            compare("restart from a rewritten AOF (LFBF.RESTORE, then commands)", before, state(r))

            # The default: a rewrite with an RDB preamble (our rdb_save), then a restart.
            r.config_set("aof-use-rdb-preamble", "yes")
            r.execute_command("BGREWRITEAOF")
            check("the AOF rewrite with an RDB preamble finished", wait_rewrite(r))
            check("the base is an RDB", any(pathlib.Path(directory).rglob("*.base.rdb")))
            r.execute_command("BF.ADD auto after-preamble")
            items["auto"] += ["after-preamble"]
            before = state(r)
        with servers.server([(module, [])], extra=aof, directory=directory) as (port, _):
            compare("restart from an AOF with an RDB preamble", before, state(redis.Redis(port=port)))
        clean_log("AOF", directory, 4)

    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
