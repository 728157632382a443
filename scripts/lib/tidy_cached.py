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


def check(entry, build_dir, root, base, cache):
    key = key_of(entry, root, base)
    if key is not None and os.path.exists(os.path.join(cache, key)):
        return entry["file"], True, True, ""
    run = subprocess.run([TIDY, "-p", build_dir, "-quiet", entry["file"]], capture_output=True,
                         text=True)
    ok = run.returncode == 0
    if ok and key is not None:
        with open(os.path.join(cache, key), "w") as f:
            f.write(os.path.relpath(entry["file"], root) + "\n")
    return entry["file"], ok, False, run.stdout + run.stderr


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
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for name, ok, hit, text in pool.map(
                lambda e: check(e, build_dir, root, base, cache), entries):
            cached += hit
            if not ok:
                failed.append(name)
                print(text, end="")
    print(f"   {len(entries)} files: {cached} clean as already checked, "
          f"{len(entries) - cached - len(failed)} checked clean now, {len(failed)} failed")
    for name in failed:
        print(f"   FAILED {os.path.relpath(name, root)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
