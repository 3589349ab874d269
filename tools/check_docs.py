#!/usr/bin/env python3
"""Checks that Parlor's documentation stands on its own.

Every relative link in a tracked Markdown file must name a file or folder that exists in the
repository, and no tracked text file may point outside the repository (a `../shared/` path,
or a relative link that climbs above the top). Prints each problem as FILE:LINE: what, and
exits 1 when there is any.
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
OUTSIDE = re.compile(r"\.\./shared/")
TEXT_SUFFIXES = (".md", ".h", ".cpp", ".txt", ".sh", ".py", ".ts", ".mjs", ".json", ".cfg",
                 ".conf", ".in", ".yml", ".yaml")


def tracked(root):
    out = subprocess.run(["git", "-C", root, "ls-files"], check=True, capture_output=True,
                         text=True).stdout
    return [line for line in out.splitlines() if line]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    problems = []
    files = tracked(root)
    for path in files:
        name = os.path.basename(path)
        if not (path.endswith(TEXT_SUFFIXES) or name in ("CMakeLists.txt", "Makefile")):
            continue
        if "node_modules/" in path or path.endswith("package-lock.json"):
            continue
        full = os.path.join(root, path)
        try:
            with open(full, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        for number, line in enumerate(lines, 1):
            if OUTSIDE.search(line) and path != "tools/check_docs.py":
                problems.append(f"{path}:{number}: points outside the repository: {line.strip()}")
            if not path.endswith(".md"):
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                    continue  # a URL or an anchor in the same page
                local = target.split("#", 1)[0]
                resolved = os.path.normpath(os.path.join(os.path.dirname(full), local))
                if not (resolved + os.sep).startswith(root + os.sep) and resolved != root:
                    problems.append(f"{path}:{number}: link leaves the repository: {target}")
                elif not os.path.exists(resolved):
                    problems.append(f"{path}:{number}: broken link: {target}")
    for problem in problems:
        print(problem)
    print(f"check_docs: {len(files)} files, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
