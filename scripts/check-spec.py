#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the YNL spec of the blkfloor family against the uapi header.

usage: check-spec.py SPEC.yaml HEADER.h

1. The spec validates against the kernel's genetlink schema for its
   protocol (build/ksrc/Documentation/netlink/).
2. Every enum constant the spec implies (attribute sets, operations, enums,
   definitions) exists in the header with the same value, and every
   constant of the header's blkfloor enums is in the spec.
"""
import os
import re
import sys

import jsonschema
import yaml


def c_name(s):
    return s.upper().replace('-', '_')


def header_enums(path):
    """Map enum name -> {CONSTANT: value} for every enum in the header."""
    text = open(path).read()
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    enums = {}
    for m in re.finditer(r'enum\s+(\w+)\s*\{(.*?)\}', text, re.S):
        val = -1
        consts = {}
        for item in m.group(2).split(','):
            item = item.strip()
            if not item:
                continue
            if '=' in item:
                name, expr = (x.strip() for x in item.split('=', 1))
                expr = re.sub(r'(\d+)U', r'\1', expr)
                for k, v in consts.items():
                    expr = re.sub(r'\b%s\b' % k, str(v), expr)
                val = eval(expr)
            else:
                name = item
                val += 1
            consts[name] = val
        enums[m.group(1)] = consts
    return enums


def spec_consts(spec):
    """Yield (group, CONSTANT, value) implied by the spec, YNL's naming."""
    fam = c_name(spec['name'])
    for d in spec.get('definitions', []):
        if d['type'] not in ('enum', 'flags'):
            continue
        prefix = d.get('name-prefix', '%s_%s_' % (fam, c_name(d['name'])))
        val = d.get('value-start', 0)
        for e in d['entries']:
            name = e if isinstance(e, str) else e['name']
            if isinstance(e, dict) and 'value' in e:
                val = e['value']
            v = (1 << val) if d['type'] == 'flags' else val
            yield d.get('enum-name') or d['name'], c_name(prefix + name), v
            val += 1
    for s in spec.get('attribute-sets', []):
        prefix = s.get('name-prefix', '%s_A_%s_' % (fam, c_name(s['name'])))
        val = 1
        for a in s['attributes']:
            if 'value' in a:
                val = a['value']
            yield s.get('enum-name') or s['name'], c_name(prefix + a['name']), val
            val += 1
    ops = spec['operations']
    prefix = ops.get('name-prefix', '%s_CMD_' % fam)
    val = 1
    for o in ops['list']:
        if 'value' in o:
            val = o['value']
        yield 'ops', c_name(prefix + o['name']), val
        val += 1


def main():
    spec_path, hdr_path = sys.argv[1], sys.argv[2]
    spec = yaml.safe_load(open(spec_path))
    here = os.path.dirname(os.path.abspath(__file__))
    proto = spec.get('protocol', 'genetlink')
    schema_path = os.path.join(here, '..', 'build', 'ksrc', 'Documentation',
                               'netlink', '%s.yaml' % proto)
    errors = []
    if os.path.exists(schema_path):
        schema = yaml.safe_load(open(schema_path))
        try:
            jsonschema.validate(spec, schema)
        except jsonschema.ValidationError as e:
            errors.append('schema (%s): %s' % (proto, e.message))
    else:
        errors.append('no schema at %s (make ksrc)' % schema_path)

    enums = header_enums(hdr_path)
    flat = {}
    for consts in enums.values():
        flat.update(consts)
    seen = set()
    consts = list(spec_consts(spec))
    # An attribute set that is no enum of the header (its types are another
    # enum's values + 1, like iv-errors and err-class) is checked against
    # the enum whose constants have the same suffixes.
    groups = {}
    for group, name, val in consts:
        groups.setdefault(group, []).append((name, val))
    for group, items in groups.items():
        if any(n in flat for n, _ in items):
            continue
        suffixes = [n.rsplit('_', 1)[-1] for n, _ in items]
        for ename, econsts in enums.items():
            by_suffix = {k.rsplit('_', 1)[-1]: v for k, v in econsts.items()}
            if all(x in by_suffix for x in suffixes):
                for (n, val), x in zip(items, suffixes):
                    seen.add(n)
                    if by_suffix[x] + 1 != val:
                        errors.append('%s: %s is %d, %s + 1 is %d'
                                      % (group, n, val, ename, by_suffix[x] + 1))
                break
        else:
            errors.append('%s: no header enum matches this set' % group)
    for group, name, val in consts:
        if name in seen:
            continue
        seen.add(name)
        if name not in flat:
            errors.append('%s: %s is in the spec but not the header' % (group, name))
        elif flat[name] != val:
            errors.append('%s: %s is %d in the spec, %d in the header'
                          % (group, name, val, flat[name]))
    for ename, consts in enums.items():
        for name in consts:
            if name.startswith('__') or name.endswith('_UNSPEC') \
               or name.endswith('_PAD'):
                continue
            if name not in seen:
                errors.append('%s: %s is in the header but not the spec'
                              % (ename, name))
    for e in errors:
        print(e)
    print('%d constants checked, %d problems' % (len(seen), len(errors)))
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
