#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""skip-check.py ALLOWLIST WHERE:LOG...: no green by skipping.

Every skipped result ("ok N NAME # SKIP REASON") in each KTAP log must be
listed in ALLOWLIST (selftests/skips-allowed); any other skip is a
failure, as a failed test is. WHERE is the kernel release a guest log
ran on, or "host" for the host suites. A nested result is named
PARENT:NAME (abi/001:fixture.test); a skipped plan ("1..0 # SKIP R")
names the whole log.

ALLOWLIST lines are "WHERE-GLOB NAME-GLOB REASON-REGEX" ('#' comments):
the skip is allowed when WHERE matches the first (fnmatch), NAME the
second, and the regular expression (Python, searched) the reason; the
reason is what is left of the line after the second field.

Prints one KTAP suite: one result per log, each unlisted skip as a
diagnostic. Exits non-zero if any log has one.
"""
import fnmatch
import os
import re
import sys

RESULT = re.compile(r'^( *)(not ok|ok) (\d+) ?([^#]*?)\s*(#\s*(\w+)\s*(.*))?$')
PLAN_SKIP = re.compile(r'^( *)1\.\.0\s*#\s*SKIP\s*(.*)$')


def load(path):
    rules = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = line.split(None, 2)
            if len(parts) != 3:
                sys.exit('%s:%d: want WHERE NAME REASON' % (path, n))
            rules.append((parts[0], parts[1], re.compile(parts[2]), n))
    return rules


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
    for w, n, r, line in rules:
        if (fnmatch.fnmatchcase(where, w) and fnmatch.fnmatchcase(name, n)
                and r.search(reason)):
            return line
    return None


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: skip-check.py ALLOWLIST WHERE:LOG...')
    rules = load(sys.argv[1])
    args = sys.argv[2:]
    print('KTAP version 1')
    print('1..%d' % len(args))
    bad_logs = 0
    for i, arg in enumerate(args, 1):
        where, _, path = arg.partition(':')
        name = re.sub(r'\.log$', '', os.path.basename(path))
        try:
            with open(path, errors='replace') as f:
                found = skips(f)
        except OSError as e:
            print('# %s: %s' % (name, e))
            print('not ok %d %s' % (i, name))
            bad_logs += 1
            continue
        bad = []
        for test, reason in found:
            line = allowed(rules, where, test or name, reason)
            if line:
                print('# %s: %s skipped (allowed, line %d): %s'
                      % (name, test or name, line, reason))
            else:
                bad.append((test or name, reason))
        for test, reason in bad:
            print('# %s: %s skipped, not allowed on %s: %s'
                  % (name, test, where, reason))
        print('%s %d %s' % ('not ok' if bad else 'ok', i, name))
        bad_logs += bool(bad)
    sys.exit(1 if bad_logs else 0)


if __name__ == '__main__':
    main()
