#!/usr/bin/env python3
"""Sets lfbloom's version in every place that states it: set-version.py X.Y.Z

CMakeLists.txt's project() is the one place the version is decided; the library's soname and
lfb_version_string(), and the Redis module's MODULE LIST version, are built from it. The places
a build cannot derive (the C header users include, the poms, the Python package, the docs' file
names) are rewritten here, and ctest `version` fails when any of them differs from CMake's.
CHANGELOG.md gains an empty heading for the version when it has none: fill it in.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (file, pattern whose group 1 is the version or its numbers, replacement built from the version)
PLACES = [
    ("CMakeLists.txt", r"(project\(lfbloom VERSION )[\d.]+", lambda v: rf"\g<1>{v}"),
    ("bindings/java/pom.xml", r"(<artifactId>lfbloom</artifactId>\s*<version>)[^<]+", lambda v: rf"\g<1>{v}"),
    ("bindings/java/jmh/pom.xml", r"(<artifactId>lfbloom</artifactId><version>)[^<]+", lambda v: rf"\g<1>{v}"),
    ("bindings/python/pyproject.toml", r'(?m)^(version = ")[^"]+', lambda v: rf"\g<1>{v}"),
    ("bindings/python/src/lfbloom/__init__.py", r'(?m)^(__version__ = ")[^"]+', lambda v: rf"\g<1>{v}"),
    ("README.md", r"(lfbloom-)\d+\.\d+\.\d+(\.jar)", lambda v: rf"\g<1>{v}\g<2>"),
    ("docs/python.md", r"(lfbloom-)\d+\.\d+\.\d+(-cp)", lambda v: rf"\g<1>{v}\g<2>"),
] + [("capi/include/lfbloom.h", rf"(?m)^(#define LFB_VERSION_{part} )\d+", lambda v, i=i: rf"\g<1>{v.split('.')[i]}")
     for i, part in enumerate(("MAJOR", "MINOR", "PATCH"))]


def main(argv):
    if len(argv) != 2 or not re.fullmatch(r"\d+\.\d+\.\d+", argv[1]):
        print(__doc__, file=sys.stderr)
        return 2
    version = argv[1]
    for name, pattern, replacement in PLACES:
        path = ROOT / name
        text, count = re.subn(pattern, replacement(version), path.read_text(), count=1)
        if count != 1:
            print(f"set-version: {name}: no version found by {pattern!r}", file=sys.stderr)
            return 1
        path.write_text(text)
    changelog = ROOT / "CHANGELOG.md"
    text = changelog.read_text()
    if not re.search(rf"(?m)^## {re.escape(version)}$", text):
        text = re.sub(r"(?m)^## ", f"## {version}\n\n- (what this version adds)\n\n## ", text, count=1)
        changelog.write_text(text)
    print(f"set-version: {version} in {len(PLACES)} places; ctest -R version checks them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
