#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench, host side: turn the guest's JSON lines into the tables.

usage: report.py [--rst] RESULTS.jsonl...

The guest runs under TCG on a shared host: other load can only slow a
run down, never speed it up, so the best of the interleaved rounds is the
estimate of what an engine can do, and ratios and the accounting cost are
taken between bests. The median over rounds, and the median of per-round
ratios (engines of one round ran back to back) in parentheses, show how
much the host's load moved things. ns/IO best is 1e9 / best IOPS: the
per-I/O cost of a submitter that keeps one CPU busy (the in-kernel ones
with null_blk completing inline do). CPU ns/IO is the median of guest CPU
time / I/Os (see guest.py for how each engine's CPU time is taken). --rst prints the same tables as reStructuredText for
Documentation/performance.rst.
"""

import argparse
import json
import statistics
import sys

ENGINES = ["blkfloor", "blkfloor-nostats", "blkfloor-shared", "bare",
           "bare-seqplug", "bare-stamped", "fio-io_uring", "fio-libaio"]
TESTS = ["randread-4k-qd1", "randread-4k-qd32", "seqwrite-128k-qd32"]


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return None
    k = (len(xs) - 1) * p
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def fmt(v, spec, none="-"):
    return none if v is None else format(v, spec)


class Table:
    def __init__(self, rst, head, align=None):
        self.rst, self.head, self.rows = rst, head, []
        self.align = align or ["<"] + [">"] * (len(head) - 1)

    def add(self, *row):
        self.rows.append([str(c) for c in row])

    def render(self):
        w = [max(len(r[i]) for r in self.rows + [self.head])
             for i in range(len(self.head))]

        def line(r):
            return "  ".join(format(c, a + str(n))
                             for c, a, n in zip(r, self.align, w)).rstrip()
        if self.rst:
            sep = "  ".join("=" * n for n in w)
            out = [sep, line(self.head), sep] + [line(r) for r in self.rows]
            return "\n".join(out + [sep])
        out = [line(self.head), "  ".join("-" * n for n in w)]
        return "\n".join(out + [line(r) for r in self.rows])


def caption(out, text, rst):
    """A line introducing a table (a paragraph of its own in rst)."""
    out.append(text)
    if rst:
        out.append("")


def load(paths):
    recs = []
    for p in paths:
        with open(p) as f:
            recs += [json.loads(line) for line in f if line.strip()]
    return recs


def tput_rows(recs, kernel, irqmode):
    """{(test, engine): [rec per round]}"""
    out = {}
    for r in recs:
        if (r.get("kind") == "tput" and r["kernel"] == kernel and
                r["irqmode"] == irqmode and r.get("ios") and r.get("ns")):
            out.setdefault((r["test"], r["engine"]), []).append(r)
    return out


def paired(rows, test, a, b, f):
    """Median over rounds of f(rec_a, rec_b) for the same round."""
    ra = {r["round"]: r for r in rows.get((test, a), [])}
    rb = {r["round"]: r for r in rows.get((test, b), [])}
    return med([f(ra[k], rb[k]) for k in ra if k in rb])


def iops(r):
    return r["ios"] * 1e9 / r["ns"]


def cpu_per_io(r):
    return r["cpu_ns"] / r["ios"]


def report_tput(recs, kernel, irqmode, rst, out):
    rows = tput_rows(recs, kernel, irqmode)
    if not rows:
        return
    mode = {0: "irqmode=0 (none)", 1: "irqmode=1 (softirq)"}[irqmode]
    caption(out, "%s, null_blk %s, memory_backed=0:" % (kernel, mode), rst)
    t = Table(rst, ["test", "engine", "IOPS best", "IOPS median",
                    "MB/s best", "ns/IO best", "CPU ns/IO", "rounds"])
    best = {}
    for test in TESTS:
        for e in ENGINES:
            rs = rows.get((test, e))
            if not rs:
                continue
            b = max(iops(r) for r in rs)
            best[(test, e)] = b
            t.add(test, e, fmt(b, ",.0f"), fmt(med([iops(r) for r in rs]),
                                                ",.0f"),
                  fmt(max(r["bytes"] * 1e3 / r["ns"] for r in rs), ".1f"),
                  fmt(1e9 / b, ".0f"),
                  fmt(med([cpu_per_io(r) for r in rs]), ".0f"), len(rs))
    out += [t.render(), ""]

    t = Table(rst, ["test", "blkfloor/fio-io_uring", "blkfloor/bare",
                    "blkfloor/bare-seqplug", "blkfloor/bare-stamped",
                    "blkfloor-shared/bare-stamped",
                    "blkfloor/fio-libaio", "accounting ns/IO",
                    "accounting %"])
    for test in TESTS:
        if not any(k[0] == test for k in rows):
            continue

        def ratio(b, a="blkfloor"):
            x, y = best.get((test, a)), best.get((test, b))
            m = paired(rows, test, a, b,
                       lambda u, v: iops(u) / iops(v))
            if x is None or y is None:
                return "-"
            return "%.2f (%.2f)" % (x / y, m)
        a, n = best.get((test, "blkfloor")), best.get((test, "blkfloor-nostats"))
        acc_ns = acc_pct = "-"
        if a and n:
            acc_ns = "%+.0f" % (1e9 / a - 1e9 / n)
            acc_pct = "%+.1f" % (100 * (1e9 / a - 1e9 / n) / (1e9 / a))
        t.add(test, ratio("fio-io_uring"), ratio("bare"),
              ratio("bare-seqplug"), ratio("bare-stamped"),
              ratio("bare-stamped", "blkfloor-shared"),
              ratio("fio-libaio"),
              acc_ns, acc_pct)
    out += [t.render(), ""]


def precision_stats(r):
    """Per-interval and 100 ms-window errors of one precision run."""
    iv = sorted(r.get("intervals", []), key=lambda x: x["index"])[1:-1]
    set_bps = r["set_bps"]
    errs = [abs(x["bytes"] * 1e9 / (x["end_ns"] - x["start_ns"]) -
                set_bps) * 100 / set_bps for x in iv
            if x["end_ns"] > x["start_ns"]]
    win = []
    for i in range(0, len(iv) - 9, 10):
        g = iv[i:i + 10]
        ns = g[-1]["end_ns"] - g[0]["start_ns"]
        win.append(abs(sum(x["bytes"] for x in g) * 1e9 / ns - set_bps)
                   * 100 / set_bps)
    tot_ns = (iv[-1]["end_ns"] - iv[0]["start_ns"]) if iv else 0
    mean = sum(x["bytes"] for x in iv) * 1e3 / tot_ns if tot_ns else None
    return {"n": len(iv), "mean": mean, "med": med(errs),
            "p95": pct(errs, 0.95), "wmed": med(win), "wp95": pct(win, 0.95)}


def report_precision(recs, kernel, rst, out):
    t = Table(rst, ["set rate", "run", "intervals", "mean MB/s",
                    "median abs. err %", "p95 abs. err %",
                    "100 ms windows: median %", "p95 %"])
    spread = {}
    for r in recs:
        if r.get("kind") != "precision" or r["kernel"] != kernel:
            continue
        st = precision_stats(r)
        spread.setdefault(r["how"], []).append(st)
        t.add("%s, %.2f MB/s" % (r["how"], r["set_bps"] / 1e6),
              r.get("rep", 0), st["n"], fmt(st["mean"], ".2f"),
              fmt(st["med"], ".2f"), fmt(st["p95"], ".2f"),
              fmt(st["wmed"], ".2f"), fmt(st["wp95"], ".2f"))
    if not spread:
        return
    caption(out, "%s, interval precision, 10 ms intervals, 4 KiB random "
            "reads QD32 (first and last interval excluded):" % kernel, rst)
    out += [t.render(), ""]
    for how, sts in spread.items():
        if len(sts) < 2:
            continue
        for key, what in (("p95", "p95"), ("med", "median")):
            v = sorted(x[key] for x in sts if x[key] is not None)
            if v:
                out.append("%s, %s abs. err over %d runs: min %.2f %%, "
                           "median %.2f %%, max %.2f %%" % (
                               how, what, len(v), v[0], med(v), v[-1]))
        if rst:
            out.append("")
    if not rst:
        out.append("")


def report_latency(recs, kernel, rst, out):
    """Median over rounds of each engine's p50 and mean, against the
    programmed completion time; bias = measured - programmed."""
    rows = {}
    for r in recs:
        if (r.get("kind") == "latency" and r["kernel"] == kernel and
                (r.get("p50_ns") is not None or
                 r.get("mean_ns") is not None)):
            rows.setdefault((r["completion_nsec"], r["qd"], r["engine"]),
                            []).append(r)
    if not rows:
        return
    caption(out, "%s, latency accuracy: 4 KiB random reads on null_blk "
            "irqmode=2 (each request completes by a timer the programmed "
            "time after it reached the driver); bias = measured - "
            "programmed, median of %d rounds; p50s are histogram bucket "
            "values (1/64 of a power of two: 128 ns at 10 us, 1 us at "
            "100 us, 8 us at 1 ms), means are exact; goal: blkfloor's p50 "
            "bias < 2 %% + 5 us, and several times smaller than fio's; "
            "bare-stamped (the same stamps, nothing else) is the floor of "
            "any measurement at the bio:"
            % (kernel, max(len(v) for v in rows.values())), rst)
    t = Table(rst, ["programmed", "QD", "blkfloor p50 us", "p50 bias us",
                    "p50 bias %", "mean bias us", "fio p50 us",
                    "p50 bias us", "p50 bias %", "mean bias us",
                    "fio/blkfloor bias: p50; mean",
                    "bare-stamped mean bias us", "< 2 % + 5 us"])
    for (nsec, qd) in sorted({(k[0], k[1]) for k in rows}):
        def stat(e, key):
            rs = rows.get((nsec, qd, e))
            return med([x[key] for x in rs]) if rs else None
        b, f = stat("blkfloor", "p50_ns"), stat("fio-io_uring", "p50_ns")
        bm, fm = stat("blkfloor", "mean_ns"), stat("fio-io_uring", "mean_ns")
        sm = stat("bare-stamped", "mean_ns")
        bb = None if b is None else b - nsec
        fb = None if f is None else f - nsec
        def ratio_of(x, y):
            return "-" if x is None or y is None or y <= 0 else \
                "%.1f" % (x / y)
        ratio = "%s; %s" % (ratio_of(fb, bb),
                            ratio_of(None if fm is None else fm - nsec,
                                     None if bm is None else bm - nsec))
        goal = "-"
        if bb is not None:
            goal = "yes" if abs(bb) < 0.02 * nsec + 5000 else "no"

        def us(v, spec):
            return fmt(None if v is None else v / 1e3, spec)
        t.add("%g us" % (nsec / 1e3), qd, us(b, ".2f"), us(bb, "+.2f"),
              fmt(None if bb is None else 100 * bb / nsec, "+.1f"),
              us(None if bm is None else bm - nsec, "+.2f"),
              us(f, ".2f"), us(fb, "+.2f"),
              fmt(None if fb is None else 100 * fb / nsec, "+.1f"),
              us(None if fm is None else fm - nsec, "+.2f"), ratio,
              us(None if sm is None else sm - nsec, "+.2f"), goal)
    out += [t.render(), ""]


def report_memory(recs, kernel, rst, out):
    t = Table(rst, ["run", "during - before KiB", "slab during - before KiB",
                    "after - before KiB", "growth ring full..end KiB",
                    "slab growth KiB"])
    slabs = []
    any_ = False
    for r in recs:
        if r.get("kind") != "memory" or r["kernel"] != kernel:
            continue
        any_ = True
        b, a = r["mem_before"], r["mem_after"]
        s = [m for ts, m in r["mem_samples"]]
        # Growth once the interval ring is full (ring * interval + 0.5 s).
        full = r.get("ring", 256) * r.get("interval_ns", 10_000_000) / 1e9
        late = [m for ts, m in r["mem_samples"] if ts >= full + 0.5]
        peak = max((m["Used"] for m in s), default=None)
        speak = max((m["SUnreclaim"] for m in s), default=None)
        grow = (late[-1]["Used"] - late[0]["Used"]) if len(late) > 1 else None
        sgrow = ((late[-1]["SUnreclaim"] - late[0]["SUnreclaim"])
                 if len(late) > 1 else None)
        t.add("%s (QD %d, %g s)" % (r["tag"], r["qd"], r["time"]),
              fmt(None if peak is None else (peak - b["Used"]) / 1024, ".0f"),
              fmt(None if speak is None else
                  (speak - b["SUnreclaim"]) / 1024, ".0f"),
              fmt((a["Used"] - b["Used"]) / 1024, "+.0f"),
              fmt(None if grow is None else grow / 1024, "+.0f"),
              fmt(None if sgrow is None else sgrow / 1024, "+.0f"))
        if r["tag"] == "qd1024" and r.get("slab_delta"):
            top = sorted(r["slab_delta"].items(), key=lambda kv: -kv[1])[:5]
            slabs = ["%s %+d KiB" % (k, v // 1024) for k, v in top]
    if any_:
        caption(out, "%s, memory per run (Used = MemTotal - MemFree - Buffers "
                "- Cached - SReclaimable; 10 ms intervals, ring 256):"
                % kernel, rst)
        out += [t.render()]
        if slabs:
            if rst:
                out.append("")
            out.append("slab caches grown at QD 1024: " + ", ".join(slabs))
        out.append("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rst", action="store_true")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    recs = load(a.files)
    out = []
    for env in [r for r in recs if r.get("kind") == "env"]:
        k = env["kernel"]
        out.append("%s: %d CPUs, %s, %g s per run, %d rounds, engines: %s"
                   % (k, env["ncpu"], env["fio"], env["time"], env["rounds"],
                      " ".join(env["engines"])))
        if env.get("blkfloor_reason"):
            out.append("  blkfloor not measured: " + env["blkfloor_reason"])
        if env.get("bare_reason"):
            out.append("  bare not measured: " + env["bare_reason"])
        out.append("")
        for irq in (0, 1):
            report_tput(recs, k, irq, a.rst, out)
        report_precision(recs, k, a.rst, out)
        report_latency(recs, k, a.rst, out)
        report_memory(recs, k, a.rst, out)
    failed = [r for r in recs if r.get("failed")]
    for r in failed:
        what = r.get("test") or "%s %s ns QD %s" % (
            r.get("kind"), r.get("completion_nsec"), r.get("qd"))
        out.append("FAILED: %s %s %s round %s: %s" % (
            r["kernel"], what, r.get("engine"), r.get("round"), r["failed"]))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
