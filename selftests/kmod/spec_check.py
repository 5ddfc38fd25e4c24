#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check Documentation/netlink/specs/blkfloor.yaml against what is not
generated from it.

include/uapi/linux/blkfloor.h and kmod/nl_spec.[ch] are generated from the
spec by ynl-gen-c (scripts/nlgen.sh; the static checks fail when they are
stale). Here: the spec validates against the kernel's genetlink-legacy
schema, and the structs it describes, which ynl-gen-c does not render,
have the spec's layout in the hand-written include/uapi/linux/
blkfloor_verify.h (size and member offsets, compiled). Runs on the host
(no module needed). KTAP output; exit 0 pass, 1 fail, 4 skip (ynl or a
compiler missing).
"""
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
KSRC = os.path.join(TOP, 'build', 'ksrc')
SPEC = os.path.join(TOP, 'Documentation', 'netlink', 'specs', 'blkfloor.yaml')
UAPI = os.path.join(TOP, 'include', 'uapi')

TYPE_SIZE = {'u8': 1, 's8': 1, 'u16': 2, 's16': 2, 'u32': 4, 's32': 4,
             'u64': 8, 's64': 8}

results = []


def check(ok, name, diag=''):
    results.append((ok, name, diag))


def skip(why):
    print('KTAP version 1\n1..0 # SKIP ' + why)
    sys.exit(4)


def spec_structs(spec):
    """Struct layouts the spec implies (natural alignment, C rules)."""
    layouts = {}
    for d in spec['definitions']:
        if d['type'] != 'struct':
            continue
        name = 'blkfloor_' + d['name'].replace('-', '_')
        off, align, members = 0, 1, []
        for m in d['members']:
            size = TYPE_SIZE[m['type']]
            off = (off + size - 1) // size * size
            members.append((m['name'].replace('-', '_'), off))
            off += size
            align = max(align, size)
        layouts[name] = (members, (off + align - 1) // align * align)
    return layouts


def values(cc, workdir, include_dir, header, idents, structs=None):
    """Compile a program printing each identifier's value with @header."""
    src = os.path.join(workdir, 'v.c')
    exe = os.path.join(workdir, 'v')
    lines = ['#include <stdio.h>', '#include <stddef.h>',
             '#include "%s"' % header, 'int main(void) {']
    for n in idents:
        if n == 'BLKFLOOR_FAMILY_NAME' or n == 'BLKFLOOR_MCGRP_EVENTS':
            lines.append('printf("%s %%s\\n", %s);' % (n, n))
        else:
            lines.append('printf("%s %%lld\\n", (long long)(%s));' % (n, n))
    for s, (members, _) in (structs or {}).items():
        lines.append('printf("sizeof(%s) %%zu\\n", sizeof(struct %s));'
                     % (s, s))
        for mem, _ in members:
            lines.append('printf("offsetof(%s.%s) %%zu\\n", '
                         'offsetof(struct %s, %s));' % (s, mem, s, mem))
    lines.append('return 0; }')
    with open(src, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    subprocess.run([cc, '-I', include_dir, '-o', exe, src], check=True,
                   capture_output=True, text=True)
    out = subprocess.run([exe], check=True, capture_output=True,
                         text=True).stdout
    return dict(line.split(' ', 1) for line in out.splitlines())


def main():
    gen = os.path.join(KSRC, 'tools', 'net', 'ynl', 'ynl-gen-c.py')
    schema = os.path.join(KSRC, 'Documentation', 'netlink',
                          'genetlink-legacy.yaml')
    cc = shutil.which('cc') or shutil.which('gcc')
    if not os.path.exists(gen) or not os.path.exists(schema) or not cc:
        skip('needs build/ksrc (make ksrc) and a C compiler')
    try:
        import jsonschema
        import yaml
    except ImportError:
        skip('needs python3-yaml and python3-jsonschema')

    with open(SPEC) as f:
        spec = yaml.safe_load(f)
    with open(schema) as f:
        jsonschema.validate(spec, yaml.safe_load(f))
    check(True, 'spec_validates_against_genetlink_legacy_schema')

    with tempfile.TemporaryDirectory() as tmp:
        # ynl-gen-c does not render structs into uapi headers: lay them
        # out from the spec and compare with the compiled header.
        layouts = spec_structs(spec)
        u = values(cc, tmp, UAPI, 'linux/blkfloor_verify.h', [], layouts)
        want = {}
        for sname, (members, size) in layouts.items():
            want['sizeof(%s)' % sname] = str(size)
            for mem, off in members:
                want['offsetof(%s.%s)' % (sname, mem)] = str(off)
        diff = ['%s: spec %s, uapi %s' % (k, want[k], u.get(k))
                for k in want if want[k] != u.get(k)]
        check(layouts and not diff,
              'struct_layouts_agree (%s)' % ', '.join(sorted(layouts)),
              '; '.join(diff))


if __name__ == '__main__':
    try:
        main()
    except subprocess.CalledProcessError as e:
        check(False, 'compile_or_run', (e.stderr or '')[-500:])
    print('KTAP version 1')
    print('1..%d' % len(results))
    for i, (ok, name, diag) in enumerate(results, 1):
        print('%s %d %s' % ('ok' if ok else 'not ok', i, name))
        if not ok and diag:
            print('# ' + diag)
    sys.exit(0 if all(r[0] for r in results) else 1)
