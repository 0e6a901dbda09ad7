import os
import random

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
# The C++ core's golden files (ctest passes the path; from a checkout it is found relative to here).
GOLDEN = os.environ.get("LFBLOOM_TEST_DATA", os.path.join(HERE, "..", "..", "..", "tests", "data"))


@pytest.fixture
def rng(request):
    """A random.Random whose seed is printed and can be given back: LFBLOOM_TEST_SEED=..."""
    seed = int(os.environ.get("LFBLOOM_TEST_SEED", "20261127"))
    print(f"{request.node.name}: LFBLOOM_TEST_SEED={seed}")
    return random.Random(seed)
