#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
Score `blkfloor classify --json` on the regression set of simulated
curves (its labels are in the tree: it says a change broke nothing it
holds, not how the method generalises; see README.rst).

    score.py [--blkfloor PATH]

Prints only aggregates: the number of curves classified right, the same
per class, and (when the classifier's JSON carries an "origin" member)
how many origins agree.  A change's effect is the score measured on both
sides of it, with this script, never a number carried over.

Exit status: 0 when scored, 1 when the classifier could not be run or
could not read a curve (the score is still printed, unreadable curves
count as wrong), 2 when labels.tsv no longer has the sha256 recorded in
README.rst or a curve it lists is missing.
"""

import hashlib
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CLASSES = ("steady", "cache-exhaustion", "thermal-throttling",
           "ftl-starvation", "unclear")
FORMATS = {".trace": "trace", ".csv": "csv", ".log": "fio"}


def die(status, msg):
    sys.stderr.write("score.py: %s\n" % msg)
    sys.exit(status)


def recorded_sha():
    with open(os.path.join(HERE, "README.rst")) as f:
        m = re.search(r"labels\.tsv sha256: ([0-9a-f]{64})", f.read())
    if not m:
        die(2, "README.rst records no sha256 for labels.tsv")
    return m.group(1)


def read_labels():
    path = os.path.join(HERE, "labels.tsv")
    with open(path, "rb") as f:
        raw = f.read()
    sha = hashlib.sha256(raw).hexdigest()
    want = recorded_sha()
    if sha != want:
        die(2, "labels.tsv has sha256 %s, README.rst records %s: the frozen "
            "labels were edited" % (sha, want))
    labels = {}
    for n, line in enumerate(raw.decode().splitlines(), 1):
        if not line or line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) != 4 or f[1] not in CLASSES:
            die(2, "labels.tsv:%d: expected file, class, origin, reason" % n)
        if not os.path.isfile(os.path.join(HERE, f[0])):
            die(2, "labels.tsv:%d: curve %s is missing" % (n, f[0]))
        labels[f[0]] = (f[1], f[2])
    return labels


def classify(blkfloor, files, fmt):
    """{file name: JSON object} for one format; errors -> objects too."""
    cmd = [blkfloor, "classify", "--format", fmt, "--json"] + [
        os.path.join(HERE, f) for f in files]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        die(1, "cannot run %s: %s" % (blkfloor, e))
    # One object per file and line (JSON Lines); an older blkfloor printed
    # one object, or an array of them for several files.
    text = p.stdout.decode().strip()
    try:
        if text.startswith("["):
            out = json.loads(text)
        else:
            out = [json.loads(l) for l in text.splitlines() if l.strip()]
    except ValueError:
        die(1, "%s classify printed no JSON (exit %d)" % (blkfloor,
                                                          p.returncode))
    if not out or not isinstance(out, list):
        die(1, "%s classify printed unexpected JSON" % blkfloor)
    res = {}
    for obj in out:
        if isinstance(obj, dict) and "file" in obj:
            res[os.path.basename(obj["file"])] = obj
    if len(files) == 1 and len(out) == 1 and files[0] not in res:
        res[files[0]] = out[0]
    return res


def main(argv):
    blkfloor = os.path.normpath(os.path.join(HERE, "..", "..", "blkfloor"))
    args = argv[1:]
    if args[:1] == ["--blkfloor"] and len(args) == 2:
        blkfloor = args[1]
    elif args:
        die(1, "usage: score.py [--blkfloor PATH]")
    labels = read_labels()
    results = {}
    for ext, fmt in FORMATS.items():
        files = sorted(f for f in labels if f.endswith(ext))
        # classify takes a bounded number of files per call
        for i in range(0, len(files), 32):
            results.update(classify(blkfloor, files[i:i + 32], fmt))

    total = len(labels)
    right = 0
    unread = 0
    per = {c: [0, 0] for c in CLASSES}
    have_origin = False
    origin_right = 0
    for f, (cls, origin) in labels.items():
        per[cls][1] += 1
        obj = results.get(f)
        if not obj or "error" in obj or "class" not in obj:
            unread += 1
            continue
        if obj["class"] == cls:
            right += 1
            per[cls][0] += 1
        if "origin" in obj:
            have_origin = True
            got = obj["origin"] or "drive"
            if isinstance(got, dict):
                got = got.get("kind") or got.get("where") or "drive"
            if got == origin:
                origin_right += 1

    print("regression set (simulated): %d/%d correct (%.0f %%)" % (right, total,
                                                  100.0 * right / total))
    print("  " + ", ".join("%s %d/%d" % (c, per[c][0], per[c][1])
                           for c in CLASSES))
    if have_origin:
        print("  origin: %d/%d agree" % (origin_right, total))
    else:
        print("  origin: not reported by the classifier (%d of %d curves "
              "have a cause outside the drive or none known)" % (
                  sum(1 for c, o in labels.values() if o != "drive"),
                  total))
    if unread:
        print("  %d curve(s) could not be classified (counted wrong)" %
              unread)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
