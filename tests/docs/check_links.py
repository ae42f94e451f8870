#!/usr/bin/env python3
"""Every relative link of the repository's Markdown files leads somewhere: the file or folder
exists and, for a link into a Markdown file with #anchor, a heading of that file has that anchor
(GitHub's rule: lower case, punctuation other than '-' and '_' dropped, spaces as '-').

    check_links.py SRC        exit 1 listing each broken link as FILE:LINE: LINK (why)"""
import os
import re
import subprocess
import sys

LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")


def anchors(path, cache={}):
    if path not in cache:
        found, seen, fenced = set(), {}, False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                if fenced or not line.startswith("#"):
                    continue
                text = line.lstrip("#").strip()
                slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                found.add(slug if n == 0 else f"{slug}-{n}")
        cache[path] = found
    return cache[path]


def broken_links(src):
    files = subprocess.run(["git", "-C", src, "ls-files", "*.md"], capture_output=True, text=True, check=True)
    for name in files.stdout.split():
        path = os.path.join(src, name)
        if not os.path.exists(path):  # deleted in the work tree
            continue
        fenced = False
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if FENCE.match(line):
                    fenced = not fenced
                if fenced:
                    continue
                for target in LINK.findall(line):
                    if re.match(r"[a-z]+:", target):
                        continue
                    file_part, _, anchor = target.partition("#")
                    dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                    if not os.path.exists(dest):
                        # links out of the repository (the shared data) are not checked
                        if os.path.relpath(dest, src).startswith(".."):
                            continue
                        yield f"{name}:{number}: {target} (no such file)"
                    elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                        yield f"{name}:{number}: {target} (no heading '#{anchor}' in {os.path.relpath(dest, src)})"


if __name__ == "__main__":
    problems = list(broken_links(sys.argv[1]))
    for p in problems:
        print(p)
    print(f"{len(problems)} broken link(s)")
    sys.exit(1 if problems else 0)
