#!/usr/bin/env python3
"""Keeps the docs true where a machine can tell (run by ctest as `docs_check`):

- every test a doc cites (`Suite.Name`, or `Suite.*` for a whole suite, in backticks) exists
  among the GoogleTest tests under tests/ (TEST, TEST_F, TYPED_TEST, TEST_P);
- the protocol version the docs state ("protocol **N**" in docs/protocol.md, "version N" in the
  first line of proto/zone.proto) is wire::kProtocolVersion (server/wire/protocol.h);
- every relative link of a Markdown file ([text](path) or [text](path#anchor)) names a file or
  folder that exists, and so does every path of the repository a page names in backticks
  (`tests/zone/cells_test.cc`).

Prints each problem as "file:line: what" and exits 1 when there is one.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "bench" / "README.md", ROOT / "bench" / "LOG.md", *sorted((ROOT / "docs").glob("*.md"))]
TEST_DEF = re.compile(r"\b(?:TEST|TEST_F|TYPED_TEST|TEST_P)\(\s*(\w+)\s*,\s*(\w+)\s*\)")
CITED = re.compile(r"`([A-Z]\w*)\.([A-Z]\w*|\*)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# A path of the repository named in backticks: `tests/zone/cells_test.cc`, `scripts/border.sh`.
NAMED_PATH = re.compile(
    r"`((?:server|tests|scripts|config|proto|client_sim|bench|docs|web|examples|docker)/[\w./-]*\w)`")


def tests():
    suites = {}
    for path in (ROOT / "tests").rglob("*.cc"):
        for suite, name in TEST_DEF.findall(path.read_text(errors="replace")):
            suites.setdefault(suite, set()).add(name)
    return suites


def main():
    problems = []
    cited = links = 0
    suites = tests()
    for doc in DOCS:
        rel = doc.relative_to(ROOT)
        for n, line in enumerate(doc.read_text().splitlines(), 1):
            for suite, name in CITED.findall(line):
                cited += 1
                if suite not in suites:
                    problems.append(f"{rel}:{n}: cites {suite}.{name}: no test suite {suite}")
                elif name != "*" and name not in suites[suite]:
                    problems.append(f"{rel}:{n}: cites {suite}.{name}: no such test")
            for named in NAMED_PATH.findall(line):
                links += 1
                if not (ROOT / named).exists():
                    problems.append(f"{rel}:{n}: names {named}: no such file")
            for target in LINK.findall(line):
                if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                    continue  # a URL, or an anchor in the same page
                links += 1
                path = target.split("#", 1)[0]
                if not (doc.parent / path).exists():
                    problems.append(f"{rel}:{n}: links to {target}: no such file")
    header = (ROOT / "server" / "wire" / "protocol.h").read_text()
    version = re.search(r"kProtocolVersion = (\d+);", header).group(1)
    proto_first = (ROOT / "proto" / "zone.proto").read_text().splitlines()[0]
    stated = re.search(r"version (\d+)", proto_first)
    if stated is None or stated.group(1) != version:
        problems.append(f"proto/zone.proto:1: states {proto_first!r}; the protocol is {version}")
    protocol_md = (ROOT / "docs" / "protocol.md").read_text()
    for n, line in enumerate(protocol_md.splitlines(), 1):
        for found in re.findall(r"protocol \*\*(\d+)\*\*", line):
            if found != version:
                problems.append(f"docs/protocol.md:{n}: states protocol {found}; it is {version}")
    for p in problems:
        print(p)
    print(f"docs_check: {len(DOCS)} pages, {cited} tests cited, {links} paths and links, "
          f"protocol {version}: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
