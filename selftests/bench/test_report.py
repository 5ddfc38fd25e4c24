#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of make bench's report (report.py) on made-up results whose
ratios are known: best-of-rounds ratios against bare-stamped, the
like-for-like write ratio of blkfloor-shared (writes only), the
accounting cost, and the latency table's biases. KTAP output."""

import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from ktap import Ktap  # noqa: E402

K = "6.12.0-test"
ktap = Ktap()
check = ktap.check


def tput(test, engine, rnd, ns_per_io, bs):
    ios = 100000
    return {"kind": "tput", "kernel": K, "irqmode": 0, "test": test,
            "engine": engine, "round": rnd, "bs": bs, "qd": 32, "ios": ios,
            "bytes": ios * bs, "ns": ios * ns_per_io,
            "cpu_ns": ios * ns_per_io}


def records():
    # ns per I/O by engine; round 1 is slower for every engine (the host
    # took time), so the report must take bests.
    cost = {"randread-4k-qd32": {"blkfloor": 2600, "blkfloor-nostats": 2580,
                                 "bare": 2340, "bare-seqplug": 2470,
                                 "bare-stamped": 2548,
                                 "fio-io_uring": 7100, "fio-libaio": 9500},
            "seqwrite-128k-qd32": {"blkfloor": 6400, "blkfloor-nostats": 6379,
                                   "blkfloor-shared": 5900, "bare": 5750,
                                   "bare-seqplug": 5750,
                                   "bare-stamped": 5841,
                                   "fio-io_uring": 19000, "fio-libaio": 24000}}
    out = [{"kind": "env", "kernel": K, "ncpu": 1, "fio": "fio-3.33",
            "time": 2, "rounds": 2,
            "engines": sorted({e for c in cost.values() for e in c})}]
    for rnd, slow in ((0, 1.0), (1, 1.25)):
        for test, c in cost.items():
            bs = 4096 if test.startswith("randread") else 131072
            out += [tput(test, e, rnd, int(ns * slow), bs)
                    for e, ns in c.items()]
    for rnd in range(3):
        for nsec in (10000, 1000000):
            out.append({"kind": "latency", "kernel": K, "engine": "blkfloor",
                        "completion_nsec": nsec, "qd": 1, "round": rnd,
                        "p50_ns": nsec + 2480, "mean_ns": nsec + 2510})
            out.append({"kind": "latency", "kernel": K,
                        "engine": "fio-io_uring", "completion_nsec": nsec,
                        "qd": 1, "round": rnd, "p50_ns": nsec + 5420,
                        "mean_ns": nsec + 5470})
            out.append({"kind": "latency", "kernel": K,
                        "engine": "bare-stamped", "completion_nsec": nsec,
                        "qd": 1, "round": rnd, "mean_ns": nsec + 2490})
    return out


def row(text, first):
    for line in text.splitlines():
        if line.split()[:1] == [first]:
            return line.split()
    return None


def main():
    print("KTAP version 1")
    print("1..6")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "r.jsonl")
        with open(path, "w") as f:
            for r in records():
                f.write(json.dumps(r) + "\n")
        p = subprocess.run([sys.executable, os.path.join(here, "report.py"),
                            path], capture_output=True, text=True)
        out = p.stdout
    check(p.returncode == 0, "report.py reads the results", p.stderr)
    head = None
    for line in out.splitlines():
        if line.startswith("test ") and "blkfloor/bare-stamped" in line:
            head = line.split()
    check(head is not None and "blkfloor-shared/bare-stamped" in head,
          "the ratio table has blkfloor/bare-stamped and "
          "blkfloor-shared/bare-stamped", out)
    rd = [r for r in out.splitlines() if r.startswith("randread-4k-qd32 ") and
          "(" in r]
    wr = [r for r in out.splitlines()
          if r.startswith("seqwrite-128k-qd32 ") and "(" in r]
    rd = rd[0].split() if rd else []
    wr = wr[0].split() if wr else []
    # columns: test, io_uring (2), bare (2), seqplug (2), stamped (2),
    # shared/stamped (2 or "-"), libaio (2), acc ns, acc %
    want = "%.2f" % (2548 / 2600)
    check(len(rd) > 7 and rd[7] == want and rd[9] == "-",
          "reads: blkfloor/bare-stamped %s from the best rounds, no "
          "blkfloor-shared ratio" % want, " ".join(rd))
    want_w = "%.2f" % (5841 / 5900)
    check(len(wr) > 9 and wr[7] == "%.2f" % (5841 / 6400) and
          wr[9] == want_w,
          "writes: blkfloor-shared/bare-stamped %s beside blkfloor's %.2f"
          % (want_w, 5841 / 6400), " ".join(wr))
    check(len(rd) > 1 and rd[-2] == "+20",
          "accounting: blkfloor - blkfloor-nostats = +20 ns per I/O",
          " ".join(rd))
    lat = row(out, "10")
    check(lat is not None and "+2.48" in lat and "+5.42" in lat and
          "+2.49" in lat and lat[-1] == "yes",
          "latency: blkfloor's and fio's p50 bias, bare-stamped's mean bias, "
          "the goal met", " ".join(lat or []))
    return ktap.status()


if __name__ == "__main__":
    sys.exit(main())
