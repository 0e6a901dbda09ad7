"""Files across the boundary: Python's files answer alike in the lfbloom command (C++), and the
command's files load in Python with the same bits a Python filter of the same keys has. ctest sets
LFBLOOM_CLI to the build's lfbloom command."""
import os
import subprocess

import pytest

import lfbloom

CLI = os.environ.get("LFBLOOM_CLI")
pytestmark = pytest.mark.skipif(not CLI, reason="LFBLOOM_CLI (the lfbloom command) not given")

KEYS = [f"clé:{i}" for i in range(3000)]
ASKED = KEYS[::7] + [f"absent:{i}" for i in range(3000)]

KINDS = [("blocked", lambda: lfbloom.BloomFilter(3000, 0.01), ["--kind", "blocked"]),
         ("split-block", lambda: lfbloom.BloomFilter(3000, 0.01, layout="split-block"), ["--kind", "split-block"]),
         ("counting", lambda: lfbloom.CountingBloomFilter(3000, 0.01, seed=5), ["--kind", "counting", "--seed", "5"]),
         ("cuckoo", lambda: lfbloom.CuckooFilter(3000, 0.001), ["--kind", "cuckoo"]),
         ("scalable", lambda: lfbloom.ScalableBloomFilter(500, 0.01), ["--kind", "scalable"])]


def cli(*args, stdin=None):
    run = subprocess.run([CLI, *args], input=stdin, capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr.decode()
    return run.stdout


def answers_of_the_cli(path):
    out = cli("query", str(path), stdin="\n".join(ASKED).encode() + b"\n").decode().splitlines()
    assert len(out) == len(ASKED)
    return [line.split("\t", 1)[0] == "maybe" for line in out]


@pytest.mark.parametrize("name,make,flags", KINDS)
def test_a_file_python_writes_answers_alike_in_the_lfbloom_command(name, make, flags, tmp_path):
    with make() as f:
        f.add_many(KEYS)
        f.save(tmp_path / "py.lfb")
        assert answers_of_the_cli(tmp_path / "py.lfb") == f.contains_many(ASKED)


@pytest.mark.parametrize("name,make,flags", KINDS)
def test_a_file_the_lfbloom_command_writes_holds_python_bits(name, make, flags, tmp_path):
    (tmp_path / "keys.txt").write_text("\n".join(KEYS) + "\n", encoding="utf-8")
    n = "500" if name == "scalable" else "3000"
    rate = "0.001" if name == "cuckoo" else "0.01"
    cli("build", "--no-progress", "-o", str(tmp_path / "cli.lfb"), "-n", n, "-p", rate, *flags, str(tmp_path / "keys.txt"))
    with lfbloom.load(tmp_path / "cli.lfb") as theirs, make() as ours:
        assert type(theirs) is type(ours)
        assert all(theirs.contains_many(KEYS))
        assert theirs.contains_many(ASKED) == answers_of_the_cli(tmp_path / "cli.lfb")
        ours.add_many(KEYS)
        if name in ("blocked", "split-block", "counting"):
            assert ours == theirs  # the same bits from the same keys
