#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# config-check.py: selftests/config holds every kernel option the tests
# need, as the tests themselves say it (KTAP, one result per test).
#
# What a test needs is read from the test, not from a list kept beside it:
#   - its "# config: CONFIG_A CONFIG_B ..." lines (what no module load
#     shows: debugfs, tracing, cgroups, namespaces, fault injection, NVMe);
#   - the lib.sh helpers it calls: a helper's own "# config:" line, in the
#     comment above its definition (nullb_create needs null_blk and
#     configfs, the rig's disk helpers the USB stack and sd);
#   - every module it loads with modprobe (a test's own, or its helpers'):
#     the option that builds the module, found from the kernel's own
#     Makefiles (obj-$(CONFIG_X) += NAME.o) in the directory modinfo gives
#     for it (blkfloor from kmod/Kbuild). The Makefiles come from
#     linux-source-6.12, cached in build/config-check/.
#
#   config-check.py [--config FILE] [--self-test]
#
# --self-test: the check fails when an option is missing: for an option of
# a "# config:" line, of a helper and of a module load, a copy of the
# config without it must fail the tests that need it.
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SELF = os.path.join(TOP, "selftests")
CACHE = os.path.join(TOP, "build", "config-check")
# make ksrc extracts every Makefile of the kernel source with the rest it
# needs (one pass over the 140 MB tarball); CACHE is filled from the
# tarball only where that tree has none
KSRC = os.path.join(TOP, "build", "ksrc")
KSRC_TAR = "/usr/src/linux-source-6.12.tar.xz"
CFG_RE = re.compile(r"^\s*#\s*config:\s*(.*)$")
OPT_RE = re.compile(r"^CONFIG_[A-Z0-9_]+$")
# modprobe [-q] NAME (not -r: unloading needs nothing)
MODPROBE_RE = re.compile(r"\bmodprobe\s+(?:-[a-qs-z]\s+)*([A-Za-z0-9][A-Za-z0-9_-]*)")


def cfg_line(line, where):
    m = CFG_RE.match(line)
    if not m:
        return set()
    opts = set(m.group(1).split())
    bad = [o for o in opts if not OPT_RE.match(o)]
    if bad:
        raise SystemExit("%s: not a kernel option: %s" % (where, " ".join(bad)))
    return opts


def read_config(path):
    opts = {}
    for line in open(path):
        m = re.match(r"^(CONFIG_[A-Z0-9_]+)=([ym])\s*$", line)
        if m:
            opts[m.group(1)] = m.group(2)
    return opts


def lib_helpers():
    """lib.sh's functions: name -> (options of its # config: lines,
    modules its body loads, helpers its body calls)."""
    text = open(os.path.join(SELF, "lib.sh")).read().split("\n")
    funcs, comment, cur = {}, [], None
    for i, line in enumerate(text):
        m = re.match(r"^([a-z_][a-z0-9_]*)\(\)\s*\{", line)
        if m:
            cur = m.group(1)
            opts = set()
            for c in comment:
                opts |= cfg_line(c, "lib.sh:%d" % (i + 1))
            funcs[cur] = [opts, set(), ""]
            comment = []
            rest = line[m.end():]
            if rest.strip().endswith("}"):
                funcs[cur][2] += rest
                cur = None
            continue
        if cur:
            funcs[cur][2] += line + "\n"
            if line == "}":
                cur = None
            continue
        comment = comment + [line] if line.startswith("#") else []
    out = {}
    for name, (opts, _, body) in funcs.items():
        mods = set(MODPROBE_RE.findall(body))
        calls = {f for f in funcs if f != name and re.search(r"\b%s\b" % f, body)}
        out[name] = (opts, mods, calls)
    return out


def helper_closure(name, helpers, seen=None):
    seen = set() if seen is None else seen
    if name in seen:
        return set(), set()
    seen.add(name)
    opts, mods, calls = helpers[name]
    opts, mods = set(opts), set(mods)
    for c in calls:
        o, m = helper_closure(c, helpers, seen)
        opts |= o
        mods |= m
    return opts, mods


def tests():
    return sorted(glob.glob(os.path.join(SELF, "tests", "*", "[0-9][0-9][0-9]")))


def test_needs(path, helpers):
    """options (with where each comes from) and modules a test needs"""
    opts, mods = {}, set()
    text = open(path).read()
    for n, line in enumerate(text.split("\n")):
        for o in cfg_line(line, "%s:%d" % (path, n + 1)):
            opts.setdefault(o, "its # config: line")
    for line in text.split("\n"):
        if line.lstrip().startswith("#"):
            continue
        mods |= set(MODPROBE_RE.findall(line))
        for h in helpers:
            if re.search(r"(^|[^A-Za-z0-9_$-])%s\b" % h, line):
                o, m = helper_closure(h, helpers)
                for x in o:
                    opts.setdefault(x, "lib.sh's %s" % h)
                mods |= m
    return opts, mods


def modinfo_path(mod):
    for kver in sorted(os.listdir("/lib/modules"), reverse=True):
        r = subprocess.run(["modinfo", "-k", kver, "-n", mod],
                           capture_output=True, text=True)
        p = r.stdout.strip()
        if r.returncode == 0 and "/kernel/" in p:
            return p.split("/kernel/", 1)[1]
    # built in (mq-deadline on Debian): modules.builtin names its path
    names = {mod.replace("_", "-"), mod.replace("-", "_")}
    for kver in sorted(os.listdir("/lib/modules"), reverse=True):
        try:
            lines = open("/lib/modules/%s/modules.builtin" % kver).read().split()
        except OSError:
            continue
        for line in lines:
            if re.sub(r"\.ko$", "", os.path.basename(line)) in names:
                return line.split("kernel/", 1)[1]
    return None


def makefile_option(rel_dir, obj, fetched):
    """the CONFIG_ option of obj-$(CONFIG_X) += OBJ.o in rel_dir's Makefile"""
    mk = os.path.join(KSRC, rel_dir, "Makefile")
    if not os.path.exists(mk):
        mk = os.path.join(CACHE, rel_dir, "Makefile")
    if not os.path.exists(mk):
        return None
    text = open(mk).read().replace("\\\n", " ")
    for line in text.split("\n"):
        m = re.match(r"^\s*obj-\$\((CONFIG_[A-Z0-9_]+)\)\s*[+:]?=\s*(.*)$", line)
        if m and obj + ".o" in m.group(2).split():
            return m.group(1)
    return None


def module_options(mods):
    """module -> option; modules no Makefile names map to None"""
    out, where = {}, {}
    for mod in sorted(mods):
        if mod == "blkfloor":
            where[mod] = ("kmod", "blkfloor")
            continue
        p = modinfo_path(mod)
        if p:
            d, f = os.path.split(p)
            where[mod] = (d, re.sub(r"\.ko(\.[a-z]+)?$", "", f))
        else:
            out[mod] = None
    missing = [d for d, _ in where.values() if d != "kmod" and
               not os.path.exists(os.path.join(KSRC, d, "Makefile")) and
               not os.path.exists(os.path.join(CACHE, d, "Makefile"))]
    if missing:
        os.makedirs(CACHE, exist_ok=True)
        subprocess.run(["tar", "-xJf", KSRC_TAR, "-C", CACHE,
                        "--strip-components=1", "--wildcards"] +
                       ["*/%s/Makefile" % d for d in sorted(set(missing))],
                       check=False, capture_output=True)
    for mod, (d, obj) in where.items():
        if d == "kmod":
            text = open(os.path.join(TOP, "kmod", "Kbuild")).read()
            m = re.search(r"obj-\$\((CONFIG_[A-Z0-9_]+)\)\s*[+:]?=\s*%s\.o" % obj, text)
            out[mod] = m.group(1) if m else None
        else:
            out[mod] = makefile_option(d, obj, None)
    return out


def needs_all():
    helpers = lib_helpers()
    per_test, allmods = {}, set()
    for t in tests():
        opts, mods = test_needs(t, helpers)
        per_test[t] = (opts, mods)
        allmods |= mods
    modopt = module_options(allmods)
    result = {}
    for t, (opts, mods) in per_test.items():
        need = dict(opts)
        for m in mods:
            o = modopt.get(m)
            need.setdefault(o if o else "?module " + m, "modprobe %s" % m)
        result[os.path.relpath(t, os.path.join(SELF, "tests"))] = need
    return result


def check(config, needs, quiet=False):
    have = read_config(config)
    failed = {}
    lines = ["KTAP version 1", "1..%d" % len(needs)]
    for i, (t, need) in enumerate(sorted(needs.items()), 1):
        miss = sorted(o for o in need if o not in have)
        if miss:
            failed[t] = miss
            for o in miss:
                if o.startswith("?module "):
                    lines.append("# %s: no kernel Makefile names the option that builds %s" %
                                 (t, o.split()[1]))
                else:
                    lines.append("# %s needs %s (%s): not in %s" %
                                 (t, o, need[o], os.path.relpath(config, TOP)))
            lines.append("not ok %d %s" % (i, t))
        else:
            if need:
                lines.append("# %s: %s" % (t, " ".join(sorted(need))))
            lines.append("ok %d %s" % (i, t))
    if not quiet:
        print("\n".join(lines))
    return failed


def self_test(config, needs):
    """a copy of config without an option fails the tests that need it"""
    have = read_config(config)
    picks = {}
    for t, need in sorted(needs.items()):
        for o, why in sorted(need.items()):
            kind = ("line" if why.startswith("its") else
                    "helper" if why.startswith("lib.sh") else "module")
            # (a kernel module's option: through modinfo and a Makefile)
            if o in have and kind not in picks and o != "CONFIG_BLKFLOOR":
                picks[kind] = (o, t)
    print("KTAP version 1")
    print("1..%d" % max(len(picks), 1))
    if not picks:
        print("not ok 1 no option to take out")
        return 1
    rc = 0
    for i, (kind, (o, t)) in enumerate(sorted(picks.items()), 1):
        with tempfile.NamedTemporaryFile("w", suffix=".config") as f:
            f.write("".join(line for line in open(config)
                            if not line.startswith(o + "=")))
            f.flush()
            failed = check(f.name, needs, quiet=True)
        ok = t in failed and o in failed[t]
        print("# without %s (a %s requirement): %s" %
              (o, kind, "fails " + " ".join(sorted(failed)) if failed else "passes"))
        print("%s %d without-%s" % ("ok" if ok else "not ok", i, kind))
        rc |= not ok
    return rc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=os.path.join(SELF, "config"))
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    needs = needs_all()
    if a.self_test:
        return self_test(a.config, needs)
    return 1 if check(a.config, needs) else 0


if __name__ == "__main__":
    sys.exit(main())
