"""The module's types beyond RedisBloom: CBF.* (counting filters with a guarded delete), RBF.*
(time-window filters) and LFBF.MERGE (BF and CBF keys): replies, errors, the rate at capacity,
expiry on time, persistence, replication and AOF replay that never reads the clock.
Usage: extras.py MODULE"""
import math
import sys
import time

import redis

import checks
import servers
from checks import check, digest, error

def upper_bound(p, trials):
    """p plus four standard deviations of a binomial rate: a measured rate above it means the
    filter is worse than configured (a false alarm has probability about 3e-5)."""
    return p + 4 * math.sqrt(p * (1 - p) / trials)


def counting(r):
    check("CBF.RESERVE", r.execute_command("CBF.RESERVE c 0.01 1000") in (b"OK", "OK", True))
    check("... an existing key is refused", error(r, "CBF.RESERVE c 0.01 1000") == "item exists")
    for bad in ("CBF.RESERVE b 0 10", "CBF.RESERVE b 1 10", "CBF.RESERVE b nan 10", "CBF.RESERVE b x 10",
                "CBF.RESERVE b 0.01 0", "CBF.RESERVE b 0.01 -3", "CBF.RESERVE b 0.01 10 COUNTER 5",
                "CBF.RESERVE b 0.01 10 WIDTH 4", "CBF.RESERVE b 0.01 1000000000000000000"):
        check(f"{bad} is refused ({error(r, *bad.split())})", error(r, *bad.split()) is not None and not r.exists("b"))
    run = lambda line: r.execute_command(*line.split())
    check("add, add again, count 2", [run("CBF.ADD c a"), run("CBF.ADD c a"), run("CBF.COUNT c a")] == [1, 0, 2])
    check("delete twice, then the guard refuses",
          [run("CBF.DEL c a"), run("CBF.EXISTS c a"), run("CBF.DEL c a"), run("CBF.EXISTS c a"), run("CBF.DEL c a")] == [1, 1, 1, 0, 0])
    check("CBF.CARD follows adds and deletes", run("CBF.CARD c") == 0 and run("CBF.CARD missing") == 0)
    check("CBF.DEL on a missing key", error(r, "CBF.DEL missing a") == "not found")
    # 4-bit counters saturate at 15: such a key can be removed more often than it was added, and
    # the count of items must not wrap below zero (a value that loads again)
    run("CBF.RESERVE sat 0.01 100")
    r.execute_command("CBF.MADD", "sat", *["x"] * 20)
    removed = sum(run("CBF.DEL sat x") for _ in range(25))
    check(f"saturated counters: {removed} deletes of a key added 20 times answered 1, CBF.CARD {run('CBF.CARD sat')}",
          run("CBF.CARD sat") == 0 and run("CBF.COUNT sat x") == 15)

    # A delete of a key never added is refused and changes nothing unless it is a false positive
    keys = [f"k{i}" for i in range(1000)]
    r.execute_command("CBF.MADD", "c", *keys)
    before = digest(r, "c")
    refused = accepted = 0
    for i in range(5000):
        if r.execute_command("CBF.DEL", "c", f"never{i}"):
            accepted += 1
        else:
            refused += 1
    check(f"deletes of 5000 keys never added: {accepted} accepted (false positives), at most the rate's bound",
          accepted <= 5000 * upper_bound(0.01, 5000))
    if accepted == 0:
        check("... and refused deletes change nothing", digest(r, "c") == before)

    info = r.execute_command("CBF.INFO", "c")
    info = dict(zip(info[::2], info[1::2])) if isinstance(info, list) else info
    info = {(k.decode() if isinstance(k, bytes) else k): v for k, v in info.items()}
    check(f"CBF.INFO ({info})", info["Capacity"] == 1000 and info["Counter bits"] == 4 and
          info["Number of items inserted"] == 1000 - accepted and float(info["Error rate"]) == 0.01 and info["Size"] > 0)

    run("CBF.RESERVE full 0.1 3 COUNTER 8")
    try:
        replies = r.execute_command("CBF.MADD full a b a c")
    except redis.ResponseError as e:
        replies = e
    check(f"MADD stops at the first full ({replies})",
          isinstance(replies, list) and replies[:3] == [1, 1, 0] and isinstance(replies[3], redis.ResponseError))
    check("... and a single add past capacity is refused", error(r, "CBF.ADD full z") == "filter is full")

    # the rate at capacity, no false negatives
    run("CBF.RESERVE crate 0.01 20000")
    members = [f"member:{i}" for i in range(20000)]
    for i in range(0, len(members), 1000):
        r.execute_command("CBF.MADD", "crate", *members[i:i + 1000])
    present = sum(sum(r.execute_command("CBF.MEXISTS", "crate", *members[i:i + 1000])) for i in range(0, 20000, 1000))
    check(f"no false negatives ({present} of 20000)", present == 20000)
    trials = 100000
    positives = sum(sum(r.execute_command("CBF.MEXISTS", "crate", *[f"other:{j}" for j in range(i, i + 1000)]))
                    for i in range(0, trials, 1000))
    check(f"rate at capacity {positives / trials:.4f} <= {upper_bound(0.01, trials):.4f}",
          positives / trials <= upper_bound(0.01, trials))

    check("CBF on a BF key and BF on a CBF key: WRONGTYPE",
          run("BF.ADD bloom x") == 1 and "WRONGTYPE" in (error(r, "CBF.ADD bloom x") or "") and
          "WRONGTYPE" in (error(r, "BF.ADD c x") or "") and "WRONGTYPE" in (error(r, "CBF.EXISTS bloom x") or ""))


def merging(r):
    run = lambda line: r.execute_command(*line.split())
    run("BF.RESERVE m1 0.01 1000")
    run("BF.RESERVE m2 0.01 1000")
    run("BF.RESERVE m3 0.01 1000")
    r.execute_command("BF.MADD", "m1", *[f"a{i}" for i in range(300)])
    r.execute_command("BF.MADD", "m2", *[f"b{i}" for i in range(300)])
    r.execute_command("BF.MADD", "m3", *[f"c{i}" for i in range(300)])
    check("LFBF.MERGE of BF keys", run("LFBF.MERGE m1 m2 m3") in (b"OK", "OK", True))
    everything = [f"{p}{i}" for p in "abc" for i in range(300)]
    check("... holds every source's items", all(r.execute_command("BF.MEXISTS", "m1", *everything)) and run("BF.CARD m1") == 900)
    before = digest(r, "m1")
    run("BF.RESERVE other 0.02 1000")
    run("BF.RESERVE big 0.01 1000")
    r.execute_command("BF.MADD", "big", *[f"d{i}" for i in range(200)])
    for line, expected in (("LFBF.MERGE m1 other", "different parameters"), ("LFBF.MERGE m1 big", "capacity"),
                           ("LFBF.MERGE m1 m2 nothing", "not found"), ("LFBF.MERGE nothing m1", "not found"),
                           ("LFBF.MERGE m1 cm", "WRONGTYPE")):
        if line.endswith("cm"):
            run("CBF.RESERVE cm 0.01 1000")
        e = error(r, *line.split())
        check(f"{line}: {e}", e is not None and expected in e and digest(r, "m1") == before)
    run("CBF.RESERVE cm2 0.01 1000")
    run("CBF.MADD cm x y")
    run("CBF.MADD cm2 x z")
    check("LFBF.MERGE declares every key (ACL, cluster slots)",
          [k.decode() if isinstance(k, bytes) else k for k in r.command_getkeys("LFBF.MERGE", "d", "s1", "s2")] == ["d", "s1", "s2"])
    check("LFBF.MERGE of CBF keys adds counters",
          run("LFBF.MERGE cm cm2") in (b"OK", "OK", True) and run("CBF.COUNT cm x") == 2 and run("CBF.CARD cm") == 4)


def now_ms():
    return int(time.time() * 1000)  # the server's clock too: same machine


def sleep_until(ms):
    time.sleep(max(0.0, (ms - now_ms()) / 1000))


def fields(reply):
    if isinstance(reply, list):
        reply = dict(zip(reply[::2], reply[1::2]))
    return {(k.decode() if isinstance(k, bytes) else k): v for k, v in reply.items()}


def rotating(r):
    run = lambda line: r.execute_command(*line.split())
    for bad in ("RBF.RESERVE w 0 10 0", "RBF.RESERVE w 0.01 0 0", "RBF.RESERVE w 0.01 10 -1",
                "RBF.RESERVE w 0.01 10 1099511627777", "RBF.RESERVE w 0.01 10 0 GENERATIONS 1",
                "RBF.RESERVE w 0.01 10 0 GENERATIONS 65", "RBF.RESERVE w 0.01 10 0 NEXT 0",
                "RBF.RESERVE w 0.01 10 0 COLOUR 3", "RBF.RESERVE w 0.01 10 0 GENERATIONS",
                "RBF.RESERVE w 0.01 10000000000000 0"):
        check(f"{bad} is refused ({error(r, *bad.split())})", error(r, *bad.split()) is not None and not r.exists("w"))
    check("RBF.ADD on a missing key", error(r, "RBF.ADD nothing x") == "not found")

    # rotation by hand, G = 3: a key lives through G-1 rotations and is gone after G
    run("RBF.RESERVE w 0.01 1000 0 GENERATIONS 3")
    seen = [run("RBF.MADD w a b")]
    for _ in range(3):
        seen.append((run("RBF.EXISTS w a"), run("RBF.ROTATE w")))
    seen.append(run("RBF.EXISTS w a"))
    check(f"present through G-1 = 2 rotations, gone after 3 ({seen})", seen == [[1, 1], (1, 1), (1, 2), (1, 3), 0])
    check("RBF.ROTATE COUNT 5 clears everything", run("RBF.ADD w c") == 1 and run("RBF.ROTATE w COUNT 5") == 6 and
          run("RBF.MEXISTS w a b c") == [0, 0, 0])

    # rotation by time, G = 2, period 400 ms: reads skip due generations without rotating
    period = 400
    first = now_ms() + period
    run(f"RBF.RESERVE t 0.01 1000 {period} NEXT {first}")
    run("RBF.ADD t x")
    sleep_until(first + 100)
    present = run("RBF.EXISTS t x")
    sleep_until(first + period + 100)
    info = fields(run("RBF.INFO t"))
    check(f"timed: present one period on, gone two on, without a write ({present}, {run('RBF.EXISTS t x')})",
          present == 1 and run("RBF.EXISTS t x") == 0)
    check(f"... and the reads rotated nothing ({info})", info["Rotations"] == 0 and info["Next rotation"] == first)
    run("RBF.ADD t y")
    info = fields(run("RBF.INFO t"))
    check(f"the next write performs the due rotations ({info})",
          info["Rotations"] == 2 and info["Next rotation"] == first + 2 * period and info["Items"] == 1 and
          info["Generations"] == 2 and info["Capacity"] == 1000 and info["Period"] == period)
    check("... x gone, y present", run("RBF.MEXISTS t x y") == [0, 1])

    # the rate over a full window, no false negatives
    run("RBF.RESERVE rate 0.01 10000 0 GENERATIONS 4")
    for g in range(4):
        if g:
            run("RBF.ROTATE rate")
        r.execute_command("RBF.MADD", "rate", *[f"g{g}:{i}" for i in range(10000)])
    present = sum(sum(r.execute_command("RBF.MEXISTS", "rate", *[f"g{g}:{i}" for i in range(j, j + 1000)]))
                  for g in range(4) for j in range(0, 10000, 1000))
    trials = 100000
    positives = sum(sum(r.execute_command("RBF.MEXISTS", "rate", *[f"other:{j}" for j in range(i, i + 1000)]))
                    for i in range(0, trials, 1000))
    check(f"4 generations at capacity: no false negatives ({present} of 40000), rate {positives / trials:.4f} <= "
          f"{upper_bound(0.01, trials):.4f}", present == 40000 and positives / trials <= upper_bound(0.01, trials))
    # RBF.ROTATE first performs the rotations already due: an expired key stays gone
    first = now_ms() + 200
    run(f"RBF.RESERVE late 0.01 100 200 NEXT {first}")
    run("RBF.ADD late x")
    sleep_until(first + 250)
    gone = run("RBF.EXISTS late x")
    run("RBF.ROTATE late")
    info = fields(run("RBF.INFO late"))
    check(f"RBF.ROTATE after two due rotations: x stays gone ({gone}, {run('RBF.EXISTS late x')}, {info['Rotations']} rotations)",
          gone == 0 and run("RBF.EXISTS late x") == 0 and info["Rotations"] == 3)
    check("RBF.ROTATE COUNT past G counts G", run("RBF.ROTATE late COUNT 1000000") == 5)
    check("RBF on a BF key: WRONGTYPE", "WRONGTYPE" in (error(r, "RBF.ADD bloom x") or "") and
          "WRONGTYPE" in (error(r, "BF.ADD t x") or ""))


def aof_replay(module):
    """Replaying an AOF later than it was written must not rotate: the rotations are in it."""
    with servers.server([(module, [])], extra=["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]) as (port, _):
        r = redis.Redis(port=port)
        period = 300
        first = now_ms() + period
        r.execute_command(*f"RBF.RESERVE a 0.01 100 {period} NEXT {first}".split())
        r.execute_command("RBF.RESERVE b 0.01 100 200")
        r.execute_command(*"RBF.MADD a x y".split())
        sleep_until(first + 50)
        r.execute_command(*"RBF.ADD a z".split())  # rotates once first
        r.execute_command(*"RBF.ADD b z".split())
        before = [digest(r, k) for k in "ab"]
        sleep_until(first + 3 * period)  # replayed now, the adds would be past more deadlines
        r.execute_command("DEBUG", "LOADAOF")
        check("AOF replay after the deadlines rotates nothing more: equal digests", [digest(r, k) for k in "ab"] == before)


def persistence(r, port, module):
    keys = ["c", "full", "rate", "m1", "cm", "w", "t", "crate", "sat", "late"]
    before = [digest(r, k) for k in keys]
    r.execute_command("DEBUG", "RELOAD")
    check("DEBUG RELOAD keeps every digest", [digest(r, k) for k in keys] == before)
    r.execute_command("COPY", "c", "c-copy")
    check("COPY gives an equal digest", digest(r, "c-copy") == digest(r, "c"))
    dumped = r.dump("rate")
    r.restore("rate-restored", 0, dumped)
    check("DUMP/RESTORE gives an equal digest", digest(r, "rate-restored") == digest(r, "rate"))
    for magic in (b"LFBRCB01", b"LFBRRB01"):
        check(f"a corrupt LFBF.RESTORE of a {magic[4:6].decode()} value is refused",
              error(r, "LFBF.RESTORE", "bad", magic + bytes(60)) is not None and not r.exists("bad"))
    good = r.dump("w")
    check("a DUMP payload is not an LFBF.RESTORE blob", error(r, "LFBF.RESTORE", "bad", good) is not None)
    r.execute_command("BGREWRITEAOF")

    # replication: a replica with other defaults builds the same auto-created filters
    other = ["ERROR_RATE", "0.2", "INITIAL_SIZE", "7"]
    with servers.server([(module, other)], extra=["--replicaof", "127.0.0.1", str(port)]) as (rport, _):
        replica = redis.Redis(port=rport)
        for _ in range(200):
            if replica.info("replication")["master_link_status"] == "up":
                break
            time.sleep(0.05)
        r.execute_command("CBF.ADD auto x")
        r.execute_command("CBF.MADD auto y z")
        r.execute_command("CBF.DEL auto y")
        r.execute_command("CBF.DEL auto never-added")
        r.execute_command("LFBF.MERGE cm cm2")
        first = now_ms() + 300
        r.execute_command(f"RBF.RESERVE timed 0.01 100 300 NEXT {first}")
        r.execute_command("RBF.RESERVE untimed 0.01 100 250")
        r.execute_command("RBF.ADD timed x")
        sleep_until(first + 350)
        r.execute_command("RBF.ADD timed y")  # two rotations, replicated as RBF.ROTATE COUNT 2 NEXT
        r.execute_command("RBF.ADD untimed y")
        r.execute_command("RBF.ROTATE w")
        r.execute_command("WAIT", 1, 5000)
        keys += ["auto", "cm", "timed", "untimed", "w"]
        check("the replica's digests equal the primary's", [digest(replica, k) for k in keys] == [digest(r, k) for k in keys])


def main():
    module = sys.argv[1]
    with servers.server([(module, [])]) as (port, _):
        r = redis.Redis(port=port)
        counting(r)
        merging(r)
        rotating(r)
        persistence(r, port, module)
    aof_replay(module)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
