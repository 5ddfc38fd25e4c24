#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Keep the tables of Documentation/netlink.rst in step with the YNL spec.

    netlink-rst.py [--update] SPEC RST

The RST holds generated blocks between the lines

    .. generated: NAME (scripts/netlink-rst.py; edit the meaning column only)
    .. end generated: NAME

NAME is "constants", "ops", or "attrs SET" for every attribute set of the
spec. Every column of a block comes from the spec except the last
("meaning") column of the attribute tables: it starts as the spec's doc
and may then be rewritten by hand; --update keeps it. Without --update the
script prints a diff and exits 1 when a block is missing or differs from
what the spec gives, so the document cannot drift from the spec.
"""
import difflib
import re
import sys

import yaml

BEGIN = '.. generated: {} (scripts/netlink-rst.py; edit the meaning column only)'
END = '.. end generated: {}'


def cname(*parts):
    return ''.join(parts).upper().replace('-', '_')


def consts(spec):
    return {d['name']: d['value'] for d in spec.get('definitions', [])
            if d['type'] == 'const'}


def defs(spec):
    return {d['name']: d for d in spec.get('definitions', [])}


def val(v, cst):
    if isinstance(v, str) and v in cst:
        return f'{v} ({cst[v]})'
    return str(v)


def attr_type(a, dfs):
    t = a['type']
    if t == 'nest':
        return f'nest ({a["nested-attributes"]})'
    if t == 'binary' and 'struct' in a:
        return f'binary, struct blkfloor_{a["struct"].replace("-", "_")}[]'
    if 'enum' in a:
        d = dfs[a['enum']]
        en = d.get('enum-name', 'blkfloor-' + d['name']).replace('-', '_')
        kind = 'flags' if a.get('enum-as-flags') or d['type'] == 'flags' \
            else 'enum'
        t = f'{t}, {kind} {en}'
    if a.get('multi-attr'):
        t += ', repeated'
    return t


def attr_checks(a, cst):
    c = a.get('checks', {})
    out = []
    if 'min' in c and 'max' in c:
        out.append(f'{val(c["min"], cst)} .. {val(c["max"], cst)}')
    elif 'min' in c:
        out.append(f'>= {val(c["min"], cst)}')
    elif 'max' in c:
        out.append(f'<= {val(c["max"], cst)}')
    if 'max-len' in c:
        out.append(f'length <= {val(c["max-len"], cst)}, NUL-terminated')
    if 'flags-mask' in c:
        out.append(f'known {c["flags-mask"]} bits only')
    return '; '.join(out) or '-'


def set_rows(spec, aset):
    """(name, value, type, checks, doc) for every attribute of a set."""
    cst, dfs = consts(spec), defs(spec)
    prefix = aset.get('name-prefix', f'{spec["name"]}-a-')
    rows, nxt = [], 1
    for a in aset['attributes']:
        v = a.get('value', nxt)
        nxt = v + 1
        if a['type'] in ('unused', 'pad'):
            continue
        doc = ' '.join(a.get('doc', '').split())
        rows.append((cname(prefix, a['name']), str(v), attr_type(a, dfs),
                     attr_checks(a, cst), doc))
    return rows


def list_table(header, widths, rows):
    out = ['.. list-table::', '   :header-rows: 1',
           '   :widths: ' + ' '.join(str(w) for w in widths), '']
    for r in [header] + rows:
        first = True
        for cell in r:
            lines = cell.split('\n') if cell else ['']
            lead = '   * - ' if first else '     - '
            out.append((lead + lines[0]).rstrip())
            out.extend(('       ' + ln).rstrip() for ln in lines[1:])
            first = False
    out.append('')
    return out


def old_meanings(lines):
    """Meaning column of an existing attribute block, by attribute name."""
    rows, cur = {}, None
    for ln in lines:
        if ln.startswith('   * - '):
            cur = [ln[7:]]
            rows.setdefault('_order', []).append(cur)
        elif ln.startswith('     - ') and cur is not None:
            cur.append(ln[7:])
        elif ln.startswith('       ') and cur is not None:
            cur[-1] += '\n' + ln[7:]
    for r in rows.pop('_order', []):
        if len(r) >= 5:
            rows[r[0].strip('`')] = r[4]
    return rows


def gen_attrs(spec, aset, old):
    rows = []
    for name, v, t, chk, doc in set_rows(spec, aset):
        meaning = old.get(name, doc)
        rows.append([f'``{name}``', v, t, chk, meaning])
    return list_table(['attribute', 'value', 'type', 'policy',
                       'meaning'], [30, 6, 20, 20, 40], rows)


def gen_consts(spec):
    rows = []
    for d in spec.get('definitions', []):
        if d['type'] != 'const':
            continue
        rows.append([f'``{cname("blkfloor-", d["name"])}``', str(d['value']),
                     ' '.join(d.get('doc', '').split())])
    return list_table(['constant', 'value', 'meaning'], [30, 15, 50], rows)


def gen_ops(spec):
    ops = spec['operations']
    prefix = ops.get('name-prefix', f'{spec["name"]}-cmd-')
    run = next(op for op in ops['list'] if op['name'] == 'run-get')
    run = run['do']['reply']['attributes']

    def attrs(lst):
        if lst == run:
            return 'the run (all run attributes, see below)'
        return ', '.join(lst) or '-'

    rows, nxt = [], 1
    for op in ops['list']:
        v = op.get('value', nxt)
        nxt = v + 1
        kinds, req, rep = [], [], []
        for k in ('do', 'dump'):
            if k not in op:
                continue
            kinds.append(k)
            r = op[k].get('request', {}).get('attributes', [])
            req.append(f'{k}: ' + (', '.join(r) or 'none'))
            rep.append(attrs(op[k].get('reply', {}).get('attributes', [])))
        if 'event' in op:
            kinds.append(f'multicast ({op["mcgrp"]})')
            rep.append(attrs(op['event']['attributes']))
        perm = 'admin' if 'admin-perm' in op.get('flags', []) else '-'
        rows.append([f'``{cname(prefix, op["name"])}``', str(v),
                     ', '.join(kinds), perm, '; '.join(req) or '-',
                     '; '.join(dict.fromkeys(rep)) or '-'])
    return list_table(['command', 'value', 'kind', 'perm', 'request',
                       'reply / message'], [28, 6, 12, 7, 30, 40], rows)


def blocks(spec):
    names = ['constants', 'ops'] + [f'attrs {s["name"]}'
                                    for s in spec['attribute-sets']]
    return names


def render(spec, name, old_lines):
    if name == 'constants':
        return gen_consts(spec)
    if name == 'ops':
        return gen_ops(spec)
    sname = name.split(' ', 1)[1]
    aset = next(s for s in spec['attribute-sets'] if s['name'] == sname)
    return gen_attrs(spec, aset, old_meanings(old_lines))


def main(argv):
    update = '--update' in argv
    args = [a for a in argv if a != '--update']
    if len(args) != 2:
        print(__doc__.strip().split('\n\n')[1], file=sys.stderr)
        return 2
    spec = yaml.safe_load(open(args[0]))
    text = open(args[1]).read().split('\n')
    out, bad = list(text), 0
    for name in blocks(spec):
        b, e = BEGIN.format(name), END.format(name)
        if b not in out or e not in out:
            print(f'{args[1]}: no generated block "{name}" (add the lines\n'
                  f'  {b}\n  {e}\nand run {sys.argv[0]} --update)')
            bad += 1
            continue
        i, j = out.index(b), out.index(e)
        cur = out[i + 1:j]
        new = [''] + render(spec, name, cur)
        if cur != new:
            if not update:
                sys.stdout.writelines(difflib.unified_diff(
                    [ln + '\n' for ln in cur], [ln + '\n' for ln in new],
                    f'{args[1]} ({name})', f'from {args[0]}'))
                bad += 1
            out[i + 1:j] = new
    for m in re.finditer(r'^\.\. generated: (.+?) \(', '\n'.join(out), re.M):
        if m.group(1) not in blocks(spec):
            print(f'{args[1]}: generated block "{m.group(1)}" is not in the spec')
            bad += 1
    if update:
        open(args[1], 'w').write('\n'.join(out))
        return 0
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
