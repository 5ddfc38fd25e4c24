#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""ktap-parse-check.py LOG...: read each log as the kernel's KTAP parser does.

Every log of "make check" goes through parse_run_tests() of the 6.12 tree's
tools/testing/kunit/kunit_parser.py (make ksrc extracts it into build/ksrc),
the parser KernelCI-style tools use. A log passes only when the parser
reports no error and no test CRASHED (a nested block without its result
line, a plan it did not keep, names that do not match), and when it reads
the same passed/failed/skipped numbers as scripts/ktap-count.py, which
make check adds up: the two must agree on what the log says.

Prints one KTAP result per log, named by its file name, with the parser's
complaints as diagnostics. Exits non-zero if any log fails.
KUNIT_DIR overrides where kunit_parser.py is found.
"""
import importlib.util
import io
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
kunit = os.environ.get('KUNIT_DIR',
                       os.path.join(here, '..', 'build', 'ksrc', 'tools',
                                    'testing', 'kunit'))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod     # (dataclasses look the module up)
    spec.loader.exec_module(mod)
    return mod


def reword():
    """The (phrase, rewording) pairs of selftests/ktap-text.sed."""
    with open(os.path.join(here, '..', 'selftests', 'ktap-text.sed')) as f:
        return [tuple(x.rstrip('\n').split('/')[1:3]) for x in f
                if x.startswith('s/')]


def tally(test, parser):
    """passed, failed, skipped as ktap-count.py counts them: every leaf
    result, plus one failure for a failed parent none of whose results
    failed."""
    S = parser.TestStatus
    if not test.subtests:
        return (int(test.status == S.SUCCESS),
                int(test.status not in (S.SUCCESS, S.SKIPPED, S.NO_TESTS)),
                int(test.status == S.SKIPPED))
    p = f = s = 0
    for t in test.subtests:
        a, b, c = tally(t, parser)
        p, f, s = p + a, f + b, s + c
    if test.status in (S.FAILURE, S.TEST_CRASHED) and f == 0:
        f += 1
    return p, f, s


def check(path, parser, counter):
    """The parser's complaints about one log (empty: it reads cleanly)."""
    buf = io.StringIO()
    parser.stdout._output = buf
    parser.stdout._use_color = False
    with open(path, errors='replace') as f:
        lines = f.read().splitlines()
    test = parser.parse_run_tests(lines)
    out = buf.getvalue().splitlines()
    bad = [re.sub(r'^\[[0-9:]+\] ', '', x) for x in out
           if '[ERROR]' in x or '[CRASHED]' in x]
    S = parser.TestStatus
    if test.counts.errors and not bad:
        bad.append('%d parse errors' % test.counts.errors)
    if test.status in (S.TEST_CRASHED, S.FAILURE_TO_PARSE_TESTS):
        bad.append('status %s' % test.status.name)
    if test.counts.crashed and not any('CRASHED' in x for x in bad):
        bad.append('%d tests crashed' % test.counts.crashed)
    if bad:
        # Where the parser stopped reading, when a line ended the log for
        # it (KTAP_END: a console's last words, anywhere on a line), and
        # the repeated complaints folded: the cause comes first.
        end = getattr(parser, 'KTAP_END', None)
        started = False
        for i, x in enumerate(lines, 1):
            if not started:
                started = 'TAP version' in x
            elif end is not None and end.search(x):
                # (reworded as run-guest.sh does: this line goes into
                # logs the parser reads too)
                for a, b in reword():
                    x = x.replace(a, b)
                bad.insert(0, 'kunit_parser stops reading at line %d: %s'
                           % (i, x.strip()[:120]))
                break
        rep = [x for x in bad if 'missing expected subtest' in x or
               x.strip().endswith('[CRASHED]')]
        if len(rep) > 4:
            bad = [x for x in bad if x not in rep] + rep[:2] + \
                ['(%d more lines like these)' % (len(rep) - 2)]
    if not bad:
        mine = tally(test, parser)
        # kunit_parser knows only the SKIP directive and reads "ok N x #
        # XFAIL" as a pass; ktap-count.py counts an expected failure with
        # the skips (it is not a pass either).
        xfail = sum(1 for x in lines
                    if re.match(r'\s*ok [0-9]+ [^#]*#\s*XFAIL', x, re.I))
        mine = (mine[0] - xfail, mine[1], mine[2] + xfail)
        p, fl, s, _ = counter.count(lines, path)
        if (p, fl, s) != mine:
            bad.append('kunit_parser reads %d passed, %d failed, %d skipped;'
                       ' ktap-count.py %d, %d, %d' % (mine + (p, fl, s)))
    return bad


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: ktap-parse-check.py LOG...')
    try:
        sys.path.insert(0, kunit)
        parser = load('kunit_parser', os.path.join(kunit, 'kunit_parser.py'))
    except (OSError, ImportError) as e:
        print('KTAP version 1')
        print('1..1')
        print('not ok 1 kunit_parser')
        sys.exit('ktap-parse-check: no kunit_parser.py in %s (make ksrc): %s'
                 % (kunit, e))
    counter = load('ktap_count', os.path.join(here, 'ktap-count.py'))
    logs = sys.argv[1:]
    print('KTAP version 1')
    print('1..%d' % len(logs))
    failed = 0
    for n, path in enumerate(logs, 1):
        name = os.path.basename(path)
        name = re.sub(r'\.log$', '', name)
        try:
            bad = check(path, parser, counter)
        except OSError as e:
            bad = ['cannot read: %s' % e]
        for x in bad:
            print('# %s: %s' % (name, x))
        print('%s %d %s' % ('not ok' if bad else 'ok', n, name))
        failed += bool(bad)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
