#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host unit tests of the drive models and of rigctl's protocol.

    python3 -m unittest selftests/vm/test_drivemodel.py
    python3 selftests/vm/test_drivemodel.py [-v]
    python3 selftests/vm/test_drivemodel.py --ktap

The models are driven by a simulated host that writes exactly as fast as
the model lets it, in 1 ms steps.  rigctl is tested against a fake QEMU
that speaks enough QMP (greeting, capabilities, query-blockstats,
query-block, block_set_io_throttle, device_del and its DEVICE_DELETED
event), with the reply shapes QEMU 7.2 gives for a UAS scsi-hd and a
usb-storage disk.
"""

import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import drivemodel as dm  # noqa: E402
import rigctl  # noqa: E402

MB = 10**6
MiB = 2**20


def runs(values):
    """Run-length encode: [(value, count), ...]."""
    out = []
    for v in values:
        if out and out[-1][0] == v:
            out[-1][1] += 1
        else:
            out.append([v, 1])
    return [tuple(r) for r in out]


def interval_rates(trace, step, dt=0.001):
    """Host MB/s per step-second interval of a simulate() trace."""
    n = int(round(step / dt))
    rates = []
    prev = None
    for i in range(n - 1, len(trace), n):
        w = trace[i][2]
        if prev is not None:
            rates.append((w - prev) / step / MB)
        prev = w
    return rates


class TestParsing(unittest.TestCase):
    def test_sizes(self):
        cases = {'300M': 300 * MB, '64MiB': 64 * MiB, '1G': 10**9,
                 '1GiB': 2**30, '4096': 4096, '1.5GB': 1500 * MB,
                 '2k': 2000, '8KiB': 8192, '1T': 10**12, '0': 0}
        for text, want in cases.items():
            self.assertEqual(dm.parse_size(text), want, text)

    def test_rates(self):
        self.assertEqual(dm.parse_rate('200MB/s'), 200 * MB)
        self.assertEqual(dm.parse_rate('30MiB'), 30 * MiB)
        self.assertEqual(dm.parse_rate('0'), 0)

    def test_bad_sizes(self):
        for text in ('', 'x', '-1', '1Q', '1.2.3', 'M', '1 M', '5MiBs',
                     '1e3'):
            with self.assertRaises(dm.ModelError, msg=text):
                dm.parse_size(text)
        with self.assertRaises(dm.ModelError):
            dm.parse_rate('fast/s')

    def test_model_args(self):
        m = dm.make_model('slc', ['cache=64MiB', 'fast=100M', 'slow=10M'])
        self.assertEqual(m.p['cache'], 64 * MiB)
        self.assertEqual(m.p['fast'], 100 * MB)
        self.assertEqual(m.p['drain'], 100 * MB)        # default
        t = dm.make_model('thermal', ['levels=100M,50M', 'temps=60'])
        self.assertEqual(t.p['levels'], [100 * MB, 50 * MB])
        f = dm.make_model('ftl', [], {'size': 1 << 30})
        self.assertEqual(f.p['size'], 1 << 30)
        f = dm.make_model('ftl', ['size=100M'], {'size': 1 << 30})
        self.assertEqual(f.p['size'], 100 * MB)

    def test_model_arg_errors(self):
        bad = [('nope', []), ('flat', ['rate']), ('flat', ['=5']),
               ('flat', ['speed=5M']), ('flat', ['rate=5M', 'rate=6M']),
               ('flat', ['rate=lots']), ('slc', ['cache=0']),
               ('slc', ['slow=0']), ('thermal', ['levels=1M']),
               ('thermal', ['levels=3M,2M,1M', 'temps=50']),
               ('thermal', ['temps=70,60']), ('thermal', ['temps=10']),
               ('thermal', ['levels=3M,,1M']), ('ftl', ['slow=300M']),
               ('ftl', ['prefill=1.5']), ('ftl', ['low=10M', 'high=1M']),
               ('ftl', ['segmin=2', 'segmax=1']), ('ftl', ['seed=x']),
               ('slc', ['idle=-1'])]
        for name, args in bad:
            with self.assertRaises(dm.ModelError, msg=f'{name} {args}'):
                dm.make_model(name, args)


class TestFlat(unittest.TestCase):
    def test_constant(self):
        m = dm.make_model('flat', ['rate=75M'])
        tr = dm.simulate(m, 2.0)
        self.assertEqual({lim for _, lim, _ in tr}, {75 * MB})
        self.assertAlmostEqual(tr[-1][2], 150 * MB, delta=MB)
        rates = interval_rates(tr, 0.1)
        self.assertTrue(all(abs(r - 75) < 0.5 for r in rates), rates)


class TestBridge(unittest.TestCase):
    """A bridge that holds commands under sustained load, and eff=."""

    def test_stalls_after_bytes_for_a_time(self):
        m = dm.make_model('bridge', ['rate=40M', 'after=40M', 'every=80M',
                                     'stall=3', 'crawl=100K'])
        tr = dm.simulate(m, 12.0, 0.001)
        lim = [lim for _, lim, _ in tr]
        # 1 s at 40 MB/s, 3 s held, 2 s at 40 MB/s, 3 s held, ...
        self.assertEqual([v for v, _ in runs(lim)][:5],
                         [40 * MB, 100000, 40 * MB, 100000, 40 * MB])
        n = [c for _, c in runs(lim)]
        self.assertAlmostEqual(n[0] / 1000, 1.0, delta=0.01)
        self.assertAlmostEqual(n[1] / 1000, 3.0, delta=0.01)
        self.assertAlmostEqual(n[2] / 1000, 2.0, delta=0.01)
        self.assertEqual(m.state()['stalls'], 3)
        # a held command still completes: the host moved ~100 KB a second
        w = [w for _, _, w in tr]
        self.assertAlmostEqual((w[3999] - w[1000]) / 1e3, 300, delta=5)

    def test_count_limits_stalls(self):
        m = dm.make_model('bridge', ['rate=40M', 'after=20M', 'stall=1',
                                     'count=2'])
        tr = dm.simulate(m, 10.0, 0.001)
        lim = [v for v, _ in runs([lim for _, lim, _ in tr])]
        self.assertEqual(lim, [40 * MB, 100000, 40 * MB, 100000, 40 * MB])
        self.assertEqual(m.state()['stalls'], 2)
        self.assertEqual(m.state()['stalled'], 0)

    def test_eff_is_a_share_and_no_stall_without_after(self):
        m = dm.make_model('bridge', ['rate=40M', 'eff=0.5'])
        tr = dm.simulate(m, 5.0, 0.001)
        self.assertEqual({lim for _, lim, _ in tr}, {20 * MB})
        self.assertEqual(m.state()['stalls'], 0)

    def test_idle_host_does_not_stall(self):
        m = dm.make_model('bridge', ['rate=40M', 'after=30M'])
        dm.simulate(m, 0.5, 0.001)              # 20 MB
        dm.simulate(m, 5.0, 0.001, write=lambda t: False)
        self.assertEqual(m.state()['stalls'], 0)
        dm.simulate(m, 0.5, 0.001)              # 20 MB more: 40 MB
        self.assertEqual(m.state()['stalls'], 1)
        self.assertLess(m.wake_in(), 8.0)

    def test_checked(self):
        for bad in (['crawl=0'], ['eff=0'], ['eff=1.5'], ['rate=0'],
                    ['after=10M', 'stall=0'], ['after=10M', 'crawl=50M'],
                    ['count=-1']):
            with self.assertRaises(dm.ModelError, msg=bad):
                dm.make_model('bridge', bad)


class TestSlc(unittest.TestCase):
    ARGS = ['fast=200M', 'slow=30M', 'cache=300M', 'drain=100M']

    def test_step_at_cache_size(self):
        m = dm.make_model('slc', self.ARGS)
        tr = dm.simulate(m, 4.0)
        first_slow = next(i for i, (_, lim, _) in enumerate(tr)
                          if lim == 30 * MB)
        at = tr[first_slow][2]
        self.assertLess(abs(at - 300 * MB), 3 * MB, at)
        # One clean step: fast before, slow ever after while writing.
        self.assertEqual(runs(lim for _, lim, _ in tr),
                         [(200 * MB, first_slow), (30 * MB,
                                                   len(tr) - first_slow)])
        self.assertEqual(m.state()['cache_left'], 0)
        self.assertEqual(m.state()['full'], 1)

    def test_drains_only_when_idle(self):
        m = dm.make_model('slc', self.ARGS)
        dm.simulate(m, 2.0)                     # fill the cache
        self.assertEqual(m.limit, 30 * MB)
        # Writing with pauses shorter than idle= (0.5 s): no drain at all.
        dm.simulate(m, 3.0, write=lambda t: int(t * 5) % 2 == 0)
        self.assertEqual(m.limit, 30 * MB)
        self.assertEqual(m.state()['cache_left'], 0)
        self.assertEqual(m.idle, False)
        # Idle for 1.5 s: ~150 MB fold out, credited from the last write.
        dm.simulate(m, 1.5, write=lambda t: False)
        self.assertTrue(m.idle)
        left = m.state()['cache_left']
        self.assertLess(abs(left - 150 * MB), 2 * MB, left)
        self.assertEqual(m.limit, 200 * MB)
        # The next burst is fast for about what drained, then slow again.
        w0 = m.written
        tr = dm.simulate(m, 2.0)
        first_slow = next(i for i, (_, lim, _) in enumerate(tr)
                          if lim == 30 * MB)
        self.assertLess(abs(tr[first_slow][2] - w0 - left), 3 * MB)

    def test_explicit_idle_flag(self):
        m = dm.make_model('slc', self.ARGS)
        dm.simulate(m, 2.0)
        t, w = m.now, m.written
        m.update(t + 1.0, w, 0, idle=False)
        self.assertEqual(m.state()['cache_left'], 0)
        m.update(t + 2.0, w, 0, idle=True)
        self.assertGreater(m.state()['cache_left'], 0)

    def test_refill_after_idle_gap(self):
        # The idle-recovery experiment: 20 s idle at 5 MB/s regains
        # 100 MB, written at the fast rate before the floor returns.
        m = dm.make_model('slc', ['fast=200M', 'slow=30M', 'cache=300M',
                                  'drain=5M'])
        dm.simulate(m, 3.0)
        self.assertEqual(m.limit, 30 * MB)
        dm.simulate(m, 20.0, write=lambda t: False)
        st = m.state()
        self.assertLess(abs(st['refilled'] - 100 * MB), 2 * MB, st)
        self.assertAlmostEqual(float(st['idle_s']), 20.0, delta=0.01)
        w0 = m.written
        tr = dm.simulate(m, 2.0)
        first_slow = next(i for i, (_, lim, _) in enumerate(tr)
                          if lim == 30 * MB)
        self.assertLess(abs(tr[first_slow][2] - w0 - 100 * MB), 3 * MB)
        # relapsed: slow for the rest of the burst
        self.assertEqual({lim for _, lim, _ in tr[first_slow:]}, {30 * MB})

    def test_refill_never_exceeds_cache(self):
        m = dm.make_model('slc', ['cache=50M', 'drain=5M'])
        dm.simulate(m, 1.0)
        dm.simulate(m, 30.0, write=lambda t: False)
        self.assertEqual(m.state()['cache_left'], 50 * MB)
        self.assertLess(abs(m.state()['refilled'] - 50 * MB), MB)

    def test_refill_delay(self):
        # delay=2: a 1.5 s gap regains nothing, a 5 s gap (5 - 2) * 10 MB.
        m = dm.make_model('slc', ['fast=200M', 'slow=30M', 'cache=300M',
                                  'drain=10M', 'delay=2'])
        dm.simulate(m, 3.0)
        dm.simulate(m, 1.5, write=lambda t: False)
        self.assertTrue(m.idle)
        self.assertEqual(m.state()['refilled'], 0)
        self.assertEqual(m.state()['cache_left'], 0)
        dm.simulate(m, 0.5)                      # a write ends the gap
        self.assertFalse(m.idle)
        dm.simulate(m, 5.0, write=lambda t: False)
        self.assertLess(abs(m.state()['refilled'] - 30 * MB), MB,
                        m.state())
        self.assertEqual(m.limit, 200 * MB)

    def test_refilled_counts_one_gap(self):
        m = dm.make_model('slc', ['cache=300M', 'drain=10M'])
        dm.simulate(m, 3.0)
        dm.simulate(m, 4.0, write=lambda t: False)
        self.assertLess(abs(m.state()['refilled'] - 40 * MB), MB)
        dm.simulate(m, 1.0)                      # the 40 MB and more
        dm.simulate(m, 2.0, write=lambda t: False)
        self.assertLess(abs(m.state()['refilled'] - 20 * MB), MB)
        self.assertAlmostEqual(float(m.state()['idle_s']), 2.0, delta=0.01)

    def test_wake_hint(self):
        m = dm.make_model('slc', self.ARGS)
        m.update(0.0, 0, 0)
        self.assertAlmostEqual(m.wake_in(), 1.5)
        m.update(1.0, 200 * MB, 0)
        self.assertAlmostEqual(m.wake_in(), 0.5)


class TestThermal(unittest.TestCase):
    def check_shape(self, host):
        m = dm.make_model('thermal')
        tr = dm.simulate(m, 10.0, host_max=host)
        r = runs(lim for _, lim, _ in tr)
        # Several plateaus: three or more levels, two held for >= 0.5 s.
        self.assertGreaterEqual(len({v for v, _ in r}), 3, r)
        self.assertGreaterEqual(len({v for v, n in r if n >= 500}), 2, r)
        # The rate climbs back while the host never stopped writing, early
        # (within a few hundred MB) and again (a sawtooth).
        ups = [i for i in range(1, len(r)) if r[i][0] > r[i - 1][0]]
        self.assertGreaterEqual(len(ups), 2, r)
        first_up = sum(n for _, n in r[:ups[0]])
        self.assertLess(tr[first_up][2], 300 * MB)
        self.assertEqual(m.state()['steps_up'], len(ups))
        # The host sees the climb too (not only the limit).
        rates = interval_rates(tr, 0.25)
        lo = min(rates[len(rates) // 3:])
        self.assertGreater(max(rates[rates.index(lo):]), 2 * lo, rates)
        return m, tr

    def test_plateaus_and_recovery_fast_host(self):
        self.check_shape(500 * MB)

    def test_plateaus_and_recovery_80mbps_host(self):
        self.check_shape(80 * MB)

    def test_plateaus_and_recovery_40mbps_host(self):
        self.check_shape(40 * MB)

    def test_cools_when_idle(self):
        m, _ = self.check_shape(500 * MB)
        dm.simulate(m, 20.0, write=lambda t: False)
        self.assertEqual(m.limit, 200 * MB)
        self.assertLess(float(m.state()['temperature']), 31.0)

    def test_equilibrium_below_threshold_stays(self):
        # 25 MB/s settles at 30 + 25 = 55 degrees: two steps, no sawtooth.
        m = dm.make_model('thermal')
        tr = dm.simulate(m, 20.0, host_max=25 * MB)
        self.assertEqual(m.limit, 40 * MB)
        self.assertEqual(m.state()['steps_up'], 0)
        self.assertAlmostEqual(tr[-1][2], 500 * MB, delta=MB)

    def test_hysteresis(self):
        m = dm.make_model('thermal', ['levels=100M,50M', 'temps=60',
                                      'hyst=5', 'heat=1', 'cool=0'])
        m.update(0.0, 0, 0)
        m.update(1.0, 29 * MB, 0)                # 59 degrees
        self.assertEqual(m.limit, 100 * MB)
        m.update(2.0, 30 * MB, 0)                # 60
        self.assertEqual(m.limit, 50 * MB)
        m.temp = 56.0
        m.update(3.0, 30 * MB, 0)
        self.assertEqual(m.limit, 50 * MB)       # not below 55 yet
        m.temp = 54.9
        m.update(4.0, 30 * MB, 0)
        self.assertEqual(m.limit, 100 * MB)


class TestHeat(unittest.TestCase):
    def throttled(self, *args):
        m = dm.make_model('heat', list(args))
        tr = dm.simulate(m, 30.0, host_max=80 * MB)
        return m, tr

    def test_one_step_that_holds(self):
        m, tr = self.throttled()
        r = runs(lim for _, lim, _ in tr)
        self.assertEqual([v for v, _ in r], [80 * MB, 30 * MB], r)
        # ~2 s (~160 MB) at 80 MB/s before the trip
        self.assertAlmostEqual(r[0][1] / 1000, 2.03, delta=0.05)
        st = m.state()
        self.assertEqual((st['steps_down'], st['steps_up']), (1, 0))
        # held near the trip: between trip - hyst and the slow equilibrium
        self.assertGreater(float(st['temperature']), 65.0)
        self.assertLessEqual(float(st['temperature']), 75.0 + 0.01)

    def test_cools_with_time_constant(self):
        m, _ = self.throttled()
        t0 = float(m.state()['temperature'])
        dm.simulate(m, 3.0, write=lambda t: False)
        want = 30 + (t0 - 30) * math.exp(-3.0 / 5.0)
        self.assertAlmostEqual(float(m.state()['temperature']), want,
                               delta=0.05)
        self.assertEqual(m.limit, 80 * MB)       # below 65: fast again

    def test_recovers_after_cooling_relapses_after_time(self):
        def burst_after(gap):
            m, _ = self.throttled()
            dm.simulate(m, gap, write=lambda t: False)
            w0 = m.written
            tr = dm.simulate(m, 10.0, host_max=80 * MB)
            n = next(i for i, (_, lim, _) in enumerate(tr)
                     if lim == 30 * MB)
            self.assertEqual({lim for _, lim, _ in tr[n:]}, {30 * MB})
            return tr[n][2] - w0, n / 1000
        b20, t20 = burst_after(20.0)
        b3, t3 = burst_after(3.0)
        # after 20 s the drive is near ambient: fast for ~2 s again
        self.assertAlmostEqual(t20, 2.0, delta=0.15)
        # the fast burst grows with cooling, not in proportion to the
        # gap as a refilled cache's does (3 s gives far more than 3/20)
        self.assertGreater(b3, 0.3 * b20, (b3, b20))
        self.assertLess(b3, b20)

    def test_slow_host_cools(self):
        # a host at 10 MB/s, below the slow level, lets it cool: fast again
        m, _ = self.throttled()
        dm.simulate(m, 20.0, host_max=10 * MB)
        self.assertEqual(m.limit, 80 * MB)
        self.assertLess(float(m.state()['temperature']), 65.0)

    def test_levels_that_would_not_hold(self):
        for args in (['heat=0.1'], ['heat=0.05'], ['slow=90M'],
                     ['tau=0'], ['slow=0']):
            with self.assertRaises(dm.ModelError, msg=args):
                dm.make_model('heat', args)

    def test_thermal_tau(self):
        m = dm.make_model('thermal', ['tau=2'])
        self.assertEqual(m.p['cool'], 0.5)
        with self.assertRaises(dm.ModelError):
            dm.make_model('thermal', ['tau=-1'])


class TestFtl(unittest.TestCase):
    def assert_erratic(self, rates, fast, slow):
        mid = (fast + slow) / 2 / MB
        mean = sum(rates) / len(rates)
        sd = (sum((r - mean) ** 2 for r in rates) / len(rates)) ** 0.5
        self.assertGreater(sd / mean, 0.3, rates)
        crossings = sum(1 for a, b in zip(rates, rates[1:])
                        if (a - mid) * (b - mid) < 0)
        self.assertGreaterEqual(crossings, 6, rates)
        # No stable plateau: no run of 1 s within +-10% of its start.
        longest, i = 0, 0
        while i < len(rates):
            j = i
            while j < len(rates) and abs(rates[j] - rates[i]) <= \
                    0.1 * rates[i]:
                j += 1
            longest = max(longest, j - i)
            i = j
        self.assertLess(longest, 10, rates)
        self.assertLess(mean, 0.8 * fast / MB)

    GCLEVELS = ['size=256MiB', 'fast=80M', 'gcfast=60M', 'slow=25M',
                'segmin=1', 'segmax=2']

    def test_two_levels(self):
        # a starved drive switching between two moderate levels, seconds
        # apart: the shape of heat
        m = dm.make_model('ftl', self.GCLEVELS)
        tr = dm.simulate(m, 12.0)
        r = runs(lim for _, lim, _ in tr)
        self.assertEqual({v for v, _ in r}, {60 * MB, 25 * MB}, r)
        self.assertGreaterEqual(len(r), 6, r)
        self.assertTrue(all(a[0] != b[0] for a, b in zip(r, r[1:])))
        self.assertTrue(all(1000 <= n <= 2001 for _, n in r[:-1]), r)
        self.assertEqual(m.state()['starved'], 1)

    def test_gcfast_checked(self):
        for bad in (['gcfast=5M'], ['gcfast=300M'], ['gcfast=10M']):
            with self.assertRaises(dm.ModelError, msg=bad):
                dm.make_model('ftl', bad)

    def test_discard_then_idle_brings_rate_back(self):
        m = dm.make_model('ftl', self.GCLEVELS + ['erase=100M'])
        dm.simulate(m, 5.0)
        self.assertEqual(m.state()['starved'], 1)
        # discard the written region (~200 MB): nothing changes while the
        # host keeps writing
        region = 200 * MB
        m.update(m.now + 0.01, m.written, region)
        self.assertEqual(m.state()['trimmed'], region)
        tr = dm.simulate(m, 1.0)
        self.assertEqual(m.state()['starved'], 1)
        self.assertLessEqual(max(lim for _, lim, _ in tr), 60 * MB)
        self.assertGreater(m.state()['trimmed'], 100 * MB)
        # idle: erased at 100 MB/s, fast once past high=
        tr = dm.simulate(m, 3.0, write=lambda t: False)
        self.assertEqual(m.state()['trimmed'], 0)
        self.assertEqual(m.state()['starved'], 0)
        self.assertEqual(m.limit, 80 * MB)
        # and the region is written at the peak again
        tr = dm.simulate(m, 1.0)                 # 80 MB
        self.assertEqual({lim for _, lim, _ in tr}, {80 * MB})

    def test_idle_without_discard_does_not_cure(self):
        m = dm.make_model('ftl', self.GCLEVELS + ['erase=100M'])
        dm.simulate(m, 5.0)
        dm.simulate(m, 20.0, write=lambda t: False)
        tr = dm.simulate(m, 3.0)
        self.assertLessEqual(max(lim for _, lim, _ in tr[500:]), 60 * MB)
        self.assertEqual(m.state()['starved'], 1)

    def test_erratic_then_flat_after_full_discard(self):
        m = dm.make_model('ftl', ['size=1GiB'])
        tr = dm.simulate(m, 6.0)
        self.assert_erratic(interval_rates(tr, 0.1), 200 * MB, 10 * MB)
        self.assertEqual(m.state()['starved'], 1)
        # blkfloor trim: the whole device is discarded.
        m.update(m.now + 0.01, m.written, 2**30)
        self.assertEqual(m.state()['valid'], 0)
        self.assertEqual(m.limit, 200 * MB)
        tr = dm.simulate(m, 3.0)                 # 600 MB, < the 1 GiB
        self.assertEqual({lim for _, lim, _ in tr}, {200 * MB})
        self.assertEqual(m.state()['starved'], 0)

    def test_partial_trim_does_not_cure(self):
        m = dm.make_model('ftl', ['size=1GiB'])
        dm.simulate(m, 2.0)
        m.update(m.now + 0.01, m.written, 20 * MB)
        tr = dm.simulate(m, 4.0)
        self.assert_erratic(interval_rates(tr, 0.1), 200 * MB, 10 * MB)

    def test_fresh_drive_is_fast(self):
        m = dm.make_model('ftl', ['size=1GiB', 'prefill=0', 'free=1GiB'])
        tr = dm.simulate(m, 4.0)                 # 800 MB
        self.assertEqual({lim for _, lim, _ in tr}, {200 * MB})

    def test_idle_keeps_rate(self):
        m = dm.make_model('ftl', ['size=1GiB', 'gc=0'])
        dm.simulate(m, 2.0)
        tr = dm.simulate(m, 3.0, write=lambda t: False)
        self.assertEqual(len({lim for _, lim, _ in tr[600:]}), 1)
        self.assertEqual(m.state()['starved'], 1)

    def test_seeded(self):
        def trace(seed):
            m = dm.make_model('ftl', [f'seed={seed}'])
            return [lim for _, lim, _ in dm.simulate(m, 3.0)]
        self.assertEqual(trace(7), trace(7))
        self.assertNotEqual(trace(7), trace(8))

    def test_accounting(self):
        m = dm.make_model('ftl', ['size=100M', 'op=0.1', 'prefill=0.5',
                                  'free=40M', 'gc=0'])
        m.update(0.0, 0, 0)
        self.assertEqual(m.state()['valid'], 50 * MB)
        self.assertEqual(m.state()['stale'], 20 * MB)
        m.update(0.1, 30 * MB, 0)                # new LBAs
        self.assertEqual(m.state()['valid'], 80 * MB)
        self.assertEqual(m.state()['free'], 10 * MB)
        m.update(0.2, 30 * MB, 40 * MB)          # TRIM frees at once
        self.assertEqual(m.state()['valid'], 40 * MB)
        self.assertEqual(m.state()['free'], 50 * MB)


class TestIdle(unittest.TestCase):
    def test_idle_after_quiet_period(self):
        m = dm.make_model('flat', ['idle=0.2'])
        m.update(0.0, 0, 0)
        m.update(0.1, 1000, 0)
        self.assertFalse(m.idle)
        m.update(0.25, 1000, 0)
        self.assertFalse(m.idle)
        m.update(0.31, 1000, 0)
        self.assertTrue(m.idle)
        m.update(0.32, 2000, 0)
        self.assertFalse(m.idle)

    def test_counter_reset_is_not_a_write(self):
        m = dm.make_model('slc', ['cache=10M'])
        m.update(0.0, 5 * MB, 0)
        m.update(0.1, 0, 0)
        self.assertEqual(m.state()['cache_used'], 0)
        m.update(0.2, 1 * MB, 0)
        self.assertEqual(m.state()['cache_used'], 1 * MB)


# --- rigctl ---------------------------------------------------------------

UAS_QDEV = 'uas0'
USB_QDEV = '/machine/peripheral/usb0/usb0.0/legacy[0]'


def _stats(wr=0, rd=0, unmap=0, idle=None):
    st = {'wr_bytes': wr, 'rd_bytes': rd, 'unmap_bytes': unmap,
          'wr_operations': wr // 4096, 'rd_operations': rd // 4096,
          'unmap_operations': 0, 'account_invalid': True,
          'timed_stats': []}
    if idle is not None:
        st['idle_time_ns'] = idle
    return st


class FakeQemu:
    """A QMP server on a unix socket with two disks, as QEMU 7.2 shows."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.disks = {
            'uas0': {'device': 'drv-uas0', 'qdev': UAS_QDEV,
                     'stats': _stats(), 'size': 256 * MiB,
                     'file': '/rig/uas0.img', 'serial': 'BLKFLOOR-UAS0'},
            'usb0': {'device': 'drv-usb0', 'qdev': USB_QDEV,
                     'stats': _stats(), 'size': 512 * MiB,
                     'file': '/rig/usb0.img', 'serial': 'BLKFLOOR-USB0'},
        }
        self.nodes = {}         # blockdev-add'ed nodes: name -> arguments
        self.added = []         # device_add arguments
        self.throttles = []     # (qdev, bps_wr, bps_rd)
        self.commands = []
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(1)
        self.conn = None
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def set_stats(self, dev, **kw):
        with self.lock:
            self.disks[dev]['stats'] = _stats(**kw)

    def last_throttle(self, qdev):
        with self.lock:
            for t in reversed(self.throttles):
                if t[0] == qdev:
                    return t[1:]
        return None

    def _send(self, msg):
        self.conn.sendall((json.dumps(msg) + '\r\n').encode())

    def _serve(self):
        try:
            self.conn, _ = self.srv.accept()
        except OSError:
            return
        self._send({'QMP': {'version': {'qemu': {'major': 7, 'minor': 2,
                                                 'micro': 0}},
                            'capabilities': ['oob']}})
        f = self.conn.makefile('rb')
        try:
            for line in f:
                msg = json.loads(line)
                reply = self._handle(msg)
                if reply is None:
                    continue
                if 'id' in msg:
                    reply['id'] = msg['id']
                self._send(reply)
                if msg.get('execute') == 'device_del' and 'return' in reply:
                    dev = msg['arguments']['id']
                    self._send({'event': 'DEVICE_DELETED', 'data': {
                        'device': dev, 'path': f'/machine/peripheral/{dev}'},
                        'timestamp': {'seconds': 0, 'microseconds': 0}})
        except (OSError, ValueError):
            pass

    def _find(self, args):
        for dev, d in self.disks.items():
            if args.get('id') == d['qdev'] or \
                    args.get('device') == d['device']:
                return dev, d
        return None, None

    def _handle(self, msg):
        cmd = msg.get('execute')
        args = msg.get('arguments', {})
        with self.lock:
            self.commands.append(cmd)
            if cmd == 'qmp_capabilities':
                return {'return': {}}
            if cmd == 'query-blockstats':
                return {'return': [
                    {'device': d['device'], 'qdev': d['qdev'],
                     'node-name': '#block1', 'stats': dict(d['stats'])}
                    for d in self.disks.values()]}
            if cmd == 'query-block':
                return {'return': [
                    {'device': d['device'], 'qdev': d['qdev'],
                     'inserted': {'file': d['file'], 'image': {
                         'virtual-size': d['size'],
                         'filename': d['file']}}}
                    for d in self.disks.values()]}
            if cmd == 'qom-get':
                for d in self.disks.values():
                    if d['qdev'].startswith(args['path'] + '/') or \
                            d['qdev'] == args['path']:
                        return {'return': d[args['property']]}
                return {'error': {'class': 'DeviceNotFound',
                                  'desc': 'no such path'}}
            if cmd == 'query-named-block-nodes':
                return {'return': [{'node-name': n} for n in self.nodes]}
            if cmd == 'blockdev-add':
                if args['node-name'] in self.nodes:
                    return {'error': {'class': 'GenericError',
                                      'desc': 'Duplicate nodes'}}
                self.nodes[args['node-name']] = args
                return {'return': {}}
            if cmd == 'blockdev-del':
                if args['node-name'] not in self.nodes:
                    return {'error': {'class': 'GenericError',
                                      'desc': 'no such node'}}
                del self.nodes[args['node-name']]
                return {'return': {}}
            if cmd == 'device_add':
                dev = args['id']
                node = self.nodes.get(args['drive'])
                if dev in self.disks or node is None:
                    return {'error': {'class': 'GenericError',
                                      'desc': 'cannot add'}}
                self.added.append(dict(args))
                self.disks[dev] = {
                    'device': '', 'qdev': f'/machine/peripheral/{dev}/'
                    f'{dev}.0/legacy[0]', 'stats': _stats(),
                    'size': 512 * MiB, 'file': node['file']['filename'],
                    'serial': args['serial']}
                return {'return': {}}
            if cmd == 'block_set_io_throttle':
                dev, d = self._find(args)
                if d is None:
                    return {'error': {'class': 'GenericError', 'desc':
                                      'Device does not have a block '
                                      'device backend'}}
                need = ('bps', 'bps_rd', 'bps_wr', 'iops', 'iops_rd',
                        'iops_wr')
                if any(k not in args for k in need):
                    return {'error': {'class': 'GenericError',
                                      'desc': 'missing parameter'}}
                self.throttles.append((d['qdev'], args['bps_wr'],
                                       args['bps_rd']))
                return {'return': {}}
            if cmd == 'query-cpus-fast':
                # the vCPU threads: this process's main thread stands in
                return {'return': [{'cpu-index': 0, 'thread-id':
                                    threading.main_thread().native_id}]}
            if cmd == 'device_del':
                dev = args.get('id')
                if dev not in self.disks:
                    return {'error': {'class': 'DeviceNotFound',
                                      'desc': f"Device '{dev}' not found"}}
                del self.disks[dev]
                return {'return': {}}
            return {'error': {'class': 'CommandNotFound',
                              'desc': f'The command {cmd} has not been '
                                      'found'}}

    def close(self):
        for s in (self.conn, self.srv):
            if s is None:
                continue
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def wait_for(pred, timeout=3.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.01)
    return pred()


class RigTestCase(unittest.TestCase):
    # Cleanups, not tearDown: they run last in, first out, after tearDown,
    # so the agent connect() starts is shut down (its model threads
    # joined) before the fake QEMU closes and the directory its threads
    # write temperatures into is removed.
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.qemu = FakeQemu(os.path.join(self.tmp.name, 'qmp.sock'))
        self.addCleanup(self.qemu.close)

    def connect(self):
        s = rigctl.connect_unix(self.qemu.path, 2.0)
        self.qmp = rigctl.Qmp(s)
        self.qmp.handshake(2.0)
        self.agent = rigctl.Agent(self.qmp, poll=0.01)
        self.addCleanup(self.qmp.close)
        self.addCleanup(self.agent.shutdown)
        return self.agent


class TestFindDevice(unittest.TestCase):
    ENTRIES = [{'device': 'drv-uas0', 'qdev': 'uas0'},
               {'device': 'drv-usb0', 'qdev': USB_QDEV},
               {'device': 'drv-usb10', 'qdev':
                '/machine/peripheral/usb10/usb10.0/legacy[0]'},
               {'device': '', 'qdev': '/machine/peripheral/vd0/'
                'virtio-backend'},
               {'device': 'drv-x', 'qdev': ''}]

    def test_match(self):
        f = rigctl.find_blockstats
        self.assertEqual(f(self.ENTRIES, 'uas0')['device'], 'drv-uas0')
        self.assertEqual(f(self.ENTRIES, 'usb0')['qdev'], USB_QDEV)
        self.assertEqual(f(self.ENTRIES, 'usb1'), None)
        self.assertEqual(f(self.ENTRIES, 'usb'), None)
        self.assertEqual(f(self.ENTRIES, 'vd0')['qdev'],
                         '/machine/peripheral/vd0/virtio-backend')
        self.assertEqual(f(self.ENTRIES, 'drv-usb0')['qdev'], USB_QDEV)
        self.assertEqual(f(self.ENTRIES, 'x')['device'], 'drv-x')
        self.assertEqual(rigctl.throttle_target(f(self.ENTRIES, 'x')),
                         {'device': 'drv-x'})
        self.assertEqual(rigctl.throttle_target(f(self.ENTRIES, 'usb0')),
                         {'id': USB_QDEV})


class TestAgent(RigTestCase):
    def test_basic_commands(self):
        a = self.connect()
        self.qemu.set_stats('uas0', wr=5000, rd=7000, unmap=9000,
                            idle=123)
        self.assertEqual(a.handle('ping'), 'ok pong')
        self.assertEqual(a.handle('@x1 ping'), '@x1 ok pong')
        self.assertEqual(
            a.handle('stats uas0'),
            'ok wr_bytes=5000 rd_bytes=7000 unmap_bytes=9000 '
            'idle_time_ns=123 wr_ops=1 rd_ops=1 unmap_ops=0 '
            f'size={256 * MiB}')
        self.assertIn('idle_time_ns=-1', a.handle('stats usb0'))
        self.assertTrue(a.handle('help').startswith('ok ping'))

    def test_errors(self):
        a = self.connect()
        for req in ('', 'bogus', 'ping x', 'stats', 'stats nope',
                    'stats uas0 x', 'throttle uas0', 'throttle uas0 fast',
                    'throttle nope 1M', 'model uas0', 'model uas0 nope',
                    'model uas0 slc cache=x', 'model nope slc',
                    'model-state nope', 'unplug nope', 'model uas0 off x',
                    'shutdown_qemu', 'cmd_ping'):
            self.assertTrue(a.handle(req).startswith('err '), req)
        self.assertTrue(a.handle('@t9 bogus').startswith('@t9 err '))
        self.assertEqual(a.handle('ping'), 'ok pong')   # still alive
        self.assertFalse(a.quit)

    def test_cpu(self):
        a = self.connect()
        r1 = dict(w.split('=') for w in a.handle('cpu').split()[1:])
        end = time.monotonic() + 0.05
        while time.monotonic() < end:
            pass
        r2 = dict(w.split('=') for w in a.handle('cpu').split()[1:])
        # one vCPU thread, which is also the process's main thread
        self.assertEqual(r1['threads'], '1')
        self.assertGreater(int(r2['host_ns']), int(r1['host_ns']))
        self.assertGreater(int(r2['run_ns']), int(r1['run_ns']))
        self.assertGreaterEqual(int(r2['wait_ns']), int(r1['wait_ns']))
        self.assertTrue(a.handle('cpu x').startswith('err usage'))

    def test_throttle(self):
        a = self.connect()
        self.assertEqual(a.handle('throttle uas0 20M'),
                         'ok wr_bps=20000000 rd_bps=0')
        self.assertEqual(self.qemu.last_throttle(UAS_QDEV), (20 * MB, 0))
        self.assertEqual(a.handle('throttle usb0 30MB/s 10MiB'),
                         f'ok wr_bps={30 * MB} rd_bps={10 * MiB}')
        self.assertEqual(self.qemu.last_throttle(USB_QDEV),
                         (30 * MB, 10 * MiB))
        a.handle('throttle usb0 0')
        self.assertEqual(self.qemu.last_throttle(USB_QDEV), (0, 0))

    def test_slc_model_drives_throttle(self):
        a = self.connect()
        self.qemu.set_stats('uas0', wr=10**9)        # before the model
        r = a.handle('model uas0 slc cache=100M fast=150M slow=15M')
        self.assertTrue(r.startswith('ok model=slc '), r)
        self.assertIn('cache=100000000', r)
        self.assertTrue(wait_for(lambda: self.qemu.last_throttle(UAS_QDEV)
                                 == (150 * MB, 0)))
        self.assertTrue(a.handle('throttle uas0 1M').startswith('err '))
        self.qemu.set_stats('uas0', wr=10**9 + 60 * MB)
        st = wait_for(lambda: 'cache_left=40000000' in
                      a.handle('model-state uas0'))
        self.assertTrue(st)
        self.qemu.set_stats('uas0', wr=10**9 + 101 * MB)
        self.assertTrue(wait_for(lambda: self.qemu.last_throttle(UAS_QDEV)
                                 == (15 * MB, 0)))
        st = a.handle('model-state uas0')
        self.assertIn('model=slc rate=15000000', st)
        self.assertIn('applied_wr=15000000', st)
        self.assertIn('cache_left=0', st)
        n = len(self.qemu.throttles)
        time.sleep(0.2)                 # no change, no repeated commands
        self.assertEqual(len(self.qemu.throttles), n)
        self.assertEqual(a.handle('model uas0 off'), 'ok model=off')
        self.assertEqual(self.qemu.last_throttle(UAS_QDEV), (0, 0))
        self.assertEqual(a.handle('model-state uas0'), 'ok model=off')
        self.assertEqual(a.handle('throttle uas0 1M'),
                         'ok wr_bps=1000000 rd_bps=0')

    def test_bridge_model_stalls_and_runs_again(self):
        a = self.connect()
        r = a.handle('model uas0 bridge rate=30M after=10M stall=0.3')
        self.assertTrue(r.startswith('ok model=bridge '), r)
        self.assertTrue(wait_for(lambda: self.qemu.last_throttle(UAS_QDEV)
                                 == (30 * MB, 0)))
        self.qemu.set_stats('uas0', wr=11 * MB)
        self.assertTrue(wait_for(lambda: self.qemu.last_throttle(UAS_QDEV)
                                 == (100000, 0)))
        self.assertIn('stalled=1', a.handle('model-state uas0'))
        # the time, not the bytes, ends the stall
        self.assertTrue(wait_for(lambda: self.qemu.last_throttle(UAS_QDEV)
                                 == (30 * MB, 0)))
        st = a.handle('model-state uas0')
        self.assertIn('stalls=1 stalled=0', st)
        self.assertNotIn('error=', st)

    def test_model_waits_out_a_busy_qemu(self):
        # QEMU answers nothing while it cancels a held command: a model
        # must wait longer than a request does, not stop
        self.assertGreater(rigctl.MODEL_QMP_TIMEOUT, 30)

    def test_ftl_takes_disk_size_and_read_cap(self):
        a = self.connect()
        r = a.handle('model usb0 ftl rd=50M')
        self.assertIn(f'size={512 * MiB}', r)
        self.assertTrue(wait_for(lambda: (self.qemu.last_throttle(USB_QDEV)
                                          or (0, 0))[1] == 50 * MB))
        self.assertIn('starved=1', a.handle('model-state usb0'))
        self.qemu.set_stats('usb0', unmap=512 * MiB)
        self.assertTrue(wait_for(lambda: self.qemu.last_throttle(USB_QDEV)
                                 == (200 * MB, 50 * MB)))
        self.assertIn('valid=0', a.handle('model-state usb0'))
        # A new model replaces the old one and starts from zero.
        r = a.handle('model usb0 flat rate=10M')
        self.assertTrue(r.startswith('ok model=flat'), r)
        self.assertTrue(wait_for(lambda: self.qemu.last_throttle(USB_QDEV)
                                 == (10 * MB, 0)))
        self.assertIn('unmapped=0', a.handle('model-state usb0'))

    def test_unplug(self):
        a = self.connect()
        a.handle('model usb0 flat rate=10M')
        self.assertEqual(a.handle('unplug usb0'), 'ok unplugged=usb0')
        self.assertEqual(a.handle('model-state usb0'),
                         'err no such device usb0')
        self.assertTrue(a.handle('unplug usb0').startswith('err qmp: '))
        self.assertEqual(a.handle('stats uas0').split()[0], 'ok')

    def test_relink(self):
        a = self.connect()
        self.qemu.set_stats('usb0', wr=100 * MB)
        a.handle('model usb0 flat rate=50M')
        self.assertEqual(a.handle('relink usb0 usb2'),
                         'ok relinked=usb0 bus=ehci.0 rate=35000000')
        self.assertNotIn('usb0', a.controllers)     # the model is gone
        add = self.qemu.added[-1]
        self.assertEqual((add['driver'], add['bus'], add['drive'],
                          add['serial']),
                         ('usb-storage', 'ehci.0', 'drv-usb0',
                          'BLKFLOOR-USB0'))
        node = self.qemu.nodes['drv-usb0']
        self.assertEqual(node['file']['filename'], '/rig/usb0.img')
        self.assertEqual(node['discard'], 'unmap')
        self.assertEqual(self.qemu.last_throttle(USB_QDEV),
                         (35 * MB, 35 * MB))
        self.assertEqual(a.handle('stats usb0').split()[1], 'wr_bytes=0')
        # back at USB 3 speed: our node is replaced, the cap lifted
        self.assertEqual(a.handle('relink usb0 usb3 discard=ignore'),
                         'ok relinked=usb0 bus=xhci.0 rate=0')
        self.assertEqual(self.qemu.added[-1]['bus'], 'xhci.0')
        self.assertEqual(self.qemu.nodes['drv-usb0']['discard'], 'ignore')
        self.assertEqual(self.qemu.last_throttle(USB_QDEV), (0, 0))
        self.assertEqual(a.handle('relink usb0 usb2 rate=20M'),
                         'ok relinked=usb0 bus=ehci.0 rate=20000000')
        self.assertEqual(self.qemu.commands.count('device_del'), 3)

    def test_relink_errors(self):
        a = self.connect()
        for req in ('relink', 'relink usb0', 'relink usb0 usb4',
                    'relink usb0 usb2 rate=x', 'relink usb0 usb2 speed=1',
                    'relink usb0 usb2 discard=maybe', 'relink nope usb2',
                    'relink usb0 usb2 rate=1M discard=unmap x'):
            self.assertTrue(a.handle(req).startswith('err '), req)
        self.assertIn('not a usb-storage disk', a.handle('relink uas0 usb2'))
        self.assertNotIn('device_del', self.qemu.commands)

    def test_temperature_file(self):
        a = self.connect()
        a.temp_dir = self.tmp.name
        path = os.path.join(self.tmp.name, 'temp-uas0')
        self.assertTrue(a.handle('model uas0 heat tau=5').startswith('ok'))
        self.assertIn(f'temp_file={path}', a.handle('model-state uas0'))

        def temp():
            with open(path, encoding='ascii') as f:
                return f.read()
        self.assertEqual(temp(), '30.00\n')
        self.qemu.set_stats('uas0', wr=100 * MB)    # +30 degrees
        wait_for(lambda: temp() != '30.00\n')
        self.assertAlmostEqual(float(temp()), 60.0, delta=0.5)
        # a model without a temperature writes none
        a.handle('model usb0 slc')
        self.assertNotIn('temp_file', a.handle('model-state usb0'))
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name,
                                                     'temp-usb0')))

    def test_quit_and_qemu_gone(self):
        a = self.connect()
        self.assertEqual(a.handle('quit'), 'ok bye')
        self.assertTrue(a.quit)
        a.quit = False
        self.qemu.close()
        self.assertTrue(wait_for(lambda: self.qmp.closed))
        self.assertEqual(a.handle('stats uas0'), 'err qemu gone')
        self.assertTrue(a.quit)

    def test_serve_socketpair(self):
        a = self.connect()
        ours, theirs = socket.socketpair()
        th = threading.Thread(target=rigctl.serve, args=(a, theirs),
                              daemon=True)
        th.start()
        f = ours.makefile('rb')
        ours.sendall(b'ping\n\n@a stats uas0\r\nbogus\n')
        self.assertEqual(f.readline(), b'ok pong\n')
        self.assertTrue(f.readline().startswith(b'@a ok wr_bytes=0 '))
        self.assertTrue(f.readline().startswith(b'err unknown command'))
        ours.sendall(b'x' * 5000 + b'\nping\n')
        self.assertEqual(f.readline(), b'err request too long\n')
        self.assertEqual(f.readline(), b'ok pong\n')
        ours.shutdown(socket.SHUT_WR)           # QEMU closed the chardev
        th.join(2.0)
        self.assertFalse(th.is_alive())
        ours.close()
        theirs.close()


class TestProcess(RigTestCase):
    """rigctl.py as run-vm.sh runs it, and its --client mode."""

    def start(self):
        rig_path = os.path.join(self.tmp.name, 'rig.sock')
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(rig_path)
        srv.listen(1)
        self.addCleanup(srv.close)
        self.log = os.path.join(self.tmp.name, 'rigctl.log')
        proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, 'rigctl.py'), '--qmp',
             self.qemu.path, '--rig', rig_path, '--log', self.log])
        self.addCleanup(lambda: proc.poll() is None and proc.kill())
        srv.settimeout(10)
        conn, _ = srv.accept()
        self.addCleanup(conn.close)
        return proc, conn

    def test_exits_when_qemu_goes(self):
        proc, conn = self.start()
        conn.sendall(b'ping\n')
        f = conn.makefile('rb')
        self.assertEqual(f.readline(), b'ok pong\n')
        self.qemu.close()
        self.assertEqual(proc.wait(5), 0)

    def test_exits_on_rig_eof(self):
        proc, conn = self.start()
        conn.shutdown(socket.SHUT_RDWR)
        self.assertEqual(proc.wait(5), 0)

    def test_sigterm(self):
        proc, conn = self.start()
        conn.sendall(b'model uas0 thermal\n')
        self.assertTrue(conn.makefile('rb').readline().startswith(b'ok '))
        t = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(proc.wait(5), 0)
        self.assertLess(time.monotonic() - t, 2.0)
        with open(self.log) as f:
            self.assertIn('exiting on SIGTERM', f.read())

    def test_quit(self):
        proc, conn = self.start()
        conn.sendall(b'quit\n')
        self.assertEqual(conn.makefile('rb').readline(), b'ok bye\n')
        self.assertEqual(proc.wait(5), 0)

    def test_no_qemu(self):
        r = subprocess.run(
            [sys.executable, os.path.join(HERE, 'rigctl.py'), '--qmp',
             os.path.join(self.tmp.name, 'none.sock'), '--rig',
             os.path.join(self.tmp.name, 'none2.sock'),
             '--connect-timeout', '0.3'], capture_output=True, timeout=10)
        self.assertEqual(r.returncode, 1)
        self.assertIn(b'cannot connect', r.stderr)

    def test_client(self):
        """--client skips a stale reply and reports ok/err by exit code."""
        path = os.path.join(self.tmp.name, 'port.sock')
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(4)
        self.addCleanup(srv.close)
        a = self.connect()

        def port():
            for _ in range(2):
                c, _ = srv.accept()
                f = c.makefile('rb')
                line = f.readline().decode()
                c.sendall(b'@stale ok pong\n')
                c.sendall((a.handle(line.strip()) + '\n').encode())
                c.close()
        th = threading.Thread(target=port, daemon=True)
        th.start()
        cmd = [sys.executable, os.path.join(HERE, 'rigctl.py'), '--client',
               '--port', path, '--timeout', '5']
        r = subprocess.run(cmd + ['stats', 'uas0'], capture_output=True,
                           timeout=10)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith(b'wr_bytes=0 rd_bytes=0 '))
        r = subprocess.run(cmd + ['stats', 'nope'], capture_output=True,
                           timeout=10)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, b'rigctl: no such device nope\n')
        th.join(2)


# --- KTAP output ----------------------------------------------------------

class KtapResult(unittest.TestResult):
    def __init__(self, stream):
        super().__init__()
        self.stream = stream
        self.n = 0
        self.npass = self.nfail = self.nskip = 0

    def _line(self, ok, test, extra=''):
        self.n += 1
        name = test.id().split('.', 1)[-1]
        self.stream.write(f'{"ok" if ok else "not ok"} {self.n} '
                          f'{name}{extra}\n')
        self.stream.flush()

    def _diag(self, err, test):
        # (the test, not None: unittest reads its failureException)
        text = self._exc_info_to_string(err, test)
        for line in text.rstrip().splitlines():
            self.stream.write(f'# {line}\n')

    def addSuccess(self, test):
        super().addSuccess(test)
        self.npass += 1
        self._line(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.nfail += 1
        self._diag(err, test)
        self._line(False, test)

    def addError(self, test, err):
        super().addError(test, err)
        self.nfail += 1
        self._diag(err, test)
        self._line(False, test)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.nskip += 1
        self._line(True, test, f' # SKIP {reason}')


class TestKtapResult(unittest.TestCase):
    """The KTAP printer itself: a test that errors or fails is a "not ok"
    line with its traceback as diagnostics, and the run goes on."""

    def test_error_and_failure_reported_and_run_goes_on(self):
        class Inner(unittest.TestCase):
            def test_a_error(self):
                raise OSError(39, 'Directory not empty')

            def test_b_failure(self):
                self.assertEqual(1, 2)

            def test_c_pass(self):
                pass

        import io
        out = io.StringIO()
        res = KtapResult(out)
        unittest.defaultTestLoader.loadTestsFromTestCase(Inner).run(res)
        lines = out.getvalue().splitlines()
        results = [line for line in lines if not line.startswith('#')]
        self.assertEqual([r.split(' ', 2)[:2] for r in results],
                         [['not', 'ok'], ['not', 'ok'], ['ok', '3']])
        self.assertIn('# OSError: [Errno 39] Directory not empty', lines)
        self.assertTrue(any('AssertionError: 1 != 2' in line for line in lines))
        self.assertEqual((res.npass, res.nfail), (1, 2))


def run_ktap():
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    out = sys.stdout
    out.write('KTAP version 1\n')
    out.write(f'1..{suite.countTestCases()}\n')
    res = KtapResult(out)
    suite.run(res)
    out.write(f'# Totals: pass:{res.npass} fail:{res.nfail} xfail:0 '
              f'xpass:0 skip:{res.nskip} error:0\n')
    return 0 if res.nfail == 0 else 1


if __name__ == '__main__':
    if '--ktap' in sys.argv[1:]:
        sys.exit(run_ktap())
    unittest.main()
