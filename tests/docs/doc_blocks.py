#!/usr/bin/env python3
"""The code blocks of README.md and docs/*.md, checked by ctest (tests/docs/CMakeLists.txt).

Every fenced block says in its info string what it is, after the language:

    ```cpp run      compiled into one program with every other `cpp run` block, which ctest runs
    ```c run        the same for C, against liblfbloom
    ```sh run       run by bash, in order with the file's other sh/python/go/java run blocks,
    ```python run   in one scratch directory per file where `build` is this build tree
    ```go run       (a whole `package main`; `go run` against bindings/go)
    ```java run     (a whole class; `java` runs the source file with the jar on the class path)
    ```text         output, shown and never run (also: any block whose info string ends in `output`)
    ```sh norun     a step ctest cannot take (it installs, builds the tree itself, or is CI itself)

A block with none of these fails `check`, so a new example is tested or says why not.
A C or C++ block with `int main(` is a whole program (its main is renamed); any other is the body
of a function. `#include` lines go to the top of the generated file.

    doc_blocks.py check ROOT                 every block marked; prints the counts
    doc_blocks.py cpp|c ROOT OUT             writes the one program of the cpp or c run blocks
    doc_blocks.py run ROOT FILE.md BUILD     runs FILE.md's sh/python/go/java run blocks in order
    doc_blocks.py files ROOT                 each document=its run languages, a line each (for CMake)
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(\s*)```(.*)$")
RUN_LANGS = {"cpp", "c", "sh", "python", "go", "java"}


def documents(root):
    root = pathlib.Path(root)
    return [root / "README.md"] + sorted((root / "docs").glob("*.md"))


def blocks(path):
    """Yields (line number, language, attributes, text) for each fenced block of a document."""
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info = m.group(1), m.group(2).split()
        start = i + 1
        i += 1
        body = []
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        if i == len(lines):
            sys.exit(f"{path}:{start}: a code block that never closes")
        i += 1
        lang = info[0] if info else ""
        yield start, lang, info[1:], "\n".join(body) + "\n"


def kind(lang, attrs):
    if lang in ("text", "output", "console") or (attrs and attrs[-1] == "output"):
        return "output"
    if "norun" in attrs:
        return "norun"
    if "run" in attrs and lang in RUN_LANGS:
        return "run"
    return None


def check(root):
    counts, bad = {}, []
    for doc in documents(root):
        for line, lang, attrs, _ in blocks(doc):
            k = kind(lang, attrs)
            if k is None:
                bad.append(f"{doc.relative_to(root)}:{line}: ```{' '.join([lang] + attrs)}: mark it "
                           "`run` (ctest runs it), `norun` (say why in the text) or as output (```text)")
            else:
                key = f"{lang} {k}" if k == "run" else k
                counts[key] = counts.get(key, 0) + 1
    for key in sorted(counts):
        print(f"{counts[key]:4d} {key}")
    if bad:
        print("\n".join(bad), file=sys.stderr)
        return 1
    return 0


def program(root, lang, out):
    """One C or C++ program: each block a function; main runs them all and fails if one does."""
    includes, parts, names = [], [], []
    for doc in documents(root):
        for line, blang, attrs, text in blocks(doc):
            if blang != lang or kind(blang, attrs) != "run":
                continue
            name = f"doc_{re.sub(r'[^A-Za-z0-9]', '_', doc.stem)}_{line}"
            names.append((name, f"{doc.relative_to(root)}:{line}"))
            body = []
            for l in text.split("\n"):  # an include leaves an empty line: #line stays right
                if l.startswith("#include"):
                    includes.append(l)
                    l = ""
                body.append(l)
            body = "\n".join(body)
            where = f'#line {line + 1} "{doc.relative_to(root)}"'
            if "int main(" in body:
                parts.append(f"#define main {name}\n{where}\n{body}\n#undef main\n")
            else:
                parts.append(f"static int {name}(void) {{\n{where}\n{body}\n    return 0;\n}}\n")
    seen, head = set(), []
    for inc in includes:
        if inc not in seen:
            seen.add(inc)
            head.append(inc)
    runs = "\n".join(
        f'    if ({n}() != 0) {{ fprintf(stderr, "FAILED: {w}\\n"); failed = 1; }}\n'
        f'    else printf("ok {w}\\n");' for n, w in names)
    # What every block may take for granted, as the docs' fragments do.
    stdio = ("#include <lfbloom/lfbloom.hpp>\n#include <cstdio>\n#include <memory>\n#include <string>\n"
             "#include <vector>" if lang == "cpp" else "#include <lfbloom.h>\n#include <stdio.h>")
    text = (f"/* Generated by tests/docs/doc_blocks.py from the `{lang} run` blocks of the docs. */\n"
            + stdio + "\n" + "\n".join(head) + "\n\n" + "\n".join(parts)
            + f"\nint main(void) {{\n    int failed = 0;\n{runs}\n    return failed;\n}}\n")
    out = pathlib.Path(out)
    if not out.exists() or out.read_text() != text:
        out.write_text(text)
    return 0


def run(root, doc, build):
    """Runs one document's sh/python/go/java run blocks in order, in one scratch directory."""
    root, build = pathlib.Path(root).resolve(), pathlib.Path(build).resolve()
    doc = pathlib.Path(doc)
    todo = [(line, lang, text) for line, lang, attrs, text in blocks(doc)
            if kind(lang, attrs) == "run" and lang in ("sh", "python", "go", "java")]
    if not todo:
        print(f"{doc.name}: no sh/python/go/java run blocks")
        return 0
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="lfbloom-doc-"))
    failed = 0
    try:
        # The examples say `build/...` and `bindings/...`, as a reader in a checkout types them.
        (scratch / "build").symlink_to(build)
        for entry in ("bindings", "capi", "core", "tools", "examples"):
            (scratch / entry).symlink_to(root / entry)
        env = dict(os.environ)
        env["PATH"] = f"{build / 'bin'}:{env['PATH']}"
        for line, lang, text in todo:
            where = f"{doc.name}:{line}"
            start = time.monotonic()
            if lang == "sh":
                cmd = ["bash", "-euo", "pipefail", "-c", text]
            elif lang == "python":
                python = env["LFBLOOM_DOC_REDIS_PYTHON"] if re.search(r"^import redis", text, re.M) \
                    else env["LFBLOOM_DOC_PYTHON"]
                (scratch / "example.py").write_text(text)
                cmd = [python, "example.py"]
            elif lang == "go":
                module = scratch / "goexample"
                module.mkdir(exist_ok=True)
                (module / "main.go").write_text(text)
                (module / "go.mod").write_text(
                    "module example\n\ngo 1.24\n\nrequire github.com/lfbloom/lfbloom/bindings/go v0.0.0\n\n"
                    f"replace github.com/lfbloom/lfbloom/bindings/go => {root / 'bindings/go'}\n")
                cmd = [env.get("LFBLOOM_DOC_GO", "go"), "run", "-C", str(module), "."]
            else:
                (scratch / "Example.java").write_text(text)
                cmd = [env.get("LFBLOOM_DOC_JAVA", "java"), "-cp", env["LFBLOOM_DOC_JAR"], "Example.java"]
            result = subprocess.run(cmd, cwd=scratch, env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            print(f"--- {where} ({lang}, {time.monotonic() - start:.1f} s, exit {result.returncode})")
            print(result.stdout, end="")
            if result.returncode != 0:
                print(f"FAILED: {where}", file=sys.stderr)
                failed = 1
                break  # later blocks build on this one
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return failed


def main(argv):
    if len(argv) >= 3 and argv[1] == "check":
        return check(argv[2])
    if len(argv) == 4 and argv[1] in ("cpp", "c"):
        return program(argv[2], argv[1], argv[3])
    if len(argv) == 5 and argv[1] == "run":
        return run(argv[2], argv[3], argv[4])
    if len(argv) == 3 and argv[1] == "files":
        for doc in documents(argv[2]):
            langs = sorted({lang for _, lang, attrs, _ in blocks(doc)
                            if kind(lang, attrs) == "run" and lang in ("sh", "python", "go", "java")})
            print(f"{doc}={','.join(langs)}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
