"""examples/cache_guard.py runs in one command and keeps its promises."""
import os
import re
import subprocess
import sys

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "cache_guard.py")


def test_cache_guard_example_avoids_queries_and_survives_a_restart(tmp_path):
    run = subprocess.run([sys.executable, EXAMPLE, "--users", "20000", "--lookups", "20000", "--dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("start 1 (built)") and lines[1].startswith("start 2 (loaded)"), run.stdout
    for line in lines:
        queries = int(re.search(r"(\d+) database queries", line).group(1))
        rate = float(re.search(r"false-positive rate ([\d.]+)", line).group(1))
        # 10,000 absent ids at a 1% filter: more than 2% false positives has probability < 1e-20.
        assert 10_000 <= queries <= 10_200 and rate < 0.02, line
        assert line.endswith("false negatives 0"), line
