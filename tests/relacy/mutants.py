#!/usr/bin/env python3
"""Mutation proof for the Relacy checks: each mutant breaks one guard of the core (in a copy of
core/include), is compiled into the program holding the check for that guard, and must make that
check fail. A mutant whose code no longer matches fails too, so the list keeps up with the code.

Usage: mutants.py --cxx g++ --core core/include --relacy /usr/include [--boost DIR] [--only NAME]
"""
import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent

# (name, header, original text, mutated text, program, check)
MUTANTS = [
    ("swappable: guard loads current_ before staged_ (defect 1)",
     "swappable_filter.hpp",
     "        Filter* staged_;  // declared (so initialized) before filter_: the load order matters\n"
     "        Filter* filter_;\n",
     "        Filter* filter_;\n        Filter* staged_;\n",
     "swappable", "swappable.rebuild"),
    ("swappable: publish returns the old filter without synchronize()",
     "swappable_filter.hpp",
     "        registry_.synchronize();\n        return old;\n",
     "        return old;\n",
     "swappable", "swappable.reclamation"),
    ("storage: or_bits as a load and a store instead of fetch_or (blocked)",
     "storage.hpp",
     "    return (word_ref(word).fetch_or(mask, boost::memory_order_relaxed) & mask) != mask;\n",
     "    const std::uint64_t old = load_word(word);\n    store_word(word, old | mask);\n"
     "    return (old & mask) != mask;\n",
     "filters", "racing_adds.blocked"),
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
    ("scalable: a key present in the full newest sub-filter is refused as full (defect 4)",
     "scalable_bloom_filter.hpp",
     "                if (newest.filter.contains_hash(h)) return false;  // present already: no growth, never \"full\"\n",
     "",
     "composites", "scalable.cap"),
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
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--core", required=True)
    ap.add_argument("--relacy", required=True)
    ap.add_argument("--boost", default="")
    ap.add_argument("--only", default="")
    args = ap.parse_args()

    failures = runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, header, original, mutated, program, check in MUTANTS:
            if args.only and args.only not in name:
                continue
            runs += 1
            start = time.monotonic()
            include = pathlib.Path(tmp) / "include"
            shutil.rmtree(include, ignore_errors=True)
            shutil.copytree(args.core, include)
            path = include / "lfbloom" / header
            text = path.read_text()
            if text.count(original) != 1:
                print(f"FAIL  {name}: the code to mutate is not in {header} exactly once")
                failures += 1
                continue
            path.write_text(text.replace(original, mutated))
            binary = pathlib.Path(tmp) / program
            cmd = [args.cxx, "-std=c++20", "-O1", "-fno-sized-deallocation", f"-I{include}", f"-I{HERE}",
                   f"-I{args.relacy}"] + ([f"-I{args.boost}"] if args.boost else []) + \
                  [str(HERE / f"{program}.cpp"), "-o", str(binary)]
            built = subprocess.run(cmd, capture_output=True, text=True)
            if built.returncode != 0:
                print(f"FAIL  {name}: mutant does not compile\n{built.stderr[-2000:]}")
                failures += 1
                continue
            ran = subprocess.run([str(binary), check], capture_output=True, text=True, errors="replace", timeout=600)
            seconds = time.monotonic() - start
            # Relacy prints the test's name, then "iterations: N" on success or the failure's kind
            # and "iteration: N" (then the history). Exit 1, or an abort while unwinding after it.
            lines = ran.stdout.splitlines()[:4]
            verdict = lines[1] if len(lines) > 1 else ""
            if ran.returncode != 0 and verdict.strip() and not verdict.startswith("iterations:"):
                iteration = next((line for line in lines if line.startswith("iteration:")), "")
                print(f"ok    {name}: {check} fails ({verdict}; {iteration}) [{seconds:.0f} s]")
            else:
                print(f"FAIL  {name}: {check} still passes (exit {ran.returncode}) [{seconds:.0f} s]")
                failures += 1
    print(f"{runs - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
