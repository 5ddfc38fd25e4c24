#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Regression set of simulated curves for `blkfloor classify` (built as a
blind evaluation set for issue 28, section 5; its labels are in the tree).

Every curve here comes from a small physical simulation written for this
set alone, by a helper that never read the classifier's code, tests or
method description.  The label of each trace is decided from the
simulation that made it and the product brief's class definitions
(/work/shared/BRIEF.md, "The curve shapes"), never from a classifier.

Python 3, standard library only, deterministic: every trace has its own
seed (SEED_BASE + its number), and running this script again writes the
same bytes.

    python3 gen.py [OUTDIR]      (default: the directory of this script)

writes eNNN.trace / eNNN.csv / eNNN.log and labels.tsv.  The file names
and the drive names inside the traces carry no hint of the label; the
order of the cases is shuffled with a fixed seed.

Models (all rates in MB/s = 10^6 bytes/s, bytes are bytes):

slc        A bytes-driven SLC cache.  Its size is a static part plus a
           dynamic part that is the drive's free space divided by the
           bits per cell (a TLC block used as SLC holds a third of its
           capacity, QLC a quarter), so the same drive has a smaller cache
           when it is fuller.  Writes go at the SLC rate (capped by the
           link) until the cache is full, then directly to TLC/QLC at the
           native rate.  Options: a second stage when the native free space
           runs out and the drive must fold SLC into TLC while writing
           (pSLC -> TLC -> folding, e.g. 3.5 -> 2.2 -> 1.0 GB/s), a floor
           that jitters with the folding work (a sawtooth), a slow drift,
           short bursts above the floor when the controller frees a little
           SLC in the background, and a temperature column from an RC model
           of the package (a drive that cools on its lower-power floor).
thermal    A first-order RC model of the controller: C dT/dt = P(rate) -
           (T - T_amb)/R, P = P_idle + k * rate.  Two or three throttle
           states, each engaged when T crosses its trip point and released
           only below trip - hysteresis; each state caps the rate.  The
           drive itself (no cache limit within the run) could write at its
           peak.  A passively cooled drive has a large R.  With or without
           the temp_c column (a sensor with 1 C resolution and an offset).
ftl        A page-level flash translation layer: blocks of P pages, a small
           over-provisioning, greedy garbage collection (the victim is the
           closed block with the fewest valid pages) whenever the free pool
           drops to its reserve, separate open blocks for host and GC
           writes.  The drive is full and never got TRIM: it is first
           filled sequentially, then some LBA stripes are overwritten at
           random (a file system's churn).  The measured run is a
           sequential write over the LBA space; each host page costs one
           program, each GC copy a read and a program, each erase its time.
           Stripes with a random history give victims with many valid pages
           (slow), stripes with a sequential history free whole blocks
           (fast): regular or random switching, or a curve that runs
           backwards (slow, fast, slow).
steady     A flat drive or link limit with noise; one-sample dips (host
           hiccups); a hard disk whose rate falls linearly with the LBA
           (zone by zone) from the outer to the inner tracks; wide noise
           around one level; a large cache that never ran out in the run.
outside    Causes outside the drive: a USB link that resets (abort, reset,
           a stall) and comes back at USB 2 speed, or with usb-storage
           instead of uas (per-command overhead); a buffered write whose
           first seconds go at memory speed into the host's page cache;
           stalls of a starved host.  Path events are written as
           `# event:` lines where the kernel would have logged them.
unclear    Too few samples to tell a step from noise, a trace that mostly
           stalled, a deep drop that climbs back once, a step right after a
           stall with no event to explain it, a one-level step whose shape
           says cache while the temperature sits in the throttle range.

Noise: every rate is multiplied by 1 + an AR(1) process (correlation time
about a second) + white noise scaled so that the per-sample deviation is
what the case asks for; completions are whole requests (bs bytes); the
interval boundaries jitter by up to 0.2 ms.

Label convention (for the origin): the class names the drive's behaviour;
a step whose origin is outside the drive (the link, the host) is not a
drive class, so a drive that was flat on both sides of a USB reset is
`steady` with origin `link`, and a page-cache burst in front of a flat
drive is `steady` with origin `host`.  A step right after a stall that no
event explains is `unclear` (issue 28, section 3).
"""

import math
import os
import random
import sys

SEED_BASE = 280500
BS = 131072
QD = 32

# ---------------------------------------------------------------- noise


class Noise:
    """Multiplicative rate noise: AR(1) + white, optional one-sample dips."""

    def __init__(self, rng, interval, dt, sample_sigma, ar_sigma=None,
                 ar_tau=1.0, dips=(), dip_depth=(0.25, 0.6)):
        self.rng = rng
        if ar_sigma is None:
            ar_sigma = sample_sigma * 0.5
        self.ar_sigma = ar_sigma
        self.a = math.exp(-dt / ar_tau)
        self.x = 0.0
        # white noise per fine step so that one sample's mean has sample_sigma
        self.white = sample_sigma * math.sqrt(max(1.0, interval / dt))
        self.interval = interval
        self.dips = {}
        for k in dips:
            self.dips[k] = rng.uniform(*dip_depth)

    def factor(self, t):
        r = self.rng
        self.x = self.x * self.a + math.sqrt(1 - self.a * self.a) * \
            self.ar_sigma * r.gauss(0, 1)
        f = 1.0 + self.x + self.white * r.gauss(0, 1)
        k = int(t / self.interval)
        if k in self.dips:
            f *= self.dips[k]
        return max(0.02, f)


# ---------------------------------------------------------------- sampling

class Series:
    """A run sampled into intervals: per interval bytes, temp, stall flag."""

    def __init__(self, interval):
        self.interval = interval
        self.bytes = []      # exact (float) bytes per interval
        self.temp = []       # temperature at interval end or None
        self.stall = []      # seconds stalled within the interval
        self.events = []     # (t, kind, msg)


def run_model(model, interval, duration, rng, dt_max=0.25):
    """
    Integrate a model over `duration` seconds on fine steps that divide the
    sampling interval.  model(t, dt, cum) -> (rate_MBps, temp_or_None) and
    may raise StopIteration to end the run early (a byte limit).
    """
    m = max(1, int(math.ceil(interval / dt_max)))
    dt = interval / m
    s = Series(interval)
    cum = 0.0
    t = 0.0
    n = int(round(duration / interval))
    for k in range(n):
        b = 0.0
        st = 0.0
        temp = None
        stop = False
        for j in range(m):
            try:
                rate, temp = model(t, dt, cum)
            except StopIteration:
                stop = True
                break
            if rate <= 0:
                st += dt
            b += rate * 1e6 * dt
            cum += rate * 1e6 * dt
            t += dt
        if stop:
            break       # a partial last interval is not written
        s.bytes.append(b)
        s.temp.append(temp)
        s.stall.append(st)
    return s


# ---------------------------------------------------------------- writers

def _lat(rate_Bps):
    return QD * BS / rate_Bps * 1e6 if rate_Bps > 0 else 0.0


def write_trace(path, s, meta, rng, with_path=False, temp=False):
    """A blkfloor-trace v1 file (user/blkfloor.8, TRACE FORMAT)."""
    iv = s.interval
    lines = ["# blkfloor-trace v1"]
    keys = ["device", "run_id", "size_bytes", "model", "serial", "transport",
            "kernel", "op", "pattern", "bs", "qd", "interval_ns", "data",
            "seed", "start_time", "cli_version", "module_version"]
    for k in keys:
        lines.append("# %s: %s" % (k, meta[k]))
    if with_path:
        for k in ["driver", "usb_port", "usb_speed", "usb_version", "usb_id",
                  "usb_bcd_device", "usb_storage_quirks", "firmware",
                  "max_sectors_kb", "max_hw_sectors_kb", "queue_depth",
                  "nr_requests", "scheduler", "nomerges", "rotational",
                  "write_cache", "temp_source"]:
            if k in meta:
                lines.append("# %s: %s" % (k, meta[k]))
        lines.append("# events: kernel log")
    lines.append("index,start_s,end_s,bytes,ios,errors,MBps,lat_min_us,"
                 "lat_mean_us,lat_p50_us,lat_p99_us,lat_p999_us,lat_max_us,"
                 "bytes_total,requests,req_per_bio,req_kib,merges,util,"
                 "in_flight,scsi_err,scsi_tmo,temp_c")
    req_kib = min(BS // 1024, int(meta.get("max_sectors_kb", BS // 1024)))
    ev = sorted(s.events)
    ei = 0
    cum = 0.0
    ios_done = 0
    prev_end = 0.0
    for k, b in enumerate(s.bytes):
        start = prev_end
        end = (k + 1) * iv + rng.uniform(0, 0.0002)
        while ei < len(ev) and ev[ei][0] < end:
            lines.append("# event: %.6f %s %s" % ev[ei])
            ei += 1
        cum += b
        ios_total = int(cum // BS)
        ios = ios_total - ios_done
        ios_done = ios_total
        nbytes = ios * BS
        dt = end - start
        mbps = nbytes / dt / 1e6
        if ios > 0:
            busy = max(1e-3, dt - s.stall[k])
            mean = _lat(nbytes / busy)
            lmin = mean * rng.uniform(0.25, 0.45)
            p50 = mean * rng.uniform(0.9, 1.05)
            p99 = mean * rng.uniform(1.6, 2.6)
            p999 = p99 * rng.uniform(1.05, 1.5)
            lmax = max(p999 * rng.uniform(1.0, 1.3), s.stall[k] * 1e6)
            lat = (lmin, mean, p50, p99, p999, lmax)
        else:
            lat = (0, 0, 0, 0, 0, 0)
        line = "%d,%.6f,%.6f,%d,%d,0,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d," % (
            (k, start, end, nbytes, ios, mbps) + lat + (ios_total * BS,))
        if with_path and k > 0:
            reqs = ios * (BS // 1024) // req_kib
            util = 0.0 if ios == 0 else min(1.0, 1 - s.stall[k] / dt) * \
                rng.uniform(0.985, 1.0)
            tc = ""
            if temp and s.temp[k] is not None:
                tc = "%.1f" % round(s.temp[k])
            scsi = ",," if meta.get("transport") == "nvme" else "0,0,"
            line += "%d,%.3f,%.1f,0,%.3f,%d,%s%s" % (
                reqs, (BS // 1024) / req_kib, req_kib, util,
                QD if ios else 0, scsi, tc)
        else:
            line += ",,,,,,,,"
        lines.append(line)
        prev_end = end
    while ei < len(ev):
        lines.append("# event: %.6f %s %s" % ev[ei])
        ei += 1
    lines += ["# state: done", "# errno: 0", "# dropped: 0"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_csv(path, s):
    """Two columns: seconds (interval end) and MB/s, one header line."""
    out = ["# buffered dd-style copy, rate per interval", "seconds,MBps"]
    for k, b in enumerate(s.bytes):
        out.append("%.3f,%.2f" % ((k + 1) * s.interval, b / s.interval / 1e6))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def write_fio(path, s):
    """fio --write_bw_log with log_avg_msec: msec, KiB/s, ddir, bs."""
    out = []
    for k, b in enumerate(s.bytes):
        out.append("%d, %d, 1, %d" % (round((k + 1) * s.interval * 1000),
                                       round(b / s.interval / 1024), BS))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- physics

def rc_step(T, P, T_amb, R, C, dt):
    """One Euler step of C dT/dt = P - (T - T_amb) / R."""
    return T + dt * (P - (T - T_amb) / R) / C


def slc_model(rng, p, interval):
    """
    Bytes-driven SLC cache.  p: cap_GB, fill (fraction full before the
    run), bits (3 TLC, 4 QLC), static_GB, dyn (share of the free space the
    firmware may run as SLC), slc_MBps, link_MBps, native_MBps, and
    optionally fold_MBps (a later stage when native free space runs out),
    sawtooth (relative depth of the folding jitter on the floor), drift
    (relative change of the floor over the floor part of the run),
    refresh (list of (time_s, GB) bursts of freed SLC), thermal (R, C, ...
    for a temp column).
    """
    cap = p["cap_GB"] * 1e9
    free = cap * (1 - p["fill"])
    slc = p["static_GB"] * 1e9 + p["dyn"] * free / p["bits"]
    p["slc_bytes"] = slc
    # native free space left for direct writes once the SLC is full: the
    # free space minus what the SLC blocks occupy (bits x their contents)
    native_free = free - slc * p["bits"]
    fold_at = slc + max(0.2 * free, native_free) if "fold_MBps" in p else None
    p["fold_bytes"] = fold_at
    st = {"refill": 0.0, "T": p.get("T0", 35.0), "saw": 0.0, "t_floor": None}
    refresh = sorted(p.get("refresh", []))

    def model(t, dt, cum):
        if cum < slc:
            r = min(p["slc_MBps"], p["link_MBps"])
        else:
            if st["t_floor"] is None:
                st["t_floor"] = t
            if fold_at is not None and cum >= fold_at:
                r = p["fold_MBps"]
            else:
                r = p["native_MBps"]
            if p.get("drift"):
                r *= 1 + p["drift"] * min(1.0, (t - st["t_floor"]) /
                                          p["floor_s"])
            if p.get("sawtooth"):
                period = p.get("saw_period", 7.0)
                ph = ((t - st["t_floor"]) % period) / period
                r *= 1 + p["sawtooth"] * (0.5 - ph)
            while refresh and t >= refresh[0][0]:
                st["refill"] += refresh.pop(0)[1] * 1e9
            if st["refill"] > 0:
                r = min(p["slc_MBps"], p["link_MBps"])
                st["refill"] -= r * 1e6 * dt
            r = min(r, p["link_MBps"])
        if p.get("limit_bytes") and cum >= p["limit_bytes"]:
            raise StopIteration
        temp = None
        if "R" in p:
            P = p["P_idle"] + p["k_W"] * r / 1000.0
            st["T"] = rc_step(st["T"], P, p["T_amb"], p["R"], p["C"], dt)
            temp = st["T"] + p.get("T_off", 0)
        return r, temp
    return model


def thermal_model(p):
    """
    RC thermal model with throttle states.  p: peak_MBps, states [(trip_C,
    hyst_C, cap_MBps), ...] in rising trip order, T_amb, R (K/W), C (J/K),
    P_idle (W), k_W (W per GB/s).  The engaged state is the deepest whose
    trip was crossed and not yet released (T < trip - hyst).
    """
    st = {"T": p.get("T0", p["T_amb"] + 8), "lvl": 0}
    states = p["states"]

    def model(t, dt, cum):
        T = st["T"]
        lvl = st["lvl"]
        while lvl < len(states) and T >= states[lvl][0]:
            lvl += 1
        while lvl > 0 and T < states[lvl - 1][0] - states[lvl - 1][1]:
            lvl -= 1
        st["lvl"] = lvl
        r = p["peak_MBps"] if lvl == 0 else states[lvl - 1][2]
        P = p["P_idle"] + p["k_W"] * r / 1000.0
        st["T"] = rc_step(T, P, p["T_amb"], p["R"], p["C"], dt)
        return r, st["T"] + p.get("T_off", 0)
    return model


class FTL:
    """Page-level FTL with greedy GC; units are pages, time in seconds."""

    def __init__(self, rng, nblk_logical, P, op, reserve=4):
        self.rng = rng
        self.P = P
        self.L = nblk_logical * P
        self.N = int(nblk_logical * (1 + op)) + reserve + 2
        self.reserve = reserve
        self.l2p = [-1] * self.L
        self.p2l = [-1] * (self.N * P)
        self.valid = [0] * self.N
        self.buckets = [set() for _ in range(P + 1)]
        self.free = list(range(self.N - 1, -1, -1))
        self.open = {"host": None, "gc": None}
        self.fill = {"host": P, "gc": P}
        self.closed = [False] * self.N
        self.copies = 0
        self.erases = 0

    def _write(self, lba, stream):
        P = self.P
        if self.fill[stream] >= P:
            b = self.open[stream]
            if b is not None:
                self.buckets[self.valid[b]].add(b)
                self.closed[b] = True
            self.open[stream] = self.free.pop()
            self.fill[stream] = 0
        b = self.open[stream]
        ppn = b * P + self.fill[stream]
        self.fill[stream] += 1
        old = self.l2p[lba]
        if old >= 0:
            ob = old // P
            self.p2l[old] = -1
            if self.closed[ob]:
                self.buckets[self.valid[ob]].discard(ob)
                self.buckets[self.valid[ob] - 1].add(ob)
            self.valid[ob] -= 1
        self.l2p[lba] = ppn
        self.p2l[ppn] = lba
        self.valid[b] += 1

    def _gc(self):
        for v in range(self.P + 1):
            if self.buckets[v]:
                victim = min(self.buckets[v])
                self.buckets[v].discard(victim)
                self.closed[victim] = False
                break
        else:
            raise RuntimeError("no victim")
        P = self.P
        for i in range(P):
            lba = self.p2l[victim * P + i]
            if lba >= 0:
                self._write(lba, "gc")
                self.copies += 1
        self.erases += 1
        self.valid[victim] = 0
        self.free.insert(0, victim)

    def host_write(self, lba):
        while len(self.free) <= self.reserve:
            self._gc()
        self._write(lba, "host")


def ftl_run(rng, p):
    """
    Precondition an FTL (sequential fill, random churn in the 'rand'
    stripes) and time a sequential pass.  p: nblk, P, op, layout [(frac,
    'rand'|'seq'), ...] covering the LBA space in order, churn (random
    overwrites as a multiple of the rand stripes' size), flash_MBps,
    cap_GB, passes.  Returns a list of (t_end, bytes) per host page.
    """
    f = FTL(rng, p["nblk"], p["P"], p["op"])
    L = f.L
    for lba in range(L):
        f.host_write(lba)
    rand_lbas = []
    a = 0
    for frac, kind in p["layout"]:
        b = min(L, a + int(round(frac * L)))
        if kind == "rand":
            rand_lbas.extend(range(a, b))
        a = b
    if rand_lbas:
        for _ in range(int(p["churn"] * len(rand_lbas))):
            f.host_write(rng.choice(rand_lbas))
    unit = p["cap_GB"] * 1e9 / L
    t_prog = unit / (p["flash_MBps"] * 1e6)
    t_copy = 1.15 * t_prog
    t_erase = p.get("erase_frac", 0.03) * t_prog * f.P
    dur = []
    for lba_i in range(int(p.get("passes", 1.0) * L)):
        c0, e0 = f.copies, f.erases
        f.host_write(lba_i % L)
        dur.append(t_prog + (f.copies - c0) * t_copy +
                   (f.erases - e0) * t_erase)
    # A real controller paces its GC page by page between host writes; a
    # simulated page here is tens of MB, so spread each page's GC time
    # over the block's worth of host pages around it (centred moving
    # average over P pages; the total time is kept).
    W = f.P
    n = len(dur)
    pre = [0.0]
    for d in dur:
        pre.append(pre[-1] + d)
    sm = []
    for i in range(n):
        a = max(0, i - W // 2)
        b = min(n, i + W // 2 + 1)
        sm.append((pre[b] - pre[a]) / (b - a))
    k = pre[-1] / sum(sm)
    out = []
    t = 0.0
    nb = 0
    for d in sm:
        t += d * k
        nb += unit
        out.append((t, nb))
    return out


def timeline_model(tl):
    """
    Turn a (t_end, cum_bytes) timeline into a rate model: the mean rate
    over each fine step [t, t + dt], from the timeline interpolated
    linearly (so a GC pause inside a step is averaged, not sampled).
    """
    st = {"i": 0}

    def cum_at(t):
        i = st["i"]
        while i < len(tl) and tl[i][0] <= t:
            i += 1
        st["i"] = i
        if i >= len(tl):
            return None
        t0, b0 = (0.0, 0.0) if i == 0 else tl[i - 1]
        t1, b1 = tl[i]
        return b0 + (b1 - b0) * (t - t0) / (t1 - t0)

    def model(t, dt, cum):
        if t == 0.0:
            st["i"] = 0
        c0 = cum_at(t)
        c1 = cum_at(t + dt)
        if c0 is None or c1 is None:
            raise StopIteration
        return (c1 - c0) / dt / 1e6, None
    return model


# ---------------------------------------------------------------- cases

def noisy(model, noise, stalls=()):
    """Multiply a model's rate by noise; zero it during stalls."""
    def m(t, dt, cum):
        r, temp = model(t, dt, cum)
        for a, b in stalls:
            if a <= t < b:
                return 0.0, temp
        return r * noise.factor(t), temp
    return m


def meta_for(rng, i, case, interval):
    transport = case.get("transport", "nvme")
    dev = {"nvme": "/dev/nvme0n1", "usb": "/dev/sdb", "sata": "/dev/sda"}[
        transport]
    m = {
        "device": dev,
        "run_id": str(1 + rng.randrange(40)),
        "size_bytes": str(int(case.get("cap_GB", 1000) * 1e9) // 512 * 512),
        "model": "EVAL DRIVE %03d" % i,
        "serial": "EV%08d" % rng.randrange(10 ** 8),
        "transport": transport,
        "kernel": rng.choice(["6.1.0-28-amd64", "6.12.12+bpo-amd64"]),
        "op": "write",
        "pattern": "seq",
        "bs": str(BS),
        "qd": str(QD),
        "interval_ns": str(int(round(interval * 1e9))),
        "data": "random",
        "seed": str(SEED_BASE + i),
        "start_time": "2026-11-%02dT%02d:%02d:%02dZ" % (
            1 + rng.randrange(28), rng.randrange(24), rng.randrange(60),
            rng.randrange(60)),
        "cli_version": "0.9",
        "module_version": "0.9",
    }
    if transport == "usb":
        m.update({"driver": case.get("driver", "uas"), "usb_port": "2-2",
                  "usb_speed": str(case.get("usb_speed", 10000)),
                  "usb_version": "3.20" if case.get("usb_speed", 10000) > 5000
                  else "3.00",
                  "usb_id": "0bda:9210", "usb_bcd_device": "20.01",
                  "usb_storage_quirks": "", "firmware": "1.23",
                  "max_sectors_kb": "512", "max_hw_sectors_kb": "512",
                  "queue_depth": "14" if case.get("driver", "uas") == "uas"
                  else "1",
                  "nr_requests": "64", "scheduler": "mq-deadline",
                  "nomerges": "0 (merges allowed)", "rotational": "no",
                  "write_cache": "write back",
                  "temp_source": "drivetemp" if case.get("temp") else ""})
    else:
        m.update({"driver": transport == "nvme" and "nvme" or "ahci",
                  "firmware": "EV1", "max_sectors_kb": "1280",
                  "max_hw_sectors_kb": "2048", "queue_depth": "1023"
                  if transport == "nvme" else "32", "nr_requests": "1023",
                  "scheduler": "none", "nomerges": "0 (merges allowed)",
                  "rotational": "yes" if case.get("hdd") else "no",
                  "write_cache": "write back",
                  "temp_source": "nvme hwmon" if case.get("temp") else ""})
    return m


def pick_interval(rng, duration, lo=0.1, hi=30.0, nmin=60, nmax=700):
    """A sampling interval, log-uniform within what keeps nmin..nmax samples."""
    a = max(lo, duration / nmax, 0.1)
    b = min(hi, duration / nmin, 30.0)
    if b < a:
        b = a
    v = math.exp(rng.uniform(math.log(a), math.log(b)))
    for nice in (0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 20, 30):
        if nice >= v * 0.8:
            return nice
    return 30.0


def build(i, case):
    """Simulate one case; return (Series, interval, meta-case)."""
    rng = random.Random(SEED_BASE + i)
    c = case(rng)
    iv = c["interval"]
    dt_max = min(0.25, iv / 2)
    m = max(1, int(math.ceil(iv / dt_max)))
    noise = Noise(rng, iv, iv / m, c.get("sigma", 0.02),
                  ar_sigma=c.get("ar_sigma"), ar_tau=c.get("ar_tau", 1.0),
                  dips=c.get("dips", ()))
    model = noisy(c["model"], noise, c.get("stalls", ()))
    s = run_model(model, iv, c["duration"], rng, dt_max=dt_max)
    s.events = c.get("events", [])
    if "post" in c:
        c["post"](s, rng)
    return s, c


# --- cache-exhaustion --------------------------------------------------------

def slc_case(rng, cap, fill, bits, static, dyn, slc, link, native,
             floor_s, transport="nvme", ivlo=0.1, ivhi=30.0, **kw):
    p = dict(cap_GB=cap, fill=fill, bits=bits, static_GB=static, dyn=dyn,
             slc_MBps=slc, link_MBps=link, native_MBps=native,
             floor_s=floor_s, **kw)
    model = slc_model(rng, p, None)
    top = min(slc, link)
    t_cache = p["slc_bytes"] / (top * 1e6)
    dur = t_cache + floor_s
    if p.get("fold_bytes"):
        dur = t_cache + (p["fold_bytes"] - p["slc_bytes"]) / (
            min(native, link) * 1e6) + floor_s
    iv = pick_interval(rng, dur, ivlo, ivhi)
    iv = min(iv, t_cache / 8)
    iv = max(0.1, [x for x in (0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 20, 30)
                   if x <= max(iv, 0.1)][-1])
    return dict(model=model, interval=iv, duration=dur, cap_GB=cap,
                transport=transport, p=p, temp="R" in p,
                with_path=transport == "usb" or "R" in p)


def c_seed_dramless(rng):
    c = slc_case(rng, 1000, 0.0, 4, 30, 1.0, 2700, 2600, 127, 700,
                 transport="usb", usb_speed=40000, sawtooth=0.35,
                 saw_period=rng.uniform(4, 9))
    c.update(usb_speed=40000, sigma=0.015)
    return c


def c_step13(rng):
    return dict(slc_case(rng, 1000, rng.uniform(0.1, 0.4), 3, 12, 0.35,
                         1524, 4000, 1132, 400), sigma=0.02)


def c_step2050(rng):
    return dict(slc_case(rng, 2000, rng.uniform(0.0, 0.3), 3, 24, 0.2,
                         2050, 4000, 1500, 500), sigma=0.025)


def c_step_ratio(ratio, cap, transport="nvme", link=7000):
    def f(rng):
        top = rng.uniform(900, 3300)
        return dict(slc_case(rng, cap, rng.uniform(0.0, 0.7), rng.choice(
            (3, 4)), rng.uniform(3, 20), rng.uniform(0.1, 0.6), top, link,
            min(top, link) / ratio, rng.uniform(200, 900),
            transport=transport), sigma=rng.uniform(0.01, 0.04),
            usb_speed=10000)
    return f


def c_small_sata(rng):
    c = slc_case(rng, 250, rng.uniform(0.2, 0.5), 3, 2.5, 0.0, 540, 560,
                 rng.uniform(170, 230), 60, transport="sata", ivlo=0.1,
                 ivhi=0.1)
    c.update(sigma=0.03, interval=0.1)
    return c


def c_cliff20_sata(rng):
    c = slc_case(rng, 120, 0.3, 3, 2.0, 0.0, 500, 560, 25, 70,
                 transport="sata", ivlo=0.1, ivhi=0.1, sawtooth=0.3,
                 saw_period=3.0)
    c.update(sigma=0.04, interval=0.1)
    return c


def c_staged_2tb(rng):
    return dict(slc_case(rng, 2000, 0.0, 3, 20, 0.3, 3500, 7000, 2200, 300,
                         fold_MBps=1000, sawtooth=0.15, ivlo=1, ivhi=10),
                sigma=0.02)


def c_staged_qlc_usb(rng):
    c = slc_case(rng, 1000, rng.uniform(0.0, 0.2), 4, 10, 0.25, 1800, 1000,
                 400, 500, transport="usb", fold_MBps=rng.uniform(70, 110),
                 sawtooth=0.3, ivlo=1, ivhi=15)
    c.update(sigma=0.02, usb_speed=10000)
    return c


def c_refresh(rng):
    floor = rng.uniform(120, 450)
    t0 = 40.0
    bursts = [(t0 + 100 + k * rng.uniform(70, 140), rng.uniform(1.5, 5.0))
              for k in range(5)]
    c = slc_case(rng, 1000, rng.uniform(0.2, 0.6), 4, 8, 0.2, 1900, 7000,
                 floor, 800, refresh=bursts, ivlo=0.5, ivhi=2)
    # bursts are at fixed times after the start; shift them past the cliff
    t_cache = c["p"]["slc_bytes"] / 1900e6
    c["p"]["refresh"] = [(t + t_cache, g) for t, g in bursts]
    c["model"] = slc_model(rng, c["p"], None)
    c["sigma"] = 0.03
    return c


def c_drift(rng):
    c = slc_case(rng, 500, rng.uniform(0, 0.5), 3, 6, 0.3, 2400, 7000,
                 rng.uniform(500, 900), 600, drift=rng.choice((-0.15, 0.12)),
                 sawtooth=0.2, ivlo=0.5, ivhi=10)
    c["sigma"] = 0.03
    return c


def c_cache_cools(rng):
    """A cliff on a drive that cools on its lower-power floor (not hot)."""
    c = slc_case(rng, 1000, rng.uniform(0, 0.4), rng.choice((3, 4)),
                 10, 0.3, rng.uniform(1800, 3000), 7000, rng.uniform(100, 400),
                 600, R=rng.uniform(3, 5), C=rng.uniform(8, 20),
                 P_idle=1.4, k_W=2.6, T_amb=rng.uniform(24, 32), T0=36.0,
                 ivlo=1, ivhi=5)
    c["sigma"] = 0.02
    return c


def c_cache_usb_temp(rng):
    c = slc_case(rng, 2000, rng.uniform(0.2, 0.5), 3, 16, 0.3, 2000, 1000,
                 rng.uniform(250, 450), 600, transport="usb", R=6.0,
                 C=25.0, P_idle=1.2, k_W=2.4, T_amb=28.0, T0=33.0, ivlo=2,
                 ivhi=10)
    c.update(sigma=0.02, usb_speed=10000, temp=True)
    return c


def c_big_slow(rng):
    c = slc_case(rng, 4000, 0.1, 4, 40, 0.4, 2200, 900, 90, 7200,
                 transport="usb", ivlo=20, ivhi=30, sawtooth=0.2)
    c.update(sigma=0.02, usb_speed=10000)
    return c


# --- thermal -----------------------------------------------------------------

def thermal_case(rng, peak, states, T_amb, R, C, P_idle, k_W, dur, ivlo=0.5,
                 ivhi=30, transport="nvme", temp=True, T0=None, fan=None,
                 usb_speed=10000, sigma=0.02):
    p = dict(peak_MBps=peak, states=states, T_amb=T_amb, R=R, C=C,
             P_idle=P_idle, k_W=k_W, T_off=rng.uniform(-2, 3))
    if T0 is not None:
        p["T0"] = T0
    base = thermal_model(p)
    model = base
    if fan:
        # a host/enclosure fan that starts after fan_t seconds and lowers
        # the thermal resistance over a spin-up time
        t_on, R2, spin = fan

        def model(t, dt, cum):
            if t >= t_on:
                p["R"] = R + (R2 - R) * min(1.0, (t - t_on) / spin)
            return base(t, dt, cum)
    tau = R * C
    iv = pick_interval(rng, dur, ivlo, min(ivhi, tau / 6))
    return dict(model=model, interval=iv, duration=dur, transport=transport,
                temp=temp, with_path=True, usb_speed=usb_speed, sigma=sigma,
                p=p)


def c_passive_seed(rng):
    # 863 -> 700 -> 445 (-> 195 if it gets that hot), cycling; then the
    # airflow improves (a fan) and it climbs back to the peak
    return thermal_case(rng, 863, [(68, 5, 700), (73, 5, 445), (78, 6, 195)],
                        30, 14.0, 9.0, 1.0, 5.0, 1500, transport="usb",
                        temp=rng.random() < 0.5, fan=(700, 5.0, 200),
                        ivlo=1, ivhi=10)


def c_two_state(temp):
    def f(rng):
        peak = rng.uniform(800, 3500)
        low = peak / rng.uniform(1.3, 2.6)
        trip = rng.uniform(68, 82)
        hyst = rng.uniform(3, 7)
        T_amb = rng.uniform(22, 35)
        P_idle = rng.uniform(0.8, 2.0)
        k_W = rng.uniform(1.5, 3.0)
        # pick R so the peak's equilibrium is above the trip and the low
        # level's is below the release point
        Ppk = P_idle + k_W * peak / 1000
        Plo = P_idle + k_W * low / 1000
        Rmin = (trip + 3 - T_amb) / Ppk
        Rmax = (trip - hyst - 3 - T_amb) / Plo
        if Rmax <= Rmin:
            low = peak / 2.6
            Plo = P_idle + k_W * low / 1000
            Rmax = (trip - hyst - 3 - T_amb) / Plo
        R = rng.uniform(Rmin, max(Rmin * 1.05, Rmax))
        tau = rng.uniform(15, 240)
        return thermal_case(rng, peak, [(trip, hyst, low)], T_amb, R, tau / R,
                            P_idle, k_W, tau * rng.uniform(8, 15), temp=temp,
                            ivlo=0.2, ivhi=30)
    return f


def c_three_state(temp):
    def f(rng):
        peak = rng.uniform(700, 2500)
        r1 = peak / rng.uniform(1.2, 1.6)
        r2 = r1 / rng.uniform(1.3, 2.0)
        T_amb = rng.uniform(22, 32)
        P_idle, k_W = rng.uniform(0.8, 1.6), rng.uniform(2.0, 4.0)
        t1 = rng.uniform(66, 74)
        t2 = t1 + rng.uniform(4, 7)
        h = rng.uniform(3, 5)
        P2 = P_idle + k_W * r2 / 1000
        P1 = P_idle + k_W * r1 / 1000
        # r1's equilibrium above t2 (so it steps again), r2's below t2 - h
        # and, once cooled, r1 climbs back: a cycle between r1 and r2
        R_lo = (t2 + 2 - T_amb) / P1
        R_hi = (t2 - h - 2 - T_amb) / P2
        if R_hi <= R_lo:
            r2 = r1 / 2.4
            P2 = P_idle + k_W * r2 / 1000
            R_hi = (t2 - h - 2 - T_amb) / P2
        R = rng.uniform(R_lo, max(R_lo * 1.05, R_hi))
        tau = rng.uniform(20, 200)
        return thermal_case(rng, peak, [(t1, h, r1), (t2, h, r2)], T_amb, R,
                            tau / R, P_idle, k_W, tau * rng.uniform(8, 14),
                            temp=temp, ivlo=0.2, ivhi=30)
    return f


def c_fast_start_cycle(rng):
    # starts cold (T0 = ambient), so the first fast phase is long; then a
    # regular cycle
    c = c_two_state(True)(rng)
    c["p"]["T0"] = c["p"]["T_amb"]
    c["model"] = thermal_model(c["p"])
    return c


def c_fan_recovery(rng):
    peak = rng.uniform(900, 2000)
    return thermal_case(rng, peak, [(70, 4, peak / 1.5), (75, 4, peak / 2.6)],
                        28, 13.0, 8.0, 1.0, 3.5, 1200, temp=rng.random() < 0.5,
                        fan=(rng.uniform(400, 600), 6.0, 150), ivlo=1,
                        ivhi=10)


# --- ftl ---------------------------------------------------------------------

def ftl_case(layout, passes=1.0, flash=None, cap=None, churn=2.0, op=0.07):
    def f(rng):
        fl = flash or rng.uniform(850, 1100)
        cp = cap or rng.choice((128, 256, 500))
        lay = layout(rng) if callable(layout) else layout
        p = dict(nblk=rng.choice((160, 192, 256)), P=64, op=op, layout=lay,
                 churn=churn, flash_MBps=fl, cap_GB=cp, passes=passes)
        tl = ftl_run(rng, p)
        dur = tl[-1][0]
        iv = pick_interval(rng, dur, 0.5, 5, nmin=120, nmax=700)
        return dict(model=timeline_model(tl), interval=iv,
                    duration=dur + iv, cap_GB=cp, p=p,
                    transport=rng.choice(("usb", "nvme", "sata")),
                    sigma=rng.uniform(0.02, 0.05))
    return f


def lay_regular(rng):
    k = rng.choice((3, 4, 5))
    return [(0.5 / k, "seq"), (0.5 / k, "rand")] * k


def lay_random(rng):
    parts = []
    left = 1.0
    kind = rng.choice(("seq", "rand"))
    while left > 1e-9:
        frac = min(left, rng.uniform(0.04, 0.2))
        parts.append((frac, kind))
        left -= frac
        kind = "rand" if kind == "seq" else "seq"
    return parts


def lay_backwards(rng):
    a = rng.uniform(0.3, 0.4)
    b = rng.uniform(0.25, 0.4)
    return [(a, "rand"), (b, "seq"), (1 - a - b, "rand")]


def lay_slow_then_fast(rng):
    a = rng.uniform(0.35, 0.6)
    return [(a, "rand"), (1 - a, "seq")]


# --- steady ------------------------------------------------------------------

def flat_model(level):
    def m(t, dt, cum):
        return level, None
    return m


def c_flat(level, dur, iv, sigma, transport="nvme", dips=0, ar=None,
           usb_speed=10000):
    def f(rng):
        lv = level(rng) if callable(level) else level
        n = int(dur / iv)
        d = sorted(rng.sample(range(5, n - 5), dips)) if dips else ()
        return dict(model=flat_model(lv), interval=iv, duration=dur,
                    sigma=sigma, ar_sigma=ar, dips=d, transport=transport,
                    usb_speed=usb_speed, with_path=transport == "usb")
    return f


def c_seed_918(rng):
    # 20 Gb drive on a 10 Gb port: 913..928 MB/s over 300 GiB
    return dict(model=flat_model(918.5), interval=2.0,
                duration=300 * 2 ** 30 / 918.5e6, sigma=0.0035,
                ar_sigma=0.002, transport="usb", usb_speed=10000,
                with_path=True)


def hdd_model(cap, outer, inner, start_frac=0.0, zones=30):
    """Rate falls with the LBA (radius) zone by zone."""
    def m(t, dt, cum):
        x = start_frac + cum / (cap * 1e9)
        if x >= 1.0:
            raise StopIteration
        z = math.floor(x * zones) / zones
        return outer - (outer - inner) * z, None
    return m


def c_hdd_whole(rng):
    cap = rng.choice((2000, 4000))
    outer = rng.uniform(200, 270)
    inner = outer * rng.uniform(0.45, 0.55)
    mean = (outer + inner) / 2
    dur = cap * 1e9 / (mean * 1e6)
    iv = 30.0 if dur > 15000 else 20.0
    return dict(model=hdd_model(cap, outer, inner, zones=rng.choice((16, 24,
                30))), interval=iv, duration=dur * 1.05, sigma=0.01,
                transport="sata", cap_GB=cap, hdd=True, with_path=True)


def c_hdd_part(rng):
    cap = 1000
    outer = rng.uniform(150, 210)
    inner = outer * 0.5
    dur = 0.25 * cap * 1e9 / (outer * 0.93e6)
    return dict(model=hdd_model(cap, outer, inner, zones=40), interval=5.0,
                duration=dur, sigma=0.012, transport="sata", cap_GB=cap,
                hdd=True, with_path=True)


def c_bigcache_unexhausted(rng):
    c = slc_case(rng, 2000, 0.1, 3, 20, 0.3, 3000, 1000, 600, 0,
                 transport="usb")
    c["duration"] = 150.0
    c["interval"] = 0.5
    c.update(sigma=0.015, usb_speed=10000)
    return c


# --- outside the drive -------------------------------------------------------

def usb2_reset(level_fn, t_reset, stall, usb2, extra_events=()):
    """Rate from the drive until a reset; a stall; then capped at USB 2."""
    def m(t, dt, cum):
        r, temp = level_fn(t, dt, cum)
        if t < t_reset:
            return r, temp
        if t < t_reset + stall:
            return 0.0, temp
        return min(r, usb2), temp
    return m


def reset_events(t, stall, to_usb2=True, to_bot=False):
    # the hung commands time out part-way through the stall, then the
    # error handler aborts, resets and the device re-enumerates
    ev = [(t + stall * 0.45, "timeout",
           "sd 6:0:0:0: [sdb] tag#5 uas_eh_abort_handler 0 uas-tag 1 "
           "inflight: OUT"),
          (t + stall * 0.5, "abort",
           "scsi host6: uas_eh_device_reset_handler start"),
          (t + stall * 0.6, "reset",
           "usb 2-2: reset SuperSpeed USB device number 3 using xhci_hcd"),
          (t + stall * 0.8, "disconnect",
           "usb 2-2: USB disconnect, device number 3")]
    if to_usb2:
        ev.append((t + stall * 0.9, "bind",
                   "usb 1-2: new high-speed USB device number 5 using "
                   "xhci_hcd"))
    if to_bot:
        ev.append((t + stall * 0.9, "bind",
                   "usb-storage 2-2:1.0: USB Mass Storage device detected"))
    return ev


def c_usb2_flat(rng):
    lv = rng.uniform(380, 430) if rng.random() < 0.5 else rng.uniform(800, 980)
    dur = rng.uniform(200, 500)
    tr = dur * rng.uniform(0.3, 0.6)
    st = rng.uniform(8, 32)
    iv = rng.choice((0.5, 1.0, 2.0))
    return dict(model=usb2_reset(flat_model(lv), tr, st,
                                 rng.uniform(33, 41)),
                interval=iv, duration=dur, sigma=0.02, transport="usb",
                usb_speed=5000 if lv < 500 else 10000, with_path=True,
                events=reset_events(tr, st))


def c_bot_fallback(rng):
    lv = rng.uniform(390, 430)
    dur = rng.uniform(300, 600)
    tr = dur * rng.uniform(0.3, 0.6)
    st = rng.uniform(5, 30)
    slow = lv / rng.uniform(1.3, 1.6)
    return dict(model=usb2_reset(flat_model(lv), tr, st, slow), interval=1.0,
                duration=dur, sigma=0.02, transport="usb", usb_speed=5000,
                with_path=True, events=reset_events(tr, st, False, True))


def c_usb2_after_cache(rng):
    c = slc_case(rng, 500, 0.5, 3, 4, 0.3, 1000, 1000, rng.uniform(150, 300),
                 500, transport="usb", ivlo=1, ivhi=2)
    t_cache = c["p"]["slc_bytes"] / 1000e6
    tr = t_cache + rng.uniform(200, 300)
    st = rng.uniform(10, 30)
    c.update(model=usb2_reset(c["model"], tr, st, rng.uniform(33, 41)),
             duration=tr + 250, sigma=0.02, usb_speed=10000,
             events=reset_events(tr, st))
    return c


def pagecache(drive, dirty_GB, mem_MBps):
    """Buffered writes: the page cache takes dirty_GB at memory speed first."""
    def m(t, dt, cum):
        if cum < dirty_GB * 1e9:
            return mem_MBps, None
        r, temp = drive(t, dt, cum - dirty_GB * 1e9)
        return r, temp
    return m


def c_pagecache_flat(rng):
    lv = rng.uniform(300, 900)
    return dict(model=pagecache(flat_model(lv), rng.uniform(1.5, 6.0),
                                rng.uniform(3500, 7000)),
                interval=rng.choice((0.1, 0.2, 0.5)),
                duration=rng.uniform(60, 120), sigma=0.03)


def c_pagecache_cache(rng):
    c = slc_case(rng, 500, rng.uniform(0.3, 0.6), 3, 4, 0.15, 2000, 7000,
                 rng.uniform(300, 600), 120, ivlo=0.5, ivhi=1)
    t_cache = c["p"]["slc_bytes"] / 2000e6
    c.update(model=pagecache(c["model"], rng.uniform(2, 5), 5500),
             duration=t_cache + 130, sigma=0.03, interval=0.5)
    return c


def c_stall_same(rng, events=False):
    lv = rng.uniform(200, 1500)
    dur = rng.uniform(200, 600)
    iv = rng.choice((0.5, 1.0))
    t0 = dur * rng.uniform(0.3, 0.7)
    st = rng.uniform(4, 20)
    c = dict(model=flat_model(lv), interval=iv, duration=dur, sigma=0.025,
             stalls=[(t0, t0 + st)], transport="usb" if events else "nvme",
             with_path=events, usb_speed=10000)
    if events:
        c["events"] = reset_events(t0, st, to_usb2=False)[:3]
    return c


# --- unclear -----------------------------------------------------------------

def step_model(hi, lo, t_step):
    def m(t, dt, cum):
        return (hi if t < t_step else lo), None
    return m


def c_too_short(n, k_step, ratio):
    def f(rng):
        iv = rng.choice((1.0, 2.0, 5.0))
        hi = rng.uniform(300, 2000)
        return dict(model=step_model(hi, hi / ratio, k_step * iv),
                    interval=iv, duration=n * iv, sigma=0.04)
    return f


def c_noise_as_big(rng):
    iv = 2.0
    hi = rng.uniform(300, 1200)
    return dict(model=step_model(hi, hi / 1.3, 12.0), interval=iv,
                duration=26.0, sigma=0.2, ar_sigma=0.05)


def c_mostly_stalled(rng):
    dur = 120.0
    stalls = []
    t = 3.0
    while t < dur:
        ln = rng.uniform(3, 12)
        stalls.append((t, t + ln))
        t += ln + rng.uniform(0.8, 3)
    return dict(model=flat_model(rng.uniform(60, 300)), interval=0.5,
                duration=dur, sigma=0.1, stalls=stalls)


def c_step_after_stall(rng):
    hi = rng.uniform(300, 1500)
    lo = hi / rng.uniform(1.6, 4.0)
    dur = rng.uniform(200, 400)
    t0 = dur * rng.uniform(0.35, 0.6)
    st = rng.uniform(5, 25)
    return dict(model=step_model(hi, lo, t0), interval=1.0, duration=dur,
                sigma=0.025, stalls=[(t0, t0 + st)])


def c_deep_dip_back(rng):
    hi = rng.uniform(500, 2000)
    dur = rng.uniform(200, 400)
    t0 = dur * rng.uniform(0.3, 0.5)
    ln = rng.uniform(30, 60)

    def m(t, dt, cum):
        return (hi / 8 if t0 <= t < t0 + ln else hi), None
    return dict(model=m, interval=1.0, duration=dur, sigma=0.03)


def c_throttle_holds(rng):
    """Heat, one throttle state that holds: shape of a cache, temp of heat."""
    peak = rng.uniform(1500, 3000)
    trip = rng.uniform(76, 82)
    low = peak / rng.uniform(1.8, 3.0)
    T_amb = 30.0
    P_idle, k_W = 1.2, 2.5
    Plo = P_idle + k_W * low / 1000
    R = (trip - 1.0 - T_amb) / Plo  # holds just under trip, above release
    return thermal_case(rng, peak, [(trip, 6.0, low)], T_amb, R, 60.0 / R,
                        P_idle, k_W, 900, temp=True, ivlo=1, ivhi=5)


def c_fast_thermal(rng):
    """A bare M.2 drive: small thermal mass, cycles of seconds."""
    c = c_two_state(True)(rng)
    p = c["p"]
    tau = rng.uniform(4, 10)
    p["C"] = tau / p["R"]
    c.update(model=thermal_model(p), interval=rng.choice((0.1, 0.2)),
             duration=tau * rng.uniform(10, 14))
    return c


def c_ftl_big(rng):
    c = ftl_case(lay_regular, cap=2000, flash=rng.uniform(1500, 2000))(rng)
    c["interval"] = rng.choice((15.0, 20.0, 30.0))
    c["duration"] = c["duration"] + c["interval"]
    return c


def c_nvme_downtrain(rng):
    lv = rng.uniform(3000, 3500)
    dur = rng.uniform(60, 120)
    tr = dur * rng.uniform(0.3, 0.6)
    st = rng.uniform(2, 6)
    slow = rng.uniform(780, 820)  # PCIe 2.5 GT/s x4 after retraining
    ev = [(tr + st * 0.5, "timeout",
           "nvme nvme0: I/O 417 QID 3 timeout, reset controller"),
          (tr + st * 0.7, "reset", "nvme nvme0: resetting controller; "
           "pcieport 0000:00:01.2: 8.000 Gb/s available PCIe bandwidth, "
           "limited by 2.5 GT/s PCIe x4 link")]
    return dict(model=usb2_reset(flat_model(lv), tr, st, slow),
                interval=0.2, duration=dur, sigma=0.015, transport="nvme",
                with_path=True, events=ev)


def c_one_fast_sample(rng):
    iv = rng.choice((5.0, 10.0))
    hi = rng.uniform(800, 2000)
    return dict(model=step_model(hi, hi / rng.uniform(1.5, 2.5), iv * 0.9),
                interval=iv, duration=11 * iv, sigma=0.03)


# ---------------------------------------------------------------- the set
#
# (builder, class, origin, reason, format).  format: trace (blkfloor trace),
# csv (seconds,MB/s) or fio (bandwidth log).  origin: drive, link, host.

CE, TT, FS, ST, UN = ("cache-exhaustion", "thermal-throttling",
                      "ftl-starvation", "steady", "unclear")

CASES = [
    # cache-exhaustion
    (c_seed_dramless, CE, "drive", "DRAM-less QLC 1 TB on USB4: 2.6 GB/s "
     "for ~280 GB, then 127 MB/s direct-to-QLC with folding jitter", "trace"),
    (c_step13, CE, "drive", "single 1.35x step 1524 -> 1132 MB/s after a "
     "dynamic SLC cache; the floor holds", "trace"),
    (c_step2050, CE, "drive", "single 1.37x step 2050 -> 1500 MB/s that "
     "holds", "trace"),
    (c_step_ratio(1.5, 500), CE, "drive", "1.5x SLC step that holds",
     "trace"),
    (c_step_ratio(2.5, 1000), CE, "drive", "2.5x SLC step that holds",
     "trace"),
    (c_step_ratio(4.0, 2000), CE, "drive", "4x SLC step that holds",
     "trace"),
    (c_step_ratio(8.0, 1000, "usb", 1000), CE, "drive", "8x SLC step behind "
     "a 10 Gb link that holds", "trace"),
    (c_step_ratio(3.0, 250, "sata", 550), CE, "drive", "3x SLC step on a "
     "SATA drive", "csv"),
    (c_step_ratio(12.0, 500), CE, "drive", "12x QLC/TLC cliff that holds",
     "fio"),
    (c_small_sata, CE, "drive", "250 GB SATA, ~3 GB static SLC at 0.1 s "
     "sampling, then a 2.5x lower native floor", "trace"),
    (c_cliff20_sata, CE, "drive", "old DRAM-less SATA: 500 -> 25 MB/s (20x) "
     "after ~2 GB, sampled at 0.1 s", "trace"),
    (c_staged_2tb, CE, "drive", "staged: pSLC 3.5 GB/s, direct TLC 2.2 GB/s, "
     "then folding at 1.0 GB/s once native free space ran out", "trace"),
    (c_staged_qlc_usb, CE, "drive", "staged QLC behind 10 Gb USB: link-"
     "capped SLC, direct QLC ~400, folding ~90 MB/s", "trace"),
    (c_refresh, CE, "drive", "cliff, then short bursts above the floor when "
     "the controller frees some SLC in the background", "trace"),
    (c_refresh, CE, "drive", "cliff with background SLC refresh bursts on "
     "the floor", "trace"),
    (c_drift, CE, "drive", "cliff; the floor drifts slowly and jitters",
     "trace"),
    (c_drift, CE, "drive", "cliff; the floor drifts slowly and jitters",
     "csv"),
    (c_cache_cools, CE, "drive", "cliff; temperature (<60 C, far from "
     "throttling) falls on the lower-power floor: not heat", "trace"),
    (c_cache_cools, CE, "drive", "cliff; the drive cools on the floor, "
     "temperature well below its throttle range", "trace"),
    (c_cache_usb_temp, CE, "drive", "link-capped cache then floor; drivetemp "
     "shows cooling after the cliff, never near throttling", "trace"),
    (c_big_slow, CE, "drive", "4 TB QLC at 30 s sampling: ~400 GB of SLC at "
     "the link's 900 MB/s, then ~90 MB/s", "trace"),
    (c_usb2_after_cache, CE, "link", "SLC cliff that holds, later a USB "
     "reset brings the link back at USB 2 (events): the second step is the "
     "link's", "trace"),
    (c_pagecache_cache, CE, "host", "memory-speed burst (host page cache) "
     "at the start, then an SLC cache and a cliff that holds", "csv"),
    # thermal
    (c_passive_seed, TT, "drive", "passive drive: 863 -> 700 -> 445 in "
     "stages, cycles, then climbs back to the peak while writing as the "
     "airflow improves",
     "trace"),
    (c_passive_seed, TT, "drive", "staircase of moderate thermal steps and "
     "a recovery while writing", "trace"),
    (c_two_state(True), TT, "drive", "two-state throttle with hysteresis: "
     "regular moderate cycle back to the peak, temp in throttle range",
     "trace"),
    (c_two_state(True), TT, "drive", "two-state thermal cycle with "
     "temperature", "trace"),
    (c_two_state(True), TT, "drive", "two-state thermal cycle with "
     "temperature", "trace"),
    (c_two_state(False), TT, "drive", "two-state thermal cycle, no "
     "temperature column", "trace"),
    (c_two_state(False), TT, "drive", "two-state thermal cycle, no "
     "temperature column", "trace"),
    (c_two_state(False), TT, "drive", "two-state thermal cycle, no "
     "temperature column", "csv"),
    (c_three_state(True), TT, "drive", "three levels: peak, then a moderate "
     "cycle between two throttle states, temperature recorded", "trace"),
    (c_three_state(True), TT, "drive", "three-level thermal staircase and "
     "cycle with temperature", "trace"),
    (c_three_state(False), TT, "drive", "three-level thermal staircase and "
     "cycle, no temperature", "trace"),
    (c_three_state(False), TT, "drive", "three-level thermal staircase and "
     "cycle, no temperature", "fio"),
    (c_fast_start_cycle, TT, "drive", "cold start: long fast phase, then a "
     "regular moderate thermal cycle", "trace"),
    (c_fast_start_cycle, TT, "drive", "cold start then thermal cycle",
     "trace"),
    (c_fan_recovery, TT, "drive", "two throttle steps, then a fan spins up "
     "and the rate climbs back toward the peak while writing", "trace"),
    (c_throttle_holds, TT, "drive", "one throttle state that holds; the "
     "temperature rises into the trip range and stays there after the "
     "step (a cache's drive would cool)", "trace"),
    # ftl-starvation
    (ftl_case(lay_regular), FS, "drive", "full drive, no TRIM, greedy GC: "
     "regular switching between fast and GC-bound levels", "trace"),
    (ftl_case(lay_regular), FS, "drive", "no-TRIM drive switching between "
     "levels (stripes of random history)", "trace"),
    (ftl_case(lay_regular), FS, "drive", "no-TRIM drive switching between "
     "levels", "csv"),
    (ftl_case(lay_random), FS, "drive", "no-TRIM drive, irregular switching "
     "between fast and GC-bound levels", "trace"),
    (ftl_case(lay_random), FS, "drive", "no-TRIM drive, irregular switching",
     "trace"),
    (ftl_case(lay_random), FS, "drive", "no-TRIM drive, irregular switching",
     "trace"),
    (ftl_case(lay_random), FS, "drive", "no-TRIM drive, irregular switching",
     "fio"),
    (ftl_case(lay_backwards), FS, "drive", "runs backwards: slow (GC over "
     "random history), fast, slow again", "trace"),
    (ftl_case(lay_backwards), FS, "drive", "runs backwards: slow, fast, "
     "slow", "trace"),
    (ftl_case(lay_slow_then_fast), FS, "drive", "slow first (GC-bound), fast "
     "later: a curve that runs backwards", "trace"),
    (ftl_case(lay_slow_then_fast), FS, "drive", "slow first, fast later",
     "trace"),
    (ftl_case(lay_regular, passes=1.5), FS, "drive", "regular GC switching "
     "over one and a half passes", "trace"),
    (ftl_case(lay_random, passes=1.3, op=0.04), FS, "drive", "4 % OP, "
     "irregular GC switching", "trace"),
    # steady
    (c_seed_918, ST, "drive", "20 Gb drive on a 10 Gb port: flat 918 MB/s "
     "over 300 GiB", "trace"),
    (c_flat(lambda r: r.uniform(3000, 3400), 60, 0.1, 0.02), ST, "drive",
     "flat NVMe at 0.1 s sampling", "trace"),
    (c_flat(lambda r: r.uniform(500, 540), 400, 1.0, 0.01,
            transport="sata"), ST, "drive", "flat SATA limit", "trace"),
    (c_flat(lambda r: r.uniform(380, 430), 600, 2.0, 0.015, dips=3,
            transport="usb", usb_speed=5000), ST, "drive", "flat USB 3 "
     "drive with three isolated one-sample dips", "trace"),
    (c_flat(lambda r: r.uniform(900, 2000), 300, 0.5, 0.02, dips=2), ST,
     "drive", "flat with two one-sample dips", "csv"),
    (c_hdd_whole, ST, "drive", "hard disk, whole surface: linear zone "
     "decline outer -> inner (a trend)", "trace"),
    (c_hdd_part, ST, "drive", "hard disk, first quarter: slow zone decline",
     "trace"),
    (c_flat(lambda r: r.uniform(300, 800), 400, 1.0, 0.15, ar=0.08), ST,
     "drive", "wide noise around one level", "trace"),
    (c_flat(lambda r: r.uniform(100, 300), 1200, 10.0, 0.12, ar=0.1), ST,
     "drive", "wide noise around one level, 10 s samples", "fio"),
    (c_bigcache_unexhausted, ST, "drive", "large cache not exhausted: flat "
     "at the 10 Gb link's limit", "trace"),
    (c_usb2_flat, ST, "link", "flat drive; USB reset (timeout, abort, "
     "reset events), stall, back at USB 2 speed", "trace"),
    (c_usb2_flat, ST, "link", "flat drive; link reset and USB 2 comeback "
     "with events", "trace"),
    (c_bot_fallback, ST, "link", "flat; reset, then usb-storage instead of "
     "uas (bind event): per-command overhead lowers the rate", "trace"),
    (c_pagecache_flat, ST, "host", "memory-speed burst at the start (host "
     "page cache), then a flat drive", "csv"),
    (c_pagecache_flat, ST, "host", "page-cache burst then flat", "fio"),
    (lambda r: c_stall_same(r, False), ST, "host", "flat with one stall "
     "(starved host), same rate after", "trace"),
    (lambda r: c_stall_same(r, True), ST, "link", "flat; abort and reset "
     "events with a stall, same rate after", "trace"),
    (c_fast_thermal, TT, "drive", "bare M.2 with a small thermal mass: "
     "moderate throttle cycles of seconds at 0.1-0.2 s sampling", "trace"),
    (c_fast_thermal, TT, "drive", "fast moderate thermal cycle, "
     "temperature recorded", "trace"),
    (c_ftl_big, FS, "drive", "2 TB no-TRIM drive at 15-30 s sampling: "
     "GC-bound and fast stretches alternate", "trace"),
    (c_flat(lambda r: r.uniform(250, 400), 60, 0.1, 0.1, ar=0.05,
            transport="usb", usb_speed=5000), ST, "drive", "USB jitter at "
     "0.1 s sampling around one level", "trace"),
    (c_nvme_downtrain, ST, "link", "flat NVMe; timeout and controller reset, "
     "link retrained at 2.5 GT/s: the step is the link's", "trace"),
    # unclear
    (c_too_short(5, 99, 1.0), UN, "drive", "5 samples: too few to say "
     "anything", "trace"),
    (c_one_fast_sample, UN, "drive", "one fast sample then a lower level: "
     "a start-up transient or a cache, one sample cannot tell", "trace"),
    (c_too_short(6, 4, 1.6), UN, "drive", "6 samples, 2 after a step",
     "trace"),
    (c_too_short(8, 3, 1.4), UN, "drive", "8 samples", "csv"),
    (c_too_short(10, 8, 2.0), UN, "drive", "10 samples, step 2 before the "
     "end", "trace"),
    (c_noise_as_big, UN, "drive", "13 samples, noise as large as the 1.3x "
     "step", "trace"),
    (c_mostly_stalled, UN, "host", "stalled most of the time", "trace"),
    (c_step_after_stall, UN, "unknown", "a step right after a stall with no "
     "event to explain it", "trace"),
    (c_step_after_stall, UN, "unknown", "step right after a stall, no "
     "event", "trace"),
    (c_deep_dip_back, UN, "drive", "one 8x drop that climbs back: too deep "
     "for heat, once is not GC switching", "trace"),
]


def main(argv):
    out = argv[1] if len(argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    order = list(range(len(CASES)))
    random.Random(SEED_BASE).shuffle(order)
    rows = []
    for n, ci in enumerate(order, 1):
        builder, cls, origin, reason, fmt = CASES[ci]
        s, c = build(n, builder)
        ext = {"trace": "trace", "csv": "csv", "fio": "log"}[fmt]
        name = "e%03d.%s" % (n, ext)
        path = os.path.join(out, name)
        rng = random.Random(SEED_BASE * 7 + n)
        if fmt == "trace":
            meta = meta_for(rng, n, c, c["interval"])
            write_trace(path, s, meta, rng, with_path=c.get("with_path",
                        False), temp=c.get("temp", False))
        elif fmt == "csv":
            write_csv(path, s)
        else:
            write_fio(path, s)
        rows.append((name, cls, origin, reason))
        if os.environ.get("EVAL_GEN_SHOW"):
            show(name, s, cls)
    with open(os.path.join(out, "labels.tsv"), "w") as f:
        f.write("# file\tclass\torigin\treason\n")
        for r in rows:
            f.write("\t".join(r) + "\n")


def show(name, s, cls):
    """A sparkline of the curve (for the author's eyes, EVAL_GEN_SHOW=1)."""
    rates = [b / s.interval / 1e6 for b in s.bytes]
    n = len(rates)
    w = min(72, n)
    cols = [rates[int(k * n / w):max(int(k * n / w) + 1, int((k + 1) * n / w))]
            for k in range(min(w, n))]
    col = [sum(c) / len(c) for c in cols]
    top = max(col) or 1
    ch = " .:-=+*#%@"
    line = "".join(ch[min(9, int(v / top * 9.99))] for v in col)
    temps = [t for t in s.temp if t is not None]
    ts = " T %.0f..%.0f" % (min(temps), max(temps)) if temps else ""
    print("%s %-18s n=%4d iv=%5.1f max=%6.0f min=%6.0f%s\n   |%s|" % (
        name, cls, n, s.interval, max(rates), min(rates), ts, line))


if __name__ == "__main__":
    main(sys.argv)
