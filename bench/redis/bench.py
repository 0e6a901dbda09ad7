"""BF.* speed and memory: our module against RedisBloom 2.8.2, measured with redis-benchmark in
one run. Both modules load into the same redis-server binary; each server is pinned to CPU 0 and
redis-benchmark to CPU 1; rounds alternate between the two servers and medians are reported.

One key per server, BF.RESERVE big ERROR CAPACITY (RedisBloom's default scaling, so the first
sub-filter is at half the rate in both), filled with random items to (1 - headroom) of
its capacity; the measured adds then take it up to about its capacity, so neither grows.

Usage: bench.py MODULE REDISBLOOM_CACHE [--capacity N] [--error P] [--rounds R] [--json FILE]
(the RedisBloom cache directory is where tests/redis/servers.py downloads it)."""
import argparse
import csv
import io
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

import redis

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tests" / "redis"))
import servers  # noqa: E402

BATCH = 100
KEYSPACE = 2 ** 31 - 1  # redis-benchmark's -r is an int: larger values wrap


def pin(port, cpu):
    """Pins every thread of the server on `port` to `cpu`; returns its pid."""
    pid = redis.Redis(port=port).info("server")["process_id"]
    for tid in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(tid), {cpu})
    return pid


def rss(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def benchmark(port, requests, command, pipeline=16):
    """Runs redis-benchmark on CPU 1: (requests per second, p99 latency in ms)."""
    cmd = ["taskset", "-c", "1", "redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-c", "1", "-P", str(pipeline),
           "-n", str(requests), "-r", str(KEYSPACE), "--csv", *command]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    row = next(csv.DictReader(io.StringIO(out)))
    return float(row["rps"]), float(row["p99_latency_ms"])


def paired_rounds(ports, cases, rounds):
    """Runs each case on each server (ports: {name: port}) once per round, the servers' order
    flipped every round; returns {case: {name: [(items per second, p99 ms)]}}."""
    samples = {case[0]: {name: [] for name in ports} for case in cases}
    for round_ in range(rounds):
        for case, command, requests, items in cases:
            order = list(ports.items()) if round_ % 2 == 0 else list(reversed(ports.items()))
            for name, port in order:
                rps, p99 = benchmark(port, requests, command)
                samples[case][name].append((rps * items, p99))
        print(f"round {round_ + 1} of {rounds} done", flush=True)
    return samples


def ratio_table(cases, samples):
    """Prints the medians of lfbloom and RedisBloom side by side; returns {case: samples and ratio}."""
    out = {}
    print("\n| case | lfbloom items/s | RedisBloom items/s | ratio | lfbloom p99 ms | RedisBloom p99 ms |")
    print("|---|---|---|---|---|---|")
    for case, *_ in cases:
        ours = statistics.median(s[0] for s in samples[case]["lfbloom"])
        theirs = statistics.median(s[0] for s in samples[case]["RedisBloom"])
        p99 = {n: statistics.median(s[1] for s in samples[case][n]) for n in samples[case]}
        out[case] = {"samples": samples[case], "ratio": ours / theirs}
        print(f"| {case} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:.2f} | {p99['lfbloom']:.3f} | {p99['RedisBloom']:.3f} |")
    return out


def bf_info(port):
    """BF.INFO big as a dict with text keys (redis-py parses it into a dict or leaves a list)."""
    info = redis.Redis(port=port).execute_command("BF.INFO", "big")
    info = dict(zip(info[::2], info[1::2])) if isinstance(info, list) else info
    return {(k.decode() if isinstance(k, bytes) else k): v for k, v in info.items()}


def many(command):
    """A command on 100 random items: each has its own prefix, so that 2^31 random values per
    prefix give almost only distinct items (the fill holds what it claims)."""
    return [command, "big"] + [f"{i}:__rand_int__" for i in range(BATCH)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("module")
    parser.add_argument("redisbloom_cache")
    parser.add_argument("--capacity", type=int, default=800_000_000)
    parser.add_argument("--error", type=float, default=0.01)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--headroom", type=float, default=0.04)
    parser.add_argument("--json")
    a = parser.parse_args()
    oracle = servers.redisbloom(a.redisbloom_cache)
    reserved_adds = int(a.capacity * a.headroom)
    fill = a.capacity - reserved_adds
    # the adds measured in each round: MADD batches and single ADDs, together within the headroom
    madd_requests = max(1, reserved_adds // (2 * a.rounds * BATCH))
    add_requests = max(1, min(500_000, reserved_adds // (2 * a.rounds)))
    cases = [  # name, redis-benchmark command, requests per round, items per request
        ("BF.MEXISTS 100 items, -P 16", many("BF.MEXISTS"), 20_000, BATCH),
        ("BF.MADD 100 items, -P 16", many("BF.MADD"), madd_requests, BATCH),
        ("BF.EXISTS, -P 16", ["BF.EXISTS", "big", "__rand_int__"], 1_000_000, 1),
        ("BF.ADD, -P 16", ["BF.ADD", "big", "__rand_int__"], add_requests, 1),
    ]
    results = {"capacity": a.capacity, "error": a.error, "rounds": a.rounds, "cases": {}, "servers": {}}
    with servers.server([(oracle, [])], binary="redis-server") as (theirs, _), \
            servers.server([(a.module, [])], binary="redis-server") as (ours, _):
        ports = {"lfbloom": ours, "RedisBloom": theirs}
        pids = {name: pin(port, 0) for name, port in ports.items()}
        for name, port in ports.items():
            r = redis.Redis(port=port)
            r.execute_command("BF.RESERVE", "big", a.error, a.capacity)
            start = time.time()
            rps, _ = benchmark(port, fill // BATCH, many("BF.MADD"))
            seconds = time.time() - start
            info = bf_info(port)
            results["servers"][name] = {"fill_seconds": round(seconds, 1), "fill_items_per_s": rps * BATCH,
                                        "size": info["Size"], "rss": rss(pids[name]), "items": info["Number of items inserted"]}
            print(f"{name}: filled {fill} items in {seconds:.0f} s; {results['servers'][name]}", flush=True)
        samples = paired_rounds(ports, cases, a.rounds)
        for name, port in ports.items():
            info = bf_info(port)
            results["servers"][name]["filters_at_end"] = info["Number of filters"]
            results["servers"][name]["items_at_end"] = info["Number of items inserted"]
    results["cases"] = ratio_table(cases, samples)
    for name, s in results["servers"].items():
        print(f"{name}: BF.INFO Size {s['size']:,} B, RSS {s['rss']:,} B, filled at {s['fill_items_per_s']:,.0f} items/s, "
              f"{s['filters_at_end']} sub-filter(s) and {s['items_at_end']:,} items at the end")
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
