#!/usr/bin/env python3
"""clang-tidy over a compile database, skipping the files it already found clean.

    tidy_cached.py BUILD_DIR FILE_REGEX [JOBS]

Runs clang-tidy-14 (WarningsAsErrors: a clean file exits 0) on every file of
BUILD_DIR/compile_commands.json whose path matches FILE_REGEX, JOBS at a time. A file that passes
is remembered under $ZS_TIDY_CACHE (default ~/.cache/zs-tidy) by a key over everything its
result depends on: clang-tidy's version, the .clang-tidy files, the file's path in the
repository, its compile flags and its preprocessed text (every header it includes, as
included). Any change to one of them makes the key new and the file is checked again; a failure
is never remembered. So a clean clone of a commit already checked on this machine (CI after the
work tree) takes the time of preprocessing, not of clang-tidy.

The same keys are also kept in the repository, in scripts/lib/tidy-clean.txt (a line per file:
its path and the key it was last found clean at), so that CI on a fresh machine, which has no
cache of its own, checks only the files whose key is not there. Each run records the keys of the
files it finds clean and drops those of files that failed or are gone; commit the file with the
change that made it (scripts/lint.sh --tidy). A key covers the same inputs either way, so a
listed key is as good as a cached one; a stale line costs a check, never a miss.

Prints each failing file's diagnostics; exits 1 when any file failed.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys

TIDY = "clang-tidy-14"


def repo_root():
    return subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()


def config_text(root):
    parts = []
    for dirpath, _, files in os.walk(root):
        if "/build" in dirpath[len(root):] or "/.git" in dirpath[len(root):]:
            continue
        if ".clang-tidy" in files:
            path = os.path.join(dirpath, ".clang-tidy")
            with open(path, "rb") as f:
                parts.append(os.path.relpath(path, root).encode() + b"\0" + f.read())
    return b"\0".join(sorted(parts))


def compiler_args(entry):
    """The compile command without any launcher, output or -c: the compiler and its flags."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    while args and not re.search(r"(clang\+\+|clang|g\+\+|c\+\+)(-[0-9]+)?$", args[0]):
        args = args[1:]  # env VAR=... ccache: a launcher
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c" or a == entry["file"]:
            continue
        out.append(a)
    return out


def key_of(entry, root, base):
    args = compiler_args(entry)
    pre = subprocess.run(args + ["-E", "-P", entry["file"], "-o", "-"], cwd=entry["directory"],
                         capture_output=True)
    if pre.returncode != 0:
        return None  # let clang-tidy report it
    h = hashlib.sha256(base)
    rel = os.path.relpath(entry["file"], root)
    flags = [a.replace(root, "<root>") for a in args[1:]]
    h.update(rel.encode() + b"\0" + "\0".join(flags).encode() + b"\0")
    h.update(pre.stdout.replace(root.encode(), b"<root>"))
    return h.hexdigest()


KNOWN = "scripts/lib/tidy-clean.txt"


def read_known(root):
    """path -> the keys the repository lists it clean at (a file built twice has two)."""
    known = {}
    try:
        with open(os.path.join(root, KNOWN)) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2:
                    known.setdefault(parts[0], set()).add(parts[1])
    except FileNotFoundError:
        pass
    return known


def write_known(root, known):
    lines = [f"{path} {key}\n" for path, keys in sorted(known.items())
             if os.path.exists(os.path.join(root, path)) for key in sorted(keys)]
    path = os.path.join(root, KNOWN)
    old = open(path).read() if os.path.exists(path) else ""
    if "".join(lines) != old:
        with open(path, "w") as f:
            f.writelines(lines)


def check(entry, build_dir, root, base, cache, known):
    key = key_of(entry, root, base)
    rel = os.path.relpath(entry["file"], root)
    if key is not None and (key in known.get(rel, ()) or os.path.exists(os.path.join(cache, key))):
        return entry["file"], key, True, True, ""
    run = subprocess.run([TIDY, "-p", build_dir, "-quiet", entry["file"]], capture_output=True,
                         text=True)
    ok = run.returncode == 0
    if ok and key is not None:
        with open(os.path.join(cache, key), "w") as f:
            f.write(os.path.relpath(entry["file"], root) + "\n")
    return entry["file"], key, ok, False, run.stdout + run.stderr


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    build_dir, regex = os.path.abspath(sys.argv[1]), re.compile(sys.argv[2])
    jobs = int(sys.argv[3]) if len(sys.argv) == 4 else os.cpu_count() or 1
    root = repo_root()
    cache = os.environ.get("ZS_TIDY_CACHE", os.path.expanduser("~/.cache/zs-tidy"))
    os.makedirs(cache, exist_ok=True)
    version = subprocess.check_output([TIDY, "--version"], text=True)
    base = version.encode() + b"\0" + config_text(root)
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = [e for e in json.load(f) if regex.search(e["file"])]
    failed, cached = [], 0
    known = read_known(root)
    listed = dict(known)  # read by the workers while the loop below updates `known`
    seen = set()  # the paths of this run: their old keys give way to this run's
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for name, key, ok, hit, text in pool.map(
                lambda e: check(e, build_dir, root, base, cache, listed), entries):
            cached += hit
            rel = os.path.relpath(name, root)
            if rel not in seen:
                seen.add(rel)
                known[rel] = set()
            if ok and key is not None:
                known[rel].add(key)
            if not ok:
                failed.append(name)
                print(text, end="")
    write_known(root, known)
    print(f"   {len(entries)} files: {cached} clean as already checked, "
          f"{len(entries) - cached - len(failed)} checked clean now, {len(failed)} failed")
    for name in failed:
        print(f"   FAILED {os.path.relpath(name, root)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
