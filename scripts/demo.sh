#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: the main job on an emulated drive. Boots a Debian 6.12 guest
# with a UAS disk whose host-side model has a 150 MB SLC cache (120 MB/s,
# then 25 MB/s), runs 'blkfloor sustain' on it with live progress, prints
# the classification and writes the trace and an SVG plot to results/.
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
# idle=2: a guest stalled by a busy host is not a drive at rest.
rig model uas0 slc cache=150M fast=120M slow=25M drain=50M idle=2 >/dev/null
echo
echo '\$ blkfloor caps' \$dev
user/blkfloor caps \$dev
echo
echo '\$ blkfloor sustain' \$dev '--size 450MB --interval 200ms --yes-destroy-data --trace trace.csv'
c0=\$(rig cpu)
user/blkfloor sustain \$dev --size 450MB --interval 200ms --yes-destroy-data \
	--trace '$results/trace.csv'
c1=\$(rig cpu)
# What was emulated, and whether the host let the emulator run: a guest
# starved of host CPU sees its disk's rate swing with the host's load,
# and the curve then shows the host as much as the drive model.
echo
echo 'demo: the drive model was a 150 MB SLC cache at 120 MB/s, then 25 MB/s (cache-exhaustion)'
echo \"demo: QEMU's threads waited \$(host_wait \"\$c0\" \"\$c1\") for a host CPU during the run\"
# (a tenth: seen at 23 %, the 25 MB/s floor swung between 18 and 35 MB/s
# per 200 ms interval and the curve was called heat)
if BLKFLOOR_STARVED=0.1 host_starved \"\$c0\" \"\$c1\"; then
	echo 'demo: the host kept the emulator waiting a tenth of the run or more (other load'
	echo '      on it): the emulated rates followed the host as well as the model, and the'
	echo '      classification above describes that curve. On an idle host it is the model.'
fi
user/blkfloor plot '$results/trace.csv' -o '$results/plot.svg'
user/blkfloor classify '$results/trace.csv' --json > '$results/classification.json'
"
echo
echo "demo: results in $results:"
ls -1 "$results" | sed 's/^/  /'
