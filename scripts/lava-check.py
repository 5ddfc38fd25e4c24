#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# lava-check.py [DIR]: the LAVA job and test definitions in DIR
# (selftests/lava/) against LAVA's own schema, as one KTAP suite:
#   - qemu-job.yaml passes lava_common.schemas.validate (strict: no key
#     LAVA does not know), what lava-server and lava-run check a job with;
#   - blkfloor-kselftest.yaml passes LAVA's test definition schema
#     (lava_common.schemas.test.testdef), also strictly;
#   - the job's inline test definition is that file, and what its steps
#     run is in the installed suite (ksft-profile.sh, lava/ksft-lava.sh,
#     quick, and every test quick lists);
#   - ksft-lava.sh turns run_kselftest.sh's KTAP into the right LAVA
#     results (pass, fail, skip, a timeout, a short run);
#   - qemu-tcg-device.yaml, the device make check-lava runs the job on,
#     runs QEMU under TCG and has what lava-run needs;
#   - broken copies (an unknown key, a missing boot method, a wrong test
#     definition format, a test timeout longer than the job's) are refused:
#     the checks above can fail.
# LAVA's schema is Debian's lava-common (2023.01 in Debian 12), run with
# Debian's python3 (/usr/bin/python3): scripts/deps.sh installs it.
import copy
import os
import subprocess
import sys

import yaml

try:
    import voluptuous
    from lava_common.schemas import validate as validate_job
    from lava_common.schemas.test.testdef import testdef
except ImportError as e:
    print("KTAP version 1\n1..1\n# lava-common is not installed (%s): "
          "scripts/deps.sh" % e)
    print("not ok 1 lava_schema")
    sys.exit(1)

here = os.path.dirname(os.path.abspath(__file__))
lava = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "selftests", "lava")
suite = os.path.dirname(os.path.abspath(lava))
results = []


def check(name, fn):
    try:
        msg = fn()
        results.append((name, True, msg))
    except Exception as e:  # a failed check, whatever raised it
        results.append((name, False, "%s: %s" % (type(e).__name__, e)))


def load(name):
    with open(os.path.join(lava, name)) as f:
        return yaml.safe_load(f)


def job_ok(data):
    validate_job(data, strict=True)


def testdef_ok(data):
    voluptuous.Schema(testdef())(data)


def job_valid():
    job_ok(load("qemu-job.yaml"))
    return "valid"


def testdef_valid():
    testdef_ok(load("blkfloor-kselftest.yaml"))
    return "valid"


def inline_same():
    job = load("qemu-job.yaml")
    tests = [a["test"] for a in job["actions"] if "test" in a]
    defs = [d for t in tests for d in t.get("definitions", [])]
    if len(defs) != 1 or defs[0].get("from") != "inline":
        raise ValueError("expected one inline test definition, got %d" % len(defs))
    if defs[0]["repository"] != load("blkfloor-kselftest.yaml"):
        raise ValueError("the job's inline test definition differs from blkfloor-kselftest.yaml")
    return "the job runs blkfloor-kselftest.yaml"


def steps_exist():
    td = load("blkfloor-kselftest.yaml")
    steps = " ".join(td["run"]["steps"])
    need = ["ksft-profile.sh", "lava/ksft-lava.sh"]
    for f in need:
        if f not in steps:
            raise ValueError("the steps do not run %s" % f)
    for f in need + ["quick"]:
        if not os.path.isfile(os.path.join(suite, f)):
            raise ValueError("selftests/%s is missing" % f)
    mk = open(os.path.join(suite, "Makefile")).read()
    files = [ln for ln in mk.splitlines() if ln.startswith("TEST_FILES")]
    for f in ("quick", "ksft-profile.sh", "lava"):
        if not any((" %s" % f) in ln.split(":=", 1)[1] + " " for ln in files):
            raise ValueError("the Makefile does not install %s (TEST_FILES)" % f)
    n = 0
    for ln in open(os.path.join(suite, "quick")):
        t = ln.split("#", 1)[0].split()
        if not t:
            continue
        n += 1
        if not os.access(os.path.join(suite, "tests", t[0]), os.X_OK):
            raise ValueError("quick lists %s, which is not a test" % t[0])
    if td["params"].get("PROFILE") != "quick":
        raise ValueError("the default profile is not quick")
    return "steps, the quick profile (%d tests) and the installed files agree" % n


KTAP = """TAP version 13
1..4
# timeout set to 900
# selftests: drivers/block/blkfloor: basic-001
# ok 1 inner
ok 1 selftests: drivers/block/blkfloor: basic-001
# selftests: drivers/block/blkfloor: run-004
not ok 2 selftests: drivers/block/blkfloor: run-004 # exit=1
# selftests: drivers/block/blkfloor: cli-005
ok 3 selftests: drivers/block/blkfloor: cli-005 # SKIP
# selftests: drivers/block/blkfloor: run-023
not ok 4 selftests: drivers/block/blkfloor: run-023 # TIMEOUT 900 seconds
"""


def lava_results():
    sh = os.path.join(lava, "ksft-lava.sh")
    env = dict(os.environ, PATH="/usr/bin:/bin")
    p = subprocess.run([sh], input=KTAP, capture_output=True, text=True, env=env)
    want = ("basic-001 pass\nrun-004 fail\ncli-005 skip\nrun-023 fail\n"
            "plan pass\n")
    if p.stdout != want or p.returncode != 1:
        raise ValueError("got %r, exit %d" % (p.stdout, p.returncode))
    short = "\n".join(KTAP.splitlines()[:6]) + "\n"
    p = subprocess.run([sh], input=short, capture_output=True, text=True, env=env)
    if p.stdout != "basic-001 pass\nplan fail\n" or p.returncode != 1:
        raise ValueError("a run that stopped after 1 of 4: got %r, exit %d"
                         % (p.stdout, p.returncode))
    return "pass, fail, skip, timeout and a short run reported as LAVA results"


def device():
    d = load("qemu-tcg-device.yaml")
    q = d["actions"]["boot"]["methods"]["qemu"]["parameters"]
    opts = q.get("options", []) + q.get("extra", [])
    if "boot_retry" not in d.get("constants", {}):
        raise ValueError("no constants: boot_retry: (lava-run needs it)")
    if "-enable-kvm" in opts or not any(o.startswith("-accel tcg") for o in opts):
        raise ValueError("the device does not run QEMU under TCG: %s" % opts)
    if "amd64" not in d.get("available_architectures", []):
        raise ValueError("amd64 is not an available architecture")
    job = load("qemu-job.yaml")
    if job.get("context", {}).get("arch") != "amd64":
        raise ValueError("the job's context names no arch amd64")
    return "TCG (%s), boot_retry set, amd64" % " ".join(o for o in opts if "tcg" in o)


def refused(what, fn, data):
    try:
        fn(data)
    except voluptuous.Invalid as e:
        return "refused: %s" % e
    raise ValueError("a %s was accepted" % what)


def broken():
    msgs = []
    j = load("qemu-job.yaml")
    b = copy.deepcopy(j)
    b["actions"][0]["deploy"]["imagse"] = b["actions"][0]["deploy"].pop("images")
    msgs.append(refused("job with an unknown key", job_ok, b))
    b = copy.deepcopy(j)
    for a in b["actions"]:
        a.get("boot", {}).pop("method", None)
    msgs.append(refused("boot without a method", job_ok, b))
    b = copy.deepcopy(j)
    for a in b["actions"]:
        if "test" in a:
            a["test"]["timeout"] = {"minutes": 60}
    msgs.append(refused("test timeout longer than the job's", job_ok, b))
    t = load("blkfloor-kselftest.yaml")
    b = copy.deepcopy(t)
    b["metadata"]["format"] = "Lava-Test Test Definition 2.0"
    msgs.append(refused("test definition format", testdef_ok, b))
    b = copy.deepcopy(t)
    b["run"] = {"step": b["run"]["steps"]}
    msgs.append(refused("run without steps", testdef_ok, b))
    return "; ".join(msgs)


check("qemu_job_schema", job_valid)
check("testdef_schema", testdef_valid)
check("inline_testdef", inline_same)
check("testdef_steps", steps_exist)
check("ksft_lava_results", lava_results)
check("tcg_device", device)
check("broken_refused", broken)

print("KTAP version 1")
print("1..%d" % len(results))
for i, (name, ok, msg) in enumerate(results, 1):
    for ln in str(msg).splitlines():
        print("# %s: %s" % (name, ln))
    print("%s %d %s" % ("ok" if ok else "not ok", i, name))
sys.exit(0 if all(ok for _, ok, _ in results) else 1)
