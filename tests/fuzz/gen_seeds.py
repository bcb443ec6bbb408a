#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/).

Valid inputs for each target's input format (see the comment at the top of
each fuzz_*.c): hellos and framed messages, rdx-perf command lines, WQEs of
every opcode for the software device, CQE rings for the mlx5 decoder. The
files are checked in; run this again after changing an input format:
    python3 tests/fuzz/gen_seeds.py
`--check` writes them to a scratch directory instead and fails, naming
them, when a checked-in seed or dictionary differs (the test fuzz_seeds: a
wire version bump once left every conn seed with a hello the decoder
refused, so no seed reached the message decoder).
Layouts are those of rdma-core's mlx5dv.h (struct mlx5_wqe_*_seg,
struct mlx5_cqe64 / mlx5_err_cqe offsets: imm 36, byte_cnt 44,
sop_drop_qpn / s_wqe_opcode_qpn 56, syndrome 55, wqe_counter 60, op_own 63).
"""
import os
import shutil
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def wire_version():
    """RDX_WIRE_VERSION of config/rdx_config.h: a hello of another version
    is refused before any message, so the seeds must carry this one."""
    with open(os.path.join(HERE, '..', '..', 'config', 'rdx_config.h')) as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[:2] == ['#define', 'RDX_WIRE_VERSION']:
                return int(w[2])
    raise SystemExit('gen_seeds.py: RDX_WIRE_VERSION not found in config/rdx_config.h')


WIRE = wire_version()
OUT = HERE  # where write() and gen_dicts() put the files (--check: a scratch dir)


def write(target, name, data):
    d = os.path.join(OUT, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'seed-' + name), 'wb') as f:
        f.write(data)


# ------------------------------------------------------------------ conn
def hello(wire=WIRE, version=b'0.1.0', magic=b'RDX1'):
    return magic + struct.pack('>I', wire) + version.ljust(16, b'\0')[:16]


def msg(mtype, payload):
    return struct.pack('>II', mtype, len(payload)) + payload


def conn_in(op, mtype, mlen, stream):
    return bytes([op]) + struct.pack('>IH', mtype, mlen) + stream


def gen_conn():
    write('conn', 'hello', conn_in(0, 0, 0, hello()))
    write('conn', 'hello-v2', conn_in(0, 0, 0, hello(wire=WIRE + 1, version=b'0.2.0')))
    write('conn', 'hello-bad-magic', conn_in(0, 0, 0, hello(magic=b'HTTP')))
    write('conn', 'hello-short', conn_in(0, 0, 0, hello()[:10]))
    write('conn', 'recv', conn_in(1, 5, 8, hello() + msg(5, b'12345678')))
    write('conn', 'recv-empty', conn_in(1, 9, 0, hello() + msg(9, b'')))
    write('conn', 'recv-wrong-type', conn_in(1, 5, 8, hello() + msg(6, b'12345678')))
    write('conn', 'recv-wrong-len', conn_in(1, 5, 8, hello() + msg(5, b'1234')))
    write('conn', 'recv-huge-len', conn_in(1, 5, 8, hello() + struct.pack('>II', 5, 0xffffffff)))
    write('conn', 'recv-truncated', conn_in(1, 5, 64, hello() + msg(5, bytes(64))[:40]))
    write('conn', 'exchange', conn_in(2, 3, 16, hello() + msg(3, bytes(range(16)))))
    write('conn', 'exchange-mismatch', conn_in(2, 3, 16, hello() + msg(4, bytes(300))))
    write('conn', 'resync', conn_in(3, 7, 4, msg(8, b'abcdefgh') + msg(7, b'wxyz')))
    # op 5, the non-blocking side: chunk size 1 + (type ^ len) % 97
    write('conn', 'nb-msg', conn_in(5, 5, 8, hello() + msg(5, b'12345678')))
    write('conn', 'nb-msg-1byte', conn_in(5, 0, 0, hello() + msg(0, b'')))
    write('conn', 'nb-hello-short', conn_in(5, 3, 16, hello()[:10]))
    write('conn', 'nb-stray', conn_in(5, 3, 16, b'GET / HTTP/1.0\r\n\r\n'))
    write('conn', 'nb-msg-wrong-len', conn_in(5, 3, 16, hello() + msg(3, bytes(8))))
    write('conn', 'nb-msg-truncated', conn_in(5, 3, 136, hello() + msg(3, bytes(136))[:100]))
    for i, s in enumerate([b'127.0.0.1:18515', b'[::1]:80', b'host:65535', b'host:0',
                           b'[fe80::1%eth0]:1', b'a:b:c']):
        write('conn', 'hostport-%d' % i, conn_in(4, 0, 0, s))


# ------------------------------------------------------------- perf_opts
def gen_opts():
    lines = [
        ['--test', 'write', '--mode', 'bw', '-s', '64K', '-n', '1000'],
        ['--test', 'echo', '--servers', '4', '--concurrent-ops', '8', '--loopback'],
        ['--test', 'read', '--sizes', '8,64,4K,1M', '-q', '16', '--qp-sweep', '1-64*2'],
        ['--test', 'cas', '-s', '8', '--keys', '1024', '--connect', 'host:1'],
        ['--test', 'faa', '-D', '2.5s', '--warmup', '0.5s', '--server', '-p', '9000'],
        ['--test', 'send', '-a', '-t', '128', '-l', '16', '-Q', '8', '-I', '64', '-e'],
        ['--test', 'write_imm', '-m', '1024', '-r', '256', '--mem', 'huge', '--verify'],
        ['--test', 'write', '--driver', 'sw', '--dev', 'sw', '--sw-progress', 'thread',
         '--loopback', '--loopback-lcores', 'split', '--bootstrap-timeout', '3'],
        ['--test', 'write', '--json', 'out.json', '--csv', 'out.csv', '-o', 'wr.log',
         '--label', 'x', '--report_gbits', '--inject-bad-rkey'],
        ['--test=read', '-s64', '-abc', '--', 'extra'],
        ['--help'],
        ['-n', '5', '-D', '1'],
        ['--test', 'echo', '--servers', '2', '-q', '3'],
        # perftest's flags (opts_compat.c)
        ['--test', 'write', '-d', 'sw', '-i', '1', '-x', '3', '-F', '-c', 'UD', '-p', '7', 'host'],
        ['--test', 'read', '--mode', 'bw', '-b', '--output=bandwidth', '--out_json',
         '--out_json_file', 'o.json', '--verbose', '--clusterperf'],
        ['--test', 'write', '--mode', 'bw', '--rate-sweep', '1K,2.5K,1M', '--run_infinitely', '-D', '1'],
        ['--test', 'send', '--rate', '20K', '-R', '-C', '--rate_limit=5', '-V'],
    ]
    for i, argv in enumerate(lines):
        write('perf_opts', '%02d' % i, b'\0'.join(a.encode() for a in argv))


# ---------------------------------------------------------------- sw_wqe
# What fuzz_sw_wqe's setup gives (RDX_FUZZ_VERBOSE=1 prints it): QPN A 0x100,
# B 0x101; keys: 0x2 shared-segment region (iova 0x10000000), 0x103 process
# memory (iova 0x20000000), 0x204 process memory remote-read only
# (iova 0x30000000); 4096 bytes each; B's RQ 4 x 32 B (2 SGEs).
K_SHM, K_LOC, K_RO = 0x2, 0x103, 0x204
A_SHM, A_LOC, A_RO = 0x10000000, 0x20000000, 0x30000000
QPN_A = 0x100
CQ_UPDATE = 0x08
OP = dict(nop=0x00, write=0x08, write_imm=0x09, send=0x0a, send_imm=0x0b, read=0x10,
          cas=0x11, faa=0x12)


def ctrl(opcode, ds, idx=0, fm=CQ_UPDATE, imm=0, qpn=QPN_A):
    return struct.pack('>IIBBBBI', (idx & 0xffff) << 8 | opcode, qpn << 8 | ds, 0, 0, 0, fm, imm)


def raddr(addr, rkey):
    return struct.pack('>QII', addr, rkey, 0)


def dseg(length, lkey, addr):
    return struct.pack('>IIQ', length, lkey, addr)


def inl(data):
    b = struct.pack('>I', 0x80000000 | len(data)) + data
    return b + bytes(-len(b) % 16)


def atomic(swap_add, compare):
    return struct.pack('>QQ', swap_add, compare)


def wqe(op, segs, **kw):
    body = b''.join(segs)
    ds = 1 + len(body) // 16
    w = ctrl(OP[op], ds, **kw) + body
    return w + bytes(-len(w) % 64)


def rq_wqe(segs):
    w = b''.join(segs)
    if len(w) < 32:
        w += dseg(0, 0x100, 0)  # MLX5_INVALID_LKEY terminator
    return w.ljust(32, b'\0')


def sw_in(sq, rq=b'', rq_db=0, fixup=True, bf=False, pi=0, db=b'', room=64, ud=False):
    flags = (1 if fixup else 0) | (2 if bf else 0) | (rq_db << 4)
    flags |= {64: 0, 4: 1, 2: 2, 1: 3}[room] << 2  # CQEs the CQ has room for
    return (bytes([flags, len(rq) // 16 | (0x80 if ud else 0)]) + struct.pack('>H', pi) +
            db.ljust(8, b'\0')[:8] + rq + sq)


def dgram(qkey=0, dqpn=0, sl=0, rlid=0, grh=True, flow=0):
    """A datagram segment (struct mlx5_wqe_av, 48 B). In UD mode with fixup
    the harness fills rgid bytes 8..15 (the device's pid and sequence) and a
    zero remote QPN / Q_Key (B's, FZ_QKEY)."""
    rgid = bytes([0xfe, 0x80]) + bytes(14)
    return (struct.pack('>IIIBBH', qkey, 0, 0x80000000 | dqpn, sl, 0, rlid) + bytes(4) +
            bytes(6) + bytes([0, 64]) + struct.pack('>I', (0x40000000 if grh else 0) | flow) +
            rgid)


def gen_sw():
    w64 = [raddr(A_SHM + 128, K_SHM), dseg(64, K_LOC, A_LOC)]
    recv = rq_wqe([dseg(4096, K_SHM, A_SHM)])
    write('sw_wqe', 'nop', sw_in(wqe('nop', [])))
    write('sw_wqe', 'write', sw_in(wqe('write', w64)))
    write('sw_wqe', 'write-bf', sw_in(wqe('write', w64), bf=True))
    write('sw_wqe', 'write-2sge', sw_in(wqe('write', [raddr(A_SHM, K_SHM), dseg(8, K_LOC, A_LOC),
                                                      dseg(100, K_SHM, A_SHM + 1000)])))
    write('sw_wqe', 'write-inline', sw_in(wqe('write', [raddr(A_SHM + 8, K_SHM),
                                                        inl(b'inline payload 32 bytes long....')])))
    write('sw_wqe', 'write-imm', sw_in(wqe('write_imm', w64, imm=0x01020304), rq=recv, rq_db=1))
    write('sw_wqe', 'read', sw_in(wqe('read', [raddr(A_RO, K_RO), dseg(256, K_SHM, A_SHM)])))
    write('sw_wqe', 'send', sw_in(wqe('send', [dseg(100, K_LOC, A_LOC)]), rq=recv, rq_db=1))
    write('sw_wqe', 'send-imm-inline', sw_in(wqe('send_imm', [inl(b'hi there')], imm=7),
                                             rq=recv + rq_wqe([dseg(8, K_LOC, A_LOC),
                                                               dseg(8, K_SHM, A_SHM)]), rq_db=2))
    write('sw_wqe', 'send-no-recv', sw_in(wqe('send', [dseg(100, K_LOC, A_LOC)])))
    write('sw_wqe', 'send-small-recv', sw_in(wqe('send', [dseg(100, K_LOC, A_LOC)]),
                                             rq=rq_wqe([dseg(10, K_SHM, A_SHM)]), rq_db=1))
    write('sw_wqe', 'cas', sw_in(wqe('cas', [raddr(A_SHM + 64, K_SHM), atomic(5, 0),
                                             dseg(8, K_LOC, A_LOC + 8)])))
    write('sw_wqe', 'faa', sw_in(wqe('faa', [raddr(A_LOC + 16, K_LOC), atomic(1, 0),
                                             dseg(8, K_SHM, A_SHM + 8)])))
    write('sw_wqe', 'bad-rkey', sw_in(wqe('write', [raddr(A_SHM, 0x999), dseg(8, K_LOC, A_LOC)])))
    write('sw_wqe', 'write-ro', sw_in(wqe('write', [raddr(A_RO, K_RO), dseg(8, K_LOC, A_LOC)])))
    write('sw_wqe', 'oob', sw_in(wqe('write', [raddr(A_SHM + 4090, K_SHM), dseg(8, K_LOC, A_LOC)])))
    write('sw_wqe', 'chain', sw_in(wqe('write', w64, fm=0) + wqe('nop', [], fm=0) +
                                   wqe('read', [raddr(A_LOC, K_LOC), dseg(64, K_SHM, A_SHM)]) +
                                   wqe('send', [dseg(16, K_LOC, A_LOC)]) +
                                   wqe('faa', [raddr(A_SHM, K_SHM), atomic(3, 0),
                                               dseg(8, K_LOC, A_LOC)]),
                                   rq=recv, rq_db=1))
    # the CQ nearly full: overrun (QP to error), flushes paused
    chain = (wqe('write', w64) + wqe('nop', []) + wqe('send', [dseg(16, K_LOC, A_LOC)]) +
             wqe('read', [raddr(A_LOC, K_LOC), dseg(64, K_SHM, A_SHM)]))
    write('sw_wqe', 'cq-room-1', sw_in(chain, rq=recv, rq_db=1, room=1))
    write('sw_wqe', 'cq-room-2', sw_in(chain, rq=recv, rq_db=1, room=2))
    write('sw_wqe', 'cq-room-4-error', sw_in(wqe('write', [raddr(A_SHM, 0x999),
                                                           dseg(8, K_LOC, A_LOC)]) + chain,
                                             rq=recv, rq_db=1, room=4))
    # raw mode: the harness leaves idx/QPN alone; doorbell = ctrl bytes 0..7
    w = wqe('write', w64)
    write('sw_wqe', 'raw-write', sw_in(w, fixup=False, pi=1, db=w[:8]))
    w = wqe('nop', [], idx=0) + wqe('nop', [], idx=1)
    write('sw_wqe', 'raw-two-nops', sw_in(w, fixup=False, pi=2, db=w[64:72]))
    # UD mode (A, B two UD QPs): delivered, inline with immediate, no
    # receive, wrong Q_Key, no GRH (malformed), receive too small, above the MTU
    urecv = rq_wqe([dseg(4096, K_SHM, A_SHM)])
    write('sw_wqe', 'ud-send', sw_in(wqe('send', [dgram(sl=3), dseg(100, K_LOC, A_LOC)]),
                                     rq=urecv, rq_db=1, ud=True))
    write('sw_wqe', 'ud-send-imm-inline', sw_in(wqe('send_imm', [dgram(), inl(b'datagram')],
                                                    imm=9), rq=urecv, rq_db=1, ud=True))
    write('sw_wqe', 'ud-no-recv', sw_in(wqe('send', [dgram(), dseg(100, K_LOC, A_LOC)]), ud=True))
    write('sw_wqe', 'ud-bad-qkey', sw_in(wqe('send', [dgram(qkey=5), dseg(10, K_LOC, A_LOC)]),
                                         rq=urecv, rq_db=1, ud=True))
    write('sw_wqe', 'ud-no-grh', sw_in(wqe('send', [dgram(grh=False), dseg(10, K_LOC, A_LOC)]),
                                       rq=urecv, rq_db=1, ud=True))
    write('sw_wqe', 'ud-small-recv', sw_in(wqe('send', [dgram(), dseg(100, K_LOC, A_LOC)]),
                                           rq=rq_wqe([dseg(50, K_SHM, A_SHM)]), rq_db=1, ud=True))
    write('sw_wqe', 'ud-too-long', sw_in(wqe('send', [dgram(), dseg(4000, K_LOC, A_LOC),
                                                      dseg(200, K_SHM, A_SHM)]),
                                         rq=urecv, rq_db=1, ud=True))


# -------------------------------------------------------------- mlx5_cqe
CQE_QPN = 0x123


def cqe(op, counter, owner=0, qpn=CQE_QPN, byte_cnt=0, imm=0, syndrome=0, wqe_op=0,
        size=64):
    b = bytearray(64)
    struct.pack_into('>I', b, 36, imm)
    struct.pack_into('>I', b, 44, byte_cnt)
    if op in (0xd, 0xe):
        b[55] = syndrome
        struct.pack_into('>I', b, 56, wqe_op << 24 | qpn)
    else:
        struct.pack_into('>I', b, 56, wqe_op << 24 | qpn)
    struct.pack_into('>H', b, 60, counter & 0xffff)
    b[63] = op << 4 | owner
    return bytes(size - 64) + bytes(b)


def cqe_in(shapes, nrecv, ring, flags=0):
    return bytes([flags, len(shapes)]) + bytes(shapes) + bytes([nrecv]) + ring


def gen_cqe():
    W, WS = 0x03, 0x0b          # WRITE 1 SGE (one WQEBB), unsignaled / signaled
    write('mlx5_cqe', 'req', cqe_in([WS] * 4, 0, b''.join(cqe(0, i, wqe_op=8) for i in range(4))))
    write('mlx5_cqe', 'req-128', cqe_in([WS] * 2, 0, b''.join(cqe(0, i, wqe_op=8, size=128)
                                                            for i in range(2)), flags=1))
    write('mlx5_cqe', 'recv', cqe_in([], 3, cqe(2, 0, byte_cnt=64) + cqe(3, 1, imm=9) +
                                     cqe(1, 2, byte_cnt=8)))
    write('mlx5_cqe', 'err-flush', cqe_in([WS] * 4, 2, cqe(0, 0, wqe_op=8) +
                                          cqe(0xd, 1, syndrome=0x04, wqe_op=8) +
                                          cqe(0xd, 2, syndrome=0x05, wqe_op=8) +
                                          cqe(0xd, 3, syndrome=0x05, wqe_op=8) +
                                          cqe(0xe, 0, syndrome=0x05) + cqe(0xe, 1, syndrome=0x05)))
    # selective signaling: sig_interval 4, one CQE retires four
    write('mlx5_cqe', 'selective', cqe_in([W, W, W, WS], 0, cqe(0, 3, wqe_op=8), flags=0x40))
    # unsignaled WQE named by an error CQE (ring walk)
    write('mlx5_cqe', 'err-unsignaled', cqe_in([W, W, W, W, W], 0,
                                               cqe(0xd, 2, syndrome=0x13, wqe_op=8), flags=0xf0))
    write('mlx5_cqe', 'unknown-qpn', cqe_in([WS], 0, cqe(0, 0, qpn=0x456) + cqe(0, 0, wqe_op=8)))
    write('mlx5_cqe', 'read-atomics', cqe_in([0x0d, 0x0e, 0x0f], 0,
                                             cqe(0, 0, wqe_op=0x10, byte_cnt=64) +
                                             cqe(0, 1, wqe_op=0x11) + cqe(0, 2, wqe_op=0x12)))
    # two laps: eight CQEs (owner 0), then the next lap (owner 1)
    lap0 = b''.join(cqe(2, i, byte_cnt=1) for i in range(8))
    lap1 = b''.join(cqe(0, i, owner=1, wqe_op=8) for i in range(7)) + cqe(0xf, 0, owner=1)
    write('mlx5_cqe', 'two-laps', cqe_in([WS] * 7, 8, lap0 + lap1, flags=0x0e))


def gen_dicts():
    def d(name, entries):
        with open(os.path.join(OUT, name + '.dict'), 'w') as f:
            f.write('# SPDX-License-Identifier: BSD-3-Clause\n')
            f.write('# libFuzzer dictionary for fuzz_%s (written by gen_seeds.py)\n' % name)
            for i, e in enumerate(entries):
                if isinstance(e, str):
                    e = e.encode()
                f.write('k%d="%s"\n' % (i, ''.join('\\x%02x' % c for c in e)))
    d('conn', [b'RDX1', struct.pack('>I', WIRE), struct.pack('>I', WIRE + 1), b'0.1.0',
               struct.pack('>I', 0xffffffff), struct.pack('>I', 1 << 20), struct.pack('>I', 1 << 20 | 1),
               b'[::1]:', b':18515', b'127.0.0.1'])
    opts = ['--test', 'echo', 'write', 'write_imm', 'read', 'send', 'cas', 'faa', '--mode',
            'lat', 'bw', '--size', '--all', '--sizes', '--iters', '--duration', '--warmup',
            '--qp', '--qp-sweep', '--tx-depth', '--post_list', '--inline_size', '--cq-mod',
            '--events', '--mtu', '--rx-depth', '--mem', 'host', 'huge', 'dm', '--verify',
            '--dev', '--driver', 'auto', 'mlx5', 'verbs', 'sw', '--server', '--connect',
            '--port', '--loopback', '--loopback-lcores', 'same', 'split', '--inject-bad-rkey',
            '--bootstrap-timeout', '--sw-progress', 'inline', 'thread', '--json', '--csv',
            '--output', '--report_gbits', '--label', '--concurrent-ops', '--servers', '--keys',
            '--help', '-s', '-a', '-n', '-D', '-q', '-t', '-l', '-I', '-Q', '-e', '-m', '-r',
            '-p', '-o', '-h', 'K', 'M', 'G', '4096', '65536', '1024', '*2', '1-', '.5s',
            '--wr-log', '-d', '-i', '-x', '-c', 'RC', 'UD', '-F', '-b', '-R', '-V', '--ib-dev',
            '--ib-port', '--gid-index', '--bidirectional', '--rdma_cm', '--output=bandwidth',
            '--output=latency', '--output=message_rate', '--run_infinitely', '--out_json',
            '--out_json_file', '--verbose', '--clusterperf', '--rate', '--rate-sweep', '-C', '-H',
            '--rate_limit', '20K', '1.5M', '127.0.0.1', 'poll']
    d('perf_opts', [o.encode() + b'\0' for o in opts])
    d('sw_wqe', [struct.pack('>I', k) for k in (K_SHM, K_LOC, K_RO, 0x100)] +
      [struct.pack('>Q', a) for a in (A_SHM, A_LOC, A_RO)] +
      [struct.pack('>I', QPN_A << 8 | ds) for ds in (1, 2, 3, 4, 5)] +
      [struct.pack('>I', 0x80000000 | n) for n in (8, 32, 124)] +
      [bytes([o]) for o in OP.values()] + [b'\x08', b'\x0a'])
    d('mlx5_cqe', [struct.pack('>I', CQE_QPN), struct.pack('>I', 0x08000000 | CQE_QPN),
                   struct.pack('>I', 0x10000000 | CQE_QPN), b'\x00', b'\x01', b'\x20', b'\x21',
                   b'\x30', b'\xd0', b'\xd1', b'\xe0', b'\xf0', b'\x04', b'\x05', b'\x13'])


# --------------------------------------------------------------- rpc_pkt
# fuzz_rpc_pkt.c: byte 0 picks the mtu (64 + 16 * b, at most 4064), byte 1
# the largest message ((b + 1) * 4096), then the packet: the 32-byte header
# of lib/rpc/rdx_rpc_proto.h (little-endian) and its payload.
def rpc_hdr(kind, flags, typ, sess, msg_len, rpc_id, off, length):
    return struct.pack('<BBBBBBHIIQII', 0xA7, 1, kind, flags, 0, 0, typ, sess,
                       msg_len, rpc_id, off, length)


def gen_rpc():
    lim = bytes([250, 255])      # mtu 4064, 1 MiB
    mtu = 4064
    write('rpc_pkt', 'data-first', lim + rpc_hdr(1, 0, 7, 0, 10000, 3, 0, mtu) + bytes(mtu))
    write('rpc_pkt', 'data-last-short', lim + rpc_hdr(1, 1, 7, 0, 10000, 3, 2 * mtu, 10000 - 2 * mtu)
          + bytes(10000 - 2 * mtu))
    write('rpc_pkt', 'data-empty', lim + rpc_hdr(1, 1, 7, 0, 0, 8, 0, 0))
    write('rpc_pkt', 'ack', lim + rpc_hdr(2, 1, 7, 0, 10000, 3, mtu, 0) + struct.pack('<Q', 2))
    write('rpc_pkt', 'grant', lim + rpc_hdr(3, 0, 7, 0, 100000, 3, 40000, 0))
    write('rpc_pkt', 'resend', lim + rpc_hdr(4, 1, 7, 0, 100000, 3, mtu, 2 * mtu))
    write('rpc_pkt', 'resend-probe', lim + rpc_hdr(4, 1, 7, 0, 0, 3, 0, 0))
    write('rpc_pkt', 'busy', lim + rpc_hdr(5, 1, 7, 0, 0, 3, 0, 0))
    write('rpc_pkt', 'small-mtu', bytes([0, 0]) + rpc_hdr(1, 0, 1, 2, 100, 1, 64, 36) + bytes(36))


def gen_all():
    gen_conn()
    gen_opts()
    gen_sw()
    gen_cqe()
    gen_rpc()
    gen_dicts()


def check():
    """0 when every file gen_all() writes equals the checked-in one."""
    global OUT
    OUT = tempfile.mkdtemp(prefix='rdx-seeds-')
    try:
        gen_all()
        stale = []
        n = 0
        for root, _, files in os.walk(OUT):
            for name in sorted(files):
                new = os.path.join(root, name)
                rel = os.path.relpath(new, OUT)
                n += 1
                old = os.path.join(HERE, rel)
                with open(new, 'rb') as f:
                    want = f.read()
                try:
                    with open(old, 'rb') as f:
                        have = f.read()
                except OSError:
                    have = None
                if have != want:
                    stale.append(rel)
    finally:
        shutil.rmtree(OUT)
    if stale:
        print('gen_seeds.py: %d of %d seeds/dictionaries differ from what this script writes '
              '(run python3 tests/fuzz/gen_seeds.py and commit): %s'
              % (len(stale), n, ' '.join(sorted(stale))))
        return 1
    print('gen_seeds.py: %d seeds and dictionaries as checked in' % n)
    return 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--check']:
        sys.exit(check())
    if sys.argv[1:]:
        sys.exit('usage: gen_seeds.py [--check]')
    gen_all()
