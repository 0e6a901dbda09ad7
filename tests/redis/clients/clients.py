"""Real clients, unchanged, against the module: each scenario drives BF.* through a client's own API
and asserts what its typed results say. Usage: clients.py MODULE NAME [WORKDIR]
  python: redis-py's r.bf() and r.cf(), here, under RESP2, RESP3, and RESP3 with redis-py's unified replies
  java:   Jedis and Redisson (JUnit 5, java/), Maven's output under WORKDIR
  go:     go-redis v9 (go/)
The server is started here (servers.py, so $LFBLOOM_SERVER picks Valkey) and its port handed to
the Java and Go tests as $LFBLOOM_REDIS_PORT; $MVN and $GO name the tools (else found on $PATH).
MODULE may be RedisBloom's .so too: the scenarios hold for both (sizes aside), which tells a
client's quirk from a module's bug."""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import redis
from redis.commands.bf.info import BFInfo, CFInfo

here = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(here.parent))
import servers  # noqa: E402

failures = []


def report(what, ok, detail):
    print(("ok    " if ok else "FAIL  ") + f"{what}: {detail}")
    if not ok:
        failures.append(what)


def check(what, got, want):
    """got == want, of the same type (1 is not True: RESP2 and RESP3 replies differ there)."""
    ok = got == want and type(got) is type(want)
    shown = repr(got) if len(repr(got)) < 100 else repr(got)[:96] + " ..."
    report(what, ok, shown if ok else f"{got!r}, want {want!r}")


def error(what, call, text):
    """call() must raise redis-py's ResponseError with `text` in its message."""
    try:
        got = f"no error but {call()!r}"
    except redis.ResponseError as e:
        got = f"ResponseError {e}"
    report(what, got.startswith("ResponseError") and text in got, f"{got} (want a ResponseError with {text!r})")


def fields(info):
    """BF.INFO's five fields by name, from redis-py's BFInfo or from a raw RESP3 map."""
    if isinstance(info, BFInfo):
        return {"Capacity": info.capacity, "Size": info.size, "Number of filters": info.filterNum,
                "Number of items inserted": info.insertedNum, "Expansion rate": info.expansionRate}
    return {(k.decode() if isinstance(k, bytes) else k): v for k, v in info.items()}


def python(port):
    variants = [("RESP2", dict(protocol=2), int),
                ("RESP3 decoded", dict(protocol=3, decode_responses=True), bool),
                ("RESP3 unified", dict(protocol=3, legacy_responses=False), bool)]
    for label, options, boolean in variants:
        r = redis.Redis(port=port, **options)
        r.flushall()
        bf = r.bf()
        yes, no = boolean(1), boolean(0)

        def say(what):
            return f"[{label}] {what}"

        check(say("reserve"), bf.create("k", 0.001, 1000), True)
        error(say("reserve on an existing key"), lambda: bf.create("k", 0.001, 1000), "item exists")
        check(say("add"), bf.add("k", "a"), yes)
        check(say("add again"), bf.add("k", "a"), no)
        check(say("madd"), bf.madd("k", "a", "b", "c"), [no, yes, yes])
        check(say("exists"), bf.exists("k", "b"), yes)
        check(say("exists, never added"), [bf.exists("k", f"never-{n}") for n in range(10)], [no] * 10)
        check(say("mexists"), bf.mexists("k", "a", "b", "c", "x", "y"), [yes, yes, yes, no, no])
        check(say("card"), bf.card("k"), 3)
        check(say("card of a missing key"), bf.card("missing"), 0)
        info = fields(bf.info("k"))
        size = info.pop("Size")
        check(say("info"), info, {"Capacity": 1000, "Number of filters": 1, "Number of items inserted": 3,
                                  "Expansion rate": 2})
        check(say("info Size is a positive integer"), isinstance(size, int) and size > 0, True)
        # redis-py has no single-field BF.INFO: a client without bf()'s callbacks sends it as is
        plain = redis.Redis(port=port, **options)
        singles = {}
        for word, name in [("CAPACITY", "Capacity"), ("SIZE", "Size"), ("FILTERS", "Number of filters"),
                           ("ITEMS", "Number of items inserted"), ("EXPANSION", "Expansion rate")]:
            reply = plain.execute_command("BF.INFO", "k", word)
            singles[name] = reply[0] if isinstance(reply, list) else fields(reply)[name]
        check(say("info, field by field"), singles, dict(info, Size=size))
        error(say("info of a missing key"), lambda: bf.info("missing"), "not found")

        check(say("insert"), bf.insert("ins", ["x", "y", "x"], capacity=100, error=0.01, expansion=4), [yes, yes, no])
        check(say("insert's options"), {k: v for k, v in fields(bf.info("ins")).items() if k != "Size"},
              {"Capacity": 100, "Number of filters": 1, "Number of items inserted": 2, "Expansion rate": 4})
        error(say("insert NOCREATE on a missing key"), lambda: bf.insert("missing", ["x"], noCreate=True), "not found")

        check(say("reserve NONSCALING"), bf.create("fixed", 0.01, 10, noScale=True), True)
        check(say("NONSCALING: no expansion rate"), fields(bf.info("fixed"))["Expansion rate"], None)
        added, refusal = 0, None
        try:
            for n in range(20):
                added += int(bf.add("fixed", f"f{n}"))
        except redis.ResponseError as e:
            refusal = e
        report(say("a full NONSCALING filter refuses"), "full" in str(refusal), repr(refusal))
        check(say("... once it holds its capacity"), (added, bf.card("fixed")), (10, 10))
        # BF.MADD's array holds the error for an item refused: redis-py gives it as a ResponseError
        refusal = bf.madd("fixed", "one-more")
        ok = len(refusal) == 1 and isinstance(refusal[0], redis.ResponseError) and "full" in str(refusal[0])
        report(say("madd into a full NONSCALING filter"), ok, repr(refusal))

        check(say("reserve a filter that grows"), bf.create("grow", 0.01, 100), True)
        items = [f"g{n}" for n in range(250)]
        bf.madd("grow", *items)
        grown = fields(bf.info("grow"))
        check(say("grown: sub-filters, capacity 100 + 200"), (grown["Number of filters"], grown["Capacity"]), (2, 300))
        check(say("grown: items inserted is BF.CARD"), grown["Number of items inserted"], bf.card("grow"))
        check(say("grown: about 250 items"), 240 <= bf.card("grow") <= 250, True)
        check(say("grown: every item present"), bf.mexists("grow", *items), [yes] * 250)

        # SCANDUMP into LOADCHUNK: chunks are binary, bytes even when replies are decoded
        chunks = dump(bf, "grow")
        check(say("scandump chunks are bytes"), all(isinstance(d, bytes) and d for _, d in chunks), True)
        check(say("scandump has a non-UTF-8 chunk"), any(not utf8(d) for _, d in chunks), True)
        for cursor, data in chunks:
            ok = "OK" if options.get("decode_responses") else b"OK"
            check(say(f"loadchunk {cursor}"), bf.loadchunk("copy", cursor, data), ok)
        check(say("the copy's info"), fields(bf.info("copy")), grown)
        check(say("the copy's items"), bf.mexists("copy", *items), [yes] * 250)
        check(say("the copy is independent"), (bf.add("copy", "new"), bf.exists("grow", "new")), (yes, no))

        r.set("string", "v")
        error(say("add to a string"), lambda: bf.add("string", "x"), "WRONGTYPE")
        cuckoo(r, say, yes, no, options)
        r.close()
        plain.close()


def cf_fields(info):
    """CF.INFO's fields by name but Size and Number of buckets (ours), from redis-py's CFInfo or a raw map."""
    if isinstance(info, CFInfo):
        return {"Number of filters": info.filterNum, "Number of items inserted": info.insertedNum,
                "Number of items deleted": info.deletedNum, "Bucket size": info.bucketSize,
                "Expansion rate": info.expansionRate, "Max iterations": info.maxIteration}
    return {k: v for k, v in fields(info).items() if k not in ("Size", "Number of buckets")}


def cuckoo(r, say, yes, no, options):
    """redis-py's r.cf(): every call it has, replies typed as RedisBloom's are."""
    cf = r.cf()
    check(say("cf reserve"), cf.create("cf", 1000, bucket_size=4, max_iterations=50, expansion=2), True)
    check(say("cf add"), cf.add("cf", "a"), yes)
    check(say("cf add a duplicate"), cf.add("cf", "a"), yes)
    check(say("cf addnx"), (cf.addnx("cf", "a"), cf.addnx("cf", "b")), (no, yes))
    check(say("cf count"), (cf.count("cf", "a"), cf.count("cf", "b"), cf.count("cf", "z")), (2, 1, 0))
    check(say("cf exists"), (cf.exists("cf", "a"), cf.exists("cf", "z")), (yes, no))
    check(say("cf mexists"), cf.mexists("cf", "a", "b", "z"), [yes, yes, no])
    check(say("cf delete"), (cf.delete("cf", "a"), cf.delete("cf", "z")), (yes, no))
    check(say("cf insert"), cf.insert("cf-ins", ["x", "y", "x"], capacity=100), [yes, yes, yes])
    check(say("cf insertnx"), cf.insertnx("cf-ins", ["x", "w"]), [0, 1])
    error(say("cf insert nocreate"), lambda: cf.insert("cf-nope", ["x"], nocreate=True), "not found")
    check(say("cf info"), cf_fields(cf.info("cf")), {"Number of filters": 1, "Number of items inserted": 2,
          "Number of items deleted": 1, "Bucket size": 4, "Expansion rate": 2, "Max iterations": 50})
    items = [f"item{n}" for n in range(3000)]
    cf.insert("cf", items)
    check(say("cf grown: every item present"), cf.mexists("cf", *items), [yes] * 3000)
    if options.get("decode_responses"):
        # redis-py's cf.scandump, unlike bf.scandump, decodes the binary pieces (RedisBloom's too) and fails
        error(say("cf add to a string"), lambda: cf.add("string", "x"), "WRONGTYPE")
        return
    chunks = dump(cf, "cf")
    check(say("cf scandump chunks are bytes"), all(isinstance(d, bytes) and d for _, d in chunks), True)
    for cursor, data in chunks:
        check(say(f"cf loadchunk {cursor}"), cf.loadchunk("cf-copy", cursor, data), "OK" if options.get("decode_responses") else b"OK")
    check(say("the cf copy's info"), cf_fields(cf.info("cf-copy")), cf_fields(cf.info("cf")))
    check(say("the cf copy's items"), cf.mexists("cf-copy", *items), [yes] * 3000)
    error(say("cf add to a string"), lambda: cf.add("string", "x"), "WRONGTYPE")


def dump(client, key):
    """Every (cursor, data) of client.scandump(key) (redis-py's bf or cf), in order."""
    chunks, cursor = [], 0
    while True:
        cursor, data = client.scandump(key, cursor)
        if cursor == 0:
            return chunks
        chunks.append((cursor, data))


def utf8(data):
    try:
        data.decode()
        return True
    except UnicodeDecodeError:
        return False


def run(command, cwd, env):
    print("$ " + " ".join(command), flush=True)
    done = subprocess.run(command, cwd=cwd, env={**os.environ, **env})
    if done.returncode != 0:
        failures.append(f"{command[0]} exited {done.returncode}")


def main():
    module, name = sys.argv[1], sys.argv[2]
    if name not in ("python", "java", "go"):
        sys.exit(f"unknown scenario {name}: python, java or go")
    with tempfile.TemporaryDirectory() as scratch, servers.server([(module, [])]) as (port, _):
        workdir = pathlib.Path(sys.argv[3] if len(sys.argv) > 3 else scratch)
        server = redis.Redis(port=port).info("server")
        print(f"{server.get('server_name', 'redis')} {server.get('valkey_version', server['redis_version'])} on port {port}")
        env = {"LFBLOOM_REDIS_PORT": str(port)}
        if name == "python":
            python(port)
        elif name == "java":
            # -DbuildDirectory: the pom's <build><directory>, so target/ stays out of the source tree
            reports = workdir / "java" / "surefire-reports"
            shutil.rmtree(reports, ignore_errors=True)
            run([os.environ.get("MVN", "mvn"), "-B", "-q", f"-DbuildDirectory={workdir / 'java'}", "test"],
                here / "java", env)
            for report in sorted(reports.glob("*.txt")):  # Surefire's summary, which -q keeps quiet
                print(report.read_text().strip().splitlines()[-1])
        else:
            # -vet=off: this scenario checks the module's replies, not clients_test.go's style
            run([os.environ.get("GO", "go"), "test", "-vet=off", "-count=1", "-v", "./..."], here / "go", env)
    print(f"{name}: {len(failures)} failed: {failures}" if failures else f"{name}: all passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
