#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench, guest side: measure blkfloor against a bare in-kernel
submitter and fio on null_blk, in one guest, interleaved.

Runs inside the test guest (scripts/bench.sh boots it). Writes one JSON
object per line to --out (the host's scripts/bench.sh turns them into the
table) and progress to stdout. Every run of every engine is measured the
same way:

  ios, bytes    what completed (blkfloor: RUN_GET totals; bare: its
                result_* parameters; fio: its JSON output)
  ns            the run's own elapsed time as the engine reports it
  cpu_ns        guest CPU time spent: for the in-kernel engines the non-idle
                time of all CPUs (/proc/stat) from start to end, for fio the
                CPU time fio reports for its job (usr + sys), which leaves
                out fio's process start-up
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bfnl  # noqa: E402

TESTS = [
    # name, op, random, bs, qd
    ("randread-4k-qd1", "read", True, 4096, 1),
    ("randread-4k-qd32", "read", True, 4096, 32),
    ("seqwrite-128k-qd32", "write", False, 131072, 32),
]
NULLB = "/sys/kernel/config/nullb"


def log(*a):
    print("#", *a, flush=True)


def sh(*cmd, check=True):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if check and r.returncode:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                r.stdout.strip()))
    return r.stdout


def cpu_busy_ns():
    """Non-idle CPU time of all CPUs since boot, ns."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    idle = v[3] + v[4]
    # guest and guest_nice are already part of user and nice.
    return (sum(v[:8]) - idle) * 1_000_000_000 // hz


def meminfo():
    m = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":")
            m[k] = int(v.split()[0]) * 1024
    m["Used"] = (m["MemTotal"] - m["MemFree"] - m["Buffers"] - m["Cached"]
                 - m["SReclaimable"])
    return {k: m[k] for k in ("Used", "Slab", "SUnreclaim", "KernelStack",
                              "PageTables")}


def slabinfo():
    """{cache: bytes in active objects}, or {} when not readable."""
    out = {}
    try:
        with open("/proc/slabinfo") as f:
            for line in f:
                if line.startswith(("slabinfo", "#")):
                    continue
                p = line.split()
                out[p[0]] = int(p[1]) * int(p[3])
    except OSError:
        pass
    return out


# --- null_blk ----------------------------------------------------------------

def nullb_setup():
    sh("modprobe", "configfs", check=False)
    if not os.path.isdir("/sys/kernel/config/nullb"):
        if not os.path.ismount("/sys/kernel/config"):
            sh("mount", "-t", "configfs", "configfs", "/sys/kernel/config")
        sh("modprobe", "null_blk", "nr_devices=0")


def nullb_create(name, **kv):
    d = os.path.join(NULLB, name)
    os.mkdir(d)
    for k, v in kv.items():
        with open(os.path.join(d, k), "w") as f:
            f.write(str(v))
    with open(os.path.join(d, "power"), "w") as f:
        f.write("1")
    for _ in range(100):
        if os.path.exists("/dev/" + name):
            return "/dev/" + name
        time.sleep(0.05)
    raise RuntimeError("/dev/%s did not appear" % name)


def nullb_destroy(name):
    d = os.path.join(NULLB, name)
    with open(os.path.join(d, "power"), "w") as f:
        f.write("0")
    os.rmdir(d)


# --- engines -----------------------------------------------------------------

class Engines:
    def __init__(self, args):
        self.args = args
        self.bf = None
        self.bf_reason = args.no_blkfloor
        try:
            if self.bf_reason:
                raise RuntimeError(self.bf_reason)
            sh("modprobe", "blkfloor")
            self.bf = bfnl.Blkfloor()
            self.bf_version = self.bf.info()
        except (RuntimeError, OSError) as e:
            self.bf_reason = self.bf_reason or "blkfloor.ko not usable: %s" % e
            self.bf = None
        self.bare_reason = None
        if not os.path.exists(args.bare):
            self.bare_reason = "no %s" % args.bare

    def names(self):
        n = []
        if self.bf:
            # blkfloor-shared writes one shared buffer as bare does
            # (writes only; blkfloor's default gives every 4 KiB a header)
            n += ["blkfloor", "blkfloor-nostats", "blkfloor-shared"]
        if not self.bare_reason:
            # bare-seqplug plugs as blkfloor does: sequential runs only;
            # bare-stamped also stamps every bio as blkfloor does
            n += ["bare", "bare-seqplug", "bare-stamped"]
        return n + ["fio-io_uring", "fio-libaio"]

    def run(self, engine, dev, op, random, bs, qd, t):
        if engine.startswith("blkfloor"):
            flags = bfnl.C["BLKFLOOR_F_NO_STATS"] if "nostats" in engine else 0
            data = "shared" if engine == "blkfloor-shared" else None
            return self.blkfloor(dev, op, random, bs, qd, t, flags=flags,
                                 data=data)
        if engine == "bare":
            return self.bare(dev, op, random, bs, qd, t)
        if engine == "bare-seqplug":
            return self.bare(dev, op, random, bs, qd, t, plug=not random)
        if engine == "bare-stamped":
            return self.bare(dev, op, random, bs, qd, t, plug=not random,
                             stamp=True)
        return self.fio(engine.split("-", 1)[1], dev, op, random, bs, qd, t)

    def blkfloor(self, dev, op, random, bs, qd, t, flags=0, interval_ns=None,
                 ring=None, rate_bps=None, sample=False, data=None):
        """One run; with sample, memory is read while it runs."""
        samples = []
        before = meminfo() if sample else None
        slab0 = slabinfo() if sample else None
        c0 = cpu_busy_ns()
        rid = self.bf.start(dev, op=op, random=random, bs=bs, qd=qd,
                            time_s=t, interval_ns=interval_ns, ring=ring,
                            rate_bps=rate_bps, flags=flags, data=data)
        t0 = time.monotonic()
        slab1 = None
        while True:
            # Sleep through the run; poll often only near its end.
            left = t - (time.monotonic() - t0)
            if sample:
                time.sleep(0.25)
            else:
                time.sleep(max(left - 0.05, 0.02))
            g = self.bf.get(rid)
            if not self.bf.running(g["state"]):
                break
            if sample:
                samples.append((time.monotonic() - t0, meminfo()))
                if slab1 is None and time.monotonic() - t0 > t / 2:
                    slab1 = slabinfo()
            if time.monotonic() - t0 > t + 30:
                raise RuntimeError("blkfloor run %d did not end" % rid)
        c1 = cpu_busy_ns()
        r = {"ios": g.get("ios", 0), "bytes": g.get("bytes", 0),
             "ns": g.get("elapsed_ns", 0), "cpu_ns": c1 - c0,
             "errors": g.get("errors", 0), "state": g["state"],
             "errno": g.get("errno", 0), "run_id": rid}
        if interval_ns:
            r["intervals"] = self.bf.intervals(rid)
            r["dropped"] = g.get("dropped", 0)
        if sample:
            r["mem_before"] = before
            r["mem_samples"] = samples
            r["mem_after"] = meminfo()
            r["slab_delta"] = {k: v - slab0.get(k, 0)
                               for k, v in (slab1 or {}).items()
                               if abs(v - slab0.get(k, 0)) >= 16384}
        return r

    def bare(self, dev, op, random, bs, qd, t, plug=True, stamp=False,
             keep=False):
        """One run; with keep, the module stays loaded (profile_guest.py
        reads its symbols). With stamp, every bio is stamped at submission
        and completion and the latencies summed (lat_ns)."""
        c0 = cpu_busy_ns()
        sh("insmod", self.args.bare, "path=" + dev, "qd=%d" % qd,
           "bs=%d" % bs, "op=" + op, "random=%d" % int(random),
           "plug=%d" % int(plug), "stamp=%d" % int(stamp),
           "duration=%d" % max(1, round(t)))
        c1 = cpu_busy_ns()
        p = "/sys/module/blkfloor_bare/parameters/"
        res = {}
        for k in ("ios", "ns", "errors", "lat_ns"):
            with open(p + "result_" + k) as f:
                res[k] = int(f.read())
        if not keep:
            sh("rmmod", "blkfloor_bare")
        res["bytes"] = res["ios"] * bs
        res["cpu_ns"] = c1 - c0
        return res

    def fio(self, ioengine, dev, op, random, bs, qd, t):
        rw = ("rand" if random else "") + op
        cmd = ["fio", "--name=bench", "--filename=" + dev, "--direct=1",
               "--rw=" + rw, "--bs=%d" % bs, "--iodepth=%d" % qd,
               "--ioengine=" + ioengine, "--time_based",
               "--runtime=%gs" % t, "--norandommap", "--randrepeat=0",
               "--output-format=json"]
        if ioengine == "io_uring":
            cmd += ["--hipri=0", "--fixedbufs", "--registerfiles"]
        j = json.loads(sh(*cmd))
        job = j["jobs"][0]
        d = job[op]
        run_ms = job.get("job_runtime") or d["runtime"]
        cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100.0 * run_ms * 1e6
        return {"ios": d["total_ios"], "bytes": d["io_bytes"],
                "ns": d["runtime"] * 1_000_000, "cpu_ns": int(cpu),
                "errors": job.get("error", 0)}


# --- the benchmark -----------------------------------------------------------

def emit(out, rec):
    out.write(json.dumps(rec) + "\n")
    out.flush()


def throughput(eng, out, base, dev, irqmode, tests, rounds, t):
    names = eng.names()
    for rnd in range(rounds):
        for test in tests:
            name, op, random, bs, qd = test
            # Rotate the order every round so no engine always goes first.
            k = (rnd + tests.index(test)) % len(names)
            for e in names[k:] + names[:k]:
                if e == "blkfloor-shared" and op != "write":
                    continue
                try:
                    r = eng.run(e, dev, op, random, bs, qd, t)
                except (RuntimeError, OSError, KeyError, ValueError) as ex:
                    log("%s %s: %s" % (e, name, ex))
                    r = {"failed": str(ex)}
                rec = dict(base, kind="tput", irqmode=irqmode, test=name,
                           engine=e, round=rnd, bs=bs, qd=qd, **r)
                emit(out, rec)
                if "ios" in r and r["ns"]:
                    log("irqmode=%d round %d %-18s %-16s %9.0f IOPS "
                        "%7.1f MB/s %6.0f ns/io" % (
                            irqmode, rnd, name, e, r["ios"] * 1e9 / r["ns"],
                            r["bytes"] * 1e3 / r["ns"],
                            r["cpu_ns"] / max(r["ios"], 1)))


def cli_run(cli, dev, bs, qd, t):
    """blkfloor's p50 the way a user gets it: the CLI's summary, from the
    sum of the run's interval histograms (user/run/report.c)."""
    j = json.loads(sh(cli, "run", dev, "--rw", "randread", "--bs", str(bs),
                      "--qd", str(qd), "--time", "%gs" % t, "--quiet",
                      "--json"))
    lat = j["latency_us"]
    return {"ios": j["ios"], "p50_ns": lat["p50"] * 1e3,
            "mean_ns": lat["mean"] * 1e3, "min_ns": lat["min"] * 1e3,
            "state": j["state"]}


def fio_lat(dev, bs, qd, t):
    """fio's completion latency p50 (clat: from submission to completion as
    fio sees them) with io_uring, as users run it."""
    cmd = ["fio", "--name=lat", "--filename=" + dev, "--direct=1",
           "--rw=randread", "--bs=%d" % bs, "--iodepth=%d" % qd,
           "--ioengine=io_uring", "--time_based", "--runtime=%gs" % t,
           "--norandommap", "--randrepeat=0", "--output-format=json"]
    d = json.loads(sh(*cmd))["jobs"][0]["read"]
    c = d["clat_ns"]
    return {"ios": d["total_ios"], "p50_ns": float(c["percentile"]["50.000000"]),
            "mean_ns": c["mean"], "min_ns": c["min"]}


def latency(eng, out, base, base_cfg, a):
    """Latency accuracy: null_blk completing each request by a timer
    (irqmode=2) a programmed time after it reached the driver; blkfloor's
    p50 and fio's clat p50 on the same device, interleaved, and the mean of
    bare-stamped: the same per-bio stamps with nothing else, the floor of
    any measurement taken at the bio (the block layer's own path)."""
    engines = ["blkfloor", "fio-io_uring"]
    if not eng.bare_reason:
        engines.append("bare-stamped")
    if not eng.bf:
        log("latency: blkfloor missing (%s); fio alone" % eng.bf_reason)
        engines = engines[1:]
    elif not os.access(a.cli, os.X_OK):
        log("latency: no CLI at %s; fio alone" % a.cli)
        engines = engines[1:]
    rounds = max(1, min(a.rounds, 3))
    for nsec in a.lat_nsec:
        name = "benchl"
        dev = nullb_create(name, irqmode=2, completion_nsec=nsec, **base_cfg)
        try:
            for rnd in range(rounds):
                for qd in a.lat_qd:
                    order = engines if rnd % 2 == 0 else engines[::-1]
                    for e in order:
                        try:
                            if e == "blkfloor":
                                r = cli_run(a.cli, dev, 4096, qd, a.time)
                            elif e == "bare-stamped":
                                r = eng.bare(dev, "read", True, 4096, qd,
                                             a.time, plug=False, stamp=True)
                                r["mean_ns"] = r["lat_ns"] / max(1, r["ios"])
                            else:
                                r = fio_lat(dev, 4096, qd, a.time)
                        except (RuntimeError, OSError, KeyError,
                                ValueError) as ex:
                            log("latency %s: %s" % (e, ex))
                            r = {"failed": str(ex)}
                        emit(out, dict(base, kind="latency", engine=e,
                                       completion_nsec=nsec, qd=qd, bs=4096,
                                       round=rnd, **r))
                        key = "p50_ns" if "p50_ns" in r else "mean_ns"
                        if key in r:
                            log("latency %7d ns QD %2d round %d %-12s %s "
                                "%9.0f ns (%+.1f %%)" % (
                                    nsec, qd, rnd, e, key[:-3], r[key],
                                    100 * (r[key] - nsec) / nsec))
        finally:
            nullb_destroy(name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--bare", required=True)
    ap.add_argument("--time", type=float, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-blkfloor", metavar="REASON",
                    help="do not measure blkfloor, for this reason")
    ap.add_argument("--skip", default="",
                    help="comma list of parts to skip: tput,softirq,"
                         "precision,latency,memory")
    ap.add_argument("--precision-runs", type=int, default=5,
                    help="runs of the rate-cap precision test")
    ap.add_argument("--cli", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "user",
        "blkfloor"), help="the blkfloor CLI (latency part)")
    ap.add_argument("--lat-nsec", type=lambda v: [int(x) for x in
                                                  v.split(",")],
                    default=[10_000, 100_000, 1_000_000],
                    help="null_blk completion_nsec values (latency part)")
    ap.add_argument("--lat-qd", type=lambda v: [int(x) for x in v.split(",")],
                    default=[1, 8], help="queue depths (latency part)")
    a = ap.parse_args()
    skip = set(a.skip.split(","))

    nullb_setup()
    base_cfg = {"memory_backed": 0, "hw_queue_depth": 1024}
    devs = {0: nullb_create("bench0", irqmode=0, **base_cfg),
            1: nullb_create("bench1", irqmode=1, **base_cfg)}
    eng = Engines(a)
    out = open(a.out, "a")
    base = {"kernel": os.uname().release}
    emit(out, dict(base, kind="env", engines=eng.names(),
                   blkfloor_reason=eng.bf_reason,
                   blkfloor_version=getattr(eng, "bf_version", None),
                   bare_reason=eng.bare_reason, time=a.time,
                   rounds=a.rounds, ncpu=os.cpu_count(),
                   fio=sh("fio", "--version").strip()))
    log("engines:", " ".join(eng.names()),
        "(" + eng.bf_reason + ")" if eng.bf_reason else "")

    if "tput" not in skip:
        throughput(eng, out, base, devs[0], 0, TESTS, a.rounds, a.time)
    if "softirq" not in skip:
        throughput(eng, out, base, devs[1], 1, TESTS[1:2], a.rounds, a.time)

    if eng.bf and "precision" not in skip:
        # (a) blkfloor's own rate cap on the unthrottled device, several
        # runs: the report gives the spread of their p95 as well.
        rate = 100_000_000
        for i in range(a.precision_runs):
            r = eng.blkfloor(devs[0], "read", True, 4096, 32, 3,
                             interval_ns=10_000_000, ring=1024,
                             rate_bps=rate)
            emit(out, dict(base, kind="precision", how="blkfloor rate cap",
                           set_bps=rate, rep=i, **r))
            log("precision: rate cap, run %d, %d intervals" %
                (i, len(r["intervals"])))
        # (b) null_blk's own throttle (mbps counts MiB/s, refilled in
        # 20 ms ticks: 2^20 / 50 * mbps bytes per tick).
        mbps = 100
        dev = nullb_create("benchr", irqmode=0, mbps=mbps, **base_cfg)
        r = eng.blkfloor(dev, "read", True, 4096, 32, 3,
                         interval_ns=10_000_000, ring=1024)
        emit(out, dict(base, kind="precision", how="null_blk mbps=%d" % mbps,
                       set_bps=(1 << 20) // 50 * mbps * 50, **r))
        log("precision: null_blk mbps, %d intervals" % len(r["intervals"]))
        nullb_destroy("benchr")

    if "latency" not in skip:
        latency(eng, out, base, base_cfg, a)

    if eng.bf and "memory" not in skip:
        # Ended runs stay readable until keep_ended newer ones have ended;
        # with 0, starting a run frees every ended one. A tiny run before
        # each measurement and another after it leave exactly one tiny
        # ended run in both the "before" and the "after" picture.
        kp = "/sys/module/blkfloor/parameters/keep_ended"
        with open(kp) as f:
            keep = f.read().strip()
        with open(kp, "w") as f:
            f.write("0")

        def tiny():
            eng.blkfloor(devs[0], "read", True, 4096, 1, 0.01)

        for qd, t, tag in ((32, 3, "qd32"), (1024, 3, "qd1024"),
                           (32, 2, "short"), (32, 8, "long")):
            tiny()
            r = eng.blkfloor(devs[0], "read", True, 4096, qd, t,
                             interval_ns=10_000_000, sample=True)
            tiny()
            r["mem_after"] = meminfo()
            r.pop("intervals", None)
            emit(out, dict(base, kind="memory", tag=tag, qd=qd, time=t,
                           ring=bfnl.C.get("BLKFLOOR_RING_DEFAULT", 256),
                           interval_ns=10_000_000, **r))
            log("memory %s done" % tag)
        with open(kp, "w") as f:
            f.write(keep)

    out.close()
    if eng.bf:
        eng.bf.close()
    for n in ("bench0", "bench1"):
        nullb_destroy(n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
