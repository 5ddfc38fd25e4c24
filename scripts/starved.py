#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""starved.py LOG...: how much the host starved the guests' measurements.

The tests that measure (lib.sh's host_mark/host_was_starved and
sustain_classify) print, for each measuring window, how long QEMU's
threads waited for a host CPU: "host: QEMU's threads waited W s in T s
for a CPU". A window is starved when W is at least BLKFLOOR_STARVED
(0.2) of T. A starved measurement that came out wrong is taken again; one
that came out right stands, so a pass may rest on a starved window. For
the guest logs of make check this prints, as "#" lines: the windows,
how many were starved, the time waited, and which passing tests had a
starved window among their measurements (their pass stands on it).
(Waits while host_quiet looks for a quiet host are not windows.)
"""
import os
import re
import sys

WAIT = re.compile(r"QEMU's threads waited ([0-9.]+) s in ([0-9.]+) s for a CPU")
QUIET = re.compile(r'quiet after|still starving')
HEAD = re.compile(r'^# ([a-z]+/[0-9]+): ')
RESULT = re.compile(r'^(not )?ok [0-9]+ ([a-z]+/[0-9]+)\b(.*)$')


def windows(lines, limit):
    """{test: [(waited, of, starved)]} and {test: 'pass'|'fail'|'skip'}."""
    w, res, cur = {}, {}, None
    for line in lines:
        m = HEAD.match(line)
        if m:
            cur = m.group(1)
            continue
        m = RESULT.match(line)
        if m:
            res[m.group(2)] = ('fail' if m.group(1) else
                               'skip' if '# SKIP' in m.group(3) else 'pass')
            cur = None
            continue
        m = WAIT.search(line)
        if m and cur and not QUIET.search(line):
            a, b = float(m.group(1)), float(m.group(2))
            w.setdefault(cur, []).append((a, b, b > 0 and a >= limit * b))
    return w, res


def main():
    limit = float(os.environ.get('BLKFLOOR_STARVED', '0.2'))
    n = ns = 0
    waited = total = 0.0
    passes = []
    for path in sys.argv[1:]:
        name = re.sub(r'^guest_|\.log$', '', os.path.basename(path))
        with open(path, errors='replace') as f:
            w, res = windows(f, limit)
        for t, ws in sorted(w.items()):
            n += len(ws)
            s = sum(1 for x in ws if x[2])
            ns += s
            waited += sum(x[0] for x in ws)
            total += sum(x[1] for x in ws)
            if s and res.get(t) == 'pass':
                passes.append('%s (%s, %d of %d windows)' % (t, name, s, len(ws)))
    pct = 100 * waited / total if total else 0
    print('# measuring windows: %d, %d of them starved (QEMU waited %d %% or '
          'more); QEMU waited %.0f of %.0f s (%.0f %%) in all'
          % (n, ns, limit * 100, waited, total, pct))
    print('# passes with a starved window (a right result stands): %d%s'
          % (len(passes), ': ' + ', '.join(passes) if passes else ''))


if __name__ == '__main__':
    main()
