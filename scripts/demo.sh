#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: what no other tool does, on an emulated drive. Boots a Debian
# 6.12 guest with a UAS disk whose host-side model is an SLC cache (100 MB
# at 50 MB/s, then 6.25 MB/s, folded back at 12.5 MB/s while idle), runs
# 'blkfloor sustain --diagnose' on it with live progress: the write to the
# floor, then the idle-recovery experiment with gaps that fit the model
# (10 and 20 s). Prints the cause the experiment confirmed, with its
# evidence, and writes the trace, the classification and an SVG plot to
# results/.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD

scripts/deps.sh
make -s ksrc
make -s -C user
kver=${DEMO_KVER:-$(ls -d /lib/modules/6.12.*+deb12-amd64 | xargs -n1 basename | sort -V | tail -1)}
echo "demo: building blkfloor.ko for $kver" >&2
scripts/build-module.sh "$kver"

results=$top/results/demo-$(date +%Y%m%d-%H%M%S)
mkdir -p "$results"
echo "demo: booting a $kver guest with an emulated UAS drive (QEMU)" >&2

selftests/vm/run-vm.sh --kver "$kver" --uas 1G --share "$results" \
	--timeout 600 -- "
set -e
. selftests/lib.sh
modprobe blkfloor
dev=\$(rig_disk uas)
[ -n \"\$dev\" ] || { echo 'demo: the UAS disk did not appear'; exit 1; }
# A cache that folds back 100 MB in 8 s of idle: the 10 s gap refills
# it, the 20 s gap gives no more. QD 4 keeps the requests in flight
# (512 KiB) well within a 500 ms interval at the slow rate, so that every
# interval counts whole rounds of completions.
rig model uas0 slc cache=100M fast=50M slow=6.25M drain=12.5M >/dev/null
echo
echo '\$ blkfloor caps' \$dev
user/blkfloor caps \$dev
echo
echo '\$ blkfloor sustain' \$dev '--diagnose --gaps 10,20 --qd 4 --interval 500ms --yes-destroy-data --trace trace.csv'
c0=\$(rig cpu)
user/blkfloor sustain \$dev --diagnose --gaps 10,20 --qd 4 --interval 500ms \
	--yes-destroy-data --trace '$results/trace.csv'
c1=\$(rig cpu)
rig model uas0 off >/dev/null
echo
echo 'demo: the drive model was a 100 MB SLC cache at 50 MB/s, then 6.25 MB/s, refilled at 12.5 MB/s while idle (cache-exhaustion)'
user/blkfloor plot '$results/trace.csv' -o '$results/plot.svg'
# Whether the host let the emulator run: a guest starved of host CPU sees
# its disk's rate swing with the host's load, and the curve then shows
# the host as much as the drive model.
echo \"demo: QEMU's threads waited \$(host_wait \"\$c0\" \"\$c1\") for a host CPU during the run\"
if BLKFLOOR_STARVED=0.1 host_starved \"\$c0\" \"\$c1\"; then
	echo 'demo: the host kept the emulator waiting a tenth of the run or more (other load'
	echo '      on it): the emulated rates followed the host as well as the model, and what'
	echo '      was measured describes that. On an idle host it is the model.'
fi
# What the experiment confirmed, from the trace (classify reads the
# experiments' outcomes in it): the cause and each piece of evidence. A
# demo whose cause no experiment confirmed fails.
user/blkfloor classify '$results/trace.csv' --json > '$results/classification.json'
bf_py - '$results/classification.json' <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for e in c['evidence']:
    print('demo: evidence: %s: %s (%s)' % (e['experiment'], e['result'], e['effect']))
if c['basis'] != 'experiment' or not any(e['confirms'] for e in c['evidence']):
    sys.exit('demo: no experiment confirmed a cause: %s (confidence %.2f, %s)' % (c['class'], c['confidence'], c['basis']))
print('demo: confirmed by experiment: %s (confidence %.2f)' % (c['class'], c['confidence']))
PY
"
echo
echo "demo: results in $results:"
ls -1 "$results" | sed 's/^/  /'
