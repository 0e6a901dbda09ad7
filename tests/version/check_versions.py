#!/usr/bin/env python3
"""One version everywhere: ctest `version` fails when a place that states lfbloom's version
disagrees with CMake's project version (the one place it is decided: CMakeLists.txt's project();
`tools/set-version.py X.Y.Z` writes it into every place listed here).

    check_versions.py VERSION ROOT LIBRARY [REDIS_MODULE]

Checks the C header's LFB_VERSION_*, the built library's lfb_version_string(), the jar's pom (and
the JMH benchmarks' dependency on it), the Python package (pyproject.toml and __version__), the
newest entry of CHANGELOG.md and, given the module, the version MODULE LIST reports.
"""
import ctypes
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time


def found(text, pattern, what):
    m = re.search(pattern, text, re.M | re.S)
    return m.group(1) if m else f"(no {what} found)"


def module_version(module):
    server = shutil.which("redis-server")
    if not server:
        return "(no redis-server)"
    with tempfile.TemporaryDirectory() as scratch:
        sock = f"{scratch}/redis.sock"
        proc = subprocess.Popen([server, "--port", "0", "--unixsocket", sock, "--save", "",
                                 "--dir", scratch, "--loadmodule", module],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                out = subprocess.run(["redis-cli", "-s", sock, "MODULE", "LIST"],
                                     capture_output=True, text=True)
                if out.returncode == 0 and "lfbloom" in out.stdout:
                    words = out.stdout.split()
                    number = int(words[words.index("ver") + 1])
                    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"
                time.sleep(0.05)
            return "(the server did not answer MODULE LIST)"
        finally:
            proc.kill()
            proc.wait()


def library_version(library):
    version_string = ctypes.CDLL(library).lfb_version_string
    version_string.restype = ctypes.c_char_p
    return version_string().decode()


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    version, root, library = argv[1], pathlib.Path(argv[2]), argv[3]
    header = (root / "capi/include/lfbloom.h").read_text()
    places = {
        "capi/include/lfbloom.h LFB_VERSION_*": ".".join(
            found(header, rf"^#define LFB_VERSION_{part} (\d+)", part) for part in ("MAJOR", "MINOR", "PATCH")),
        "liblfbloom lfb_version_string()": library_version(library),
        "bindings/java/pom.xml <version>": found((root / "bindings/java/pom.xml").read_text(),
            r"<artifactId>lfbloom</artifactId>\s*<version>([^<]+)</version>", "version"),
        "bindings/java/jmh/pom.xml dependency": found((root / "bindings/java/jmh/pom.xml").read_text(),
            r"<artifactId>lfbloom</artifactId><version>([^<]+)</version>", "dependency"),
        "bindings/python/pyproject.toml": found((root / "bindings/python/pyproject.toml").read_text(),
            r'^version = "([^"]+)"', "version"),
        "bindings/python/src/lfbloom/__init__.py __version__": found(
            (root / "bindings/python/src/lfbloom/__init__.py").read_text(), r'^__version__ = "([^"]+)"', "__version__"),
        "README.md, the jar's name": found((root / "README.md").read_text(), r"lfbloom-(\d+\.\d+\.\d+)\.jar", "jar"),
        "CHANGELOG.md, newest entry": found((root / "CHANGELOG.md").read_text(), r"^## (\d+\.\d+\.\d+)", "entry"),
    }
    if len(argv) == 5:
        places["Redis module, MODULE LIST ver"] = module_version(argv[4])
    bad = 0
    for place, stated in places.items():
        ok = stated == version
        bad += not ok
        print(f"{'ok  ' if ok else 'DIFF'} {stated:>10}  {place}")
    if bad:
        print(f"{bad} place(s) differ from CMake's project version {version} (CMakeLists.txt):"
              f" tools/set-version.py {version} writes it everywhere", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
