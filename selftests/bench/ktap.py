# SPDX-License-Identifier: GPL-2.0
"""KTAP results for the host tests of selftests/bench (test_*.py)."""


class Ktap:
    def __init__(self):
        self.results = []

    def check(self, ok, name, why=""):
        """One numbered result; why is printed as diagnostics on failure."""
        self.results.append(ok)
        print("%s %d %s" % ("ok" if ok else "not ok", len(self.results),
                            name))
        if not ok and why:
            print("# " + why.replace("\n", "\n# "))

    def status(self):
        return 0 if all(self.results) else 1
