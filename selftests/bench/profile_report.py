#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/profile-io.sh, host side: guest instructions per I/O, by function.

Each argument is a run's result file from profile_guest.py; beside it lie
the guest's symbol table (RESULT.kallsyms) and the tbcount plugin's block
counts ("vaddr n_insns execs" per line) at the marks just before and just
after the run (RESULT.blocks.0, RESULT.blocks.1); what ran between them
is what the run cost, from its start to its end.

With --ko MODULE.ko (built with debug information, as kbuild does), the
module's share is also split by source function, inlined ones included:
a block is a straight run of instructions, so each instruction of it is
charged to the innermost function it was compiled from (objdump and
addr2line on the .ko). Every block is
charged to the text symbol at or below its start address (a block ends at
the first branch or call, so it never leaves its function except by a fall
through into the next symbol, which kernel code does not do). A function's
instructions per I/O are its instructions over the run's I/Os.

Between the marks there is a little more than the run: the end of one
tbmark process and the start of the next, and, for blkfloor, the netlink
requests that start the run and poll it. Against hundreds of thousands of
I/Os it is below one instruction per I/O in any function.
"""

import argparse
import bisect
import json
import os
import re
import subprocess
import sys


def load_syms(path):
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] not in "tTwW":
                continue
            addr = int(p[0], 16)
            if addr:
                name = p[2] + (" " + p[3] if len(p) > 3 else "")
                syms.append((addr, name))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


def load_blocks(path):
    blocks = {}
    with open(path) as f:
        for line in f:
            va, n, execs = line.split()
            blocks[(int(va, 16), int(n))] = int(execs)
    return blocks


def ko_lines(ko, text_delta, counts):
    """Instructions by inline chain for the module's .text: @counts maps a
    guest address to its executions; .text offset = address - text_delta."""
    dis = subprocess.run(["objdump", "-d", "-j", ".text", "--no-show-raw-insn",
                          ko], capture_output=True, text=True,
                         check=True).stdout
    insns = sorted(int(m.group(1), 16) for m in
                   re.finditer(r"^\s+([0-9a-f]+):\s", dis, re.M))
    per_insn = {}
    for (va, n), execs in counts.items():
        i = bisect.bisect_left(insns, va - text_delta)
        if i >= len(insns) or insns[i] != va - text_delta:
            continue
        for off in insns[i:i + n]:
            per_insn[off] = per_insn.get(off, 0) + execs
    if not per_insn:
        return {}
    offs = sorted(per_insn)
    a2l = subprocess.run(["addr2line", "-a", "-f", "-i", "-e", ko] +
                         ["0x%x" % o for o in offs], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    chains, cur, fns = {}, None, []
    for line in a2l + ["0xend"]:
        if line.startswith("0x"):
            if cur is not None:
                chains[cur] = " < ".join(fns[:3])
            cur = int(line, 16) if line != "0xend" else None
            fns = []
        elif not line.startswith("/") and not line.startswith("??:"):
            fns.append(line)
    by_chain = {}
    for off, execs in per_insn.items():
        c = chains.get(off, "?")
        by_chain[c] = by_chain.get(c, 0) + execs
    return by_chain


def text_delta(ko, syms):
    """Guest address of the module's .text minus its offset in the .ko."""
    tab = subprocess.run(["objdump", "-t", ko], capture_output=True,
                         text=True, check=True).stdout
    for line in tab.splitlines():
        p = line.split()
        if len(p) >= 6 and p[-3] == ".text" and "F" in p[1:-3]:
            if p[-1] in syms:
                return syms[p[-1]] - int(p[0], 16)
    return None


def profile(result, kos):
    with open(result) as f:
        r = json.load(f)
    addrs, names = load_syms(result + ".kallsyms")
    before = load_blocks(result + ".blocks.0")
    after = load_blocks(result + ".blocks.1")
    by_fn = {}
    total = 0
    delta = {}
    for (va, n), execs in after.items():
        ins = n * (execs - before.get((va, n), 0))
        if ins:
            delta[(va, n)] = execs - before.get((va, n), 0)
            total += ins
            i = bisect.bisect_right(addrs, va) - 1
            name = (names[i] if i >= 0 and va >= 0xffff000000000000
                    else "(user space)")
            by_fn[name] = by_fn.get(name, 0) + ins
    ios = max(r.get("ios", 0), 1)
    lines = {}
    for ko in kos:
        # build/profile keeps them as STAMP-NAME.ko
        mod = os.path.basename(ko)[:-3].split("-")[-1]
        syms = {n.split()[0]: a for a, n in zip(addrs, names)
                if n.endswith(" [%s]" % mod)}
        d = text_delta(ko, syms)
        if d is not None:
            lines[mod] = {k: v / ios for k, v in
                          ko_lines(ko, d, delta).items()}
    return r, {k: v / ios for k, v in by_fn.items()}, total / ios, lines


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ko", action="append", default=[],
                    help="a module to split by source function")
    ap.add_argument("results", nargs="+", help="profile_guest.py results")
    a = ap.parse_args(argv[1:])
    runs4 = [profile(p, a.ko) for p in a.results]
    runs = [(r, f, t) for r, f, t, _ in runs4]
    cols = ["%s" % r["engine"] for r, _, _ in runs]
    print("guest instructions per I/O, by function: %s, %s" %
          (runs[0][0]["test"], runs[0][0]["kernel"]))
    for r, _, tot in runs:
        print("  %-18s %9d I/Os in %.2f s of guest time; %.0f instructions "
              "per I/O in all" %
              (r["engine"], r["ios"], r["ns"] / 1e9, tot))
    fns = set()
    for _, f, _ in runs:
        fns |= {k for k, v in f.items() if v >= 1.0}
    # The first column against the last: largest differences first.
    first, last = runs[0][1], runs[-1][1]
    order = sorted(fns, key=lambda k: (-abs(first.get(k, 0) -
                                           last.get(k, 0)), k))
    w = max([len(k) for k in order] + [8])
    print()
    print("%-*s " % (w, "function") + " ".join("%12s" % c for c in cols) +
          ("  %12s" % "difference" if len(runs) > 1 else ""))
    shown = [0.0] * len(runs)
    for k in order:
        vals = [f.get(k, 0.0) for _, f, _ in runs]
        for i, v in enumerate(vals):
            shown[i] += v
        line = "%-*s " % (w, k) + " ".join("%12.1f" % v for v in vals)
        if len(runs) > 1:
            line += "  %+12.1f" % (vals[0] - vals[-1])
        print(line)
    rest = [sum(f.values()) - s for (_, f, _), s in zip(runs, shown)]
    print("%-*s " % (w, "(all functions below 1 per I/O)") +
          " ".join("%12.1f" % v for v in rest))
    for (r, _, _, lines) in runs4:
        for mod, by_chain in sorted(lines.items()):
            print()
            print("%s, in %s, by innermost source function (< caller):" %
                  (r["engine"], mod))
            for c, v in sorted(by_chain.items(), key=lambda kv: -kv[1]):
                if v >= 0.5:
                    print("  %8.1f  %s" % (v, c))
            print("  %8.1f  in all" % sum(by_chain.values()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
