"""Filters cross between Redis and the library. A scalable filter the lfbloom command builds loads
into a BF key (LFBF.RESTORE through redis-cli, and BF.LOADCHUNK in pieces through redis-py) and
answers every key as the command does; a BF key's BF.SCANDUMP, its replies' data written one after
another to a file, is an lfbloom file the command opens and answers from as the key does, byte for
byte what the command saves again. The dump, its keys and the key's answers stay in OUT for the
Go and Java readers (ctest go.from_redis and java, fixture redis-dump).
Usage: exchange.py MODULE LFBLOOM OUT"""
import json
import pathlib
import random
import shutil
import subprocess
import sys

import redis

import checks
import servers
from checks import check, error, scandump


def cli(lfbloom, *args, stdin=None):
    return subprocess.run([lfbloom, *args], input=stdin, capture_output=True, check=True).stdout


def cli_answers(lfbloom, path, keys):
    """The command's answer for each key: True for maybe."""
    out = cli(lfbloom, "query", "--no-progress", str(path), stdin="".join(k + "\n" for k in keys).encode()).decode().splitlines()
    check(f"lfbloom query answers every key ({len(out)} lines)", [line.split("\t", 1)[1] for line in out] == keys)
    return [line.split("\t", 1)[0] == "maybe" for line in out]


def main():
    module, lfbloom, out = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    rng = random.Random(41)
    keys = [f"user:{n}" for n in range(6000)]
    absent = [f"nobody:{n}" for n in range(6000)]
    (out / "keys.txt").write_text("".join(k + "\n" for k in keys[:3000]))

    # Library -> Redis: 3,000 keys into sub-filters of 500, 1,000, 2,000 (seed 0: BF keys hash with it)
    built = out / "built.lfb"
    cli(lfbloom, "build", "--no-progress", "-o", str(built), "-n", "500", "-p", "0.01", "--kind", "scalable", "--seed", "0", str(out / "keys.txt"))
    expected = cli_answers(lfbloom, built, keys + absent)
    check("the built filter holds its keys", all(expected[:3000]))
    data = built.read_bytes()
    with servers.server([(module, [])]) as (port, _):
        r = redis.Redis(port=port)
        subprocess.run(["redis-cli", "-p", str(port), "-x", "LFBF.RESTORE", "restored"], input=data, check=True, capture_output=True)
        # BF.LOADCHUNK in pieces of whole words, each with the cursor 1 + the offset of its end
        at = 0
        while at < len(data):
            end = min(len(data), at + 8 * rng.randint(20, 400))
            r.execute_command("BF.LOADCHUNK", "chunked", end + 1, data[at:end])
            at = end
        for key in ("restored", "chunked"):
            answers = [bool(a) for a in r.execute_command("BF.MEXISTS", key, *keys, *absent)]
            check(f"{key}: every answer is the command's ({sum(answers[6000:])} false positives of 6,000)", answers == expected)
            info = r.execute_command("BF.INFO", key)  # redis-py makes it a dict
            check(f"{key}: BF.INFO {info}", info[b"Number of filters"] == 3 and info[b"Expansion rate"] == 2)
        check("a key loaded from a file grows on", r.execute_command("BF.MADD", "chunked", *keys[3000:]) and
              all(r.execute_command("BF.MEXISTS", "chunked", *keys)))
        r.execute_command("BF.LOADCHUNK", "half", 161, data[:160])
        check("a key half loaded refuses adds", error(r, "BF.ADD", "half", "x") is not None)
        check("a file of another seed is refused with a reason",
              "seed" in (error(r, "LFBF.RESTORE", "other", cli_file(lfbloom, out, "scalable", "--seed", "7")) or ""))
        check("a plain blocked file is refused with a reason",
              "scalable" in (error(r, "LFBF.RESTORE", "other", cli_file(lfbloom, out, "blocked")) or ""))

        # Redis -> library: a key grown through three sub-filters, dumped to a file
        r.execute_command("BF.RESERVE", "grown", 0.01, 500, "EXPANSION", 2)
        r.execute_command("BF.MADD", "grown", *keys[:3000])
        dump = b"".join(d for _, d in scandump(r, "grown"))
        (out / "redis-dump.lfb").write_bytes(dump)
        answers = [bool(a) for a in r.execute_command("BF.MEXISTS", "grown", *keys[:3000], *absent)]
        (out / "answers.txt").write_text("".join("1" if a else "0" for a in answers))
        (out / "probes.txt").write_text("".join(k + "\n" for k in keys[:3000] + absent))
        check("the key holds its keys", all(answers[:3000]))
        check("the command answers as the key", cli_answers(lfbloom, out / "redis-dump.lfb", keys[:3000] + absent) == answers)
        info = json.loads(cli(lfbloom, "info", "--json", str(out / "redis-dump.lfb")))
        check(f"the command sees a scalable filter of {info['parts']} parts", info["kind"] == "scalable" and info["parts"] == 3)
        # the header's max sub-filters (byte 13) is 64, as 1.13 wrote and reads it: its dumps load there
        check(f"the dump's header says 64 sub-filters at most ({dump[13]})", dump[13] == 64)
        r.execute_command("BF.RESERVE", "long", 0.5, 1, "EXPANSION", 1)  # a sub-filter per key
        r.execute_command("BF.MADD", "long", *keys[:100])
        def sub_filters(key):  # redis-py gives BF.INFO as a dict or, unparsed, a flat list
            info = r.execute_command("BF.INFO", key)
            info = dict(zip(info[::2], info[1::2])) if isinstance(info, list) else info
            return info[b"Number of filters"]
        long_parts = sub_filters("long")
        long_dump = b"".join(d for _, d in scandump(r, "long"))
        check(f"a key of {long_parts} sub-filters (more than 64) dumps, and says so in its header ({long_dump[13]})",
              long_parts > 64 and long_dump[13] == long_parts)
        (out / "long.lfb").write_bytes(long_dump)
        check("... and answers through the command", all(cli_answers(lfbloom, out / "long.lfb", keys[:100])))
        r.execute_command("LFBF.RESTORE", "long-again", long_dump)
        check("... and loads back", sub_filters("long-again") == long_parts)
        r.execute_command("BF.RESERVE", "fixed", 0.001, 1000, "NONSCALING")
        r.execute_command("BF.MADD", "fixed", *keys[:900])
        fixed = b"".join(d for _, d in scandump(r, "fixed"))
        (out / "fixed.lfb").write_bytes(fixed)
        check("a NONSCALING key's dump answers through the command",
              all(cli_answers(lfbloom, out / "fixed.lfb", keys[:900])))
        r.execute_command("LFBF.RESTORE", "fixed-again", fixed)
        reply = r.execute_command("BF.MADD", "fixed-again", *keys[900:2000])
        check("... and loads back NONSCALING, full at its capacity",
              reply[0] == 1 and any(isinstance(a, redis.ResponseError) and "non scaling" in str(a) for a in reply))
        cuckoo(r, lfbloom, out, rng, keys, absent)
    return checks.finish()


def cf_answers(r, key, probes):
    return [bool(a) for a in r.execute_command("CF.MEXISTS", key, *probes)]


def cuckoo(r, lfbloom, out, rng, keys, absent):
    """CF keys and the library's cuckoo files, both ways: every probe's answer equal."""
    probes = keys[:3000] + absent
    # Library -> Redis: one cuckoo filter (a key of EXPANSION 0), a scalable one of cuckoo parts
    for kind, args, filters in (("cuckoo", ["--kind", "cuckoo", "-n", "4000"], 1),
                                ("scalable cuckoo", ["--kind", "scalable", "--sub-kind", "cuckoo", "-n", "500"], 3)):
        built = out / "built-cuckoo.lfb"
        cli(lfbloom, "build", "--no-progress", "-o", str(built), "-p", "0.001", *args, str(out / "keys.txt"))
        expected = cli_answers(lfbloom, built, probes)
        data = built.read_bytes()
        subprocess.run(["redis-cli", "-p", str(r.connection_pool.connection_kwargs["port"]), "-x", "LFBF.RESTORE", "cf-restored"],
                       input=data, check=True, capture_output=True)
        # CF.LOADCHUNK in pieces of any length (the first at least the 80-byte header), cursor 1 + end
        at = 0
        while at < len(data):
            end = min(len(data), at + (80 if at == 0 else 0) + rng.randint(1, 3000))
            r.execute_command("CF.LOADCHUNK", "cf-chunked", end + 1, data[at:end])
            at = end
        for key in ("cf-restored", "cf-chunked"):
            answers = cf_answers(r, key, probes)
            check(f"{kind} file -> {key}: every answer is the command's ({sum(answers[3000:])} false positives of 6,000)",
                  answers == expected)
            info = r.execute_command("CF.INFO", key)
            check(f"{kind} file -> {key}: CF.INFO {info}", info[b"Number of filters"] == filters and
                  info[b"Number of items inserted"] == 3000 and info[b"Expansion rate"] == (0 if filters == 1 else 2))
        before = [checks.digest(r, k) for k in ("cf-restored", "cf-chunked")]
        r.execute_command("DEBUG", "RELOAD")
        check(f"{kind} file: its keys keep their digests through DEBUG RELOAD (RDB) and answer alike",
              [checks.digest(r, k) for k in ("cf-restored", "cf-chunked")] == before and cf_answers(r, "cf-chunked", probes) == expected)
        check(f"{kind} file: the key is a CF key that takes adds and deletes",
              r.execute_command("CF.ADD", "cf-chunked", "new") == 1 and r.execute_command("CF.DEL", "cf-chunked", keys[0]) == 1)
        r.delete("cf-restored", "cf-chunked")
    # files a CF key cannot hold: refused with the reason, no key left
    for what, args, reason in (("a cuckoo file of seed 7", ["--kind", "cuckoo", "--seed", "7"], "seed 0"),
                               ("a scalable cuckoo file of growth 3", ["--kind", "scalable", "--sub-kind", "cuckoo", "--growth", "3"],
                                "power of two"),
                               ("a blocked file", ["--kind", "blocked"], "cuckoo filter's file")):
        data = cli_file(lfbloom, out, *args, n=4000)
        restored = error(r, "LFBF.RESTORE", "cf-other", data) if "blocked" not in what else reason
        chunked = error(r, "CF.LOADCHUNK", "cf-other", 81, data[:80]) or ""
        check(f"{what} is refused with a reason ({chunked!r}), no key made",
              reason in (restored or "") and reason in chunked and not r.exists("cf-other"))

    # Redis -> library: a key grown through three sub-filters, with deletes; a key of EXPANSION 0
    r.execute_command("CF.RESERVE", "cf-grown", 500, "EXPANSION", 2, "BUCKETSIZE", 4, "MAXITERATIONS", 50)
    r.execute_command("CF.INSERT", "cf-grown", "ITEMS", *keys[:3000])
    for k in keys[:300:3]:
        r.execute_command("CF.DEL", "cf-grown", k)
    r.execute_command("CF.RESERVE", "cf-fixed", 4000, "EXPANSION", 0)
    r.execute_command("CF.INSERT", "cf-fixed", "ITEMS", *keys[:3000])
    for key, parts in (("cf-grown", 3), ("cf-fixed", 1)):
        pieces = scandump(r, key, "CF")
        path = out / f"redis-{key}.lfb"
        path.write_bytes(b"".join(d for _, d in pieces))
        info = json.loads(cli(lfbloom, "info", "--json", str(path)))
        check(f"{key}: the command sees a scalable filter of {info['parts']} cuckoo parts",
              info["kind"] == "scalable" and info.get("sub_kind") == "cuckoo" and info["parts"] == parts)
        check(f"{key}: the command answers as the key, every probe", cli_answers(lfbloom, path, probes) == cf_answers(r, key, probes))
        for cursor, data in pieces:
            r.execute_command("CF.LOADCHUNK", f"{key}-copy", cursor, data)
        check(f"{key}: its pieces load back equal (digest, CF.INFO)",
              checks.digest(r, f"{key}-copy") == checks.digest(r, key) and
              r.execute_command("CF.INFO", f"{key}-copy") == r.execute_command("CF.INFO", key))
    r.execute_command("LFBF.RESTORE", "cf-fixed-file", (out / "redis-cf-fixed.lfb").read_bytes())
    check("cf-fixed: its file restores to an equal key (RedisBloom's defaults: BUCKETSIZE 2, MAXITERATIONS 20)",
          checks.digest(r, "cf-fixed-file") == checks.digest(r, "cf-fixed"))


def cli_file(lfbloom, out, *args, n=100):
    path = out / "other.lfb"
    if not args[0].startswith("-"):
        args = ("--kind",) + args
    cli(lfbloom, "build", "--no-progress", "-o", str(path), "-n", str(n), "-p", "0.01", *args, str(out / "keys.txt"))
    data = path.read_bytes()
    path.unlink()
    return data


if __name__ == "__main__":
    sys.exit(main())
