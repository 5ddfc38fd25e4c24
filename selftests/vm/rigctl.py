#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""rigctl: the host agent of the QEMU test rig.

run-vm.sh starts it beside QEMU:

    rigctl.py --qmp DIR/qmp.sock --rig DIR/rig.sock [--log DIR/rigctl.log]
              [--temp-dir DIR/out]

It connects (retrying for --connect-timeout s) to QEMU's QMP server socket
and to the socket chardev behind the guest's virtio-serial port
org.blkfloor.rig, and answers the guest one line at a time:

    request:  [@TAG] CMD ARGS...\\n
    reply:    [@TAG] ok ...\\n   or   [@TAG] err REASON\\n

The optional @TAG (any word starting with @) is echoed so that a client can
skip replies meant for an earlier client that died before reading them (the
port buffers data while nobody holds it open).  Commands:

    ping                          ok pong
    help                          ok CMD...
    stats DEV                     ok wr_bytes=N rd_bytes=N unmap_bytes=N
                                     idle_time_ns=N wr_ops=N rd_ops=N
                                     unmap_ops=N size=N
                                  (idle_time_ns=-1: no I/O yet)
    throttle DEV WR_BPS [RD_BPS]  ok wr_bps=N rd_bps=N   (0 = unlimited;
                                  refused while a model drives DEV)
    model DEV NAME [key=value...] ok model=NAME key=value... (replaces a
                                  running model; counters start at zero)
    model DEV off                 ok model=off (and the throttle is lifted)
    model-state DEV               ok model=NAME rate=N ... applied_wr=N
                                     applied_rd=N polls=N [temp_file=PATH]
                                  |  ok model=off
    cpu                           ok host_ns=N threads=K run_ns=N wait_ns=N
                                  (QEMU's vCPU and main-loop threads: CPU
                                  time they got, and time they were ready
                                  to run but the host ran something else,
                                  from /proc/TID/schedstat; a TCG
                                  guest has no steal clock of its own, so
                                  this is how a test sees the host starve
                                  the emulator: wait_ns grows)
    unplug DEV                    ok unplugged=DEV (device_del, then the
                                  DEVICE_DELETED event, 10 s at most)
    relink DEV usb2|usb3 [rate=RATE] [discard=unmap|ignore]
                                  ok relinked=DEV bus=B rate=N: a USB link
                                  that resets and comes back at another
                                  speed (see below)
    quit                          ok bye, then the agent exits

DEV is the qdev id of the disk (uas0, usb0, ...); the agent finds its block
backend through query-blockstats, whose "qdev" is "uas0" for a scsi-hd but
"/machine/peripheral/usb0/usb0.0/legacy[0]" for usb-storage (QEMU 7.2).
Models are described in drivemodel.py.  With --temp-dir, a model with a
temperature (thermal, heat) writes it in degrees C, one line, to
DIR/temp-DEV each time it changes by 0.01 (replaced by rename, so a reader
never sees half a line); model-state names the file (temp_file=).  run-vm.sh
passes its output directory, which the guest sees at the same path, so
"blkfloor sustain --temp-file $BLKFLOOR_VM_DIR/out/temp-uas0" records the
model's temperature as it would a drive's.

relink emulates a USB link reset that comes back at another speed, for a
usb-storage (BOT) disk only: device_del unplugs it (the guest sees a
disconnect: the SCSI disk goes away and I/O in flight fails), the legacy
drive QEMU deleted with it is opened again with blockdev-add (same image,
node name drv-DEV, discard= as given, unmap by default), and device_add
plugs a usb-storage with the same id and serial into the EHCI controller
(usb2: bus ehci.0, the guest enumerates a new high-speed device at 480
Mb/s and a new sdX) or back into the xHCI (usb3: bus xhci.0, 5000 Mb/s).
QEMU's emulation does not follow the bus speed, so the new disk is also
throttled: rate= bytes/s both ways (default 35M for usb2, a USB 2 BOT
disk's real rate; 0, unlimited, for usb3).  A model on DEV is stopped
(the drive's state is lost with the reset); the counters start at zero.

The agent exits when either socket closes, on quit, and promptly on SIGTERM
or SIGINT.  A guest (or a test) can talk to it with

    rigctl.py --client [--port PATH] [--timeout S] CMD ARGS...

which prints the reply after ok/err and exits 0 (ok), 1 (err) or 3 (no
reply); PATH is the virtio port (default /dev/virtio-ports/org.blkfloor.rig)
or a unix socket.  Python starts slowly in a TCG guest over 9p (~2 s), so
guest shell tests may rather speak the protocol directly (dash has no
read -t; the agent answers every line, err included):

    rig() {
        t="@$$-$(date +%s%N)"
        exec 3<>"$BLKFLOOR_RIG"
        printf '%s %s\n' "$t" "$*" >&3
        while read -r tag st rest <&3; do
            [ "$tag" = "$t" ] && break
        done
        exec 3>&-
        echo "$rest"
        [ "$tag" = "$t" ] && [ "$st" = ok ]
    }

rigctl holds QEMU's only QMP connection while it runs; anything else that
needs QMP should get its own -qmp socket.
"""

import argparse
import json
import logging
import os
import select
import signal
import socket
import stat
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drivemodel  # noqa: E402

DEFAULT_PORT = '/dev/virtio-ports/org.blkfloor.rig'
MAX_LINE = 4096
UNPLUG_TIMEOUT = 10.0
# relink: the bus of each speed, and the rate a USB 2 BOT disk really gets
LINK_BUS = {'usb2': 'ehci.0', 'usb3': 'xhci.0'}
LINK_RATE = {'usb2': 35 * 10**6, 'usb3': 0}
# A model's own QMP calls wait this long: a guest that aborts or resets a
# command the bridge model holds makes QEMU cancel it synchronously, and
# QEMU answers nothing (QMP included) until the held command completes.
MODEL_QMP_TIMEOUT = 60.0

log = logging.getLogger('rigctl')


class QmpError(Exception):
    """QEMU answered a command with an error."""


class QmpClosed(Exception):
    """The QMP connection is gone (QEMU exited)."""


class Qmp:
    """A QMP client: one reader thread, any number of calling threads."""

    def __init__(self, sock, on_close=None):
        self.sock = sock
        self.rfile = sock.makefile('rb')
        self.on_close = on_close
        self.cond = threading.Condition()
        self.replies = {}
        self.events = []        # (seq, message), the last 256
        self.event_seq = 0
        self.next_id = 0
        self.closed = False
        self.send_lock = threading.Lock()
        self.reader = None

    def handshake(self, timeout=10.0):
        """Read the greeting, negotiate, start the reader thread."""
        self.sock.settimeout(timeout)
        try:
            line = self.rfile.readline()
        except OSError as e:
            raise QmpClosed(f'no QMP greeting: {e}') from None
        finally:
            self.sock.settimeout(None)
        if not line:
            raise QmpClosed('no QMP greeting')
        greeting = json.loads(line)
        if 'QMP' not in greeting:
            raise QmpError(f'not a QMP greeting: {line!r}')
        self.reader = threading.Thread(target=self._read, name='qmp-reader',
                                       daemon=True)
        self.reader.start()
        self.execute('qmp_capabilities', timeout=timeout)
        return greeting

    def _read(self):
        try:
            while True:
                line = self.rfile.readline()
                if not line:
                    break
                try:
                    msg = json.loads(line)
                except ValueError:
                    log.warning('qmp: bad line %r', line[:200])
                    continue
                with self.cond:
                    if 'event' in msg:
                        self.event_seq += 1
                        self.events.append((self.event_seq, msg))
                        del self.events[:-256]
                    elif 'id' in msg:
                        self.replies[msg['id']] = msg
                    self.cond.notify_all()
        except (OSError, ValueError) as e:
            log.info('qmp: read error: %s', e)
        with self.cond:
            self.closed = True
            self.cond.notify_all()
        log.info('qmp: connection closed')
        if self.on_close:
            self.on_close()

    def execute(self, command, args=None, timeout=10.0):
        """Run one command; return its "return" value."""
        with self.cond:
            if self.closed:
                raise QmpClosed('QMP connection closed')
            self.next_id += 1
            mid = f'rigctl-{self.next_id}'
        msg = {'execute': command, 'id': mid}
        if args:
            msg['arguments'] = args
        data = (json.dumps(msg) + '\n').encode()
        try:
            with self.send_lock:
                self.sock.sendall(data)
        except OSError as e:
            raise QmpClosed(f'QMP send failed: {e}') from None
        deadline = time.monotonic() + timeout
        with self.cond:
            while mid not in self.replies:
                if self.closed:
                    raise QmpClosed('QMP connection closed')
                left = deadline - time.monotonic()
                if left <= 0:
                    raise QmpError(f'{command}: no reply in {timeout} s')
                self.cond.wait(left)
            reply = self.replies.pop(mid)
        if 'error' in reply:
            err = reply['error']
            raise QmpError(err.get('desc') or err.get('class') or str(err))
        return reply.get('return')

    def event_mark(self):
        with self.cond:
            return self.event_seq

    def wait_event(self, mark, match, timeout):
        """Wait for an event after mark for which match(msg) is true."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for seq, msg in self.events:
                    if seq > mark and match(msg):
                        return msg
                if self.closed:
                    raise QmpClosed('QMP connection closed')
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)

    def close(self):
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


class RigError(Exception):
    """A request the agent refuses; the text goes after "err "."""


def find_blockstats(entries, dev):
    """Pick the query-blockstats (or query-block) entry of device dev.

    Matches the qdev id ("uas0"), a qdev path below /machine/peripheral/DEV
    (usb-storage's legacy scsi disk, virtio's virtio-backend), or the
    drive name (DEV itself or drv-DEV).
    """
    exact, below, drive = None, None, None
    prefix = f'/machine/peripheral/{dev}'
    for e in entries:
        qdev = e.get('qdev') or ''
        if qdev == dev or qdev == prefix:
            exact = exact or e
        elif qdev.startswith(prefix + '/'):
            below = below or e
        elif e.get('device') in (dev, f'drv-{dev}'):
            drive = drive or e
    return exact or below or drive


def throttle_target(entry):
    """block_set_io_throttle's device selector for an entry."""
    if entry.get('qdev'):
        return {'id': entry['qdev']}
    return {'device': entry['device']}


def throttle_args(entry, wr_bps, rd_bps):
    args = throttle_target(entry)
    args.update({'bps': 0, 'bps_rd': int(rd_bps), 'bps_wr': int(wr_bps),
                 'iops': 0, 'iops_rd': 0, 'iops_wr': 0})
    return args


class Controller(threading.Thread):
    """Feeds one device's counters to a model and applies its limits."""

    def __init__(self, agent, dev, model, poll):
        super().__init__(name=f'model-{dev}', daemon=True)
        self.agent = agent
        self.dev = dev
        self.model = model
        self.poll = poll
        self.stop_ev = threading.Event()
        self.lock = threading.Lock()
        self.applied = None
        self.polls = 0
        self.error = None
        self.base = None
        self.temp_file = None
        self.temp_written = None
        self.first_poll = threading.Event()
        if agent.temp_dir and hasattr(model, 'temperature'):
            self.temp_file = os.path.join(agent.temp_dir, f'temp-{dev}')

    def run(self):
        try:
            self._loop()
        except QmpClosed:
            self.error = 'qemu gone'
        except (QmpError, RigError) as e:
            self.error = str(e).replace(' ', '_')
            log.warning('%s: model stopped: %s', self.dev, e)

    def _loop(self):
        while not self.stop_ev.is_set():
            entry = self.agent.entry(self.dev, MODEL_QMP_TIMEOUT)
            st = entry.get('stats', {})
            now = time.monotonic()
            wr, un = st.get('wr_bytes', 0), st.get('unmap_bytes', 0)
            if self.base is None:
                self.base = (wr, un)
            with self.lock:
                lim = self.model.update(now, wr - self.base[0],
                                        un - self.base[1])
                want = (lim, self.model.read_limit)
                self.polls += 1
                hint = self.model.wake_in()
                temp = self.model.temperature() if self.temp_file else None
            if temp is not None:
                self.write_temp(temp)
            self.first_poll.set()
            if want != self.applied:
                self.agent.qmp.execute('block_set_io_throttle',
                                       throttle_args(entry, *want),
                                       timeout=MODEL_QMP_TIMEOUT)
                log.info('%s: %s wr=%d rd=%d written=%d', self.dev,
                         self.model.name, want[0], want[1],
                         wr - self.base[0])
                self.applied = want
            self.stop_ev.wait(min(self.poll, max(0.005, hint)))

    def write_temp(self, temp):
        text = f'{temp:.2f}'
        if text == self.temp_written:
            return
        tmp = self.temp_file + '.new'
        try:
            with open(tmp, 'w', encoding='ascii') as f:
                f.write(text + '\n')
            os.replace(tmp, self.temp_file)
            self.temp_written = text
        except OSError as e:
            log.warning('%s: %s: %s', self.dev, self.temp_file, e)

    def stop(self, timeout=2.0):
        self.stop_ev.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout)

    def state(self):
        with self.lock:
            st = self.model.state()
        st['applied_wr'] = self.applied[0] if self.applied else -1
        st['applied_rd'] = self.applied[1] if self.applied else -1
        st['polls'] = self.polls
        if self.temp_file:
            st['temp_file'] = self.temp_file
        if self.error:
            st['error'] = self.error
        return st


def _kv(d):
    return ' '.join(f'{k}={v}' for k, v in d.items())


class Agent:
    """The request handler; independent of the rig socket."""

    COMMANDS = ('ping', 'help', 'stats', 'throttle', 'model', 'model-state',
                'cpu', 'unplug', 'relink', 'quit')

    def __init__(self, qmp, poll=0.025, temp_dir=None):
        self.qmp = qmp
        self.poll = poll
        self.temp_dir = temp_dir
        self.controllers = {}
        self.quit = False
        self.threads = None

    def entry(self, dev, timeout=10.0):
        e = find_blockstats(self.qmp.execute('query-blockstats',
                                             timeout=timeout), dev)
        if e is None:
            raise RigError(f'no such device {dev}')
        return e

    def disk_size(self, dev):
        e = find_blockstats(self.qmp.execute('query-block'), dev)
        if e is None or 'inserted' not in e:
            return None
        return e['inserted'].get('image', {}).get('virtual-size')

    def handle(self, line):
        """Answer one request line; returns the reply without newline."""
        words = line.split()
        tag = ''
        if words and words[0].startswith('@'):
            tag = words.pop(0) + ' '
        try:
            reply = 'ok ' + self._dispatch(words)
        except RigError as e:
            reply = f'err {e}'
        except QmpError as e:
            reply = f'err qmp: {e}'
        except drivemodel.ModelError as e:
            reply = f'err {e}'
        except QmpClosed:
            self.quit = True
            reply = 'err qemu gone'
        except Exception as e:  # never let a request kill the agent
            log.exception('request %r', line)
            reply = f'err internal: {type(e).__name__}: {e}'
        return (tag + reply.rstrip()).replace('\n', ' ')

    def _dispatch(self, w):
        if not w:
            raise RigError('empty request')
        cmd, args = w[0], w[1:]
        fn = getattr(self, 'cmd_' + cmd.replace('-', '_'), None)
        if cmd not in self.COMMANDS or fn is None:
            raise RigError(f'unknown command {cmd}')
        return fn(args)

    @staticmethod
    def _nargs(args, lo, hi, usage):
        if not lo <= len(args) <= hi:
            raise RigError(f'usage: {usage}')

    def cmd_ping(self, args):
        self._nargs(args, 0, 0, 'ping')
        return 'pong'

    def cmd_help(self, args):
        return ' '.join(self.COMMANDS)

    def cmd_quit(self, args):
        self._nargs(args, 0, 0, 'quit')
        self.quit = True
        return 'bye'

    def cmd_stats(self, args):
        self._nargs(args, 1, 1, 'stats DEV')
        st = self.entry(args[0]).get('stats', {})
        size = self.disk_size(args[0])
        out = {
            'wr_bytes': st.get('wr_bytes', 0),
            'rd_bytes': st.get('rd_bytes', 0),
            'unmap_bytes': st.get('unmap_bytes', 0),
            'idle_time_ns': st.get('idle_time_ns', -1),
            'wr_ops': st.get('wr_operations', 0),
            'rd_ops': st.get('rd_operations', 0),
            'unmap_ops': st.get('unmap_operations', 0),
            'size': size if size is not None else -1,
        }
        return _kv(out)

    def _rate(self, text):
        try:
            return drivemodel.parse_rate(text)
        except drivemodel.ModelError as e:
            raise RigError(str(e)) from None

    def cmd_throttle(self, args):
        self._nargs(args, 2, 3, 'throttle DEV WR_BPS [RD_BPS]')
        dev = args[0]
        ctl = self.controllers.get(dev)
        if ctl and ctl.is_alive():
            raise RigError(f'model {ctl.model.name} drives {dev} '
                           f'(model {dev} off first)')
        wr = self._rate(args[1])
        rd = self._rate(args[2]) if len(args) > 2 else 0
        self.qmp.execute('block_set_io_throttle',
                         throttle_args(self.entry(dev), wr, rd))
        log.info('%s: throttle wr=%d rd=%d', dev, wr, rd)
        return f'wr_bps={wr} rd_bps={rd}'

    def stop_model(self, dev, lift=True):
        ctl = self.controllers.pop(dev, None)
        if ctl is None:
            return False
        ctl.stop()
        if lift and ctl.applied and ctl.applied != (0, 0):
            self.qmp.execute('block_set_io_throttle',
                             throttle_args(self.entry(dev), 0, 0))
        log.info('%s: model %s stopped', dev, ctl.model.name)
        return True

    def cmd_model(self, args):
        if len(args) < 2:
            raise RigError('usage: model DEV NAME [key=value...] | '
                           'model DEV off')
        dev, name, params = args[0], args[1], args[2:]
        if name == 'off':
            self._nargs(args, 2, 2, 'model DEV off')
            self.entry(dev)
            self.stop_model(dev)
            return 'model=off'
        defaults = {}
        size = self.disk_size(dev)
        if size:
            defaults['size'] = size
        model = drivemodel.make_model(name, params, defaults)
        self.entry(dev)
        self.stop_model(dev, lift=False)
        ctl = Controller(self, dev, model, self.poll)
        self.controllers[dev] = ctl
        ctl.start()
        # the model starts at its first poll: until then it has no state
        # (and no temperature file) to show
        ctl.first_poll.wait(2.0)
        log.info('%s: model %s %s', dev, name, model.params_text())
        return f'model={name} {model.params_text()}'

    def cmd_model_state(self, args):
        self._nargs(args, 1, 1, 'model-state DEV')
        ctl = self.controllers.get(args[0])
        if ctl is None:
            self.entry(args[0])
            return 'model=off'
        return _kv(ctl.state())

    def emulator_threads(self):
        """QEMU's vCPU threads and its main thread (the main loop runs
        the block layer's throttle timers and completions)."""
        if self.threads is None:
            cpus = self.qmp.execute('query-cpus-fast')
            tids = [c['thread-id'] for c in cpus if 'thread-id' in c]
            if not tids:
                raise RigError('query-cpus-fast gave no vCPU thread ids')
            # the vCPU threads belong to QEMU's process: its pid is the
            # main thread's id
            with open(f'/proc/{tids[0]}/status', encoding='ascii') as f:
                tgid = [int(line.split()[1]) for line in f
                        if line.startswith('Tgid:')]
            self.threads = sorted(set(tids + tgid))
        return self.threads

    def cmd_cpu(self, args):
        self._nargs(args, 0, 0, 'cpu')
        run = wait = 0
        try:
            for tid in self.emulator_threads():
                with open(f'/proc/{tid}/schedstat', encoding='ascii') as f:
                    r, w = f.read().split()[:2]
                run += int(r)
                wait += int(w)
        except (OSError, ValueError) as e:
            raise RigError(f'no schedstat for QEMU: {e}') from None
        return _kv({'host_ns': time.monotonic_ns(),
                    'threads': len(self.threads), 'run_ns': run,
                    'wait_ns': wait})

    def cmd_unplug(self, args):
        self._nargs(args, 1, 1, 'unplug DEV')
        dev = args[0]
        self.stop_model(dev, lift=False)
        mark = self.qmp.event_mark()
        self.qmp.execute('device_del', {'id': dev})
        ev = self.qmp.wait_event(
            mark, lambda m: m.get('event') == 'DEVICE_DELETED' and
            m.get('data', {}).get('device') == dev, UNPLUG_TIMEOUT)
        if ev is None:
            raise RigError(f'no DEVICE_DELETED for {dev} in '
                           f'{UNPLUG_TIMEOUT:g} s')
        log.info('%s: unplugged', dev)
        return f'unplugged={dev}'

    def cmd_relink(self, args):
        usage = 'relink DEV usb2|usb3 [rate=RATE] [discard=unmap|ignore]'
        self._nargs(args, 2, 4, usage)
        dev, speed = args[0], args[1]
        if speed not in LINK_BUS:
            raise RigError(f'usage: {usage}')
        rate, discard = LINK_RATE[speed], 'unmap'
        for kv in args[2:]:
            key, _, value = kv.partition('=')
            if key == 'rate':
                rate = self._rate(value)
            elif key == 'discard' and value in ('unmap', 'ignore'):
                discard = value
            else:
                raise RigError(f'usage: {usage}')
        blk = find_blockstats(self.qmp.execute('query-block'), dev)
        if blk is None or 'inserted' not in blk:
            raise RigError(f'no such device {dev}')
        prefix = f'/machine/peripheral/{dev}/'
        if not (blk.get('qdev') or '').startswith(prefix):
            raise RigError(f'{dev} is not a usb-storage disk (relink '
                           'moves a BOT disk between controllers)')
        image = blk['inserted'].get('image', {}).get('filename') or \
            blk['inserted'].get('file')
        serial = self.qmp.execute('qom-get', {'path': f'/machine/peripheral/'
                                              f'{dev}', 'property':
                                              'serial'})
        self.stop_model(dev, lift=False)
        mark = self.qmp.event_mark()
        self.qmp.execute('device_del', {'id': dev})
        ev = self.qmp.wait_event(
            mark, lambda m: m.get('event') == 'DEVICE_DELETED' and
            m.get('data', {}).get('device') == dev, UNPLUG_TIMEOUT)
        if ev is None:
            raise RigError(f'no DEVICE_DELETED for {dev} in '
                           f'{UNPLUG_TIMEOUT:g} s')
        node = f'drv-{dev}'
        # a node of ours from an earlier relink goes with the device too
        # (auto-deleted legacy drives do; blockdev-add nodes do not)
        nodes = [n.get('node-name') for n in
                 self.qmp.execute('query-named-block-nodes')]
        if node in nodes:
            self.qmp.execute('blockdev-del', {'node-name': node})
        self.qmp.execute('blockdev-add', {
            'driver': 'raw', 'node-name': node, 'discard': discard,
            'cache': {'direct': False, 'no-flush': True},
            'file': {'driver': 'file', 'filename': image,
                     'aio': 'threads'}})
        self.qmp.execute('device_add', {
            'driver': 'usb-storage', 'bus': LINK_BUS[speed], 'drive': node,
            'id': dev, 'serial': serial})
        self.qmp.execute('block_set_io_throttle',
                         throttle_args(self.entry(dev), rate, rate))
        log.info('%s: relinked on %s (%s), rate %d', dev, LINK_BUS[speed],
                 speed, rate)
        return f'relinked={dev} bus={LINK_BUS[speed]} rate={rate}'

    def shutdown(self):
        for dev in list(self.controllers):
            ctl = self.controllers.pop(dev)
            ctl.stop(timeout=1.0)


def serve(agent, rig):
    """Answer requests from the rig socket until EOF or quit."""
    rfile = rig.makefile('rb')
    while not agent.quit:
        line = rfile.readline(MAX_LINE + 1)
        if not line:
            log.info('rig: connection closed')
            return
        if not line.endswith(b'\n'):
            if len(line) > MAX_LINE:
                while line and not line.endswith(b'\n'):
                    line = rfile.readline(MAX_LINE + 1)
                rig.sendall(b'err request too long\n')
                continue
            log.info('rig: connection closed mid-line')
            return
        text = line.decode('utf-8', 'replace').strip()
        if not text:
            continue
        reply = agent.handle(text)
        log.info('rig: %s -> %s', text, reply)
        try:
            rig.sendall(reply.encode() + b'\n')
        except OSError as e:
            log.info('rig: send failed: %s', e)
            return


def connect_unix(path, timeout):
    """Connect to a unix socket, retrying until timeout seconds passed."""
    deadline = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError as e:
            s.close()
            if time.monotonic() >= deadline:
                raise OSError(f'cannot connect to {path}: {e}') from None
            time.sleep(0.1)


class _Terminate(Exception):
    pass


def _on_signal(signum, frame):
    raise _Terminate(signal.Signals(signum).name)


def run_agent(opts):
    qsock = connect_unix(opts.qmp, opts.connect_timeout)
    rig = None

    def on_qmp_close():
        if rig is not None:
            try:
                rig.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    qmp = Qmp(qsock, on_close=on_qmp_close)
    agent = None
    try:
        greeting = qmp.handshake(opts.connect_timeout)
        ver = greeting['QMP'].get('version', {}).get('qemu', {})
        log.info('qmp: connected to QEMU %s.%s.%s', ver.get('major'),
                 ver.get('minor'), ver.get('micro'))
        rig = connect_unix(opts.rig, opts.connect_timeout)
        if qmp.closed:
            return 1
        log.info('rig: connected to %s', opts.rig)
        agent = Agent(qmp, opts.poll, opts.temp_dir)
        serve(agent, rig)
        return 0
    except _Terminate as e:
        log.info('exiting on %s', e)
        return 0
    except (QmpClosed, QmpError, OSError) as e:
        log.error('%s', e)
        return 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if agent:
            agent.shutdown()
        if rig is not None:
            rig.close()
        qmp.close()


def run_client(opts):
    """Send one request to the agent, print the reply; 0 ok, 1 err, 3."""
    words = opts.request
    if not words:
        print('rigctl: no request', file=sys.stderr)
        return 2
    tag = f'@{os.getpid()}-{time.monotonic_ns() % 10**9}'
    req = (tag + ' ' + ' '.join(words) + '\n').encode()
    path = opts.port
    try:
        if stat.S_ISSOCK(os.stat(path).st_mode):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            fd = s.detach()
        else:
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError as e:
        print(f'rigctl: {path}: {e}', file=sys.stderr)
        return 3
    try:
        os.write(fd, req)
        buf = b''
        deadline = time.monotonic() + opts.timeout
        while True:
            while b'\n' in buf:
                line, buf = buf.split(b'\n', 1)
                words = line.decode('utf-8', 'replace').split(None, 1)
                if not words or words[0] != tag:
                    continue        # a stale reply to someone else
                rest = words[1] if len(words) > 1 else ''
                status, _, text = rest.partition(' ')
                if status == 'ok':
                    print(text)
                    return 0
                print(f'rigctl: {text}', file=sys.stderr)
                return 1
            left = deadline - time.monotonic()
            if left <= 0:
                print(f'rigctl: no reply in {opts.timeout:g} s',
                      file=sys.stderr)
                return 3
            r, _, _ = select.select([fd], [], [], left)
            if r:
                data = os.read(fd, 65536)
                if not data:
                    print('rigctl: agent closed the connection',
                          file=sys.stderr)
                    return 3
                buf += data
    except OSError as e:
        print(f'rigctl: {path}: {e}', file=sys.stderr)
        return 3
    finally:
        os.close(fd)


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog='rigctl.py', description='Host agent of the blkfloor QEMU rig '
        '(drive models, throttling, unplug), or its client with --client.')
    ap.add_argument('--qmp', help='QEMU QMP unix socket')
    ap.add_argument('--rig', help='socket chardev of the guest port')
    ap.add_argument('--log', help='log file (default: stderr)')
    ap.add_argument('--temp-dir', help='write the temperature of a model '
                    'that has one to DIR/temp-DEV')
    ap.add_argument('--poll', type=float, default=0.025,
                    help='model poll period in seconds (default 0.025)')
    ap.add_argument('--connect-timeout', type=float, default=10.0,
                    help='seconds to keep retrying the sockets (default 10)')
    ap.add_argument('--client', action='store_true',
                    help='send one request and print the reply')
    ap.add_argument('--port', default=DEFAULT_PORT,
                    help=f'client: port or socket (default {DEFAULT_PORT})')
    ap.add_argument('--timeout', type=float, default=30.0,
                    help='client: seconds to wait for the reply')
    ap.add_argument('request', nargs=argparse.REMAINDER,
                    help='client: the request, e.g. stats uas0')
    opts = ap.parse_args(argv)
    if not opts.client and (not opts.qmp or not opts.rig or opts.request):
        ap.error('the agent needs --qmp and --rig (or use --client)')
    if opts.poll <= 0:
        ap.error('--poll must be > 0')
    return opts


def main(argv=None):
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    if opts.client:
        return run_client(opts)
    logging.basicConfig(
        filename=opts.log, level=logging.INFO,
        format='%(asctime)s.%(msecs)03d %(threadName)s: %(message)s',
        datefmt='%H:%M:%S')
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    try:
        return run_agent(opts)
    except _Terminate:
        return 0
    except OSError as e:
        log.error('%s', e)
        return 1


if __name__ == '__main__':
    sys.exit(main())
