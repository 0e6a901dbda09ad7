#!/usr/bin/env python3
"""Mutation proof for the Relacy checks: each mutant breaks one guard of the core (in a copy of
core/include), is compiled into the program holding the check for that guard, and must make that
check fail with a verdict about the code (an assertion, a data race, an access to freed or
uninitialized memory), where the unmutated program passes it. A mutant whose code no longer matches fails too, so the
list keeps up with the code.

Usage: mutants.py --cxx g++ --flags="-O0 ..." --core core/include --relacy /usr/include --bin build/bin [--boost DIR]
       [--program-flags PROGRAM=FLAGS ...] [--jobs 2] [--only NAME] [--no-baseline]
"""
import argparse
import concurrent.futures
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent

# (name, header, original text, mutated text, program, check or tuple of checks: each must fail)
MUTANTS = [
    ("swappable: guard loads current_ before staged_ (defect 1)",
     "swappable_filter.hpp",
     "        Filter* staged_;  // declared (so initialized) before filter_: the load order matters\n"
     "        Filter* filter_;\n",
     "        Filter* filter_;\n        Filter* staged_;\n",
     "swappable", "swappable.rebuild"),
    ("swappable: the guard announces itself after loading the pointers",
     "swappable_filter.hpp",
     "        typename detail::reader_registry<Sync>::token token_;\n"
     "        Filter* staged_;  // declared (so initialized) before filter_: the load order matters\n"
     "        Filter* filter_;\n",
     "        Filter* staged_;  // declared (so initialized) before filter_: the load order matters\n"
     "        Filter* filter_;\n        typename detail::reader_registry<Sync>::token token_;\n",
     "swappable", "swappable.rebuild"),
    ("swappable: stage frees the filter it discards without synchronize()",
     "swappable_filter.hpp",
     "        if (old) registry_.synchronize();\n",
     "",
     "swappable", "swappable.restage"),
    ("swappable: publish returns the old filter without synchronize()",
     "swappable_filter.hpp",
     "        registry_.synchronize();\n        return old;\n",
     "        return old;\n",
     "swappable", "swappable.reclamation"),
    ("storage: or_word as a load and a store instead of fetch_or (every layout that adds with it)",
     "storage.hpp",
     "    word_ref(word).fetch_or(mask, boost::memory_order_relaxed);\n",
     "    store_word(word, load_word(word) | mask);\n",
     "filters", tuple(f"racing_adds.{layout}" for layout in ("blocked", "split_block", "one_word", "two_word"))),
    ("storage: or_bits as a load and a store instead of fetch_or (classic)",
     "storage.hpp",
     "    return (word_ref(word).fetch_or(mask, boost::memory_order_relaxed) & mask) != mask;\n",
     "    const std::uint64_t old = load_word(word);\n    store_word(word, old | mask);\n"
     "    return (old & mask) != mask;\n",
     "filters", "racing_adds.classic"),
    ("counting: remove decrements saturated counters",
     "counting_bloom_filter.hpp",
     "taken[w] = ones[w] & ~lanes_.saturated(old);",
     "taken[w] = ones[w];",
     "filters", "counting.saturation"),
    ("counting: a remove that gives up keeps what it took (no rollback)",
     "counting_bloom_filter.hpp",
     "for (unsigned done = 0; done < w; ++done)",
     "for (unsigned done = 0; done < 0; ++done)",
     "filters", "counting.remove_rollback"),
    ("cuckoo: a reader trusts a miss without checking the stripe's version (copy-then-erase alone)",
     "cuckoo_filter.hpp",
     "            if (before == after) return found;\n",
     "            return found;\n",
     "cuckoo", ("cuckoo.reader_vs_kick", "cuckoo.churn", "cuckoo14.reader_vs_kick", "cuckoo17.reader_vs_kick")),
    ("cuckoo: a move bumps the version after its erase",
     "cuckoo_filter.hpp",
     "            held.bump();\n            erase<Format>(bucket(from), fp);\n",
     "            erase<Format>(bucket(from), fp);\n            held.bump();\n",
     "cuckoo", ("cuckoo.reader_vs_kick", "cuckoo14.reader_vs_kick")),
    ("cuckoo: the erase is relaxed (a reader that sees it need not see the bump)",
     "cuckoo_filter.hpp",
     "Format::take(old, fp), boost::memory_order_release,",
     "Format::take(old, fp), boost::memory_order_relaxed,",
     "cuckoo", ("cuckoo.reader_vs_kick", "cuckoo14.reader_vs_kick")),
    ("cuckoo: a reader's first version load is relaxed (it need not see the copy made before the bump)",
     "cuckoo_filter.hpp",
     "            const std::uint64_t before = load_acquire(stripe) >> owner_bits;\n",
     "            const std::uint64_t before = word_ref(const_cast<word_type&>(stripe)).load(boost::memory_order_relaxed) >> owner_bits;\n",
     "cuckoo", ("cuckoo.reader_vs_kick", "cuckoo14.reader_vs_kick")),
    ("cuckoo: remove answers \"absent\" from a look without the lock",
     "cuckoo_filter.hpp",
     "        stripe_lock held(*this, stripe_index(s.first, s.second));\n        return erase_held<Format>(s, held);\n",
     "        if (copies_in<Format>(s, load_word(bucket(s.first)), load_word(bucket(s.second))) == 0) return false;\n"
     "        stripe_lock held(*this, stripe_index(s.first, s.second));\n        return erase_held<Format>(s, held);\n",
     "cuckoo", ("cuckoo.remove_vs_kick", "cuckoo14.remove_vs_kick")),
    ("cuckoo: an erase stores its word instead of a CAS (another stripe's write to the bucket is lost)",
     "cuckoo_filter.hpp",
     "        while (!ref.compare_exchange_weak(old, Format::take(old, fp), boost::memory_order_release, boost::memory_order_relaxed)) {\n        }\n",
     "        ref.store(Format::take(old, fp), boost::memory_order_release);\n",
     "cuckoo", ("cuckoo.two_stripes", "cuckoo14.two_stripes")),
    ("cuckoo: copy_buckets copies without the writer gate",
     "cuckoo_filter.hpp",
     "        } held(*this);\n",
     "        };  // the gate is never built\n",
     "cuckoo", ("cuckoo.copy_vs_kick", "cuckoo14.copy_vs_kick")),
    ("cuckoo: a shared filter's lock lives in the filter object, not in the mapping (two opens of one file do not exclude each other)",
     "cuckoo_filter.hpp",
     "          locks_(std::move(locks)),\n",
     "          locks_(locks.size() == 0 ? std::move(locks) : storage(locks.size(), 0, true)),\n",
     "cuckoo", "cuckoo.death"),
    ("cuckoo: a move erases before it copies (a writer that dies between them loses the key)",
     "cuckoo_filter.hpp",
     "        const bool moved = put<Format>(bucket(to), fp);\n        if (moved) {\n            held.bump();\n            erase<Format>(bucket(from), fp);\n",
     "        held.bump();\n        erase<Format>(bucket(from), fp);\n        const bool moved = put<Format>(bucket(to), fp);\n        if (moved) {\n",
     "cuckoo", "cuckoo.death"),
    ("cuckoo: the next locker after a death does not finish the dead writer's move (a key left twice)",
     "cuckoo_filter.hpp",
     "            case robust_mutex::outcome::owner_died:\n                repair(i);\n",
     "            case robust_mutex::outcome::owner_died:\n",
     "cuckoo", "cuckoo.death"),
    ("scalable: the array of sub-filters 8 and on is installed without release (a racing grower uses it before its nulls)",
     "scalable_bloom_filter.hpp",
     "            if (more_stages_.compare_exchange_strong(more, made.get(), std::memory_order_acq_rel)) more = made.release();\n",
     "            if (more_stages_.compare_exchange_strong(more, made.get(), std::memory_order_relaxed)) more = made.release();\n",
     "composites", "scalable.grown_past_inline"),
    ("scalable: a refused growth caps the filter for good, whatever limit is set after",
     "scalable_bloom_filter.hpp",
     "        return n < options_.max_filters && capped_.load(std::memory_order_relaxed) != memory_limit_.load(std::memory_order_relaxed) + 1;\n",
     "        return n < options_.max_filters && capped_.load(std::memory_order_relaxed) == 0;\n",
     "composites", "scalable.memory_limit_raised"),
    ("scalable: a key present in the full newest sub-filter is refused as full (defect 4)",
     "scalable_bloom_filter.hpp",
     "                if (newest.filter.contains_hash(h)) return false;  // present already: no growth, never \"full\"\n",
     "",
     "composites", "scalable.cap"),
    ("scalable cuckoo: remove erases from the last sub-filter that matches, ambiguous or not",
     "scalable_bloom_filter.hpp",
     "            if (match != n) return remove_status::ambiguous;\n",
     "",
     "composites", "scalable.cuckoo_remove_grown"),
    ("scalable cuckoo: remove erases from the first sub-filter that matches, ambiguous or not",
     "scalable_bloom_filter.hpp",
     "            if (match != n) return remove_status::ambiguous;\n            match = i;\n",
     "            if (match == n) match = i;\n",
     "composites", "scalable.cuckoo_remove_mirrored"),
    ("scalable cuckoo: an add takes a pending remove but leaves it in the list (its retry erases the copy the add kept)",
     "scalable_bloom_filter.hpp",
     "            drop(i);\n            taken_.add();\n",
     "            taken_.add();\n",
     "composites", "scalable.cuckoo_deferred"),
    ("scalable cuckoo: the rule of owed copies erases when the pairs hold more copies than the removes owe",
     "scalable_bloom_filter.hpp",
     "        if (i == n) return counted == owed;\n        stage& s = stage_at(i);\n        auto held = s.filter.lock_key(h);\n"
     "        const std::uint32_t copies = held.copies();\n"
     "        if (counted + copies > owed || !settle_from(h, i + 1, n, owed, counted + copies)) return false;\n",
     "        if (i == n) return counted >= owed;\n        stage& s = stage_at(i);\n        auto held = s.filter.lock_key(h);\n"
     "        const std::uint32_t copies = held.copies();\n"
     "        if (!settle_from(h, i + 1, n, owed, counted + copies)) return false;\n",
     "composites", "scalable.cuckoo_owed"),
    ("scalable cuckoo: a save lets the list of pending removes change under it (a pending remove saved without its copy)",
     "scalable_bloom_filter.hpp",
     "        std::lock_guard<typename Sync::mutex> held(pending_lock_);\n        return fn(std::span<const pending_remove>(pending_));\n",
     "        return fn(std::span<const pending_remove>(pending_));\n",
     "composites", "scalable.cuckoo_save"),
    ("rotating: single write clears the current generation instead of the oldest",
     "rotating_bloom_filter.hpp",
     "at(e + (options_.double_write ? 2 : 1)).clear();",
     "at(e + (options_.double_write ? 2 : 0)).clear();",
     "composites", "rotating.g2"),
    ("rotating: double write clears the generation that becomes current (queries read it)",
     "rotating_bloom_filter.hpp",
     "at(e + (options_.double_write ? 2 : 1)).clear();",
     "at(e + 1).clear();",
     "composites", "rotating.g2.double_write"),
    ("bulk: a bit filter's merge writes a word with a plain store (load, OR, store) instead of a locked OR",
     "bloom_filter.hpp",
     "                if ((bits & ~load_word(to[i])) != 0) or_word(to[i], bits);\n",
     "                if ((bits & ~load_word(to[i])) != 0) store_word(to[i], load_word(to[i]) | bits);\n",
     "filters", "bulk_merge.bits"),
    ("bulk: the counting merge stores the saturated sum instead of adding it with a CAS",
     "counting_bloom_filter.hpp",
     "                update_word(to[i], [&](std::uint64_t old, std::uint64_t& next) {\n"
     "                    next = lanes_.saturating_add(old, counts);\n                    return true;\n                });\n",
     "                store_word(to[i], lanes_.saturating_add(load_word(to[i]), counts));\n",
     "filters", "bulk_merge.counts"),
]


# An uninitialized access is a load that no store happens-before: a publication without release.
VERDICTS = ("USER ASSERT FAILED", "DATA RACE", "ACCESS TO FREED MEMORY", "ACCESS TO UNINITIALIZED VARIABLE")
PROGRESS = re.compile(r"^\d+% \(\d+/\d+\)")


def run_check(binary, check):
    """Relacy's verdict line for one check ("iterations: N" when it passes), and the exit code."""
    try:
        ran = subprocess.run([str(binary), check], capture_output=True, text=True, errors="replace", timeout=600)
    except subprocess.TimeoutExpired:
        return "timed out", -1
    # Relacy prints the test's name, then "iterations: N" on success, or the failure's kind and
    # "iteration: N" (then the history); it may abort while unwinding after a failure.
    # Both schedulers print a progress line ("99% (65536/65537)") every 65536 schedules: dropped.
    lines = [line for line in ran.stdout.splitlines() if not PROGRESS.match(line)][:4]
    verdict = lines[1] if len(lines) > 1 else ran.stderr.strip()[:200]
    iteration = next((line for line in lines if line.startswith("iteration:")), "")
    return f"{verdict}; {iteration}" if iteration else verdict, ran.returncode


def compile_program(args, include, program, checks, binary):
    """Compiles the program with only `checks` (LFBLOOM_RELACY_ONLY, runner.hpp): the others' model
    code is not compiled."""
    flags = dict(f.split("=", 1) for f in args.program_flags).get(program, args.flags)
    only = f'-DLFBLOOM_RELACY_ONLY="{",".join(checks)}"'
    cmd = [args.cxx, "-std=c++20", *flags.split(), only, f"-I{include}", f"-I{HERE}", f"-I{args.relacy}",
           *([f"-I{args.boost}"] if args.boost else []), str(HERE / f"{program}.cpp"), "-o", str(binary)]
    return subprocess.run(cmd, capture_output=True, text=True)


def checks_of(mutant):
    check = mutant[5]
    return (check,) if isinstance(check, str) else check


def try_mutant(args, tmp, mutant):
    """Builds one mutant in its own copy of core/ and runs its checks (built once, each must
    fail): (passed, report line)."""
    name, header, original, mutated, program = mutant[:5]
    start = time.monotonic()
    root = pathlib.Path(tempfile.mkdtemp(dir=tmp))
    include = root / "include"
    shutil.copytree(args.core, include)
    path = next((include / "lfbloom").rglob(header), include / "lfbloom" / header)
    text = path.read_text()
    if text.count(original) != 1:
        return False, f"FAIL  {name}: the code to mutate is not in {header} exactly once"
    path.write_text(text.replace(original, mutated))
    binary = root / program
    built = compile_program(args, include, program, checks_of(mutant), binary)
    if built.returncode != 0:
        return False, f"FAIL  {name}: mutant does not compile\n{built.stderr[-2000:]}"
    caught = []
    for check in checks_of(mutant):
        verdict, code = run_check(binary, check)
        if code == 0 or not verdict.startswith(VERDICTS):
            seconds = time.monotonic() - start
            return False, f"FAIL  {name}: {check} does not catch it ({verdict}, exit {code}) [{seconds:.0f} s]"
        caught.append(f"{check} fails ({verdict})")
    return True, f"ok    {name}: {'; '.join(caught)} [{time.monotonic() - start:.0f} s]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--flags", required=True, help="the mutants' flags in tests/relacy/CMakeLists.txt (see there why each)")
    ap.add_argument("--program-flags", action="append", default=[], metavar="PROGRAM=FLAGS",
                    help="flags for one program's mutants instead of --flags")
    ap.add_argument("--core", required=True)
    ap.add_argument("--relacy", required=True)
    ap.add_argument("--boost", default="")
    ap.add_argument("--bin", required=True, help="directory of the built lfbloom-relacy-* programs")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip running the unmutated checks (ctest runs each as its own entry; they took minutes here)")
    args = ap.parse_args()

    chosen = [m for m in MUTANTS if not args.only or args.only in m[0]]
    # The unmutated checks (the programs ctest runs) must pass, or a failing mutant proves nothing;
    # built from the core as it is now (ctest does not rebuild).
    sources = [*pathlib.Path(args.core).rglob("*.hpp"), *HERE.glob("*.[ch]pp")]
    newest_source = max(p.stat().st_mtime for p in sources)
    for program, check in sorted({(m[4], check) for m in chosen for check in checks_of(m)}):
        binary = pathlib.Path(args.bin) / f"lfbloom-relacy-{program}"
        if not binary.exists() or binary.stat().st_mtime < newest_source:
            print(f"FAIL  baseline: {binary} is missing or older than the sources; build it first")
            return 1
        if args.no_baseline:
            continue
        verdict, code = run_check(binary, check)
        if code != 0:
            print(f"FAIL  baseline: {check} fails unmutated ({verdict})")
            return 1
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(lambda m: try_mutant(args, tmp, m), chosen))
    for _, line in results:
        print(line)
    failures = sum(1 for passed, _ in results if not passed)
    print(f"{len(chosen) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
