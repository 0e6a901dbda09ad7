"""What the Redis test scripts share: named checks that a run reports at its end, and the
questions they ask a server (a key's digest, a command's error)."""
import pathlib
import time

import redis

import servers

failures = []


def check(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    if not ok:
        failures.append(what)


def finish():
    """Prints how many checks failed; the script's exit code."""
    print(f"{len(failures)} failed")
    return 1 if failures else 0


def digest(r, key):
    return r.execute_command("DEBUG", "DIGEST-VALUE", key)[0]


def error(r, *command):
    """The error text a command answers, or None if it succeeds."""
    try:
        r.execute_command(*command)
        return None
    except redis.ResponseError as e:
        return str(e)


def refused(r, *command):
    return error(r, *command) is not None


def ask(r, *command):
    """The reply, or the error as a value: a missing key shows in the comparisons, not as a traceback."""
    try:
        return r.execute_command(*command)
    except redis.ResponseError as e:
        return f"error: {e}"


def scandump(r, key, kind="BF"):
    """Every (cursor, data) BF.SCANDUMP (kind "CF": CF.SCANDUMP) gives for key, in order
    (BF.LOADCHUNK, CF.LOADCHUNK take them back)."""
    chunks, cursor = [], 0
    while True:
        cursor, data = r.execute_command(f"{kind}.SCANDUMP", key, cursor)
        if cursor == 0:
            return chunks
        chunks.append((cursor, bytes(data)))


def rewrite_aof(r, directory):
    """BGREWRITEAOF, waited for (10 s at most); returns the rewritten base AOF's bytes."""
    r.execute_command("BGREWRITEAOF")
    for _ in range(200):
        p = r.info("persistence")
        if p["aof_rewrite_in_progress"] == 0 and p["aof_rewrite_scheduled"] == 0:
            break
        time.sleep(0.05)
    return b"".join(f.read_bytes() for f in pathlib.Path(directory).rglob("*.base.aof"))


def aof_replay(module, populate, then):
    """AOF rewrite and replay, on a server with an AOF of commands (no RDB preamble): populate(r)
    makes keys (and returns them), the rewrite must hold one LFBF.RESTORE a key, then(r) writes
    more, and DEBUG LOADAOF must give every key its digest back."""
    with servers.server([(module, [])], extra=["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]) as (port, directory):
        r = redis.Redis(port=port)
        keys = populate(r)
        base = rewrite_aof(r, directory)
        check("the AOF rewrite finished", r.info("persistence")["aof_last_bgrewrite_status"] == "ok")
        check("the rewritten AOF holds LFBF.RESTORE commands", base.count(b"LFBF.RESTORE") == len(keys))
        then(r)
        before = [digest(r, k) for k in keys]
        r.execute_command("DEBUG LOADAOF")
        check("AOF rewrite and replay keep every digest", [digest(r, k) for k in keys] == before)


def corrupt_pieces(r, kind, chunks, rng, per_piece=10, key="reloaded"):
    """Loads a dump's pieces (scandump's) into `key` with {kind}.LOADCHUNK, `per_piece` times for
    each piece with one random bit of it flipped: each load must be refused at some piece and
    leave no key (a first piece refused at once creates none; a later one deletes the key being
    loaded), the server up. Checks it, and that a flipped first piece is refused at once."""
    flips = [(i, data[:at] + bytes([data[at] ^ 1 << rng.randrange(8)]) + data[at + 1:])
             for i, (_, data) in enumerate(chunks) for at in rng.sample(range(len(data)), min(per_piece, len(data)))]

    def load_with(i, bad):
        """Loads the pieces with piece i replaced; whether some piece was refused."""
        failed = False
        for j, (cursor, data) in enumerate(chunks):
            failed |= refused(r, f"{kind}.LOADCHUNK", key, cursor, bad if j == i else data)
        return failed

    check(f"{kind}.LOADCHUNK: a first piece with a flipped bit creates nothing",
          all(refused(r, f"{kind}.LOADCHUNK", key, chunks[0][0], bad) and not r.exists(key) for i, bad in flips if i == 0))
    n = sum(load_with(i, bad) and not r.exists(key) for i, bad in flips)
    check(f"{kind}.LOADCHUNK: a piece with a flipped bit fails the load and leaves no key ({n} of {len(flips)}), the server up",
          n == len(flips) and r.ping())
