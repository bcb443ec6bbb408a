#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where a two-process echo's round trip goes, from path stamps.

Reads the stamp files of the requester and the responder (rdx_stamp.h,
written by a -Dpath_stamps=true build with RDX_STAMPS set) and prints, for
each segment of the round trip, the median (and 10th/90th percentiles) over
the requests after the first tenth (warm-up), in nanoseconds:

  req post -> peer CQE   requester: post, its engine executes the request and
                         writes the responder's receive CQE (on its thread)
  peer CQE -> resp poll  the CQE's line crossing cores, the responder's poll
                         noticing it and returning it
  resp poll -> resp post the responder's app (the answer was built ahead)
  resp post -> peer CQE  responder: post, its engine, the requester's CQE
  peer CQE -> req poll   the line back, the requester's poll
  round trip             req post -> req poll (rdx-perf's own two stamps)

usage: echo_path.py REQUESTER_FILE RESPONDER_FILE
Exit 2 on bad input (a missing kind, counts that do not line up).
"""
import sys

KINDS = 5
REQ_POST, PEER_CQE, RESP_POLL, RESP_POST, REQ_POLL = range(KINDS)


def fail(msg):
    print("echo_path.py: " + msg, file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        lines = open(path).read().split("\n")
    except OSError as e:
        fail("cannot read %s: %s" % (path, e.strerror))
    hz, kinds, cur, left = None, {}, None, 0
    for ln, line in enumerate(lines, 1):
        if not line:
            continue
        f = line.split()
        try:
            if f[0] == "tsc_hz" and len(f) == 2:
                hz = int(f[1])
            elif f[0] == "kind" and len(f) == 3:
                if left:
                    fail("%s:%d: kind %d has %d stamps fewer than its count" % (path, ln, cur, left))
                cur, left = int(f[1]), int(f[2])
                kinds[cur] = []
            elif cur is not None and left > 0 and len(f) == 1:
                kinds[cur].append(int(f[0]))
                left -= 1
            else:
                fail("%s:%d: unexpected line '%s'" % (path, ln, line[:40]))
        except ValueError:
            fail("%s:%d: not a number in '%s'" % (path, ln, line[:40]))
    if left:
        fail("%s: kind %d has %d stamps fewer than its count" % (path, cur, left))
    if not hz:
        fail("%s: no tsc_hz line" % path)
    return hz, kinds


def pct(v, p):
    return v[min(len(v) - 1, int(p * len(v)))]


def main(argv):
    if len(argv) != 3:
        fail("usage: echo_path.py REQUESTER_FILE RESPONDER_FILE")
    hz, req = load(argv[1])
    hz2, rsp = load(argv[2])
    if hz != hz2:
        fail("the two files name different TSC rates (%d, %d)" % (hz, hz2))
    need = [(req, REQ_POST, "requester"), (req, PEER_CQE, "requester"), (rsp, RESP_POLL, "responder"),
            (rsp, RESP_POST, "responder"), (rsp, PEER_CQE, "responder"), (req, REQ_POLL, "requester")]
    for d, k, who in need:
        if not d.get(k):
            fail("the %s file has no stamps of kind %d (a -Dpath_stamps=true build of both ends?)" % (who, k))
    n = min(len(d[k]) for d, k, _ in need)
    if max(len(d[k]) for d, k, _ in need) != n:
        fail("stamp counts differ (%s): not one request per stamp" %
             ", ".join(str(len(d[k])) for d, k, _ in need))
    ns = 1e9 / hz
    chain = [("req post", req, REQ_POST), ("peer CQE", req, PEER_CQE), ("resp poll", rsp, RESP_POLL),
             ("resp post", rsp, RESP_POST), ("peer CQE", rsp, PEER_CQE), ("req poll", req, REQ_POLL)]
    lo = n // 10
    print("%d requests (the first %d left out); ns, p10 / p50 / p90" % (n - lo, lo))
    total = 0.0
    for (a, da, ka), (b, db, kb) in zip(chain, chain[1:]):
        v = sorted((db[kb][i] - da[ka][i]) * ns for i in range(lo, n))
        total += pct(v, 0.5)
        print("  %-24s %8.1f %8.1f %8.1f" % (a + " -> " + b, pct(v, 0.1), pct(v, 0.5), pct(v, 0.9)))
    v = sorted((req[REQ_POLL][i] - req[REQ_POST][i]) * ns for i in range(lo, n))
    print("  %-24s %8.1f %8.1f %8.1f  (sum of the medians %.1f)" % (
        "round trip", pct(v, 0.1), pct(v, 0.5), pct(v, 0.9), total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
