"""A Redis Cluster of three primaries on 127.0.0.1 (AOF on), driven through redis-py's cluster
client: filters spread over every node, adds and answers through the client, redirection of every
BF.* command by its key, hash-tagged keys on one node, and a primary's restart (from its AOF, back
into the cluster with its nodes.conf) that changes no filter; CF keys likewise (redirection, digests,
CF.INFO and answers across the restart). Usage: cluster.py MODULE"""
import contextlib
import pathlib
import sys
import tempfile
import time

import redis
from redis.cluster import RedisCluster

import checks
import servers
from checks import ask, check

SLOTS = [(0, 5460), (5461, 10922), (10923, 16383)]  # as redis-cli --cluster create splits them
KEYS = [f"filter:{n}" for n in range(60)]
TAGGED = ["{user}:a", "{user}:b"]
CF_KEYS = [f"cuckoo:{n}" for n in range(12)]


class Node:
    def __init__(self, directory, slots):
        self.directory, self.slots = directory, slots
        self.port, self.bus = servers.free_port(), servers.free_port()  # the bus port: not port + 10000, which may not exist
        self.stack = contextlib.ExitStack()  # the running server; closing it stops the server

    def start(self, module):
        extra = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-port", str(self.bus),
                 "--cluster-announce-ip", "127.0.0.1", "--appendonly", "yes"]
        self.stack.enter_context(servers.server([(module, [])], extra=extra, directory=self.directory, port=self.port))
        self.r = redis.Redis(port=self.port)

    def owns(self, slot):
        return self.slots[0] <= slot <= self.slots[1]


def cluster_ok(nodes, timeout=30):
    """Every node says cluster_state:ok, knows three primaries and every slot."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        infos = []
        for node in nodes:
            with contextlib.suppress(redis.RedisError):
                infos.append(node.r.cluster("INFO"))
        if len(infos) == len(nodes) and all(
                i["cluster_state"] == "ok" and int(i["cluster_known_nodes"]) == 3 and int(i["cluster_size"]) == 3
                and int(i["cluster_slots_ok"]) == 16384 for i in infos):
            return True
        time.sleep(0.1)
    return False


def owner(nodes, key):
    slot = nodes[0].r.execute_command("CLUSTER KEYSLOT", key)
    return next(node for node in nodes if node.owns(slot))


def absent(key):
    return [f"{key}-absent{n}" for n in range(200)]


def snapshot(rc, nodes, items):
    """Per key: its digest (from its node), BF.CARD, BF.INFO and its answers (through the cluster
    client); per node: DBSIZE and DEBUG DIGEST."""
    keys = {key: (owner(nodes, key).r.execute_command("DEBUG", "DIGEST-VALUE", key)[0],
                  ask(rc, "BF.CARD", key),
                  ask(rc, "BF.INFO", key),
                  ask(rc, "BF.MEXISTS", key, *added),
                  ask(rc, "BF.MEXISTS", key, *absent(key)))
            for key, added in items.items()}
    return keys, [(node.r.dbsize(), node.r.execute_command("DEBUG DIGEST")) for node in nodes]


def cf_snapshot(rc, nodes):
    """Per CF key: its digest (from its node), CF.INFO and its answers (through the cluster client)."""
    return {key: (owner(nodes, key).r.execute_command("DEBUG", "DIGEST-VALUE", key)[0], ask(rc, "CF.INFO", key),
                  [int(v) for v in rc.execute_command("CF.MEXISTS", key, *[f"{key}-c{i}" for i in range(60)])])
            for key in CF_KEYS}


def redirected(node, *command):
    """A command for a key of another node gets MOVED, not an answer."""
    try:
        node.r.execute_command(*command)
        return False
    except redis.ResponseError as e:
        return str(e).startswith("MOVED") or type(e).__name__ == "MovedError"


def main():
    module = pathlib.Path(sys.argv[1]).resolve()  # the servers run in their directories
    with contextlib.ExitStack() as stack:
        nodes = [Node(stack.enter_context(tempfile.TemporaryDirectory()), slots) for slots in SLOTS]
        for node in nodes:
            stack.enter_context(node.stack)  # stopped at exit, whatever happens
            node.start(module)
        # what redis-cli --cluster create does: distinct config epochs, slots, MEET
        for epoch, node in enumerate(nodes, 1):
            node.r.execute_command("CLUSTER SET-CONFIG-EPOCH", epoch)
            node.r.execute_command("CLUSTER ADDSLOTSRANGE", *node.slots)
        for node in nodes[1:]:
            nodes[0].r.execute_command("CLUSTER MEET", "127.0.0.1", node.port, node.bus)
        started = time.monotonic()
        check("the cluster forms (cluster_state:ok on every node)", cluster_ok(nodes))
        print(f"      ({time.monotonic() - started:.1f} s)")
        if checks.failures:
            return checks.finish()

        rc = RedisCluster(host="127.0.0.1", port=nodes[0].port)
        stack.callback(rc.close)
        check("the cluster client sees three primaries",
              sorted(n.port for n in rc.get_primaries()) == sorted(n.port for n in nodes))

        # Filters made every way, spread over the slots; adds single, MADD and INSERT.
        items = {}
        for n, key in enumerate(KEYS):
            added = [f"{key}-item{i}" for i in range(40 + 10 * n)]
            if n % 3 == 0:
                rc.execute_command("BF.RESERVE", key, 0.01, 20, "EXPANSION", 2)  # grows to several sub-filters
            elif n % 3 == 1:
                rc.execute_command("BF.INSERT", key, "CAPACITY", 50, "ERROR", 0.001, "ITEMS", *added[:5])
            rc.execute_command("BF.ADD", key, added[0])  # creates the n % 3 == 2 ones
            rc.execute_command("BF.MADD", key, *added[1:len(added) // 2])
            rc.execute_command("BF.INSERT", key, "NOCREATE", "ITEMS", *added[len(added) // 2:])
            items[key] = added
        pipe = rc.pipeline(transaction=False)  # a cluster pipeline: commands for many nodes at once
        for key in KEYS:
            pipe.execute_command("BF.ADD", key, f"{key}-piped")
            items[key].append(f"{key}-piped")
        check("a cluster pipeline of BF.ADD answers for every key", all(v == 1 for v in pipe.execute()))

        counts = [node.r.dbsize() for node in nodes]
        check(f"the filters are on every node ({counts} keys)", all(c > 0 for c in counts) and sum(counts) == len(KEYS))
        check("each filter is on the node owning its slot",
              all(owner(nodes, key).r.exists(key) for key in KEYS)
              and all(node.r.execute_command("CLUSTER COUNTKEYSINSLOT", node.r.execute_command("CLUSTER KEYSLOT", key))
                      == (1 if node.owns(node.r.execute_command("CLUSTER KEYSLOT", key)) else 0)
                      for key in KEYS[:6] for node in nodes))

        # CF keys spread over the slots too: grown, deleted from
        for n, key in enumerate(CF_KEYS):
            rc.execute_command("CF.INSERT", key, "CAPACITY", 20 + n, "ITEMS", *[f"{key}-c{i}" for i in range(60)])
            rc.execute_command("CF.DEL", key, f"{key}-c0")
        check("CF commands sent to the wrong node get MOVED",
              all(redirected(next(node for node in nodes if node is not owner(nodes, key)), *command)
                  for key in CF_KEYS[:3] for command in (("CF.ADD", key, "x"), ("CF.EXISTS", key, "x"),
                                                         ("CF.INSERT", key, "ITEMS", "x"), ("CF.DEL", key, "x"))))

        # Hash tags: two filters in one slot, so on one node; a transaction on both.
        slots = {nodes[0].r.execute_command("CLUSTER KEYSLOT", key) for key in TAGGED}
        rc.execute_command("BF.RESERVE", TAGGED[0], 0.001, 100)
        tx = rc.pipeline(transaction=True)
        for key in TAGGED:
            tx.execute_command("BF.MADD", key, *[f"{key}-u{i}" for i in range(300)])
        replies = tx.execute()
        check("a transaction (MULTI/EXEC) on both adds everything",
              len(replies) == 2 and all(len(reply) == 300 and all(v == 1 for v in reply) for reply in replies))
        for key in TAGGED:
            items[key] = [f"{key}-u{i}" for i in range(300)]
        holders = [node.port for node in nodes if node.r.execute_command("CLUSTER COUNTKEYSINSLOT", min(slots)) == 2]
        check(f"hash-tagged keys share a slot and a node ({slots}, node {holders})", len(slots) == 1 and len(holders) == 1)

        # Every BF.* command finds its key's node: sent elsewhere, it is redirected.
        key = KEYS[0]
        elsewhere = next(node for node in nodes if node is not owner(nodes, key))
        size = elsewhere.r.dbsize()
        check("BF.* commands sent to the wrong node get MOVED",
              all(redirected(elsewhere, *command) for command in (
                  ("BF.ADD", key, "x"), ("BF.MADD", key, "x", "y"), ("BF.INSERT", key, "ITEMS", "x"),
                  ("BF.RESERVE", key, 0.01, 10), ("BF.EXISTS", key, "x"), ("BF.MEXISTS", key, "x"),
                  ("BF.CARD", key), ("BF.INFO", key), ("BF.SCANDUMP", key, 0), ("LFBF.RESTORE", key, b""))))
        check("... and change nothing there", elsewhere.r.dbsize() == size
              and elsewhere.r.execute_command("CLUSTER COUNTKEYSINSLOT", elsewhere.r.execute_command("CLUSTER KEYSLOT", key)) == 0)

        before, node_state = snapshot(rc, nodes, items)
        cf_before = cf_snapshot(rc, nodes)
        check("CF keys answer for every item but the deleted one",
              all(v[2] == [0] + [1] * 59 for v in cf_before.values()) and len({v[0] for v in cf_before.values()}) == len(CF_KEYS))
        check("no false negatives through the cluster client", all(all(v == 1 for v in s[3]) for s in before.values()))
        subs = [(s[2] if isinstance(s[2], dict) else dict(zip(s[2][::2], s[2][1::2])) if isinstance(s[2], list) else {})
                .get(b"Number of filters", 0) for s in before.values()]
        check(f"some filters grew to several sub-filters (up to {max(subs)})", max(subs) >= 4)
        check("the filters' digests all differ", len({s[0] for s in before.values()}) == len(before))

        # Restart a primary: it stops (its AOF flushed, no RDB), starts on the same port and
        # directory, replays its AOF and rejoins the cluster from its nodes.conf.
        restarted = nodes[1]
        mine = [key for key in items if owner(nodes, key) is restarted]
        check(f"the node to restart holds filters ({len(mine)}, the hash-tagged ones among them)",
              len(mine) > 2 and all(key in mine for key in TAGGED))
        myid = restarted.r.execute_command("CLUSTER MYID")
        restarted.stack.close()
        check("the stopped node left no RDB (the restart replays its AOF)",
              not (pathlib.Path(restarted.directory) / "dump.rdb").exists()
              and (pathlib.Path(restarted.directory) / "nodes.conf").is_file())
        restarted.start(module)
        started = time.monotonic()
        check("the restarted primary rejoins (cluster_state:ok on every node)", cluster_ok(nodes))
        print(f"      ({time.monotonic() - started:.1f} s)")
        check("... as the same node (its nodes.conf)", restarted.r.execute_command("CLUSTER MYID") == myid)
        log = (pathlib.Path(restarted.directory) / "server.log").read_text(errors="replace")
        check("the restarted node loaded its AOF", "DB loaded from append only file" in log)

        after, node_after = snapshot(rc, nodes, items)
        for i, aspect in enumerate(("digest", "BF.CARD", "BF.INFO", "answers for added items", "answers for absent items")):
            differ = [k for k in items if after[k][i] != before[k][i]]
            check(f"after the restart every filter's {aspect} is unchanged ({len(mine)} on the restarted node)"
                  + (f" (differ: {differ[:5]})" if differ else ""), not differ)
        check("... and every node's DBSIZE and DEBUG DIGEST", node_after == node_state)
        check("... and every CF key's digest, CF.INFO and answers", cf_snapshot(rc, nodes) == cf_before)

        # New adds through the same cluster client, on every node, the restarted one included.
        new = {key: [f"{key}-late{i}" for i in range(20)] for key in items}
        for key, added in new.items():
            rc.execute_command("BF.MADD", key, *added)
        rc.execute_command("BF.ADD", "filter:new", "x")
        check("adds after the restart land and answer",
              all(all(rc.execute_command("BF.MEXISTS", key, *added)) for key, added in new.items())
              and rc.execute_command("BF.EXISTS", "filter:new", "x") == 1)
        check("... and change the restarted node's filters",
              all(restarted.r.execute_command("DEBUG", "DIGEST-VALUE", key)[0] != before[key][0] for key in mine))

        for node in nodes:
            log = (pathlib.Path(node.directory) / "server.log").read_text(errors="replace")
            bad = [line for line in log.splitlines()
                   if any(s in line for s in ("crashed", "Guru Meditation", "ASSERTION", "BUG REPORT", "Bad file format",
                                              "Bad data format", "Short read", "Internal error", "<lfbloom>"))]
            check(f"node {node.port}: the log shows no crash or load error" + (f" ({bad[:3]})" if bad else ""), not bad)

    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
