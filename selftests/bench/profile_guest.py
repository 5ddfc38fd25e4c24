#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""scripts/profile-io.sh, guest side: one engine, one workload, one run.

Boots with QEMU's tbcount plugin counting every block of guest code the
vCPU runs (selftests/bench/tbprof). This script runs the workload once on
null_blk as make bench does (guest.py), between two runs of tbmark, at
which the plugin writes its counts so far; then it leaves what the host
needs to turn the counts between the marks into instructions per I/O and
per function: the run's result (--out, JSON) and the kernel's symbol table
with the module addresses of this boot (--out with .kallsyms appended).
"""

import argparse
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--bare", required=True)
    ap.add_argument("--engine", required=True,
                    help="blkfloor, blkfloor-nostats, bare, bare-seqplug or "
                    "bare-stamped")
    ap.add_argument("--test", required=True,
                    help="a make bench workload, e.g. randread-4k-qd32")
    ap.add_argument("--mark", required=True, help="the tbmark program")
    ap.add_argument("--time", type=float, default=5)
    a = ap.parse_args()
    tests = {t[0]: t for t in guest.TESTS}
    if a.test not in tests:
        sys.exit("profile: no workload %s (%s)" % (a.test, " ".join(tests)))
    _, op, random, bs, qd = tests[a.test]

    guest.nullb_setup()
    dev = guest.nullb_create("prof0", irqmode=0, memory_backed=0,
                             hw_queue_depth=1024)
    a.no_blkfloor = None if a.engine.startswith("blkfloor") else "not profiled"
    eng = guest.Engines(a)
    if a.engine not in eng.names():
        sys.exit("profile: engine %s is not usable here (%s)" %
                 (a.engine, eng.bf_reason or eng.bare_reason))
    guest.sh(a.mark)
    if a.engine.startswith("bare"):
        # Loaded until the symbols are read.
        r = eng.bare(dev, op, random, bs, qd, a.time,
                     plug=a.engine == "bare" or not random,
                     stamp=a.engine == "bare-stamped", keep=True)
    else:
        r = eng.run(a.engine, dev, op, random, bs, qd, a.time)
    guest.sh(a.mark)
    r.update(engine=a.engine, test=a.test, kernel=os.uname().release)
    with open(a.out, "w") as f:
        json.dump(r, f)
    # The engines' modules are still loaded: their symbols are listed.
    shutil.copyfile("/proc/kallsyms", a.out + ".kallsyms")
    guest.log("%s %s: %d I/Os" % (a.engine, a.test, r["ios"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
