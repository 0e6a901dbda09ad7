#!/usr/bin/env python3
"""Turns lfbloom-bench --json output into docs/PERFORMANCE.md's tables and PNG plots.

    build/bin/lfbloom-bench --json > bench.json
    python3 bench/report.py bench.json docs/

Checks the targets of the performance issue as ratios within the one run, and prints them.
Plots need matplotlib (pip install matplotlib); without it only the tables are written.
"""
import json
import os
import platform
import subprocess
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def find(rows, **want):
    for r in rows:
        if all(r.get(k) == v for k, v in want.items()):
            return r
    return None


def ns(rows, **want):
    r = find(rows, **want)
    return r["ns_per_op"] if r else None


def machine():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        keep = ("Model name", "CPU(s):", "L1d", "L2", "L3")
        lines = [l.strip() for l in out.splitlines() if l.strip().startswith(keep)]
    except OSError:
        lines = []
    return lines + [f"kernel {platform.release()}"]


def targets(rows):
    """(name, measured, goal, ok) for each target that the run covers."""
    out = []

    def ratio(name, a, b, goal, higher_is_better=False):
        if a is None or b is None:
            return
        value = a / b
        ok = value >= goal if higher_is_better else value <= goal
        out.append((name, value, ("≥ " if higher_is_better else "≤ ") + f"{goal}", ok))

    c16 = dict(size="cache", key_bytes=16, threads=1)
    ratio("1. blocked contains (absent, batch, in cache) / hashing alone",
          ns(rows, layout="blocked", op="contains-absent", batch=64, **c16),
          ns(rows, layout="hash-only", op="contains-absent", batch=64, **c16), 1.5)
    d16 = dict(size="dram", key_bytes=16, threads=1)
    ratio("2. blocked contains (absent, batch, 2 GiB) / memory floor (batch)",
          ns(rows, layout="blocked", op="contains-absent", batch=64, **d16),
          ns(rows, layout="memory-floor", op="contains-absent", batch=64, **d16), 1.5)
    ratio("2b. the gap batching closes: single / batch contains, 2 GiB",
          ns(rows, layout="blocked", op="contains-absent", batch=1, **d16),
          ns(rows, layout="blocked", op="contains-absent", batch=64, **d16), 1.0, higher_is_better=True)
    ratio("3. atomic add / non-atomic add (in cache, one thread)",
          ns(rows, layout="blocked", op="add", batch=1, **c16),
          ns(rows, layout="nonatomic-blocked", op="add", batch=1, **c16), 1.3)
    ratio("3b. atomic add / non-atomic add (2 GiB, one thread)",
          ns(rows, layout="blocked", op="add", batch=1, **d16),
          ns(rows, layout="nonatomic-blocked", op="add", batch=1, **d16), 1.3)
    d2 = dict(size="dram", key_bytes=16, threads=2)
    ratio("4. contains throughput, 2 threads / 1 thread (2 GiB, batch)",
          ns(rows, layout="blocked", op="contains-absent", batch=64, **d16),
          ns(rows, layout="blocked", op="contains-absent", batch=64, **d2), 1.8, higher_is_better=True)
    ratio("4b. add throughput, 2 threads / 1 thread (2 GiB, batch)",
          ns(rows, layout="blocked", op="add", batch=64, **d16),
          ns(rows, layout="blocked", op="add", batch=64, **d2), 1.6, higher_is_better=True)
    for size in ("cache", "dram"):
        m2 = dict(size=size, key_bytes=16, threads=2, op="mixed", batch=1)
        ratio(f"5. mixed 90/10, 2 threads, {size}: lock-free / std::mutex throughput",
              ns(rows, layout="mutex-blocked", **m2), ns(rows, layout="blocked", **m2), 4, higher_is_better=True)
        ratio(f"5b. mixed 90/10, 2 threads, {size}: lock-free / std::shared_mutex throughput",
              ns(rows, layout="shared-mutex-blocked", **m2), ns(rows, layout="blocked", **m2), 2, higher_is_better=True)
    for size in ("cache", "dram"):
        base = dict(size=size, key_bytes=16, threads=1, batch=64)
        ratio(f"6. counting / blocked contains (present, {size})",
              ns(rows, layout="counting", op="contains-present", **base), ns(rows, layout="blocked", op="contains-present", **base), 1.2)
        ratio(f"6b. counting / blocked add ({size})",
              ns(rows, layout="counting", op="add", **base), ns(rows, layout="blocked", op="add", **base), 2)
        ratio(f"6c. counting remove / blocked add ({size})",
              ns(rows, layout="counting", op="remove", **base), ns(rows, layout="blocked", op="add", **base), 2)
    blocked = find(rows, layout="blocked", op="contains-absent", batch=64, **c16)
    classic = find(rows, layout="classic", op="contains-absent", batch=64, **c16)
    if blocked and classic:
        ratio("7. blocked / classic memory for the same (n, p) = (10^6, 1%)", blocked["bytes"], classic["bytes"], 1.08)
        # Measured FPR against p = 1% with a one-sided binomial bound (z = 3.1, false alarm 0.1%).
        n = blocked["keys"]
        bound = 0.01 + 3.1 * (0.01 * 0.99 / n) ** 0.5
        out.append(("7b. blocked measured FPR at capacity (p = 1%, binomial bound)", blocked["fpr"], f"≤ {bound:.5f}",
                    blocked["fpr"] <= bound))
    for batch in (1, 64):
        kind = "single" if batch == 1 else "batch"
        ratio(f"8. swappable / blocked contains (present, {kind}, in cache): the cost of pinning",
              ns(rows, layout="swappable", op="contains-present", batch=batch, **c16),
              ns(rows, layout="blocked", op="contains-present", batch=batch, **c16), 1.5)
    # Issue 20: an add that costs its atomics, the split-block layout, DRAM near the memory floor.
    ratio("20.1 blocked add / its non-atomic direct add (in cache, single)",
          ns(rows, layout="blocked", op="add", batch=1, **c16), ns(rows, layout="nonatomic-direct-blocked", op="add", batch=1, **c16), 1.5)
    ratio("20.2 split-block add / its non-atomic add (in cache, single)",
          ns(rows, layout="split-block", op="add", batch=1, **c16), ns(rows, layout="nonatomic-split-block", op="add", batch=1, **c16), 2)
    ratio("20.2b split-block add / blocked add (in cache, single)",
          ns(rows, layout="split-block", op="add", batch=1, **c16), ns(rows, layout="blocked", op="add", batch=1, **c16), 0.5)
    for batch in (1, 64):
        ratio(f"20.2c split-block / blocked contains (absent, {'single' if batch == 1 else 'batch'}, in cache)",
              ns(rows, layout="split-block", op="contains-absent", batch=batch, **c16),
              ns(rows, layout="blocked", op="contains-absent", batch=batch, **c16), 0.7)
    for size in ("62MB", "dram"):
        one = dict(size=size, key_bytes=16, threads=1, batch=64)
        floor = ns(rows, layout="memory-floor", op="contains-absent", **one)
        for layout in ("blocked", "split-block"):
            ratio(f"20.5 {layout} batch contains (absent) / memory floor, {size}",
                  ns(rows, layout=layout, op="contains-absent", **one), floor, 1.8)
            ratio(f"20.5b {layout} batch add / memory floor, {size}", ns(rows, layout=layout, op="add", **one), floor, 2.5)
            for op in ("contains-absent", "add"):
                ratio(f"20.5c {layout} batch {op}, 2 threads / 1 thread, {size}",
                      ns(rows, layout=layout, op=op, **one), ns(rows, layout=layout, op=op, **dict(one, threads=2)), 1.8,
                      higher_is_better=True)
    for r in rows:  # fastbloom's AtomicBloomFilter (bench/fastbloom, same keys): our best atomic layout must be faster
        if r["layout"] != "fastbloom-atomic":
            continue
        cell = dict(op=r["op"], size=r["size"], key_bytes=r["key_bytes"], threads=r["threads"], batch=r["batch"])
        ours = [x for x in (ns(rows, layout=l, **cell) for l in ("blocked", "split-block")) if x]
        if ours:
            ratio(f"20.6 best lfbloom / fastbloom ({r['op']}, {r['size']}, {r['key_bytes']}B, "
                  f"{'single' if r['batch'] == 1 else 'batch'}, {r['threads']}t)", min(ours), r["ns_per_op"], 1.0)
    # Issue 38: Boost.Bloom in our shapes (boost_peer.hpp), same bits, k, hash and keys, in the same run.
    ours_for = {"boost-block": "blocked", "boost-fmb32": "split-block", "mutex-boost-block": "blocked"}
    for r in rows:
        if r["layout"] not in ours_for or r["op"] == "build":
            continue
        cell = dict(op=r["op"], size=r["size"], key_bytes=r["key_bytes"], threads=r["threads"], batch=r["batch"])
        goal = 1.0 if r["layout"].startswith("mutex-") else 1.1 if r["op"].startswith("contains") else 2.0
        ratio(f"38. {ours_for[r['layout']]} / {r['layout']} ({r['op']}, {r['size']}, "
              f"{'single' if r['batch'] == 1 else 'batch'}, {r['threads']}t)",
              ns(rows, layout=ours_for[r["layout"]], **cell), r["ns_per_op"], goal)
    # Issue 38: bulk builds (add_bulk) of the bench's build sizes, against Boost's bulk insert, the
    # random-write floor (after hashing, which both pay) and themselves at 2 threads.
    for size in sorted({r["size"] for r in rows if r["op"] == "build"}):
        built = {(r["layout"], r["threads"]): r["ns_per_op"] for r in rows if r["op"] == "build" and r["size"] == size}
        hashing = built.get(("hash-only", 1))
        floor = ns(rows, layout="memory-floor", op="add", size=size, key_bytes=16, threads=1, batch=64)
        for layout, peer in (("blocked", "boost-block"), ("split-block", "boost-fmb32")):
            one, two = built.get((layout, 1)), built.get((layout, 2))
            ratio(f"38. {layout} bulk build / {peer} bulk insert ({size}, 1t)", one, built.get((peer, 1)), 1.0)
            if one and hashing and floor:
                ratio(f"38. {layout} bulk build less hashing / random-write floor ({size}, 1t)", one - hashing, floor, 0.7)
            ratio(f"38. {layout} bulk build, 2 threads / 1 thread ({size})", one, two, 1.8, higher_is_better=True)
    return out


def frontier(rows):
    """{layout: [(k, bits per key, add ns, contains ns, fpr)]} from the bench's frontier cases."""
    points = {}
    for r in rows:
        if r["size"] != "frontier" or r["op"] != "add":
            continue
        layout, k = r["layout"].rsplit("-k", 1)
        lookup = find(rows, layout=r["layout"], op="contains-absent", size="frontier")
        if lookup:
            points.setdefault(layout, []).append((int(k), 8 * r["bytes"] / r["keys"], r["ns_per_op"], lookup["ns_per_op"], lookup["fpr"]))
    return points


def frontier_table(rows):
    lines = ["| layout | k | bits/key at 1% | add ns | contains (absent) ns | measured FPR |", "|---|---|---|---|---|---|"]
    for layout, pts in frontier(rows).items():
        for k, bits, add, lookup, fpr in sorted(pts):
            lines.append(f"| {layout} | {k} | {bits:.2f} | {add:.1f} | {lookup:.1f} | {100 * fpr:.3f}% |")
    return "\n".join(lines)


def table(rows, size):
    lines = ["| layout | op | key bytes | single ns/op | batch ns/op | FPR |", "|---|---|---|---|---|---|"]
    seen = set()
    for r in rows:
        if r["size"] != size or r["threads"] != 1 or r["op"] == "mixed":
            continue
        key = (r["layout"], r["op"], r["key_bytes"])
        if key in seen:
            continue
        seen.add(key)
        single = ns(rows, layout=r["layout"], op=r["op"], key_bytes=r["key_bytes"], size=size, threads=1, batch=1)
        batch = ns(rows, layout=r["layout"], op=r["op"], key_bytes=r["key_bytes"], size=size, threads=1, batch=64)
        fpr = r.get("fpr")
        lines.append(f"| {r['layout']} | {r['op']} | {r['key_bytes']} | "
                     f"{'%.1f' % single if single else '–'} | {'%.1f' % batch if batch else '–'} | "
                     f"{'%.3f%%' % (100 * fpr) if fpr is not None else ''} |")
    return "\n".join(lines)


def threads_table(rows):
    lines = ["| layout | size | op | batch | 1 thread | 2 threads | 4 threads | 8 threads (Mops/s) |", "|---|---|---|---|---|---|---|---|"]
    seen = set()
    for r in rows:
        key = (r["layout"], r["size"], r["op"], r["batch"])
        if r["threads"] == 1 or key in seen:
            continue
        seen.add(key)
        cells = []
        for t in (1, 2, 4, 8):
            x = find(rows, layout=r["layout"], size=r["size"], op=r["op"], batch=r["batch"], key_bytes=16, threads=t)
            cells.append("%.1f" % (x["ops_per_sec"] / 1e6) if x else "–")
        lines.append(f"| {r['layout']} | {r['size']} | {r['op']} | {r['batch']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plots(rows, out_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: tables only", file=sys.stderr)
        return []
    made = []
    # 1. ns/op by layout and size.
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, size in zip(axes, ("cache", "dram")):
        labels, single, batch = [], [], []
        for layout in ("classic", "blocked", "counting"):
            for op in ("add", "contains-present", "contains-absent"):
                s = ns(rows, layout=layout, op=op, size=size, key_bytes=16, threads=1, batch=1)
                b = ns(rows, layout=layout, op=op, size=size, key_bytes=16, threads=1, batch=64)
                if s or b:
                    labels.append(f"{layout}\n{op.replace('contains-', '')}")
                    single.append(s or 0)
                    batch.append(b or 0)
        xs = range(len(labels))
        ax.bar([x - 0.2 for x in xs], single, 0.4, label="single calls")
        ax.bar([x + 0.2 for x in xs], batch, 0.4, label="batch calls")
        ax.set_xticks(list(xs), labels, fontsize=7)
        ax.set_ylabel("ns per operation (16-byte keys)")
        ax.set_title("filter in cache (10^6 keys, 1%)" if size == "cache" else "filter of 2 GiB (beyond the LLC)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir, "ns-per-op.png")
    fig.savefig(path, dpi=110)
    made.append(path)
    # 2. throughput by threads against the locked baselines (mixed 90/10).
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, size in zip(axes, ("cache", "dram")):
        for layout in ("blocked", "shared-mutex-blocked", "mutex-blocked"):
            pts = [(t, find(rows, layout=layout, size=size, op="mixed", key_bytes=16, threads=t, batch=1)) for t in (1, 2, 4, 8)]
            pts = [(t, r["ops_per_sec"] / 1e6) for t, r in pts if r]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=layout)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("threads (2 cores: 4 and 8 oversubscribe)")
        ax.set_ylabel("M operations / s (90% contains, 10% add)")
        ax.set_title(f"mixed workload, filter {'in cache' if size == 'cache' else 'of 2 GiB'}")
        ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(out_dir, "threads.png")
    fig.savefig(path, dpi=110)
    made.append(path)
    # 3. distance to the memory floor.
    fig, ax = plt.subplots(figsize=(6, 4))
    labels, values = [], []
    for layout, op, batch in (("memory-floor", "contains-absent", 1), ("memory-floor", "contains-absent", 64),
                              ("blocked", "contains-absent", 1), ("blocked", "contains-absent", 64),
                              ("classic", "contains-absent", 1), ("classic", "contains-absent", 64)):
        v = ns(rows, layout=layout, op=op, size="dram", key_bytes=16, threads=1, batch=batch)
        if v:
            labels.append(f"{layout}\n{'batch' if batch > 1 else 'single'}")
            values.append(v)
    ax.bar(labels, values, color=["gray", "gray", "C0", "C0", "C1", "C1"][: len(values)])
    ax.set_ylabel("ns per query (2 GiB, one thread)")
    ax.set_title("distance to the memory floor")
    ax.tick_params(axis="x", labelsize=7)
    fig.tight_layout()
    path = os.path.join(out_dir, "memory-floor.png")
    fig.savefig(path, dpi=110)
    made.append(path)
    # 4. the layout frontier: memory against add and lookup time, one point per layout and k.
    points = frontier(rows)
    if points:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True)
        for ax, column, what in ((axes[0], 2, "add"), (axes[1], 3, "contains (absent key)")):
            for i, (layout, pts) in enumerate(points.items()):
                pts = sorted(pts)  # in k order
                ax.plot([p[1] for p in pts], [p[column] for p in pts], marker="o", color=f"C{i}", label=layout)
                for p in pts:
                    ax.annotate(f"k={p[0]}", (p[1], p[column]), fontsize=6, xytext=(3, 3), textcoords="offset points")
            ax.set_xlabel("bits per key for p = 1% (the layout's exact FPR model)")
            ax.set_ylabel(f"ns per {what}, single calls")
            ax.set_title(f"{what}: 10^6 keys, filter in cache")
            ax.set_ylim(bottom=0)
            ax.legend(fontsize=7)
        fig.tight_layout()
        path = os.path.join(out_dir, "frontier.png")
        fig.savefig(path, dpi=110)
        made.append(path)
    return made


def main():
    rows = load(sys.argv[1])
    out_dir = sys.argv[2] if len(sys.argv) > 2 else "docs"
    os.makedirs(os.path.join(out_dir, "perf"), exist_ok=True)
    images = plots(rows, os.path.join(out_dir, "perf"))
    checked = targets(rows)
    for name, value, goal, ok in checked:
        print(f"{'PASS' if ok else 'MISS'}  {name}: {value:.3g} (target {goal})")
    md = ["## Results of the last full run", "", "Machine:", ""] + [f"- {l}" for l in machine()] + ["",
          "### Targets (ratios within this run)", "", "| target | measured | goal | |", "|---|---|---|---|"]
    md += [f"| {n} | {v:.3g} | {g} | {'met' if ok else '**missed**'} |" for n, v, g, ok in checked]
    md += ["", "### One thread, filter in cache (10^6 keys at 1%)", "", table(rows, "cache"),
           "", "### One thread, filters of 2 GiB", "", table(rows, "dram"),
           "", "### One thread, filters of 62 MB (batch calls)", "", table(rows, "62MB"),
           "", "### The layout frontier (in cache, p = 1%)", "", frontier_table(rows),
           "", "### Threads", "", threads_table(rows), ""]
    md += [f"![{os.path.basename(p)}](perf/{os.path.basename(p)})" for p in images]
    with open(os.path.join(out_dir, "perf", "results.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"wrote {out_dir}/perf/results.md and {len(images)} plots")


if __name__ == "__main__":
    main()
