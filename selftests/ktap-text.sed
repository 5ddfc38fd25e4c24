# SPDX-License-Identifier: GPL-2.0
# The three phrases at which the kernel's KTAP reader (kunit_parser.py,
# KTAP_END) stops reading a log, anywhere on a line, reworded: text quoted
# into a KTAP log (a test's output, a console, a compiler's) must not end
# the log for it. Used by run-guest.sh, vm/run-vm.sh, scripts/check.sh
# (sed -f) and scripts/ktap-parse-check.py (which reads the s commands).
s/Kernel panic - not syncing: VFS:/Kernel panic - not syncing (VFS):/
s/List of all partitions:/List of all partitions -/
s/reboot: System halted/reboot - System halted/
