#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ktap-count.py LOG [SUITE]: count the results of one KTAP/TAP log.

Prints "passed failed skipped" on the first line, then one line per failure
("SUITE: ..."). Every leaf result counts: a test with nested results (a
subtest, indented by two spaces or more, such as abi/001's kselftest
harness cases) counts as its nested results, plus one failure if it failed
while none of them did. The plan of the document and of every subtest must
match the number of results it has; a mismatch, or no plan at all, is a
failure: a suite that stopped half way (a guest that panicked, a runner
that died) never passes as the part that ran. A result marked # XFAIL (a
known miss) counts as skipped, not passed. "make check" (scripts/
check.sh) adds these numbers up.

A suite that stopped half way says where and why, so that the one line
of a CI summary is enough to start from: the test whose header line
("# GROUP/NNN: ...", run-guest.sh) has no result, and the first line of
the kernel's or run-vm.sh's own account of the end after the last result
(a panic, a WARNING, a BUG, an Oops, run-vm's "ended without an exit
status" or timeout).
"""
import re
import sys

RESULT = re.compile(r'^( *)(not ok|ok) (\d+)\b ?(.*)$')
PLAN = re.compile(r"^( *)1\.\.(\d+)\s*(#.*)?$")
# run-guest.sh's header of a test, and its line once the test is done
HEADER = re.compile(r'^# ([a-z]+/\d{3}): (.*)$')
# the kernel's account of a crash (in run-vm.sh's console excerpt, or
# quoted under a test: "# [ 12.3] WARNING: ..."), and run-vm.sh's own
WHY = re.compile(r'(Kernel panic|WARNING:|BUG:|Oops|general protection|'
                 r'Out of memory:|'
                 r'run-vm: .*(ended without|timed out|hung|panicked|killed by))')


def count(lines, suite):
    passed = failed = skipped = 0
    failures = []
    top_plan = None
    top_results = 0
    nested = None       # counts of the pending subtest: [p, f, s, plan, n]
    running = None      # the guest test whose header has no result yet
    why = None          # the first line that says why a suite stopped

    def fail(msg):
        nonlocal failed
        failed += 1
        failures.append('%s: %s' % (suite, msg))

    for line in lines:
        line = line.rstrip('\n')
        m = HEADER.match(line)
        if m and not m.group(2).startswith(('took ', 'exit ')):
            running = m.group(1)
        if why is None and WHY.search(line):
            why = re.sub(r'^[# ]*(\[ *[0-9.]+\] *)?', '', line).strip()[:160]
        m = PLAN.match(line)
        if m:
            if m.group(1):
                if nested is None:
                    nested = [0, 0, 0, None, 0]
                nested[3] = int(m.group(2))
            elif top_plan is None:
                top_plan = int(m.group(2))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        ok = m.group(2) == 'ok'
        # An expected failure (# XFAIL: a known miss kept in sight, not
        # tuned away) is no pass: it counts with the skips.
        skip = re.search(r'#\s*(SKIP|XFAIL)', m.group(4), re.I) is not None
        if m.group(1):
            if nested is None:
                nested = [0, 0, 0, None, 0]
            nested[4] += 1
            if not ok:
                nested[1] += 1
                failures.append('%s:   not ok %s %s' %
                                (suite, m.group(3), m.group(4)))
            elif skip:
                nested[2] += 1
            else:
                nested[0] += 1
            continue
        top_results += 1
        desc = m.group(4)
        running = why = None
        if nested is not None:
            p, f, s, plan, n = nested
            nested = None
            passed += p
            skipped += s
            failed += f
            if plan is None:
                fail('%s: nested results without a plan' % desc)
            elif plan != n:
                fail('%s: nested plan 1..%d but %d results' % (desc, plan, n))
            if not ok and f == 0:
                fail('not ok %s %s' % (m.group(3), desc))
            elif f:
                failures.append('%s: not ok %s %s' % (suite, m.group(3), desc))
            continue
        if not ok:
            fail('not ok %s %s' % (m.group(3), desc))
        elif skip:
            skipped += 1
        else:
            passed += 1
    if nested is not None:
        fail('nested results with no parent result (the suite stopped)')
    if top_plan is None:
        fail('no KTAP plan (1..N): the suite did not run')
    elif top_plan != top_results:
        where = ''
        if running:
            where += '; it stopped in %s' % running
        if why:
            where += '; first account of it: %s' % why
        fail('plan 1..%d but %d results: the suite stopped half way%s'
             % (top_plan, top_results, where))
    return passed, failed, skipped, failures


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit('usage: ktap-count.py LOG [SUITE]')
    suite = sys.argv[2] if len(sys.argv) == 3 else sys.argv[1]
    with open(sys.argv[1], errors='replace') as f:
        p, fl, s, failures = count(f, suite)
    print(p, fl, s)
    for x in failures:
        print(x)


if __name__ == '__main__':
    main()
