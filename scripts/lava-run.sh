#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lava-run.sh: selftests/lava/qemu-job.yaml run by LAVA's own dispatcher
# (lava-run, Debian's lava-dispatcher) on a QEMU device of this machine
# (selftests/lava/qemu-tcg-device.yaml: TCG, no KVM), with the files
# scripts/lava-build.sh put in build/lava/; as one KTAP suite, one result
# per test of the job's profile from what lava-run recorded
# (scripts/lava-results.py). lava-run exits 0 whatever its tests did: the
# results decide. Runs as root (lava-run needs it). The log is
# build/check-lava/lava-run.log.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
dir=$top/build/check-lava
mkdir -p "$dir"
job=$dir/job.yaml
log=$dir/lava-run.log
# The job's URLs, pointed at the files built here.
sed "s|file:///srv/blkfloor-lava/|file://$top/build/lava/|" selftests/lava/qemu-job.yaml > "$job"
profile=$(python3 -c 'import sys, yaml
j = yaml.safe_load(open(sys.argv[1]))
d = [t for a in j["actions"] if "test" in a for t in a["test"]["definitions"]][0]
print(d["repository"]["params"]["PROFILE"])' "$job")
[ "$profile" = quick ] || { echo "lava-run.sh: the job runs profile $profile; only quick is checked here" >&2; exit 1; }
mapfile -t tests < <(sed 's/#.*//' selftests/quick | awk 'NF { print $1 }')
mins=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["timeouts"]["job"]["minutes"])' "$job")
rm -rf "$dir/out"
echo "# lava-run --job-id $$ --output-dir $dir/out $job --device selftests/lava/qemu-tcg-device.yaml"
start=$SECONDS
# (the job's own timeout ends it; this one, 5 minutes later, ends a
# dispatcher that hangs)
timeout -k 30 $((mins * 60 + 300)) lava-run --job-id $$ --output-dir "$dir/out" "$job" \
	--device selftests/lava/qemu-tcg-device.yaml > "$log" 2>&1
st=$?
echo "# lava-run: exit $st after $((SECONDS - start)) s (its job's timeout: $mins minutes)"
grep -E '"msg": "(start|end): [0-9]+ ' "$log" | sed 's/.*"msg": "\(.*\)"}$/# \1/'
python3 scripts/lava-results.py "$log" "${tests[@]}"
