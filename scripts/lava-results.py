#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""lava-results.py LOG TEST...: the results lava-run recorded, as KTAP.

LOG is what lava-run wrote (one YAML mapping a line: "dt", "lvl", "msg");
its results are the "lvl: results" lines, each recorded as the test shell
signalled it, and lava-run exits 0 whatever they say. TESTs (GROUP/NNN)
are the kselftests the job ran (its profile): each must have a LAVA test
case (GROUP-NNN) of the blkfloor-kselftest definition, and passes when
that case passed; a skipped case is a KTAP skip with the reason the test
printed ("# SKIP: ..."), a failed or missing one (a job that timed out
before it ran) a failure. Then "plan" (the definition's own case: the
runner's results matched its plan) and "lava" (every case of LAVA's own
definition passed: validation, deploy, boot, the test shell, the job).
Parts a test left out (lib.sh's skip_part) are diagnostics: LAVA records
tests, not their parts.

Prints one KTAP suite; exits non-zero if anything failed.

lava-results.py --self-test: made-up logs, one KTAP result each.
"""
import re
import sys

import yaml

try:
    Loader = yaml.CSafeLoader
except AttributeError:
    Loader = yaml.SafeLoader

DEFINITION = 'blkfloor-kselftest'
RUNNER = re.compile(r'^# selftests: [^:]+: (\S+)$')
RESULT = re.compile(r'^(not )?ok \d+ selftests: [^:]+: (\S+)')
SKIP = re.compile(r'^# # SKIP: (.*)$')
PART = re.compile(r'^# # SKIP part ([^ :]+): (.*)$')


def read(lines):
    """(results, target lines, job start) of a lava-run log."""
    results, target, start = [], [], None
    for line in lines:
        line = line.strip()
        if not line.startswith('{'):
            continue
        try:
            d = yaml.load(line, Loader=Loader)
        except yaml.YAMLError:
            continue
        if not isinstance(d, dict):
            continue
        if start is None:
            start = d.get('dt')
        if d.get('lvl') == 'results' and isinstance(d.get('msg'), dict):
            results.append((d.get('dt'), d['msg']))
        elif d.get('lvl') == 'target' and isinstance(d.get('msg'), str):
            target.extend(d['msg'].splitlines())
    return results, target, start


def since(start, dt):
    """Seconds from START to DT (ISO times), or None."""
    from datetime import datetime
    try:
        return (datetime.fromisoformat(str(dt)) -
                datetime.fromisoformat(str(start))).total_seconds()
    except ValueError:
        return None


def test_output(target):
    """{runnable: (skip reason, [(part, reason)])} from the runner's
    output on the console."""
    out, cur, why, parts = {}, None, None, []
    for line in target:
        m = RUNNER.match(line)
        if m:
            cur, why, parts = m.group(1), None, []
            continue
        m = SKIP.match(line)
        if m and cur:
            why = m.group(1)
            continue
        m = PART.match(line)
        if m and cur:
            parts.append((m.group(1), m.group(2)))
            continue
        m = RESULT.match(line)
        if m:
            out[m.group(2)] = (why, parts)
            cur = None
    return out


def ktap(lines, tests):
    """(KTAP lines, ok) for a lava-run log and the tests the job ran."""
    results, target, start = read(lines)
    out = []
    ours = {}
    lava_bad, lava_n = [], 0
    for dt, r in results:
        d = str(r.get('definition', ''))
        if re.match(r'^\d+_%s$' % DEFINITION, d):
            ours[str(r.get('case'))] = (str(r.get('result')), dt)
        elif d == 'lava':
            lava_n += 1
            if r.get('result') != 'pass':
                lava_bad.append('%s: %s' % (r.get('case'), r.get('result')))
    seen = test_output(target)
    out.append('KTAP version 1')
    out.append('# lava-run recorded %d results: %d of %s, %d of LAVA\'s own'
               % (len(results), len(ours), DEFINITION, lava_n))
    out.append('1..%d' % (len(tests) + 2))
    ok = True
    n = 0
    for t in tests:
        n += 1
        case = t.replace('/', '-')
        res, dt = ours.get(case, (None, None))
        why, parts = seen.get(case, (None, []))
        for part, reason in parts:
            out.append('# %s: part %s not run: %s' % (t, part, reason))
        if res is None:
            out.append('# %s: no LAVA test case %s (the job ended before it '
                       'ran?)' % (t, case))
            out.append('not ok %d %s' % (n, t))
            ok = False
            continue
        at = since(start, dt)
        out.append('# %s: %s, recorded %s s into the job' %
                   (t, res, '%.0f' % at if at is not None else '?'))
        if res == 'pass':
            out.append('ok %d %s' % (n, t))
        elif res == 'skip':
            out.append('ok %d %s # SKIP %s' % (n, t, why or 'skipped'))
        else:
            out.append('not ok %d %s' % (n, t))
            ok = False
    n += 1
    res = ours.get('plan', (None, None))[0]
    extra = sorted(set(ours) - {t.replace('/', '-') for t in tests} - {'plan'})
    if extra:
        out.append('# cases for tests not in the profile: %s' % ' '.join(extra))
    out.append('# plan: %s' % (res or 'no case'))
    if res == 'pass' and not extra:
        out.append('ok %d plan' % n)
    else:
        out.append('not ok %d plan' % n)
        ok = False
    n += 1
    if not lava_n:
        lava_bad.append('no result of LAVA\'s own definition: lava-run did not run the job')
    elif not any(r.get('case') == 'job' for _, r in results
                 if r.get('definition') == 'lava'):
        lava_bad.append('no "job" result: lava-run did not finish the job')
    for x in lava_bad:
        out.append('# lava: %s' % x)
    out.append('%s %d lava' % ('not ok' if lava_bad else 'ok', n))
    ok = ok and not lava_bad
    return out, ok


def made_up(cases, lava=(('validate', 'pass'), ('job', 'pass')), target=()):
    """A made-up lava-run log."""
    lines = []
    t = 0

    def emit(lvl, msg):
        nonlocal t
        t += 1
        lines.append(yaml.safe_dump({'dt': '2026-01-01T00:00:%02d' % t,
                                     'lvl': lvl, 'msg': msg},
                                    default_flow_style=True, width=1000))
    for x in target:
        emit('target', x)
    for c, r in cases:
        emit('results', {'case': c, 'definition': '0_' + DEFINITION,
                         'result': r})
    for c, r in lava:
        emit('results', {'case': c, 'definition': 'lava', 'result': r})
    return lines


def self_test():
    cases = []
    tests = ['a/001', 'a/002']
    good = [('a-001', 'pass'), ('a-002', 'pass'), ('plan', 'pass')]

    def case(name, want, lines):
        out, ok = ktap(lines, tests)
        cases.append((name, ok == want, out))
    case('every case passed: ok', True, made_up(good))
    case('a failed case fails', False,
         made_up([('a-001', 'pass'), ('a-002', 'fail'), ('plan', 'pass')]))
    case('a job that timed out after the first test fails', False,
         made_up([('a-001', 'pass')],
                 lava=(('validate', 'pass'), ('lava-test-shell', 'fail'),
                       ('job', 'fail'))))
    case('a test shell that died (definition lava fails) fails', False,
         made_up(good, lava=(('validate', 'pass'),
                             ('0_blkfloor-kselftest', 'fail'),
                             ('job', 'pass'))))
    case('no result at all (lava-run did not run) fails', False, [])
    out, ok = ktap(made_up(
        [('a-001', 'pass'), ('a-002', 'skip'), ('plan', 'pass')],
        target=['# selftests: drivers/block/blkfloor: a-002',
                '# # SKIP part x: not here',
                '# # SKIP: needs a disk',
                'ok 2 selftests: drivers/block/blkfloor: a-002 # SKIP']),
        tests)
    cases.append(('a skipped case is a skip with the test\'s reason',
                  ok and 'ok 2 a/002 # SKIP needs a disk' in out and
                  '# a/002: part x not run: not here' in out, out))
    return cases


def main():
    if sys.argv[1:] == ['--self-test']:
        cases = self_test()
        print('KTAP version 1')
        print('1..%d' % len(cases))
        for i, (name, ok, out) in enumerate(cases, 1):
            for x in out:
                print('# ' + x)
            print('%s %d %s' % ('ok' if ok else 'not ok', i, name))
        sys.exit(0 if all(c[1] for c in cases) else 1)
    if len(sys.argv) < 3:
        sys.exit('usage: lava-results.py LOG TEST... | --self-test')
    with open(sys.argv[1], errors='replace') as f:
        out, ok = ktap(f, sys.argv[2:])
    print('\n'.join(out))
    sys.exit(0 if ok else 1)


if __name__ == '__main__':
    main()
