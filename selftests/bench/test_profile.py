#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host test of make profile's parts that run without a guest: the tbcount
plugin and tbmark build warning-free, and profile_report.py charges block
counts between the marks to the right functions, per I/O. KTAP output."""

import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import profile_report  # noqa: E402
from ktap import Ktap  # noqa: E402

ktap = Ktap()
check = ktap.check


def build(tmp):
    for src, args in (("tbcount.c", ["-shared", "-fPIC",
                                     "-fvisibility=hidden", "-lpthread"]),
                      ("tbmark.c", [])):
        out = os.path.join(tmp, src[:-2])
        p = subprocess.run(["gcc", "-Wall", "-Wextra", "-Werror", "-O2",
                            "-o", out, os.path.join(here, "tbprof", src)] +
                           args, capture_output=True, text=True)
        check(p.returncode == 0, "%s builds with -Wall -Wextra -Werror" % src,
              p.stderr)


def report(tmp):
    res = os.path.join(tmp, "run.json")
    with open(res, "w") as f:
        json.dump({"engine": "blkfloor", "test": "t", "kernel": "k",
                   "ios": 1000, "ns": 10**9}, f)
    with open(res + ".kallsyms", "w") as f:
        f.write("ffffffff81000000 T ktime_get\n"
                "ffffffff81000100 T submit_bio\n"
                "ffffffff81000200 D some_data\n"
                "ffffffffc0000000 t blkfloor_thread\t[blkfloor]\n")
    # Before the run: boot's counts; after: boot's plus the run's.
    with open(res + ".blocks.0", "w") as f:
        f.write("ffffffff81000000 10 500\n"
                "ffffffff81000110 4 7\n")
    with open(res + ".blocks.1", "w") as f:
        f.write("ffffffff81000000 10 2500\n"      # +2000 x 10
                "ffffffff81000110 4 1007\n"       # +1000 x 4, in submit_bio
                "ffffffffc0000040 30 1000\n"      # module, new
                "7f0000001000 5 200\n")           # user space
    r, by_fn, total, _ = profile_report.profile(res, [])
    want = {"ktime_get": 20.0, "submit_bio": 4.0,
            "blkfloor_thread [blkfloor]": 30.0, "(user space)": 1.0}
    check(by_fn == want, "blocks between the marks are charged per I/O to "
          "the function they start in", "got %r" % by_fn)
    check(abs(total - 55.0) < 1e-9, "total instructions per I/O",
          "got %r" % total)


def main():
    print("KTAP version 1")
    print("1..4")
    with tempfile.TemporaryDirectory() as tmp:
        build(tmp)
        report(tmp)
    return ktap.status()


if __name__ == "__main__":
    sys.exit(main())
