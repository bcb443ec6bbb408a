#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A hostile rdx-perf peer speaking the real two-process wire format.

Framing (lib/conn/rdx_conn_priv.h, big-endian): hello = "RDX1" | u32 wire
version | char version[16]; message = u32 type | u32 length | payload.
Payloads (apps/rdx-perf/perf_wire.h) are host-order structs: CONFIG
(struct wire_config, 344 bytes), EP (struct wire_ep, 136), RUN (struct
wire_run, 32), READY (= RUN), END (no payload), ENDACK (struct wire_end, 64).

  hostile_peer.py client PORT CASE   connect to an rdx-perf --server
  hostile_peer.py server PORT CASE   play the server for an rdx-perf --connect

Every case plays an honest peer up to the point it lies. Exit 0 once its
part is sent (what the real process does with it is the shell test's check).
"""
import socket
import struct
import sys
import time

MSG_CONFIG, MSG_EP, MSG_RUN, MSG_READY, MSG_END, MSG_ENDACK = range(0x5250, 0x5256)
# echo on lib/rpc (apps/rdx-perf/rpc_boot.c, wire version 4): RPC (struct
# wire_rpc), then per client lib/rpc's session info (RDX_RPC_CONN_MSG, its
# struct rdx_rpc_session_info), per run RPC_RUN (struct wire_rpc_run), ...
MSG_RPC, MSG_RPC_RUN, MSG_RPC_READY, MSG_RPC_END, MSG_RPC_ENDACK = range(0x5256, 0x525b)
MSG_RPC_INFO = 0x5250
# clients servers slots concurrent max_msg verify nb_mix pad
RPC = struct.Struct("=8I")
RPC_RUN = struct.Struct("=QII")  # size bye pad
HELLO = struct.Struct(">4sI16s")
HDR = struct.Struct(">II")
# struct wire_config: magic version app_version[16] test[16] mode nb_sizes
# sizes[32] total_qps window keys verify region_len rstride sq_depth
# transport flags (wire version 3; flags bit 0: -R)
CONFIG = struct.Struct("=II16s16sII32QIIIIQIIII")
RUN = struct.Struct("=QQIIII")
# verify_errors status pad ud_tx ud_rx; -b (wire version 5): the server's
# own loop: ops bytes ns qps lcores
END = struct.Struct("=QiIQQQQQII")
MSG_BIDIR_DONE = 0x525b  # -b: no payload, the server's loop is over
EP_LEN = 144
# offsets in struct wire_ep (struct rdx_qp_info is its first 104 bytes)
EP_SW_DOMAIN, EP_LEN_OFF, EP_RSLOTS = 48, 112, 136
assert CONFIG.size == 344 and RUN.size == 32 and END.size == 64


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        k = s.recv(n - len(b))
        if not k:
            raise EOFError("peer closed after %d of %d bytes" % (len(b), n))
        b += k
    return b


def recv_msg(s, want):
    t, n = HDR.unpack(recv_exact(s, HDR.size))
    if t != want:
        raise ValueError("got message type 0x%x, expected 0x%x" % (t, want))
    return recv_exact(s, n)


def send_msg(s, t, payload=b""):
    s.sendall(HDR.pack(t, len(payload)) + payload)


def hello(s, version=None, magic=b"RDX1"):
    """Send ours after reading theirs; returns their (wire version, version)."""
    _, wv, ver = HELLO.unpack(recv_exact(s, HELLO.size))
    s.sendall(HELLO.pack(magic, wv if version is None else version, ver))
    return wv, ver


def run_msg(size, req, stride, slots, qps=1, bye=0):
    return RUN.pack(size, req, stride, slots, qps, bye)


def client(port, case):
    s = socket.create_connection(("127.0.0.1", port), 5)
    s.settimeout(10)
    # stray connections: no hello at all
    if case == "close-at-once":
        s.close()
        return
    if case == "garbage":
        s.sendall(b"GET / HTTP/1.0\r\n\r\n" + bytes(range(256)) * 4)
        time.sleep(0.2)
        s.close()
        return
    if case == "silent":
        time.sleep(3)
        s.close()
        return
    if case == "hello-truncated":
        recv_exact(s, HELLO.size)
        s.sendall(b"RDX1\x00\x00")
        s.close()
        return
    if case == "wire-version":
        hello(s, version=99)
        time.sleep(1)
        return
    hello(s)
    cfg = list(CONFIG.unpack(recv_msg(s, MSG_CONFIG)))
    if case.startswith("rpc-"):
        return rpc_client(s, cfg, case)
    # the server's own plan is an honest client's plan with one QP
    cfg[-9] = 1  # total_qps
    lie = {
        "app-version": (2, b"9.9.9-evil"),
        "app-version-unterminated": (2, b"x" * 16),
        "test-unterminated": (3, b"A" * 16),
        "mode": (4, 7),
        "nb-sizes": (5, 1000),
        "total-qps": (-9, 1 << 30),
        "window": (-8, 0),
        "keys": (-7, 0),
        "verify": (-6, 9),
        "region-len": (-5, 1 << 40),
        "rstride": (-4, 0),
        "sq-depth": (-3, 3),
        "transport": (-2, 7),
        "transport-ud": (-2, 1),
        "config-pad": (-1, 5),
        "config-rdmacm": (-1, 1),  # CONFIG.flags: -R
    }
    if case in lie:
        i, v = lie[case]
        cfg[i] = v
    if case == "config-truncated":
        s.sendall(HDR.pack(MSG_CONFIG, 100) + CONFIG.pack(*cfg)[:100])
        time.sleep(1)
        return
    send_msg(s, MSG_CONFIG, CONFIG.pack(*cfg))
    if case in lie:
        time.sleep(1)
        return
    # EP: give the server its own QP back (it connects to itself)
    ep = bytearray(recv_msg(s, MSG_EP))
    if case == "ep-unterminated":
        ep[EP_SW_DOMAIN:EP_SW_DOMAIN + 48] = b"y" * 48
    elif case == "ep-rslots":
        struct.pack_into("=II", ep, EP_RSLOTS, 3, 64)
    elif case == "ep-len":
        struct.pack_into("=Q", ep, EP_LEN_OFF, 64)
    send_msg(s, MSG_EP, bytes(ep))
    if case.startswith("ep-"):
        time.sleep(1)
        return
    size = cfg[6]  # sizes[0]
    runs = {
        "size-4g": run_msg(1 << 32, 1 << 32, 64, 1),
        "size-3g": run_msg(3 << 30, 3 << 30, 3 << 30, 1),
        "size-1m": run_msg(1 << 20, 1 << 20, 1 << 20, 1),
        "stride-0": run_msg(size, size, 0, 1),
        "stride-huge": run_msg(size, size, 0xFFFFFFC0, 1),
        "slots-huge": run_msg(size, size, (size + 63) & ~63, 1 << 31),
        "slots-not-pow2": run_msg(size, size, (size + 63) & ~63, 3),
        "qps-huge": run_msg(size, size, (size + 63) & ~63, 1, qps=1 << 20),
        "qps-0": run_msg(size, size, (size + 63) & ~63, 1, qps=0),
        "bye-7": run_msg(0, 0, 0, 0, bye=7),
    }
    if case == "run-short":
        s.sendall(HDR.pack(MSG_RUN, 10) + b"\x01" * 10)
    elif case == "run-wrong-type":
        send_msg(s, 0xDEAD, b"z" * 32)
    elif case == "run-cut":
        s.sendall(HDR.pack(MSG_RUN, RUN.size) + b"\x00" * 10)
        s.close()
        return
    else:
        send_msg(s, MSG_RUN, runs[case])
    time.sleep(1)


def rpc_client(s, cfg, case):
    """Against rdx-perf --server --test echo --transport basic+infud."""
    send_msg(s, MSG_CONFIG, CONFIG.pack(*cfg))
    rpc = [1, 1, 8, 1, 1 << 20, 0, 0, 0]
    lie = {
        "rpc-clients": (0, 0), "rpc-servers": (1, 2), "rpc-slots": (2, 65),
        "rpc-concurrent": (3, 9), "rpc-max-msg": (4, 1 << 30), "rpc-max-msg-small": (4, 4096),
        "rpc-verify": (5, 9), "rpc-nb-mix": (6, 99), "rpc-pad": (7, 1),
    }
    if case in lie:
        i, v = lie[case]
        rpc[i] = v
    if case == "rpc-short":
        send_msg(s, MSG_RPC, RPC.pack(*rpc)[:10])
        time.sleep(1)
        return
    send_msg(s, MSG_RPC, RPC.pack(*rpc))
    if case in lie:
        time.sleep(1)
        return
    if recv_msg(s, MSG_RPC) != RPC.pack(*rpc):
        raise ValueError("the server answered RPC with another layout")
    # lib/rpc's session info: the server's own, with one field wrong
    info = bytearray(recv_msg(s, MSG_RPC_INFO))
    if case == "rpc-info-magic":
        struct.pack_into("=I", info, 0, 0x12345678)
    elif case == "rpc-info-version":
        struct.pack_into("=H", info, 4, 77)
    elif case == "rpc-info-max-msg":
        struct.pack_into("=I", info, 8, 1 << 21)
    elif case == "rpc-info-short":
        info = info[:20]
    send_msg(s, MSG_RPC_INFO, bytes(info))
    if case.startswith("rpc-info"):
        time.sleep(1)
        return
    run = {"rpc-run-bye": RPC_RUN.pack(0, 7, 0), "rpc-run-size": RPC_RUN.pack(12345, 0, 0),
           "rpc-run-pad": RPC_RUN.pack(100, 0, 3)}[case]
    send_msg(s, MSG_RPC_RUN, run)
    time.sleep(1)


def rpc_server(s, case):
    """Plays the server for rdx-perf --connect --test echo --transport basic+infud."""
    rpc = bytearray(recv_msg(s, MSG_RPC))
    if case == "rpc-layout-lie":
        struct.pack_into("=I", rpc, 8, 64)  # slots
    send_msg(s, MSG_RPC, bytes(rpc))
    time.sleep(2)


def server(port, case):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", port))
    ls.listen(1)
    ls.settimeout(20)
    s, _ = ls.accept()
    s.settimeout(20)
    # the client sends its hello first: ours is a copy of it
    s.sendall(recv_exact(s, HELLO.size))
    cfg = recv_msg(s, MSG_CONFIG)
    send_msg(s, MSG_CONFIG, cfg)
    if case.startswith("rpc-"):
        return rpc_server(s, case)
    total_qps = CONFIG.unpack(cfg)[-9]
    for _ in range(total_qps):
        ep = recv_msg(s, MSG_EP)
        send_msg(s, MSG_EP, ep)
    r = recv_msg(s, MSG_RUN)
    if case == "ready-lie":
        size, req, stride, slots, qps, bye = RUN.unpack(r)
        send_msg(s, MSG_READY, run_msg(size, req, stride, slots * 2, qps, bye))
        time.sleep(2)
        return
    send_msg(s, MSG_READY, r)
    recv_msg(s, MSG_END)
    if case.startswith("bidir-"):
        # a -b server: its loop "done", then counts that do not add up
        size = RUN.unpack(r)[0]
        send_msg(s, MSG_BIDIR_DONE)
        counts = {"bidir-bytes": (300, 300 * size + 1, 10 ** 6, total_qps, 1),
                  "bidir-noops": (0, 0, 10 ** 6, total_qps, 1),
                  "bidir-qps": (1000, 1000 * size, 10 ** 6, total_qps + 1, 1)}[case]
        send_msg(s, MSG_ENDACK, END.pack(0, 0, 0, 0, 0, *counts))
        time.sleep(2)
        return
    status = {"endack-eio": -5, "endack-positive": 7, "endack-huge": -100000,
              "endack-counts": 0}[case]
    # without -b the loop counts must be 0: endack-counts sends some
    extra = (5, 5, 5, 0, 0) if case == "endack-counts" else (0, 0, 0, 0, 0)
    send_msg(s, MSG_ENDACK, END.pack(0, status, 0, 0, 0, *extra))
    time.sleep(2)


def main():
    role, port, case = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    try:
        (client if role == "client" else server)(port, case)
    except (OSError, EOFError, ValueError) as e:
        # the real process may close first: that is its answer, not ours
        print("hostile_peer %s: %s" % (case, e), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
