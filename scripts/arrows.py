#!/usr/bin/env python3
"""arrows.py BUILD_DIR [DIR...] - the calls between the program's files.

An arrow A -> B: A's object calls (or reads) a symbol B's object defines,
as the linker sees them (nm): static functions and inline ones in headers
are not arrows.  Prints one line per arrow, "arrow A B SYMBOL...", then one
per circle of files that reach each other (a strongly connected set of two
files or more), "circle N A B ...", and per function over 100 lines of the
sources, "long N FILE FUNCTION".  DIR...: the source folders to look at
(default: lib lib/history lib/synth cli collector analyzer tui).
"""
import collections
import os
import re
import subprocess
import sys


def symbols(obj):
    defined, used = set(), set()
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBR":
            defined.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            used.add(p[1])
    return defined, used


def circles(edges, nodes):
    """Tarjan's strongly connected components of two nodes or more."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def long_functions(src, limit=100):
    """Kernel style: a function's body runs from a lone "{" to a lone "}"."""
    name, start = None, None
    with open(src) as f:
        for n, line in enumerate(f, 1):
            if re.match(r"^[a-z].*\(", line) and not line.rstrip().endswith(";"):
                name = line.strip()
            elif line.rstrip() == "{":
                start = n
            elif line.rstrip() == "}" and start:
                if n - start - 1 > limit:
                    yield n - start - 1, name
                start = None


def main():
    build = sys.argv[1]
    dirs = sys.argv[2:] or ["lib", "lib/history", "lib/synth", "cli", "collector", "analyzer",
                            "tui"]
    defs, uses = {}, {}
    for d in dirs:
        for src in sorted(os.listdir(d)):
            if not src.endswith(".c"):
                continue
            path = os.path.join(d, src)
            obj = os.path.join(build, d, src[:-2] + ".o")
            for length, fn in long_functions(path):
                print(f"long {length} {path} {fn}")
            if not os.path.exists(obj):
                continue
            defined, used = symbols(obj)
            for s in defined:
                defs[s] = path
            uses[path] = used
    edges = collections.defaultdict(set)
    for f, used in sorted(uses.items()):
        by = collections.defaultdict(list)
        for s in used:
            if s in defs and defs[s] != f:
                by[defs[s]].append(s)
        for t in sorted(by):
            edges[f].add(t)
            print(f"arrow {f} {t} {' '.join(sorted(by[t]))}")
    for c in circles(edges, uses):
        print(f"circle {len(c)} {' '.join(c)}")


if __name__ == "__main__":
    main()
