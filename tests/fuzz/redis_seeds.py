"""Writes seed inputs for the `redis` fuzz target (tests/fuzz/corpus/redis): the values a server
with the module saves for keys of each type (CF keys, one being loaded, included), as the LFBF.RESTORE blobs of a rewritten AOF, and
BF and CF keys' lfbloom files (BF.SCANDUMP, CF.SCANDUMP). Usage: redis_seeds.py MODULE CORPUS (run once; the seeds are committed)."""
import pathlib
import sys
import time

import redis

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "redis"))
import servers  # noqa: E402

SELECTOR = {b"LFBRSB01": 0, b"LFBRCB01": 1, b"LFBRRB01": 2, b"LFBRCF01": 4, b"LFBRCF0L": 4}


def resp_commands(data):
    """The commands of an AOF (RESP arrays of bulk strings)."""
    i = 0
    while i < len(data):
        assert data[i:i + 1] == b"*"
        end = data.index(b"\r\n", i)
        n, i = int(data[i + 1:end]), end + 2
        args = []
        for _ in range(n):
            end = data.index(b"\r\n", i)
            length = int(data[i + 1:end])
            args.append(data[end + 2:end + 2 + length])
            i = end + 2 + length + 2
        yield args


def main():
    module, corpus = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
    corpus.mkdir(parents=True, exist_ok=True)
    with servers.server([(module, [])], extra=["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]) as (port, directory):
        r = redis.Redis(port=port)
        for line in ("BF.RESERVE grown 0.01 8 EXPANSION 3", "BF.RESERVE fixed 0.2 4 NONSCALING", "BF.ADD auto x",
                     "CBF.RESERVE c4 0.05 20", "CBF.RESERVE c8 0.1 10 COUNTER 8", "RBF.RESERVE w 0.1 10 0 GENERATIONS 3",
                     "RBF.RESERVE t 0.05 10 1000 NEXT 1800000000000", "CF.RESERVE cf 8 EXPANSION 2",
                     "CF.RESERVE cf-fixed 4 BUCKETSIZE 1 EXPANSION 0"):
            r.execute_command(*line.split())
        r.execute_command("BF.MADD", "grown", *range(40))
        r.execute_command(*"BF.MADD fixed a b c".split())
        r.execute_command(*"CBF.MADD c4 a b a".split())
        r.execute_command(*"CBF.MADD c8 x x y".split())
        r.execute_command(*"RBF.MADD w a b".split())
        r.execute_command(*"RBF.ROTATE w".split())
        r.execute_command(*"RBF.ADD t a".split())
        r.execute_command("CF.INSERT", "cf", "ITEMS", *range(40))
        r.execute_command(*"CF.DEL cf 3".split())
        r.execute_command(*"CF.INSERT cf-fixed ITEMS a a b".split())
        r.execute_command("CF.LOADCHUNK", "cf-loading", *r.execute_command("CF.SCANDUMP", "cf", 0))
        # a BF key's lfbloom file (selector 3), a CF key's (5): its SCANDUMP laid end to end
        for kind, key in (("BF", "grown"), ("BF", "fixed"), ("BF", "auto"), ("CF", "cf"), ("CF", "cf-fixed")):
            dump, cursor = b"\x03" if kind == "BF" else b"\x05", 0
            while True:
                cursor, data = r.execute_command(f"{kind}.SCANDUMP", key, cursor)
                if cursor == 0:
                    break
                dump += data
            (corpus / f"seed-dump-{key}").write_bytes(dump)
        r.execute_command("BGREWRITEAOF")
        while r.info("persistence")["aof_rewrite_in_progress"]:
            time.sleep(0.05)
        base = next(pathlib.Path(directory).glob("appendonlydir/*.base.aof")).read_bytes()
        for args in resp_commands(base):
            if args[0].upper() == b"LFBF.RESTORE":
                (corpus / f"seed-value-{args[1].decode()}").write_bytes(bytes([SELECTOR[args[2][:8]]]) + args[2])
    print(sorted(p.name for p in corpus.iterdir()))


if __name__ == "__main__":
    main()
