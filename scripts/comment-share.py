#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Share of a C file's characters that are comments, kerneldoc apart.

    comment-share.py [--max PCT] FILE...

For each FILE prints its size in characters, the share in comments other
than kerneldoc, and the share in kerneldoc ("/**" comments), as
percentages. With --max, exits 1 when any file's comments other than
kerneldoc pass PCT percent of its characters (kerneldoc is the
documentation of an interface and is not held to the limit), or when a
comment names a selftest (GROUP/NNN) or a benchmark run (make bench,
make profile): measurements belong in Documentation/performance.rst,
history in commit messages.

A comment's characters are those of the comment token, from "/*" or "//"
to its end; string and character literals are not comments.
"""
import re
import sys

# What a comment must not quote: a selftest's id, a benchmark run.
BANNED = re.compile(r'\b(?:abi|basic|cli|diag|fault|model|path|run|safety|'
                    r'unplug|usb)/[0-9]{3}\b|\bmake (?:bench|profile)\b')


def shares(text, banned=None):
    """(total, plain comment chars, kerneldoc chars) of C source @text;
    what BANNED finds in its comments is appended to @banned."""
    plain = kdoc = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            i = j + 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            if text.startswith('/**', i) and not text.startswith('/**/', i):
                kdoc += j - i
            else:
                plain += j - i
            if banned is not None:
                banned += BANNED.findall(text[i:j])
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            plain += j - i
            if banned is not None:
                banned += BANNED.findall(text[i:j])
            i = j
        else:
            i += 1
    return n, plain, kdoc


def main(argv):
    limit = None
    if len(argv) > 2 and argv[1] == '--max':
        limit = float(argv[2])
        argv = argv[2:]
    bad = 0
    for path in argv[1:]:
        banned = []
        with open(path, encoding='utf-8', errors='replace') as f:
            total, plain, kdoc = shares(f.read(), banned)
        p = 100.0 * plain / total if total else 0.0
        k = 100.0 * kdoc / total if total else 0.0
        over = limit is not None and p > limit
        bad += over
        print('%-28s %7d chars  comments %5.1f %%  kerneldoc %5.1f %%%s' %
              (path, total, p, k,
               '  over %.0f %%' % limit if over else ''))
        if limit is not None and banned:
            bad += 1
            print('%-28s comments quote: %s' % (path, ', '.join(banned)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
