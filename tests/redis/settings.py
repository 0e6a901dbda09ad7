"""The module's server-side surface: load arguments, module configs (CONFIG GET/SET lfbloom.*),
the INFO lfbloom section and keyspace events. Usage: settings.py MODULE"""
import sys
import time

import redis

import checks
import servers
from checks import check, digest, error, refused

def same_as_reserve(r, key, reserve):
    """Whether the auto-created `key` equals a filter made by an explicit BF.RESERVE."""
    r.execute_command("BF.ADD", key, "item")
    r.execute_command(*reserve.split())
    r.execute_command("BF.ADD", reserve.split()[1], "item")
    return digest(r, key) == digest(r, reserve.split()[1])


def main():
    module = sys.argv[1]
    args = ["ERROR_RATE", "0.2", "INITIAL_SIZE", "7", "EXPANSION", "5"]
    with servers.server([(module, args)], extra=["--notify-keyspace-events", "Ed"]) as (port, _):
        r = redis.Redis(port=port, decode_responses=True)
        check("load arguments are the configs' values",
              r.config_get("lfbloom.*") == {"lfbloom.error-rate": "0.2", "lfbloom.initial-size": "7",
                                             "lfbloom.expansion": "5", "lfbloom.max-bytes": str(4 << 30)})
        check("auto-created keys take the load arguments", same_as_reserve(r, "auto", "BF.RESERVE explicit 0.2 7 EXPANSION 5"))

        for name, value in (("error-rate", "0.03"), ("initial-size", "1000"), ("expansion", "3")):
            r.config_set("lfbloom." + name, value)
        check("CONFIG SET changes the defaults", same_as_reserve(r, "auto2", "BF.RESERVE explicit2 0.03 1000 EXPANSION 3"))
        before = r.config_get("lfbloom.*")
        bad = [("error-rate", "0"), ("error-rate", "1"), ("error-rate", "nan"), ("error-rate", "x"),
               ("initial-size", "0"), ("initial-size", "-1"), ("expansion", "0"), ("expansion", str(1 << 32)),
               ("max-bytes", "0"), ("max-bytes", "x")]
        check("bad values are refused", all(refused(r, "CONFIG", "SET", "lfbloom." + n, v) for n, v in bad))
        check("... and change nothing", r.config_get("lfbloom.*") == before)
        r.config_set("lfbloom.max-bytes", "1mb")
        check("CONFIG SET lfbloom.max-bytes 1mb takes effect on the next key",
              refused(r, "BF.RESERVE", "big", 0.01, 10000000) and not r.exists("big"))

        # max-bytes limits what clients ask for, not what is loaded: a key made under a larger
        # limit survives a reload under a smaller one (refusing it would stop the load)
        r.config_set("lfbloom.max-bytes", str(4 << 30))
        r.execute_command("BF.RESERVE", "large", 0.01, 2000000)
        r.config_set("lfbloom.max-bytes", "1mb")
        r.execute_command("DEBUG", "RELOAD")
        check("a key over a lowered max-bytes survives DEBUG RELOAD", r.exists("large") == 1)
        r.delete("large")
        for _ in range(100):  # a large value is freed on the lazy-free thread (Valkey's default for DEL)
            if r.info("lfbloom")["lfbloom_filters"] == 4:
                break
            time.sleep(0.05)
        # INFO lfbloom counts live keys and their bytes (BF.INFO's Size), and refused values
        info = r.info("lfbloom")
        sizes = sum(r.execute_command("BF.INFO", k, "SIZE")["Size"] for k in ("auto", "explicit", "auto2", "explicit2"))
        check(f"INFO lfbloom: 4 filters of {sizes} bytes ({info})",
              info["lfbloom_filters"] == 4 and info["lfbloom_bytes"] == sizes and info["lfbloom_error_rate"] == 0.03)
        r.delete("auto", "explicit")
        r.execute_command("COPY", "auto2", "copied")
        refused(r, "LFBF.RESTORE", "corrupt", b"LFBRSB01 and nothing valid")
        for _ in range(100):  # as above: Valkey may free them on its lazy-free thread
            if (info := r.info("lfbloom"))["lfbloom_filters"] == 3:
                break
            time.sleep(0.05)
        check("... DEL, COPY and a refused value are counted",
              info["lfbloom_filters"] == 3 and info["lfbloom_refused_values"] == 1)

        # keyspace events: one per key created (bf.reserve) and per add that changed a filter
        events = r.pubsub()
        events.psubscribe("__keyevent@0__:*")
        events.get_message(timeout=1)
        r.config_set("lfbloom.max-bytes", str(4 << 30))
        script = ["BF.RESERVE e1 0.01 100", "BF.ADD e1 x", "BF.ADD e1 x", "BF.EXISTS e1 x", "BF.MADD e2 a b",
                  "BF.MADD e2 a", "BF.INSERT e3 NOCREATE ITEMS a", "BF.INSERT e2 ITEMS a c", "BF.RESERVE e1 0.01 100",
                  "BF.RESERVE e4 0.1 1 NONSCALING", "BF.MADD e4 a b"]
        for line in script:
            try:
                r.execute_command(*line.split())
            except redis.ResponseError:
                pass
        raw = redis.Redis(port=port)  # the header is binary
        raw.execute_command("BF.LOADCHUNK", "e5", *raw.execute_command("BF.SCANDUMP", "e1", 0))
        seen = []
        deadline = time.time() + 5
        while len(seen) < 9 and time.time() < deadline:
            m = events.get_message(timeout=0.5)
            if m and m["type"] == "pmessage":
                seen.append((m["channel"].split(":", 1)[1], m["data"]))
        expected = [("bf.reserve", "e1"), ("bf.add", "e1"), ("bf.reserve", "e2"), ("bf.add", "e2"),
                    ("bf.add", "e2"), ("bf.reserve", "e4"), ("bf.add", "e4"), ("bf.loadchunk", "e5")]
        check(f"keyspace events ({seen})", seen == expected)

    # The server counts every byte of the filters (they come from its allocator) and refuses
    # writes past maxmemory with its own OOM error (deny-oom), as it does RedisBloom's.
    with servers.server([(module, [])], extra=["--maxmemory", "40mb"]) as (port, _):
        r = redis.Redis(port=port, decode_responses=True)
        reserves = {"BF": "BF.RESERVE b 0.01 1000000", "CF": "CF.RESERVE c 1000000",
                    "CBF": "CBF.RESERVE cb 0.01 100000", "RBF": "RBF.RESERVE rb 0.01 1000000 0"}
        for kind, command in reserves.items():
            before = r.info("memory")["used_memory"]
            r.execute_command(*command.split())
            grown, size = r.info("memory")["used_memory"] - before, r.memory_usage(command.split()[1])
            check(f"used_memory grows by the {kind} key's bytes ({grown:,} for MEMORY USAGE {size:,})", grown >= 0.95 * size > 100_000)
        r.execute_command("BF.RESERVE", "big", "0.01", "25000000")  # about 30 MB: past 40 MB in all
        oom = "command not allowed when used memory > 'maxmemory'."
        for command in ("BF.RESERVE x 0.01 1000", "BF.ADD b item", "BF.INSERT x ITEMS a", "CF.RESERVE y 1000", "CF.ADD c item",
                        "CF.INSERT c ITEMS a b", "CBF.RESERVE z 0.01 1000", "RBF.ADD rb item", "LFBF.MERGE b b"):
            check(f"past maxmemory, {command} gets the server's OOM error", error(r, *command.split()) == oom)
        check("... reads still answer", r.execute_command("BF.EXISTS", "b", "item") == 0 and r.execute_command("CF.COUNT", "c", "x") == 0)
        r.delete("big")
        for _ in range(100):  # Valkey frees a large value on its lazy-free thread
            if r.info("memory")["used_memory"] < 40 << 20:
                break
            time.sleep(0.05)
        check("... and deletes free memory for writes", r.execute_command("CF.ADD", "c", "item") == 1)

    # Command metadata: every command's key spec (COMMAND INFO, COMMAND GETKEYS); the ACL categories
    # @bloom and @cuckoo where the server has RedisModule_AddACLCategory: Valkey 9 and Redis 8 (other
    # Redis versions: checked if the server lists them; Debian's 7.0 has no such call).
    with servers.server([(module, [])]) as (port, _):
        r = redis.Redis(port=port, decode_responses=True)
        r.set_response_callback("COMMAND", lambda reply, **_: reply)  # redis-py's parser drops key specs
        names = [c for c in r.execute_command("COMMAND", "LIST") if c.split(".")[0] in ("bf", "cf", "cbf", "rbf", "lfbf")]
        infos = {i[0]: i for i in r.execute_command("COMMAND", "INFO", *names)}
        reads = {n for n, i in infos.items() if "readonly" in i[2]}
        check(f"COMMAND INFO: each of the {len(names)} commands has its key at 1, read only where the command only reads",
              len(names) == 42 and all(i[8][0]["begin_search"]["spec"]["index"] == 1 and
                                       (i[8][0]["flags"][0] == "RO") == (n in reads) for n, i in infos.items()))
        tipped = {n: i[7] for n, i in infos.items() if i[7]}
        check(f"COMMAND INFO tips: dont-cache on *.INFO, *.DEBUG, *.SCANDUMP, nondeterministic_output on RBF's reads ({tipped})",
              tipped == {**{n: ["dont-cache"] for n in ("bf.info", "cf.info", "cbf.info", "bf.debug", "cf.debug", "bf.scandump",
                                                         "cf.scandump")},
                         **{n: ["nondeterministic_output"] for n in ("rbf.exists", "rbf.mexists", "rbf.info")}})
        check("COMMAND GETKEYS: LFBF.MERGE's destination and sources",
              r.execute_command("COMMAND", "GETKEYS", "LFBF.MERGE", "d", "s1", "s2") == ["d", "s1", "s2"] and
              [k["flags"][0] for k in infos["lfbf.merge"][8]] == ["RW", "RO"])
        server = r.info("server")
        categories = ("valkey_version" in server or int(server["redis_version"].split(".")[0]) >= 8 or
                      "cuckoo" in r.execute_command("ACL", "CAT"))
        if categories:
            check("ACL CAT cuckoo is CF.*, ACL CAT bloom the rest",
                  sorted(r.execute_command("ACL", "CAT", "cuckoo")) == sorted(n for n in names if n.startswith("cf.")) and
                  sorted(r.execute_command("ACL", "CAT", "bloom")) == sorted(n for n in names if not n.startswith("cf.")))
            check("... and each command in @read or @write by its flags, in @fast where it is fast",
                  all(((n in r.execute_command("ACL", "CAT", "read")) == (n in reads)) and
                      ((n in r.execute_command("ACL", "CAT", "write")) == (n not in reads)) and
                      ((n in r.execute_command("ACL", "CAT", "fast")) == ("fast" in infos[n][2])) for n in names))
            r.execute_command("ACL", "SETUSER", "cuckoos", "on", "nopass", "~*", "+@cuckoo")
            user = redis.Redis(port=port, username="cuckoos", password="x", decode_responses=True)
            check("a user of +@cuckoo may CF.ADD, not BF.ADD",
                  user.execute_command("CF.ADD", "k", "i") == 1 and "permission" in (error(user, "BF.ADD", "k2", "i") or ""))
        else:
            print(f"note: Redis {server['redis_version']} has no RedisModule_AddACLCategory: no @bloom or @cuckoo")

    # bad load arguments: the module refuses to load, so the server does not start
    for bad in (["ERROR_RATE", "1"], ["ERROR_RATE", "x"], ["INITIAL_SIZE", "0"], ["EXPANSION", str(1 << 32)],
                ["MAX_BYTES", "-1"], ["MAX_BYTES"], ["CAPACITY", "10"]):
        try:
            with servers.server([(module, bad)]):
                check(f"load arguments {bad} are refused", False)
        except RuntimeError:
            check(f"load arguments {bad} are refused", True)

    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
