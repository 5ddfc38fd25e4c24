#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""guest-shards.py [--wait-shard [--measures LIST] [--preload S]] N TIMES
TEST...: split guest tests into N shards of about equal time, one shard
per output line (its tests space-separated, in the order given: a shard
runs them as run-guest.sh would, only fewer).

TIMES holds "GROUP/NNN SECONDS [CPU]" lines (seconds a test took in a
guest, the slower kernel's, from a make check log, and the guest's CPU
seconds meanwhile, both vCPUs); a test it does not list counts as the
median of those it does. The times only balance the shards: a stale file
makes them uneven, never a test lost or run twice.

Longest first, each test to the shard with the least time so far (LPT).
With --wait-shard, the tests that mostly wait (their guest CPU under
WAITING of their time: drive models running at a drive's pace, waits for
a timeout or a kernel worker) go to one more shard, printed last, and the
rest are shared out over the N: a guest running only those leaves the
host's CPUs to the others (QEMU's TCG in one thread takes at most one
host CPU a guest). The tests in LIST (whitespace-separated: those that
measure, whose guest make check runs ahead of the others on the host's
CPUs) go to the wait shard too. The wait shard then takes part in the
LPT of the busy tests, starting at its waiting tests' sum: those it gets
run after every waiting and measuring test (so that a wait guest does
not end minutes before the busy ones with nothing measured meanwhile).
--preload S: the first busy shard starts S seconds ahead (make check's
newest kernel runs the installed suite after its tests). No line is
printed for a wait shard with no test; the wait shard's line starts
"wait: ".
guest-shards.py --self-test checks that as one KTAP suite.

guest-shards.py --kernels [--measures LIST] [--first LIST] [--preload S]
N TIMES TEST... shares tests that run on one kernel only out between N
kernels, one line each: the busy ones and the waiting ones (as
--wait-shard tells them) each by LPT on their own, since each kernel runs
them in two guests; the tests in --first (those the installed suite runs
again) go to the first kernel, and its busy guest starts S seconds ahead
(--preload: the installed suite's run after its tests).

guest-shards.py --times LOG... prints a new TIMES from make check's guest
logs (build/check/guest_*.log): each test's "took N s" and its guest CPU,
from the log where it took longest.
"""
import re
import sys


def weights(times, tests):
    """Each test's time, the median of the known ones where unknown."""
    known = sorted(times.values())
    default = known[len(known) // 2] if known else 1
    return [times.get(t, default) for t in tests]


def shards(n, times, tests, load=None):
    """LPT over n shards, each starting at load's value (default 0)."""
    w = weights(times, tests)
    load = list(load) if load else [0.0] * n
    where = {}
    for i in sorted(range(len(tests)), key=lambda i: (-w[i], i)):
        s = min(range(n), key=lambda k: (load[k], k))
        load[s] += w[i]
        where[i] = s
    out = [[] for _ in range(n)]
    for i, t in enumerate(tests):
        out[where[i]].append(t)
    return out, load


# A test whose guest CPU (both vCPUs) is under this share of its time
# mostly waits.
WAITING = 0.4


def waiting(times, cpu, t):
    return t in times and t in cpu and cpu[t] < WAITING * times[t]


def wait_shards(n, times, cpu, tests, measures=(), preload=0.0):
    """N shards of the busy tests (LPT, the first starting at preload),
    then the waiting ones and those in measures, if any, followed by the
    busy tests LPT gave that shard (it starts at the waiting tests' sum);
    and whether the last shard is theirs."""
    wait = [t for t in tests if waiting(times, cpu, t) or t in measures]
    busy = [t for t in tests if t not in wait]
    nb = max(1, min(n, len(busy))) if busy else 0
    load = [0.0] * nb + ([sum(weights(times, wait))] if wait else [])
    if nb:
        load[0] += preload
    if not busy:
        return ([wait], load, True) if wait else ([], [], False)
    out, load = shards(len(load), times, busy, load)
    if wait:
        out[-1] = wait + out[-1]
    # (a busy shard the preload kept empty is not started)
    keep = [i for i, sh in enumerate(out) if sh]
    return [out[i] for i in keep], [load[i] for i in keep], bool(wait)


def kernel_shares(n, times, cpu, tests, measures=(), first=(), preload=0.0):
    """N lines of the one-kernel tests: first's to share 0, then busy and
    waiting tests each LPT on their own (share 0's busy load starting at
    preload); each share in the order given. Also the busy and waiting
    loads per share."""
    where = {t: 0 for t in first}
    loads = []
    for want_wait in (False, True):
        group = [t for t in tests
                 if (waiting(times, cpu, t) or t in measures) == want_wait]
        load = [0.0] * n
        load[0] = (0 if want_wait else preload) + \
            sum(weights(times, [t for t in group if t in where]))
        out, load = shards(n, times, [t for t in group if t not in where], load)
        where.update((t, k) for k, sh in enumerate(out) for t in sh)
        loads.append(load)
    return [[t for t in tests if where[t] == k] for k in range(n)], loads


def read_times(path):
    """TIMES as {test: seconds} and {test: guest CPU seconds}."""
    times, cpu = {}, {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if len(line) in (2, 3):
                times[line[0]] = float(line[1])
                if len(line) == 3:
                    cpu[line[0]] = float(line[2])
    return times, cpu


TOOK = re.compile(r"^# ([a-z0-9_-]+/[0-9]{3}): took ([0-9]+) s"
                  r"(?:, guest CPU ([0-9.]+) s)?")


def log_times(texts):
    """Each test's time in run-guest.sh logs and its guest CPU (None where
    not given), from the log where it took longest."""
    times = {}
    for text in texts:
        for line in text.splitlines():
            m = TOOK.match(line)
            if m and int(m[2]) >= times.get(m[1], (-1, None))[0]:
                times[m[1]] = (int(m[2]), None if m[3] is None else float(m[3]))
    return times


def self_test():
    import random
    rng = random.Random(1)
    cases = []
    for _ in range(200):
        tests = ["g%d/%03d" % (rng.randrange(5), i) for i in range(rng.randrange(1, 90))]
        times = {t: rng.choice([5, 12, 30, 90, 170]) for t in tests if rng.random() < 0.8}
        cases.append((rng.randrange(1, 6), times, tests))
    checks = [("every test in exactly one shard, in the order given", []),
              ("no shard is empty", []),
              ("no shard longer than the mean plus the longest test", []),
              ("--times: each test's largest time in the logs, its CPU", []),
              ("--wait-shard: the waiting and measuring tests in the last shard, first; "
               "the busy ones LPT over all shards (the first from --preload, the last "
               "from the waiting tests' sum), none longer than the mean plus the longest", []),
              ("--kernels: each test on one kernel, --first's on the first, "
               "busy and waiting shares each no longer than their mean plus their longest "
               "(the first's busy share counting --preload)", [])]
    got = log_times(["# a/001: took 12 s, guest CPU 3.0 s\n# a/002: took 5 s\n"
                     "# a/003: exit 1\n    # b/001: took 9 s\n",
                     "# a/001: took 7 s, guest CPU 9.0 s\n# x: took 4 s\n"])
    if got != {"a/001": (12, 3.0), "a/002": (5, None)}:
        checks[3][1].append(got)
    for n, times, tests in cases:
        cpu = {t: v * rng.choice([0.05, 0.3, 0.39, 0.41, 1.0, 1.9])
               for t, v in times.items() if rng.random() < 0.9}
        measures = set(t for t in tests if rng.random() < 0.1)
        pre = rng.choice([0, 40, 300])
        out, load, last = wait_shards(n, times, cpu, tests, measures, pre)
        wait = [t for t in tests
                if t in cpu and cpu[t] < 0.4 * times[t] or t in measures]
        busy = [t for t in tests if t not in wait]
        want = min(n, len(busy)) + (1 if wait else 0) if busy else 1
        extra = out[-1][len(wait):] if wait else []
        w = weights(times, busy)
        fixed = ([pre] + [0] * (want - 1 - bool(wait)) if busy else []) + \
            ([sum(weights(times, wait))] if wait else [])
        if len(out) == want - 1 and busy and pre:
            fixed = fixed[1:]       # the first busy shard, left empty by pre
        if (len(out) != len(fixed) or sorted(t for s in out for t in s) != sorted(tests)
                or last != bool(wait) or (wait and out[-1][:len(wait)] != wait)
                or any(t in wait for t in extra)
                or any(s != [t for t in tests if t in set(s)] for s in out[:-1])
                or extra != [t for t in busy if t in set(extra)]
                or any(not s for s in out)
                or (busy and max(load) > max(max(fixed), (sum(w) + sum(fixed)) / len(out)
                                             + max(w)) + 1e-9)
                or any(abs(l - f - sum(weights(times, [t for t in s if t in busy]))) > 1e-6
                       for s, l, f in zip(out, load, fixed))):
            checks[4][1].append((n, times, cpu, tests, pre))
    for n, times, tests in cases:
        cpu = {t: v * rng.choice([0.05, 1.0]) for t, v in times.items()}
        measures = set(t for t in tests if rng.random() < 0.1)
        first = [t for t in tests if rng.random() < 0.1]
        pre = rng.choice([0, 40, 300])
        out, loads = kernel_shares(n, times, cpu, tests, measures, first, pre)
        flat = [t for s in out for t in s]
        bad = sorted(flat) != sorted(tests) or any(t not in out[0] for t in first)
        for want_wait, load in zip((False, True), loads):
            group = [t for t in tests if t not in first and
                     (waiting(times, cpu, t) or t in measures) == want_wait]
            w = weights(times, group)
            fixed = sum(weights(times, [t for t in first if
                                        (waiting(times, cpu, t) or t in measures) == want_wait]))
            fixed += 0 if want_wait else pre
            total = sum(w) + fixed
            if group and max(load) > max(fixed, total / n + max(w)) + 1e-9:
                bad = True
        if bad:
            checks[5][1].append((n, times, tests, first, pre))
    for n, times, tests in cases:
        out, load = shards(max(1, min(n, len(tests))), times, tests)
        flat = [t for s in out for t in s]
        if sorted(flat) != sorted(tests) or any(
                s != [t for t in tests if t in set(s)] for s in out):
            checks[0][1].append((n, tests))
        if any(not s for s in out):
            checks[1][1].append((n, tests))
        w = weights(times, tests)
        if max(load) > sum(w) / len(load) + max(w) + 1e-9:
            checks[2][1].append((n, tests))
    print("KTAP version 1")
    print("1..%d" % len(checks))
    bad = 0
    for i, (name, fails) in enumerate(checks, 1):
        if fails:
            print("# %d failing case(s), first: %r" % (len(fails), fails[0]))
        print("%s %d %s" % ("not ok" if fails else "ok", i, name))
        bad |= bool(fails)
    return int(bad)


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if argv[1:2] == ["--times"]:
        texts = []
        for path in argv[2:]:
            with open(path, errors="replace") as f:
                texts.append(f.read())
        times = log_times(texts)
        if not times:
            sys.stderr.write("guest-shards.py: no test times in %s\n" % " ".join(argv[2:]))
            return 1
        for t in sorted(times):
            took, cpu = times[t]
            print("%s %d" % (t, took) + ("" if cpu is None else " %.1f" % cpu))
        return 0
    if argv[1:2] == ["--kernels"]:
        argv = argv[:1] + argv[2:]
        opts = {"--measures": "", "--first": "", "--preload": "0"}
        while argv[1:2] and argv[1] in opts and len(argv) > 2:
            opts[argv[1]] = argv[2]
            argv = argv[:1] + argv[3:]
        try:
            preload = float(opts["--preload"])
        except ValueError:
            preload = -1
        if len(argv) < 3 or not argv[1].isdigit() or int(argv[1]) < 1 or preload < 0:
            sys.stderr.write("usage: guest-shards.py --kernels [--measures LIST] "
                             "[--first LIST] [--preload S] N TIMES TEST...\n")
            return 2
        tests = argv[3:]
        first = opts["--first"].split()
        if len(set(tests)) != len(tests) or not set(first) <= set(tests):
            sys.stderr.write("guest-shards.py: a test is named twice, or --first names one not given\n")
            return 2
        times, cpu = read_times(argv[2])
        out, (busy, wait) = kernel_shares(int(argv[1]), times, cpu, tests,
                                          set(opts["--measures"].split()), first, preload)
        for k, sh in enumerate(out):
            print(" ".join(sh))
            sys.stderr.write("# kernel %d: %d tests, busy about %.0f s, waiting %.0f s\n"
                             % (k + 1, len(sh), busy[k], wait[k]))
        return 0
    wait = argv[1:2] == ["--wait-shard"]
    measures = ()
    preload = 0.0
    if wait:
        argv = argv[:1] + argv[2:]
        while argv[1:2] and argv[1] in ("--measures", "--preload") and len(argv) > 2:
            if argv[1] == "--measures":
                measures = set(argv[2].split())
            else:
                try:
                    preload = float(argv[2])
                except ValueError:
                    preload = -1
            argv = argv[:1] + argv[3:]
    if preload < 0:
        argv = []
    if len(argv) < 3 or not argv[1].isdigit() or int(argv[1]) < 1:
        sys.stderr.write("usage: guest-shards.py [--wait-shard [--measures LIST] [--preload S]] N TIMES TEST...\n")
        return 2
    tests = argv[3:]
    # (no empty shard: run-guest.sh given no test runs them all)
    n = max(1, min(int(argv[1]), len(tests)))
    if len(set(tests)) != len(tests):
        sys.stderr.write("guest-shards.py: a test is named twice\n")
        return 2
    times, cpu = read_times(argv[2])
    last = False
    if wait:
        out, load, last = wait_shards(n, times, cpu, tests, measures, preload)
    else:
        out, load = shards(n, times, tests)
    for i, (s, l) in enumerate(zip(out, load)):
        print(("wait: " if last and i == len(out) - 1 else "") + " ".join(s))
        sys.stderr.write("# shard of %d tests, about %.0f s\n" % (len(s), l))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
