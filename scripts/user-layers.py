#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""user-layers.py [USERDIR]: the CLI's layers hold (scripts/static-checks.sh).

user/ keeps its layers as folders, lowest first:

  (user/ itself)  blkfloor.h only: exit codes, the command table's type
  analysis/       pure analysis: series, classify, fit, plot, json
  nl/             the netlink client
  dev/            readers of the device and its path (sysfs, pathinfo)
  run/            runs: the engine, their summary, their traces
  cmd/            the commands, their shared helpers and main()

Two rules, each a failure with the files named:
- a file includes headers of its own layer or of lower ones only;
- no include cycle between source files. File A depends on file B when A
  includes (directly or through other headers) a header that declares a
  function B defines; a cycle of such dependencies is one module in
  several files, whatever the include guards allow.
Includes are resolved by name as the Makefile's -I list does (every
folder), so a moved file keeps its #include lines.
"""
import os
import re
import sys

LAYERS = ["", "analysis", "nl", "dev", "run", "cmd"]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                  text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# a prototype or a definition starts at column 0 (not static, not a macro)
PROTO = re.compile(r"^(?!static\b|typedef\b|extern\b|#)[A-Za-z_][^;{}()#]*?"
                   r"\b(\w+)\s*\([^;{}]*\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?;",
                   re.M | re.S)
DEF = re.compile(r"^(?!static\b|#)[A-Za-z_][^;{}()#=]*?\b(\w+)\s*\([^;{}]*\)\s*\{",
                 re.M | re.S)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "user")
    root = os.path.normpath(root)
    files = {}          # relative path -> text (comments stripped)
    for d, dirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        rel = "" if rel == "." else rel
        if rel.split(os.sep)[0] == "tests":
            dirs[:] = []
            continue
        for n in names:
            if n.endswith((".c", ".h")):
                p = os.path.join(rel, n) if rel else n
                with open(os.path.join(d, n), encoding="utf-8") as f:
                    files[p] = strip_comments(f.read())
    byname = {}
    for p in files:
        byname.setdefault(os.path.basename(p), []).append(p)
    errors = []

    def resolve(src, name):
        here = os.path.join(os.path.dirname(src), name)
        if here in files:
            return here
        cand = byname.get(os.path.basename(name), [])
        if len(cand) > 1:
            errors.append("%s: #include \"%s\" is ambiguous: %s" %
                          (src, name, " ".join(sorted(cand))))
        return cand[0] if cand else None

    incs = {p: [h for h in (resolve(p, n) for n in INC.findall(t)) if h]
            for p, t in files.items()}

    def layer(p):
        top = os.path.dirname(p).split(os.sep)[0]
        return LAYERS.index(top) if top in LAYERS else None

    for p in sorted(files):
        if layer(p) is None:
            errors.append("%s: in no layer (%s)" %
                          (p, ", ".join(l + "/" for l in LAYERS)))
            continue
        for h in incs[p]:
            if layer(h) is not None and layer(h) > layer(p):
                errors.append("%s includes %s: a layer above its own" % (p, h))

    # headers seen by each file, through other headers too
    def closure(p, seen=None):
        seen = set() if seen is None else seen
        for h in incs[p]:
            if h not in seen:
                seen.add(h)
                closure(h, seen)
        return seen

    definer = {}
    for p, t in files.items():
        if p.endswith(".c"):
            for fn in DEF.findall(t):
                definer.setdefault(fn, set()).add(p)
    declares = {p: set(PROTO.findall(t)) for p, t in files.items()
                if p.endswith(".h")}
    dep = {}
    for p in files:
        if not p.endswith(".c"):
            continue
        why = {}
        for h in closure(p):
            for fn in declares.get(h, ()):
                for q in definer.get(fn, ()):
                    if q != p:
                        why.setdefault(q, (h, fn))
        dep[p] = why

    # strongly connected components (Tarjan)
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(dep[v]):
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
            comps.append(comp)

    sys.setrecursionlimit(10000)
    for v in sorted(dep):
        if v not in index:
            visit(v)
    for comp in comps:
        if len(comp) < 2:
            continue
        comp = set(comp)
        lines = []
        for a in sorted(comp):
            for b in sorted(comp & set(dep[a])):
                h, fn = dep[a][b]
                lines.append("  %s -> %s (%s declares %s)" % (a, b, h, fn))
        errors.append("include cycle between %s:\n%s" %
                      (", ".join(sorted(comp)), "\n".join(lines)))
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
