#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Drive models for the QEMU rig: emulated disks that misbehave like SSDs.

Each model is pure computation: no I/O, no clocks.  The controller in
rigctl.py polls QEMU's block statistics every few tens of milliseconds and
calls

    limit = model.update(now_s, wr_bytes_total, unmap_bytes_total, idle=None)

with the time in seconds (any monotonic origin) and the byte counters since
the model was started.  The return value is the write limit in bytes/s to
program with block_set_io_throttle (0 means unlimited); model.read_limit is
the read limit (the rd= parameter, 0 = unlimited by default).  If idle is
None the model decides itself: the drive is idle once no write has
completed for idle= seconds (default 0.5 s, longer than the gap between two
completions of a throttled stream of large requests).

Models and parameters (sizes and rates take the suffixes K M G T = 10^3..
10^12 and KiB MiB GiB TiB = 2^10..2^40, an optional trailing B and, for
rates, /s):

  flat     rate=                a fixed cap (a link)
  slc      fast= slow= cache= drain= delay=
           fast until cache= bytes have been written since the cache was
           last empty, then slow; the cache folds back (is regained) at
           drain= bytes/s only while the drive is idle, starting delay= s
           after the drive turned idle, up to its size: after an idle gap
           of T s the next write runs fast for drain= * (T - delay=) bytes
           (at most cache=) and relapses.  Answers the idle-recovery
           experiment; state: refilled= (bytes regained in the current or
           last idle gap), idle_s= (length of that gap)
  thermal  levels= temps= hyst= ambient= heat= cool=
           the temperature rises by heat= degrees per MB (10^6 B) written and
           relaxes toward ambient= with rate constant cool= (1/s); crossing
           temps[i] upward steps from levels[i] to levels[i+1], falling below
           temps[i] - hyst= steps back up; tau= (s) sets cool= to 1/tau
  heat     fast= slow= trip= hyst= ambient= heat= tau=
           one throttle level: thermal with levels=fast,slow and temps=trip,
           checked to hold: writing at slow= settles above trip - hyst, so
           the curve is one step that stays down (a cache cliff by shape);
           idle (or a host slower than slow= far enough) cools it with
           time constant tau=, and it runs fast again until it reheats: it
           relapses after a time, not after a number of bytes regained
           with idle time.  Answers the cool-down experiment; its
           temperature is in the state (temperature=) and, in the rig, in
           a file (rigctl.py --temp-dir)
  ftl      size= op= prefill= free= low= high= fast= slow= gc= seed=
           segmin= segmax=
           a flash translation layer counted in bytes: valid data, free
           space and stale copies.  Writes consume free space (writes to
           LBAs that hold no valid data add valid data, the rest are
           overwrites that leave a stale copy); TRIM turns valid data
           straight into free space; garbage collection turns stale copies
           into free space at gc= * (1 - u) bytes/s, u being the share of
           valid data in the used space (a full drive that never saw TRIM
           has u close to 1 and can barely reclaim anything).  Once free
           space falls to low=, the drive is starved until it is back above
           high=: the write rate jumps between slow-ish and fast-ish
           segments of random length (segmin..segmax s, seeded), no plateau.
           gcfast= (a rate) makes the starved drive switch between exactly
           two levels, gcfast= and slow= (moderate ratio and segments of
           seconds: a shape like heat).  erase= (a rate): discarded data
           becomes free space only while the drive idles, at erase= bytes/s
           (0, the default: at once), so TRIM of the written region and
           then an idle gap bring the rate back to fast=.  Answers the TRIM
           retest; state: trimmed= (discarded bytes not yet erased)

  bridge   rate= eff= after= every= stall= crawl= count=
           a drive (rate=) behind a USB bridge that passes eff= of it
           (1: all; a UAS firmware slower than the same drive over
           usb-storage is eff=0.5 on the UAS disk) and, under sustained
           load, stops completing commands: after after= bytes written it
           holds them for stall= s, then runs again and stalls once more
           after every= bytes (0: after=), count= times at most (0: no
           limit).  A held command is not lost: the rate falls to crawl=
           bytes/s, at which QEMU's throttle completes one 512 KiB command
           in about 5 s, longer than a guest's SCSI command timeout set
           short (echo 2 > /sys/block/sdX/device/timeout), so the guest
           aborts it and resets the device (uas_eh_abort_handler,
           uas_eh_device_reset_handler), as bridges that need an
           IGNORE_UAS quirk do.  Never 0: QEMU's abort and reset cancel
           the held command synchronously, and a command that never
           completes hangs QEMU's main loop for good.  state: stalls=
           (begun), stalled= (1 while holding), held_s= (seconds held)

All models also take rd= (read cap) and idle= (seconds).

Run "python3 drivemodel.py sim MODEL key=value..." to print the curve a
host writing as fast as the model lets it would see.
"""

import math
import random
import re
import sys

__all__ = ['ModelError', 'parse_size', 'parse_rate', 'parse_model_args',
           'make_model', 'MODELS', 'simulate']


class ModelError(ValueError):
    """A bad model name, parameter name or parameter value."""


_SUFFIX = {
    '': 1, 'K': 10**3, 'M': 10**6, 'G': 10**9, 'T': 10**12,
    'KI': 2**10, 'MI': 2**20, 'GI': 2**30, 'TI': 2**40,
}
_SIZE_RE = re.compile(r'^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([KMGT]I?)?B?$',
                      re.IGNORECASE)


def parse_size(text):
    """Parse '300M', '64MiB', '1G', '4096', '1.5GB' into an int of bytes.

    M/G mean powers of ten, MiB/GiB powers of two.  Raises ModelError.
    """
    s = text.strip()
    m = _SIZE_RE.match(s)
    if not m:
        raise ModelError(f'bad size {text!r}')
    mult = _SUFFIX[(m.group(2) or '').upper()]
    value = float(m.group(1)) * mult
    if not math.isfinite(value) or value >= 2**63:
        raise ModelError(f'size out of range {text!r}')
    return int(round(value))


def parse_rate(text):
    """Parse a rate in bytes/s: '200M', '200MB/s', '30MiB', '0'."""
    s = text.strip()
    if s.lower().endswith('/s'):
        s = s[:-2]
    try:
        return parse_size(s)
    except ModelError:
        raise ModelError(f'bad rate {text!r}') from None


def parse_float(text):
    try:
        v = float(text)
    except ValueError:
        raise ModelError(f'bad number {text!r}') from None
    if not math.isfinite(v):
        raise ModelError(f'bad number {text!r}')
    return v


def parse_int(text):
    try:
        return int(text, 0)
    except ValueError:
        raise ModelError(f'bad integer {text!r}') from None


def _list_of(conv):
    def parse(text):
        items = [t for t in text.split(',')]
        if not items or any(not t.strip() for t in items):
            raise ModelError(f'bad list {text!r}')
        return [conv(t) for t in items]
    return parse


_PARSERS = {
    'size': parse_size,
    'rate': parse_rate,
    'float': parse_float,
    'int': parse_int,
    'rates': _list_of(parse_rate),
    'floats': _list_of(parse_float),
}

# Parameters every model takes.
_COMMON = {
    'rd': ('rate', 0, 'read limit in bytes/s, 0 = unlimited'),
    'idle': ('float', 0.5, 'seconds without a completed write that count '
                           'as idle'),
}


def parse_model_args(params, args, defaults=None):
    """Turn ['key=value', ...] into a dict of typed values.

    params maps key -> (type, default, help); defaults overrides the
    defaults (the controller passes size= from the disk).  Unknown keys,
    repeated keys and malformed values raise ModelError.
    """
    out = {}
    for key, (_, default, _) in params.items():
        out[key] = default
    for key, value in (defaults or {}).items():
        if key in params:
            out[key] = value
    seen = set()
    for arg in args:
        key, sep, value = arg.partition('=')
        if not sep or not key:
            raise ModelError(f'expected key=value, got {arg!r}')
        if key not in params:
            raise ModelError(f'unknown parameter {key!r} (known: '
                             f'{", ".join(sorted(params))})')
        if key in seen:
            raise ModelError(f'parameter {key!r} given twice')
        seen.add(key)
        out[key] = _PARSERS[params[key][0]](value)
    return out


class Model:
    """Common part: parameters, time base, write deltas, idle detection."""

    name = None
    PARAMS = {}

    def __init__(self, args=(), defaults=None):
        allp = dict(_COMMON)
        allp.update(self.PARAMS)
        self.p = parse_model_args(allp, args, defaults)
        if self.p['idle'] < 0:
            raise ModelError('idle= must be >= 0')
        self.read_limit = self.p['rd']
        self.now = None
        self.t0 = None
        self.written = 0
        self.unmapped = 0
        self.last_write_t = None
        self.limit = 0
        self.idle = False
        self.gap_starts = False
        self.validate()

    def validate(self):
        """Check parameter consistency; raise ModelError."""

    def params_text(self):
        return ' '.join(f'{k}={_fmt(v)}' for k, v in sorted(self.p.items()))

    def update(self, now, wr_total, unmap_total, idle=None):
        """Advance the model to time now; return the write limit (B/s)."""
        if self.now is None:
            self.now = self.t0 = now
            self.last_write_t = now
            self.written = max(0, wr_total)
            self.unmapped = max(0, unmap_total)
            self.limit = self._start()
            return self.limit
        dt = max(0.0, now - self.now)
        dw = max(0, wr_total - self.written)
        du = max(0, unmap_total - self.unmapped)
        # Counters never go back; if they do (a new disk), rebase quietly.
        self.written = wr_total
        self.unmapped = unmap_total
        prev = self.now
        if dw:
            self.last_write_t = now
        if idle is None:
            idle = now - self.last_write_t >= self.p['idle']
        # The time without completed writes the model may credit to
        # background work: once the drive turns idle, all of it since the
        # last write; while it stays idle, the time since the last update.
        if not idle:
            idle_dt = 0.0
        elif not self.idle:
            idle_dt = max(0.0, now - self.last_write_t)
        else:
            idle_dt = max(0.0, now - max(prev, self.last_write_t))
        # True on the update at which the drive turns idle (a new gap).
        self.gap_starts = bool(idle) and not self.idle
        self.idle = bool(idle)
        self.now = now
        self.limit = self._step(dt, dw, du, idle_dt)
        return self.limit

    def wake_in(self):
        """Seconds until the model expects to change its mind (a hint)."""
        return math.inf

    def state(self):
        """Current state as an ordered dict of printable values."""
        st = {'model': self.name, 'rate': self.limit,
              'rd_rate': self.read_limit, 'written': self.written,
              'unmapped': self.unmapped, 'idle': int(self.idle)}
        if self.now is not None:        # started by the first update
            st.update(self._state())
        return st

    # For subclasses.
    def _start(self):
        raise NotImplementedError

    def _step(self, dt, dw, du, idle_dt):
        raise NotImplementedError

    def _state(self):
        return {}


def _fmt(v):
    if isinstance(v, list):
        return ','.join(_fmt(x) for x in v)
    if isinstance(v, float):
        return f'{v:.6g}'
    return str(v)


class Flat(Model):
    name = 'flat'
    PARAMS = {'rate': ('rate', 100 * 10**6, 'write cap in bytes/s')}

    def _start(self):
        return self.p['rate']

    def _step(self, dt, dw, du, idle_dt):
        return self.p['rate']


class Slc(Model):
    name = 'slc'
    PARAMS = {
        'fast': ('rate', 200 * 10**6, 'rate while the cache has room'),
        'slow': ('rate', 30 * 10**6, 'rate once the cache is full'),
        'cache': ('size', 300 * 10**6, 'cache size in bytes'),
        'drain': ('rate', 100 * 10**6, 'bytes/s folded out of the cache '
                                       '(cache regained) while idle'),
        'delay': ('float', 0.0, 'idle seconds before the fold starts'),
    }

    def validate(self):
        if self.p['cache'] <= 0:
            raise ModelError('cache= must be > 0')
        if self.p['fast'] <= 0 or self.p['slow'] <= 0:
            raise ModelError('fast= and slow= must be > 0')
        if self.p['delay'] < 0:
            raise ModelError('delay= must be >= 0')

    def _start(self):
        self.used = 0.0
        self.idle_s = 0.0           # length of the current/last idle gap
        self.refilled = 0.0         # cache regained in it
        return self._rate()

    def _rate(self):
        return self.p['fast'] if self.used < self.p['cache'] else \
            self.p['slow']

    def _step(self, dt, dw, du, idle_dt):
        self.used = min(float(self.p['cache']), self.used + dw)
        if idle_dt > 0:
            if self.gap_starts:
                self.idle_s, self.refilled = 0.0, 0.0
            before = self.idle_s
            self.idle_s += idle_dt
            # only the part of the gap past delay= folds
            folding = self.idle_s - max(before, self.p['delay'])
            if folding > 0:
                old = self.used
                self.used = max(0.0, self.used - self.p['drain'] * folding)
                self.refilled += old - self.used
        return self._rate()

    def wake_in(self):
        left = self.p['cache'] - self.used
        if left <= 0:
            return math.inf
        return left / self.p['fast']

    def _state(self):
        return {'cache_used': int(self.used),
                'cache_left': int(self.p['cache'] - self.used),
                'full': int(self.used >= self.p['cache']),
                'idle_s': f'{self.idle_s:.3f}',
                'refilled': int(self.refilled)}


class Thermal(Model):
    """Heat in with bytes, out with time; rate levels with hysteresis.

    Writing at rate r settles at ambient + heat/cool * r degrees.  The
    defaults put the last threshold (60) between the equilibria of the two
    lowest levels (45 at 15 MB/s, 74 at 40 MB/s) and the hysteresis band
    (55..60) in the middle, so any host faster than ~30 MB/s ends in a
    sawtooth: ~1 s at 40 MB/s, ~1 s at 15 MB/s, first climb back after
    ~150 MB.  Faster hosts pass 200 and 100 MB/s on the way down.
    """

    name = 'thermal'
    PARAMS = {
        'levels': ('rates', [200 * 10**6, 100 * 10**6, 40 * 10**6,
                             15 * 10**6], 'write rates, hottest last'),
        'temps': ('floats', [45.0, 52.0, 60.0], 'step-down temperatures '
                                               '(one fewer than levels)'),
        'hyst': ('float', 5.0, 'degrees below a threshold to step back up'),
        'ambient': ('float', 30.0, 'ambient temperature'),
        'start': ('float', -1.0, 'initial temperature (<0: ambient)'),
        'heat': ('float', 0.35, 'degrees per 10^6 bytes written'),
        'cool': ('float', 0.35, 'cooling rate constant, 1/s'),
        'tau': ('float', 0.0, 'cooling time constant, s (>0: sets cool= '
                              'to 1/tau)'),
    }

    def validate(self):
        if self.p['tau'] < 0:
            raise ModelError('tau= must be >= 0')
        if self.p['tau'] > 0:
            self.p['cool'] = 1.0 / self.p['tau']
        lv, tp = self.p['levels'], self.p['temps']
        if len(lv) < 2 or len(tp) != len(lv) - 1:
            raise ModelError('need N levels= and N-1 temps=')
        if any(b >= a for a, b in zip(tp[1:], tp)):
            raise ModelError('temps= must increase')
        if any(r <= 0 for r in lv):
            raise ModelError('levels= must be > 0')
        if self.p['hyst'] < 0 or self.p['heat'] < 0 or self.p['cool'] < 0:
            raise ModelError('hyst=, heat= and cool= must be >= 0')
        if self.p['temps'][0] <= self.p['ambient']:
            raise ModelError('temps= must be above ambient=')

    def _start(self):
        self.temp = self.p['start'] if self.p['start'] >= 0 else \
            self.p['ambient']
        self.level = 0
        self.steps_down = 0
        self.steps_up = 0
        self._relevel()
        return self.p['levels'][self.level]

    def _relevel(self):
        tp, n = self.p['temps'], len(self.p['levels'])
        while self.level < n - 1 and self.temp >= tp[self.level]:
            self.level += 1
            self.steps_down += 1
        while self.level > 0 and \
                self.temp < tp[self.level - 1] - self.p['hyst']:
            self.level -= 1
            self.steps_up += 1

    def _step(self, dt, dw, du, idle_dt):
        amb = self.p['ambient']
        self.temp += self.p['heat'] * dw / 1e6
        self.temp = amb + (self.temp - amb) * math.exp(-self.p['cool'] * dt)
        self._relevel()
        return self.p['levels'][self.level]

    def _state(self):
        return {'temperature': f'{self.temp:.3f}', 'level': self.level,
                'steps_down': self.steps_down, 'steps_up': self.steps_up}

    def temperature(self):
        return self.temp

    def equilibrium(self, rate):
        """The temperature writing at rate bytes/s settles at."""
        cool = self.p['cool']
        if cool <= 0:
            return math.inf
        return self.p['ambient'] + self.p['heat'] * rate / 1e6 / cool


class Heat(Thermal):
    """One throttle level that holds: a cache cliff by shape.

    With the defaults a host at 80 MB/s reaches trip= (70) after ~2 s
    (~160 MB) and is held at 30 MB/s, where the temperature settles at 75:
    above trip - hyst (65), so the rate never climbs back while the host
    writes.  Idle, the temperature falls with time constant tau= (5 s):
    below 65 after ~1.3 s, ambient within 20 s; the next write runs fast
    until it reheats (~70 MB after a 3 s gap, ~160 MB after 20 s).
    """

    name = 'heat'
    PARAMS = {
        'fast': ('rate', 80 * 10**6, 'rate below the trip temperature'),
        'slow': ('rate', 30 * 10**6, 'rate while throttled'),
        'trip': ('float', 70.0, 'throttle temperature'),
        'hyst': ('float', 5.0, 'degrees below trip= to run fast again'),
        'ambient': ('float', 30.0, 'ambient temperature'),
        'start': ('float', -1.0, 'initial temperature (<0: ambient)'),
        'heat': ('float', 0.3, 'degrees per 10^6 bytes written'),
        'tau': ('float', 5.0, 'cooling time constant, s'),
    }

    def validate(self):
        p = self.p
        if p['tau'] <= 0:
            raise ModelError('tau= must be > 0')
        if p['slow'] <= 0 or p['slow'] >= p['fast']:
            raise ModelError('need 0 < slow= < fast=')
        p['levels'] = [p['fast'], p['slow']]
        p['temps'] = [p['trip']]
        p['cool'] = 0.0
        super().validate()
        if self.equilibrium(p['fast']) <= p['trip']:
            raise ModelError(f'writing at fast= settles at '
                             f'{self.equilibrium(p["fast"]):.1f}, below '
                             f'trip=: it never throttles')
        if self.equilibrium(p['slow']) <= p['trip'] - p['hyst']:
            raise ModelError(f'writing at slow= settles at '
                             f'{self.equilibrium(p["slow"]):.1f}, below '
                             f'trip= - hyst=: it would not hold the level')

    def params_text(self):
        keep = set(self.PARAMS) | {'rd', 'idle'}
        return ' '.join(f'{k}={_fmt(v)}' for k, v in sorted(self.p.items())
                        if k in keep)


class Ftl(Model):
    name = 'ftl'
    PARAMS = {
        'size': ('size', 256 * 2**20, 'logical capacity in bytes (the '
                                      'controller passes the disk size)'),
        'op': ('float', 0.07, 'over-provisioning, fraction of size'),
        'prefill': ('float', 1.0, 'fraction of size holding valid data that '
                                  'was never trimmed'),
        'free': ('size', -1, 'initial free bytes (<0: low=: the drive starts '
                               'used, its stale copies never trimmed)'),
        'low': ('size', -1, 'free bytes at which GC starves writes '
                            '(<0: 2% of size)'),
        'high': ('size', -1, 'free bytes at which starvation ends '
                             '(<0: 5% of size)'),
        'fast': ('rate', 200 * 10**6, 'rate with free blocks to spare'),
        'slow': ('rate', 10 * 10**6, 'slowest rate while GC runs'),
        'gc': ('rate', 200 * 10**6, 'GC copy bandwidth, bytes/s'),
        'seed': ('int', 1, 'seed of the GC segment generator'),
        'segmin': ('float', 0.15, 'shortest GC segment, s'),
        'segmax': ('float', 0.6, 'longest GC segment, s'),
        'gcfast': ('rate', 0, 'starved: switch between exactly gcfast= '
                              'and slow= (0: random levels)'),
        'erase': ('rate', 0, 'discarded bytes become free at erase= B/s '
                             'while idle (0: at once)'),
    }

    def validate(self):
        p = self.p
        if p['size'] <= 0:
            raise ModelError('size= must be > 0')
        if not 0 <= p['prefill'] <= 1:
            raise ModelError('prefill= must be within 0..1')
        if not 0 <= p['op'] <= 10:
            raise ModelError('op= must be within 0..10')
        if p['fast'] <= 0 or p['slow'] <= 0 or p['slow'] > p['fast']:
            raise ModelError('need 0 < slow= <= fast=')
        if not 0 < p['segmin'] <= p['segmax']:
            raise ModelError('need 0 < segmin= <= segmax=')
        if p['gcfast'] and not p['slow'] < p['gcfast'] <= p['fast']:
            raise ModelError('need slow= < gcfast= <= fast=')
        self.phys = p['size'] + int(p['size'] * p['op'])
        self.low = p['low'] if p['low'] >= 0 else p['size'] // 50
        self.high = p['high'] if p['high'] >= 0 else p['size'] // 20
        if self.high < self.low:
            raise ModelError('need low= <= high=')
        p['low'], p['high'] = self.low, self.high
        self.valid = float(int(p['size'] * p['prefill']))
        free = p['free'] if p['free'] >= 0 else self.low
        self.free = float(min(free, self.phys - self.valid))
        p['free'] = int(self.free)

    def _start(self):
        self.rng = random.Random(self.p['seed'])
        self.starved = False
        self.seg_end = 0.0
        self.seg_fast = False
        self.seg_rate = self.p['fast']
        self.gc_cycles = 0
        self.trimmed = 0.0          # discarded, not yet erased
        return self._decide()

    def stale(self):
        """Stale copies, discarded data waiting for erase included."""
        return max(0.0, self.phys - self.valid - self.free)

    def validity(self):
        """Share of valid data in the used (non-free) physical space."""
        used = self.valid + self.stale()
        return self.valid / used if used > 0 else 0.0

    def _new_segment(self):
        p = self.p
        self.seg_fast = not self.seg_fast
        span = p['fast'] - p['slow']
        if p['gcfast']:
            self.seg_rate = p['gcfast'] if self.seg_fast else p['slow']
        elif self.seg_fast:
            lo, hi = p['slow'] + 0.6 * span, p['fast']
        else:
            lo, hi = p['slow'], p['slow'] + 0.15 * span
        if not p['gcfast']:
            self.seg_rate = int(self.rng.uniform(lo, hi))
        self.seg_end = self.now + self.rng.uniform(p['segmin'], p['segmax'])

    def _decide(self):
        if not self.starved and self.free <= self.low:
            self.starved = True
            self.gc_cycles += 1
            self.seg_fast = True    # the first segment is a slow one
            self._new_segment()
        elif self.starved and self.free > self.high:
            self.starved = False
        if not self.starved:
            return self.p['fast']
        # Segments only turn over while the host writes: an idle drive
        # keeps its last rate (and the controller has nothing to send).
        if self.now >= self.seg_end and not self.idle:
            self._new_segment()
        return self.seg_rate

    def _step(self, dt, dw, du, idle_dt):
        size = self.p['size']
        # TRIM: valid data becomes free space, at once or, with erase=,
        # through the erase queue while the drive idles.
        if du:
            dv = min(float(du), self.valid)
            self.valid -= dv
            if self.p['erase']:
                self.trimmed += dv
            else:
                self.free += dv
        if self.trimmed and idle_dt > 0:
            de = min(self.trimmed, self.p['erase'] * idle_dt)
            self.trimmed -= de
            self.free += de
        # Writes fill LBAs without valid data first, the rest overwrite.
        if dw:
            new = min(float(dw), size - self.valid)
            self.valid += new
            # Out of free space, the busy drive erases discarded blocks
            # in the foreground, only as many as it needs: it stays
            # starved (the erase queue drains for real only while idle).
            need = min(max(0.0, dw - self.free), self.trimmed)
            self.trimmed -= need
            self.free = max(0.0, self.free + need - dw)
        # GC reclaims stale copies while there is something to reclaim.
        if self.free < self.high or idle_dt > 0:
            gain = self.p['gc'] * (1.0 - self.validity()) * dt
            self.free = min(self.free + gain,
                            self.phys - self.valid - self.trimmed)
        return self._decide()

    def wake_in(self):
        if self.starved:
            return max(0.0, self.seg_end - self.now)
        if self.free > self.low:
            return (self.free - self.low) / self.p['fast']
        return 0.0

    def _state(self):
        return {'valid': int(self.valid), 'free': int(self.free),
                'stale': int(self.stale()),
                'free_blocks': int(self.free) // 2**20,
                'validity': f'{self.validity():.4f}',
                'starved': int(self.starved), 'gc_cycles': self.gc_cycles,
                'trimmed': int(self.trimmed)}


class Bridge(Model):
    """A drive behind a bridge: a share of its rate, and stalls under load.

    Flat at rate= * eff= while it runs; after after= bytes (then every=
    bytes) written since it last ran again, it holds commands for stall=
    seconds at crawl= bytes/s: the time, not the bytes, ends a stall (a
    bridge's firmware that hangs, then recovers or is reset).
    """

    name = 'bridge'
    PARAMS = {
        'rate': ('rate', 40 * 10**6, "the drive's write rate, bytes/s"),
        'eff': ('float', 1.0, 'share of rate= the bridge passes (0..1]'),
        'after': ('size', 0, 'bytes written before the first stall '
                             '(0: never stalls)'),
        'every': ('size', 0, 'bytes written between stalls (0: after=)'),
        'stall': ('float', 8.0, 'seconds a stall holds commands'),
        'crawl': ('rate', 100 * 10**3, 'rate while stalled, bytes/s (> 0)'),
        'count': ('int', 0, 'stalls at most (0: no limit)'),
    }

    def validate(self):
        p = self.p
        if p['rate'] <= 0:
            raise ModelError('rate= must be > 0')
        if not 0 < p['eff'] <= 1:
            raise ModelError('eff= must be within (0, 1]')
        if p['after'] < 0 or p['every'] < 0 or p['count'] < 0:
            raise ModelError('after=, every= and count= must be >= 0')
        if p['after'] and p['stall'] <= 0:
            raise ModelError('stall= must be > 0')
        if p['crawl'] <= 0:
            raise ModelError('crawl= must be > 0: a command that never '
                             'completes hangs QEMU')
        if p['after'] and p['crawl'] >= self.running():
            raise ModelError('crawl= must be below rate= * eff=')

    def running(self):
        return max(1, int(self.p['rate'] * self.p['eff']))

    def _start(self):
        self.stalls = 0
        self.stalled = False
        self.held = 0.0             # seconds into the current stall
        self.since = 0              # bytes written since it last ran again
        return self.running()

    def _due(self):
        p = self.p
        if not p['after'] or (p['count'] and self.stalls >= p['count']):
            return False
        need = p['after'] if not self.stalls else (p['every'] or p['after'])
        return self.since >= need

    def _step(self, dt, dw, du, idle_dt):
        if self.stalled:
            self.held += dt
            if self.held < self.p['stall']:
                return self.p['crawl']
            self.stalled = False
            self.since = 0
            return self.running()
        self.since += dw
        if self._due():
            self.stalled = True
            self.stalls += 1
            self.held = 0.0
            return self.p['crawl']
        return self.running()

    def wake_in(self):
        if self.stalled:
            return max(0.0, self.p['stall'] - self.held)
        return math.inf

    def _state(self):
        return {'stalls': self.stalls, 'stalled': int(self.stalled),
                'held_s': f'{self.held:.3f}', 'since': self.since}


MODELS = {m.name: m for m in (Flat, Slc, Thermal, Heat, Ftl, Bridge)}


def make_model(name, args=(), defaults=None):
    """Build a model by name from ['key=value', ...]; raises ModelError."""
    cls = MODELS.get(name)
    if cls is None:
        raise ModelError(f'unknown model {name!r} (known: '
                         f'{", ".join(sorted(MODELS))})')
    return cls(list(args), defaults)


def simulate(model, duration, dt=0.001, host_max=0, write=None):
    """Drive a model with a host that writes as fast as the limit allows.

    host_max caps the host's own speed (0 = none; an unlimited model limit
    then means host_max).  write(t) -> bool says whether the host writes at
    time t (default: always).  Returns a list of (t, limit, wr_total).
    A fresh model is started at t = 0 with zero counters; a started one
    continues from its last time and counters.
    """
    out = []
    if model.now is None:
        model.update(0.0, 0, 0)
    t0 = model.now
    total = float(model.written)
    lim = model.limit
    steps = int(round(duration / dt))
    for i in range(1, steps + 1):
        t = t0 + i * dt
        if write is None or write(t):
            cap = lim if lim > 0 else host_max
            if host_max > 0:
                cap = min(cap, host_max)
            total += cap * dt
        lim = model.update(t, int(total), model.unmapped)
        out.append((t, lim, int(total)))
    return out


def _main(argv):
    if len(argv) < 3 or argv[1] != 'sim':
        print('usage: drivemodel.py sim MODEL [key=value...] '
              '[--time S] [--host RATE] [--step S]', file=sys.stderr)
        return 2
    duration, host, step = 10.0, 0, 0.1
    args = []
    it = iter(argv[3:])
    try:
        for a in it:
            if a == '--time':
                duration = float(next(it))
            elif a == '--host':
                host = parse_rate(next(it))
            elif a == '--step':
                step = float(next(it))
            else:
                args.append(a)
        model = make_model(argv[2], args)
    except (ModelError, ValueError, StopIteration) as e:
        print(f'drivemodel: {e}', file=sys.stderr)
        return 2
    print(f'# {model.name} {model.params_text()}')
    print('t_s,limit_MBps,host_MBps,written_MB')
    trace = simulate(model, duration, 0.001, host)
    prev_t, prev_w, nxt = 0.0, 0, step
    for t, lim, w in trace:
        if t + 1e-9 >= nxt:
            print(f'{t:.3f},{lim / 1e6:.1f},'
                  f'{(w - prev_w) / (t - prev_t) / 1e6:.1f},{w / 1e6:.1f}')
            prev_t, prev_w, nxt = t, w, nxt + step
    return 0


if __name__ == '__main__':
    sys.exit(_main(sys.argv))
