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
    return checks.finish()


def cli_file(lfbloom, out, kind, *args):
    path = out / "other.lfb"
    cli(lfbloom, "build", "--no-progress", "-o", str(path), "-n", "100", "-p", "0.01", "--kind", kind, *args, str(out / "keys.txt"))
    data = path.read_bytes()
    path.unlink()
    return data


if __name__ == "__main__":
    sys.exit(main())
