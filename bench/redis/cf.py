"""CF.* speed, memory and false-positive rate: our module against RedisBloom 2.8.2 in one run,
measured with redis-benchmark as bench.py measures BF.* (same pinning: servers on CPU 0,
redis-benchmark on CPU 1; rounds alternate between the servers; medians reported).

One key per server, CF.RESERVE big CAPACITY with RedisBloom's defaults (BUCKETSIZE 2,
MAXITERATIONS 20, EXPANSION 1), filled with random items to (1 - headroom) of its capacity; the
measured adds then take it to about its capacity. CF.DEL deletes random items, mostly never
added ones (which find nothing to delete in both, as most deletes of a cache's misses would):
its cost is the lookup of both buckets under the write path. Memory per item is CF.INFO's Size
and the server's used_memory growth over the items at the end; the false-positive rate is measured
with CF.MEXISTS of items never added, after the run (at about capacity).

Usage: cf.py MODULE REDISBLOOM_CACHE [--capacity N] [--rounds R] [--json FILE]"""
import argparse
import json
import pathlib
import sys
import time

import redis

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "redis"))
import bench  # noqa: E402
import servers  # noqa: E402

BATCH = bench.BATCH


def many(command, key="big"):
    """A command on 100 random items, as bench.many (INSERT takes its ITEMS word)."""
    words = [command, key] + (["ITEMS"] if command == "CF.INSERT" else [])
    return words + [f"{i}:__rand_int__" for i in range(BATCH)]


def cf_info(port):
    info = redis.Redis(port=port).execute_command("CF.INFO", "big")
    info = dict(zip(info[::2], info[1::2])) if isinstance(info, list) else info
    return {(k.decode() if isinstance(k, bytes) else k): v for k, v in info.items()}


def false_positive_rate(port, queries):
    """CF.MEXISTS of `queries` items no run adds (their prefix 'absent:' is nowhere else)."""
    r = redis.Redis(port=port)
    hits = 0
    for start in range(0, queries, 1000):
        hits += sum(r.execute_command("CF.MEXISTS", "big", *(f"absent:{i}" for i in range(start, start + 1000))))
    return hits / queries


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("module")
    parser.add_argument("redisbloom_cache")
    parser.add_argument("--capacity", type=int, default=12_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--headroom", type=float, default=0.1)
    parser.add_argument("--fpr-queries", type=int, default=1_000_000)
    parser.add_argument("--json")
    a = parser.parse_args()
    oracle = servers.redisbloom(a.redisbloom_cache)
    reserved_adds = int(a.capacity * a.headroom)
    fill = a.capacity - reserved_adds
    insert_requests = max(1, reserved_adds // (2 * a.rounds * BATCH))
    add_requests = max(1, min(300_000, reserved_adds // (2 * a.rounds)))
    cases = [  # name, redis-benchmark command, requests per round, items per request
        ("CF.MEXISTS 100 items, -P 16", many("CF.MEXISTS"), 10_000, BATCH),
        ("CF.INSERT 100 items, -P 16", many("CF.INSERT"), insert_requests, BATCH),
        ("CF.EXISTS, -P 16", ["CF.EXISTS", "big", "__rand_int__"], 500_000, 1),
        ("CF.ADD, -P 16", ["CF.ADD", "big", "__rand_int__"], add_requests, 1),
        ("CF.DEL, -P 16", ["CF.DEL", "big", "__rand_int__"], 300_000, 1),
    ]
    results = {"capacity": a.capacity, "rounds": a.rounds, "cases": {}, "servers": {}}
    with servers.server([(oracle, [])], binary="redis-server") as (theirs, _), \
            servers.server([(a.module, [])], binary="redis-server") as (ours, _):
        ports = {"lfbloom": ours, "RedisBloom": theirs}
        pids = {name: bench.pin(port, 0) for name, port in ports.items()}
        for name, port in ports.items():
            r = redis.Redis(port=port)
            before = r.info("memory")["used_memory"]
            r.execute_command("CF.RESERVE", "big", a.capacity)
            start = time.time()
            rps, _ = bench.benchmark(port, fill // BATCH, many("CF.INSERT"))
            seconds = time.time() - start
            results["servers"][name] = {"fill_seconds": round(seconds, 1), "fill_items_per_s": rps * BATCH,
                                        "used_memory_before": before}
            print(f"{name}: filled {fill} items in {seconds:.0f} s", flush=True)
        samples = bench.paired_rounds(ports, cases, a.rounds)
        for name, port in ports.items():
            info = cf_info(port)
            s = results["servers"][name]
            s.update(size=info["Size"], filters=info["Number of filters"], items=info["Number of items inserted"],
                     used_memory=redis.Redis(port=port).info("memory")["used_memory"] - s["used_memory_before"],
                     rss=bench.rss(pids[name]), fpr=false_positive_rate(port, a.fpr_queries))
    results["cases"] = bench.ratio_table(cases, samples)
    print("\n| | items | sub-filters | CF.INFO Size | bytes per item (Size) | used_memory growth | false-positive rate |")
    print("|---|---|---|---|---|---|---|")
    for name, s in results["servers"].items():
        print(f"| {name} | {s['items']:,} | {s['filters']} | {s['size']:,} | {s['size'] / s['items']:.2f} | "
              f"{s['used_memory']:,} | {100 * s['fpr']:.3f}% |")
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
