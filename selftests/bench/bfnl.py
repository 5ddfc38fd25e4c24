# SPDX-License-Identifier: GPL-2.0
"""Minimal raw generic-netlink client for the blkfloor family.

make bench drives blkfloor.ko through this rather than the CLI so that the
benchmark depends only on the ABI (include/uapi/linux/blkfloor.h), and so
that the driver process itself stays idle while a run is measured. Only what
the benchmark needs: start a run, poll it, dump its intervals.
"""

import errno
import os
import re
import socket
import struct

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_ACK_TLVS = 0x200
NLMSGERR_ATTR_MSG = 1
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2


def _uapi_enums():
    """Parse the enums and flags this client needs from the uapi header."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "include", "uapi", "linux",
                        "blkfloor.h")
    vals = {}
    enum = None
    nxt = 0
    with open(path) as f:
        for line in f:
            s = line.split("/*")[0].strip()
            if s.startswith("enum "):
                enum, nxt = s.split()[1], 0
                continue
            if enum and s.startswith("}"):
                enum = None
                continue
            if enum and s and (s[0].isalpha() or s[0] == "_"):
                name = s.rstrip(",").split("=")[0].strip()
                if "=" in s:
                    expr = s.rstrip(",").split("=", 1)[1].strip()
                    val = eval(re.sub(r"(\d)U", r"\1", expr), {}, dict(vals))
                else:
                    val = nxt
                vals[name] = val
                nxt = val + 1
    return vals


C = _uapi_enums()

U8, U32, U64, STR, S32 = "B", "I", "Q", "s", "i"
# Attribute types the replies carry that we decode.
_RUN_ATTRS = {
    "BLKFLOOR_A_RUN_ID": U32, "BLKFLOOR_A_STATE": U32,
    "BLKFLOOR_A_ERRNO": S32, "BLKFLOOR_A_ELAPSED_NS": U64,
    "BLKFLOOR_A_BYTES": U64, "BLKFLOOR_A_IOS": U64,
    "BLKFLOOR_A_ERRORS": U64, "BLKFLOOR_A_INTERVALS": U64,
    "BLKFLOOR_A_DROPPED": U64, "BLKFLOOR_A_VERSION": STR,
}
_IV_ATTRS = {
    "BLKFLOOR_IV_A_INDEX": U64, "BLKFLOOR_IV_A_START_NS": U64,
    "BLKFLOOR_IV_A_END_NS": U64, "BLKFLOOR_IV_A_BYTES": U64,
    "BLKFLOOR_IV_A_IOS": U64, "BLKFLOOR_IV_A_BYTES_TOTAL": U64,
}


class NlError(Exception):
    def __init__(self, err, msg):
        super().__init__("%s%s" % (os.strerror(err),
                                   (": kernel reports: " + msg) if msg else ""))
        self.errno = err


def _attr(atype, fmt, val):
    if fmt == STR:
        data = val.encode() + b"\0"
    else:
        data = struct.pack("=" + fmt, val)
    hdr = struct.pack("=HH", 4 + len(data), atype)
    return hdr + data + b"\0" * ((4 - len(data) % 4) % 4)


def _parse_attrs(buf):
    out = {}
    off = 0
    while off + 4 <= len(buf):
        alen, atype = struct.unpack_from("=HH", buf, off)
        if alen < 4:
            break
        out.setdefault(atype & 0x3fff, []).append(buf[off + 4:off + alen])
        off += (alen + 3) & ~3
    return out


def _decode(raw, table):
    res = {}
    for name, fmt in table.items():
        vals = raw.get(C[name])
        if not vals:
            continue
        v = vals[0]
        if fmt == STR:
            res[name] = v.split(b"\0")[0].decode()
        else:
            res[name] = struct.unpack_from("=" + fmt, v)[0]
    return res


class Blkfloor:
    """A generic-netlink socket bound to the blkfloor family."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.bind((0, 0))
        for opt in (NETLINK_CAP_ACK, NETLINK_EXT_ACK):
            try:
                self.sock.setsockopt(SOL_NETLINK, opt, 1)
            except OSError:
                pass
        self.seq = 0
        msgs = self._request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0,
                             _attr(CTRL_ATTR_FAMILY_NAME, STR,
                                   C.get("BLKFLOOR_FAMILY_NAME", "blkfloor")))
        self.family = struct.unpack_from(
            "=H", msgs[0][CTRL_ATTR_FAMILY_ID][0])[0]

    def close(self):
        self.sock.close()

    def _request(self, family, cmd, flags, payload):
        self.seq += 1
        body = struct.pack("=BBH", cmd, 1, 0) + payload
        hdr = struct.pack("=IHHII", 16 + len(body), family,
                          NLM_F_REQUEST | NLM_F_ACK | flags, self.seq, 0)
        self.sock.send(hdr + body)
        msgs = []
        while True:
            data = self.sock.recv(1 << 20)
            off = 0
            while off + 16 <= len(data):
                mlen, mtype, mflags, mseq, _ = struct.unpack_from(
                    "=IHHII", data, off)
                msg = data[off:off + mlen]
                off += (mlen + 3) & ~3
                if mseq != self.seq:
                    continue
                if mtype == NLMSG_DONE:
                    return msgs
                if mtype == NLMSG_ERROR:
                    err = -struct.unpack_from("=i", msg, 16)[0]
                    if err == 0:
                        return msgs
                    text = ""
                    if mflags & NLM_F_ACK_TLVS:
                        ohdr_len = struct.unpack_from("=I", msg, 20)[0]
                        tlv_off = 20 + (16 if (mflags & 0x100) else
                                        (ohdr_len + 3) & ~3)
                        tlvs = _parse_attrs(msg[tlv_off:])
                        if NLMSGERR_ATTR_MSG in tlvs:
                            text = tlvs[NLMSGERR_ATTR_MSG][0].split(
                                b"\0")[0].decode()
                    raise NlError(err, text)
                msgs.append(_parse_attrs(msg[20:]))

    def start(self, path, op="read", random=True, bs=4096, qd=32,
              time_s=None, interval_ns=None, ring=None, rate_bps=None,
              flags=0, seed=1, data=None):
        """Start a run; returns its id. The run stops if this socket closes.
        data: a BLKFLOOR_DATA_* suffix ("shared", ...), else the default."""
        ops = {"read": C["BLKFLOOR_OP_READ"], "write": C["BLKFLOOR_OP_WRITE"]}
        fl = flags | C["BLKFLOOR_F_OWNER"]
        if op != "read":
            fl |= C["BLKFLOOR_F_DESTRUCTIVE"]
        a = _attr(C["BLKFLOOR_A_DEV_PATH"], STR, path)
        a += _attr(C["BLKFLOOR_A_OP"], U32, ops[op])
        a += _attr(C["BLKFLOOR_A_PATTERN"], U32,
                   C["BLKFLOOR_PATTERN_RANDOM" if random else
                     "BLKFLOOR_PATTERN_SEQ"])
        a += _attr(C["BLKFLOOR_A_BS"], U32, bs)
        a += _attr(C["BLKFLOOR_A_QD"], U32, qd)
        a += _attr(C["BLKFLOOR_A_SEED"], U64, seed)
        a += _attr(C["BLKFLOOR_A_FLAGS"], U32, fl)
        if time_s:
            a += _attr(C["BLKFLOOR_A_MAX_TIME_NS"], U64, int(time_s * 1e9))
        if interval_ns:
            a += _attr(C["BLKFLOOR_A_INTERVAL_NS"], U64, int(interval_ns))
        if ring:
            a += _attr(C["BLKFLOOR_A_RING"], U32, ring)
        if rate_bps:
            a += _attr(C["BLKFLOOR_A_RATE_BPS"], U64, int(rate_bps))
        if data:
            a += _attr(C["BLKFLOOR_A_DATA"], U32,
                       C["BLKFLOOR_DATA_" + data.upper()])
        msgs = self._request(self.family, C["BLKFLOOR_CMD_RUN_START"], 0, a)
        if not msgs:
            raise NlError(errno.EPROTO, "RUN_START: no reply")
        return _decode(msgs[0], _RUN_ATTRS)["BLKFLOOR_A_RUN_ID"]

    def get(self, run_id):
        """The run as RUN_GET reports it, keys without the prefix."""
        msgs = self._request(self.family, C["BLKFLOOR_CMD_RUN_GET"], 0,
                             _attr(C["BLKFLOOR_A_RUN_ID"], U32, run_id))
        d = _decode(msgs[0], _RUN_ATTRS)
        return {k[len("BLKFLOOR_A_"):].lower(): v for k, v in d.items()}

    def running(self, state):
        return state == C["BLKFLOOR_STATE_RUNNING"]

    def intervals(self, run_id):
        """Closed intervals still in the ring, oldest first."""
        msgs = self._request(self.family, C["BLKFLOOR_CMD_INTERVAL_GET"],
                             NLM_F_DUMP,
                             _attr(C["BLKFLOOR_A_RUN_ID"], U32, run_id))
        out = []
        for m in msgs:
            nest = m.get(C["BLKFLOOR_A_INTERVAL"])
            if not nest:
                continue
            d = _decode(_parse_attrs(nest[0]), _IV_ATTRS)
            out.append({k[len("BLKFLOOR_IV_A_"):].lower(): v
                        for k, v in d.items()})
        return out

    def info(self):
        msgs = self._request(self.family, C["BLKFLOOR_CMD_INFO_GET"], 0, b"")
        return _decode(msgs[0], _RUN_ATTRS).get("BLKFLOOR_A_VERSION", "?")
