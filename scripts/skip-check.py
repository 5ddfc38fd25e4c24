#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""skip-check.py ALLOWLIST WHERE:LOG...: no green by skipping.

Every skipped result ("ok N NAME # SKIP REASON") in each KTAP log must be
listed in ALLOWLIST (selftests/skips-allowed); any other skip is a
failure, as a failed test is. WHERE is the kernel release a guest log
ran on, or "host" for the host suites. A nested result is named
PARENT:NAME (abi/001:fixture.test); a skipped plan ("1..0 # SKIP R")
names the whole log.

ALLOWLIST lines are "WHERE TEST REASON" ('#' comments), each naming one
skip, never a pattern:
  WHERE   where it may skip, one or more of (comma-separated): "host";
          a kernel line "X.Y", any Debian release X.Y.N...; "debug",
          make check-debug's kernel (a release ending -blkfloor-debug);
  TEST    the result's exact name (GROUP/NNN, PARENT:PART, a log's name);
  REASON  the text the skip's reason starts with (no regular expression).
A line with a wildcard ('*', '?', '[') in WHERE or TEST, or a WHERE that
is none of those, is refused: the whole check fails.

Prints one KTAP suite: one result per log, each unlisted skip as a
diagnostic. Exits non-zero if any log has one.

skip-check.py --self-test: made-up allowlists and logs, one KTAP result
each: the checks above can fail.
"""
import os
import re
import sys
import tempfile

RESULT = re.compile(r'^( *)(not ok|ok) (\d+) ?([^#]*?)\s*(#\s*(\w+)\s*(.*))?$')
PLAN_SKIP = re.compile(r'^( *)1\.\.0\s*#\s*SKIP\s*(.*)$')
KERNEL_LINE = re.compile(r'^\d+\.\d+$')
WILDCARD = re.compile(r'[*?\[\]]')


class BadList(Exception):
    pass


def parse(lines, path='allowlist'):
    """The rules of an allowlist: (wheres, test, reason, line number)."""
    rules = []
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        parts = line.split(None, 2)
        if len(parts) != 3:
            raise BadList('%s:%d: want WHERE TEST REASON' % (path, n))
        where, test, reason = parts
        for field, what in ((where, 'WHERE'), (test, 'TEST')):
            if WILDCARD.search(field):
                raise BadList('%s:%d: a wildcard in %s (%s): name the '
                              'test and where it skips' % (path, n, what, field))
        wheres = where.split(',')
        for w in wheres:
            if w not in ('host', 'debug') and not KERNEL_LINE.match(w):
                raise BadList('%s:%d: WHERE %r is not host, debug or a '
                              'kernel line X.Y' % (path, n, w))
        rules.append((wheres, test, reason.strip(), n))
    return rules


def load(path):
    with open(path) as f:
        return parse(f, path)


def where_matches(w, where):
    if w == 'host' or where == 'host':
        return w == where
    debug = where.endswith('-blkfloor-debug')
    if w == 'debug':
        return debug
    return not debug and where.startswith(w + '.')


def skips(lines):
    """(name, reason) of every skipped result, nested ones named
    PARENT:NAME."""
    out = []
    pending = []        # nested skips waiting for their parent's name
    for line in lines:
        line = line.rstrip('\n')
        m = PLAN_SKIP.match(line)
        if m:
            (pending if m.group(1) else out).append(('', m.group(2)))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        name = m.group(4)
        skip = (m.group(6) or '').upper() == 'SKIP'
        if m.group(1):
            if skip:
                pending.append((name, m.group(7)))
            continue
        for child, reason in pending:
            out.append(('%s:%s' % (name, child) if child else name, reason))
        pending = []
        if skip:
            out.append((name, m.group(7)))
    return out


def allowed(rules, where, name, reason):
    for wheres, test, text, line in rules:
        if (any(where_matches(w, where) for w in wheres) and test == name
                and reason.startswith(text)):
            return line
    return None


def check_log(rules, where, path, lines, out):
    """Prints the diagnostics of one log; True when every skip is listed."""
    name = re.sub(r'\.log$', '', os.path.basename(path))
    bad = []
    for test, reason in skips(lines):
        line = allowed(rules, where, test or name, reason)
        if line:
            out.append('# %s: %s skipped (allowed, line %d): %s'
                       % (name, test or name, line, reason))
        else:
            bad.append((test or name, reason))
    for test, reason in bad:
        out.append('# %s: %s skipped, not allowed on %s: %s'
                   % (name, test, where, reason))
    return not bad


LIST = """# made up
6.12 fault/021 kernel without CONFIG_FAIL_MAKE_REQUEST
6.1,6.12 fault/003:dm-flakey-corrupt dm-flakey does not corrupt
debug run/025:io.max no io.max
host cli/002:tty no script(1)
"""
LOG = """KTAP version 1
1..4
ok 1 fault/021 # SKIP kernel without CONFIG_FAIL_MAKE_REQUEST (and debugfs)
  KTAP version 1
  # Subtest: fault/003
  1..2
  ok 1 checks
  ok 2 dm-flakey-corrupt # SKIP dm-flakey does not corrupt reads before 6.12
ok 2 fault/003
ok 3 run/025
ok 4 run/020 # SKIP %s
"""


def self_test():
    """(name, ok, diagnostics) of each made-up case."""
    cases = []
    rules = parse(LIST.splitlines())

    def run(where, log):
        out = []
        ok = check_log(rules, where, 'made-up.log', log.splitlines(), out)
        return ok, out

    # listed skips pass where they are listed, and only there
    log = '\n'.join(LOG.splitlines()[:-1]).replace('1..4', '1..3')
    ok, out = run('6.12.118+deb12-amd64', log)
    cases.append(('listed skips on the kernel they are listed for pass', ok, out))
    ok, out = run('6.1.0-57-amd64', log)
    cases.append(('fault/021 listed for 6.12 only fails on 6.1',
                  not ok and any('fault/021 skipped, not allowed' in x
                                 for x in out), out))
    ok, out = run('6.12.118-blkfloor-debug', log)
    cases.append(('a 6.12 line does not cover the debug kernel', not ok, out))
    # a skip for another reason, a nested part nobody listed, the old
    # stamp's reason
    for reason, what in (('some other reason', 'an unlisted reason'),
                         ('rig unchanged since these passed (rig hash 09fa)',
                          'the committed pass stamp\'s skip')):
        ok, out = run('6.12.118+deb12-amd64', LOG % reason)
        cases.append(('%s fails' % what, not ok and any(
            'run/020 skipped, not allowed' in x for x in out), out))
    ok, out = run('6.12.118+deb12-amd64',
                  LOG.replace('dm-flakey-corrupt #', 'other-part #') % 'x')
    cases.append(('an unlisted nested part fails', not ok and any(
        'fault/003:other-part skipped' in x for x in out), out))
    ok, out = run('6.12.118+deb12-amd64', 'KTAP version 1\n1..0 # SKIP all\n')
    cases.append(('a skipped plan not listed fails', not ok, out))
    # lists with a pattern are refused
    for bad in ('host * rig unchanged since these passed',
                '6.1.*-amd64 fault/021 kernel without',
                '6.12 fault/02? kernel without',
                '* fault/050:resource BLK_STS_RESOURCE',
                'all fault/021 kernel without'):
        try:
            parse([bad])
            cases.append(('refused: %s' % bad, False, ['accepted']))
        except BadList as e:
            cases.append(('refused: %s' % bad, True, [str(e)]))
    return cases


def main():
    if sys.argv[1:] == ['--self-test']:
        cases = self_test()
        print('KTAP version 1')
        print('1..%d' % len(cases))
        for i, (name, ok, out) in enumerate(cases, 1):
            for x in out:
                print('# %s' % x.lstrip('# '))
            print('%s %d %s' % ('ok' if ok else 'not ok', i, name))
        sys.exit(0 if all(c[1] for c in cases) else 1)
    if len(sys.argv) < 3:
        sys.exit('usage: skip-check.py ALLOWLIST WHERE:LOG... | --self-test')
    args = sys.argv[2:]
    print('KTAP version 1')
    try:
        rules = load(sys.argv[1])
    except (OSError, BadList) as e:
        print('1..1')
        print('# %s' % e)
        print('not ok 1 allowlist')
        sys.exit(1)
    print('1..%d' % len(args))
    bad_logs = 0
    for i, arg in enumerate(args, 1):
        where, _, path = arg.partition(':')
        name = re.sub(r'\.log$', '', os.path.basename(path))
        out = []
        try:
            with open(path, errors='replace') as f:
                ok = check_log(rules, where, path, f, out)
        except OSError as e:
            out.append('# %s: %s' % (name, e))
            ok = False
        for x in out:
            print(x)
        print('%s %d %s' % ('ok' if ok else 'not ok', i, name))
        bad_logs += not ok
    sys.exit(1 if bad_logs else 0)


if __name__ == '__main__':
    main()
